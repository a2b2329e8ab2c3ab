"""Kiln's main job, end to end: the example kernels of ``docs/examples``
compiled and run on random data, each checked against numpy.

Run by ``scripts/demo.sh``. The kernels run on the GPU where a CUDA driver
and device are found (through ``kiln-run``, which compiles them to PTX and a
cubin and times them with device events) and on the host target otherwise;
the table gives each kernel's size, its compile time, the median time of a
launch and the largest error against numpy (relative, or absolute below 1).
Exits 1 if a result is wrong.
"""

from __future__ import annotations

import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

import kiln
import kiln.cuda
from kiln.host import HostExecutable

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "docs" / "examples"
KILN_RUN = Path(os.environ.get("KILN_BUILD_DIR", ROOT / "build")) / "bin" / \
    "kiln-run"


@dataclass
class Case:
    """One run of an example kernel: its launch and the numpy reference."""

    kernel: str
    size: str
    grid: tuple[int, ...]
    args: tuple
    output: np.ndarray
    expected: Callable[[], np.ndarray]
    tolerance: float


def cases(rng: np.random.Generator) -> list[Case]:
    n = 100_000
    x, y = rng.standard_normal((2, n), dtype=np.float32)
    out = np.zeros(n, np.float32)
    rows, cols = 256, 1000
    s = (rng.standard_normal((rows, cols)) * 3).astype(np.float32)
    s_out = np.zeros_like(s)

    def softmax() -> np.ndarray:
        e = np.exp(s - s.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    g = (rng.standard_normal(n) * 3).astype(np.float32)
    g_out = np.zeros_like(g)
    c_out, t_out, r_out = (np.zeros(n, np.float32) for _ in range(3))
    erf = np.vectorize(math.erf)
    ln_rows, ln_cols = 256, 768
    ln = rng.standard_normal((ln_rows, ln_cols)).astype(np.float32)
    ln_out = np.zeros_like(ln)
    w, bias = rng.standard_normal((2, ln_cols)).astype(np.float32)

    def layer_norm() -> np.ndarray:
        x64 = ln.astype(np.float64)
        mean = x64.mean(axis=1, keepdims=True)
        return (x64 - mean) / np.sqrt(x64.var(axis=1, keepdims=True)
                                      + 1e-5) * w + bias

    m, nn, k = 200, 150, 300
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, nn)).astype(np.float16)
    c = np.zeros((m, nn), np.float32)
    return [
        Case("vector_add", f"n={n}", ((n + 1023) // 1024,), (x, y, out, n),
             out, lambda: x + y, 0.0),
        Case("cos_cos", f"n={n}", ((n + 1023) // 1024,), (x, c_out, n),
             c_out, lambda: np.cos(np.cos(x.astype(np.float64))), 1e-5),
        Case("gelu", f"n={n}", ((n + 1023) // 1024,), (g, g_out, n), g_out,
             lambda: 0.5 * g * (1 + erf(g / math.sqrt(2))), 1e-5),
        Case("gelu_tanh", f"n={n}", ((n + 1023) // 1024,), (g, t_out, n),
             t_out, lambda: 0.5 * g * (1 + np.tanh(
                 math.sqrt(2 / math.pi) * (g + 0.044715 * g.astype(
                     np.float64) ** 3))), 1e-5),
        Case("relu_axpb", f"n={n}", ((n + 1023) // 1024,),
             (x, r_out, np.float32(1.5), np.float32(-0.25), n), r_out,
             lambda: np.maximum(1.5 * x - 0.25, 0), 1e-6),
        Case("softmax", f"{rows}x{cols}", (rows,), (s, s_out, cols, cols),
             s_out, softmax, 1e-5),
        Case("layer_norm", f"{ln_rows}x{ln_cols}", (ln_rows,),
             (ln, ln_out, w, bias, ln_cols, ln_cols, 1e-5), ln_out,
             layer_norm, 1e-4),
        Case("matmul", f"{m}x{nn}x{k} f16", ((m + 63) // 64, (nn + 63) // 64),
             (a, b, c, m, nn, k), c,
             lambda: a.astype(np.float32) @ b.astype(np.float32), 1e-3),
    ]


def run_on_host(ctx: kiln.Context, case: Case) -> tuple[float, float]:
    """Compiles and runs `case` on the host; (compile, launch) seconds."""
    source = (EXAMPLES / f"{case.kernel}.mlir").read_text()
    start = time.perf_counter()
    exe = HostExecutable(kiln.Module.parse(ctx, source, f"{case.kernel}.mlir"))
    compile_s = time.perf_counter() - start
    times = []
    for _ in range(5):
        start = time.perf_counter()
        exe.launch(case.kernel, case.grid, *case.args)
        times.append(time.perf_counter() - start)
    exe.close()
    return compile_s, statistics.median(times)


def run_on_gpu(case: Case) -> tuple[float, float]:
    """Runs `case` with kiln-run on the GPU, its result read back into
    `case.output`; (compile, launch) seconds."""
    with tempfile.TemporaryDirectory() as tmp:
        command = [str(KILN_RUN), str(EXAMPLES / f"{case.kernel}.mlir"),
                   f"--kernel={case.kernel}", "--target=gpu", "--check=none",
                   "--repeat=50",
                   "--grid=" + ",".join(map(str, case.grid))]
        output = None
        for i, arg in enumerate(case.args):
            if isinstance(arg, np.ndarray):
                np.save(Path(tmp) / f"{i}.npy", arg)
                command.append(f"--arg=@{tmp}/{i}.npy")
                if arg is case.output:
                    output = i
            elif isinstance(arg, (float, np.floating)):
                command.append(f"--arg=f32={float(arg)!r}")
            else:
                command.append(f"--arg=i32={int(arg)}")
        command.append(f"--save={output}={tmp}/out.npy")
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(result.stdout + result.stderr)
        case.output[...] = np.load(Path(tmp) / "out.npy").reshape(
            case.output.shape)
        compiled = re.search(r"compiled in (\d+) ms", result.stdout)
        launch = re.search(r"([0-9.]+) ms per launch", result.stdout)
        return float(compiled[1]) / 1e3, float(launch[1]) / 1e3


def main() -> int:
    gpu = kiln.cuda.is_available() and kiln.cuda.device_count() > 0
    if gpu:
        print(f"target: GPU ({kiln.cuda.device_info(0).name}), through "
              "kiln-run\n")
    else:
        print("target: host (CPU, LLVM JIT): "
              f"{kiln.cuda.unavailable_reason() or 'no CUDA device'}\n")
    print(f"{'kernel':<12} {'size':<18} {'compile':>9} {'launch':>10} "
          f"{'max error':>10}  check")
    failed = 0
    with kiln.Context() as ctx:
        for case in cases(np.random.default_rng(0)):
            compile_s, launch_s = (run_on_gpu(case) if gpu
                                   else run_on_host(ctx, case))
            expected = case.expected()
            error = float(np.max(np.abs(case.output - expected) /
                                 np.maximum(np.abs(expected), 1.0)))
            ok = error <= case.tolerance
            failed += not ok
            print(f"{case.kernel:<12} {case.size:<18} {compile_s * 1e3:7.0f} ms"
                  f" {launch_s * 1e3:7.3f} ms {error:10.2e}"
                  f"  {'ok' if ok else 'WRONG'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
