"""Kiln's main job, end to end: the example kernels of ``docs/examples``
compiled and run on random data, each checked against numpy.

Run by ``scripts/demo.sh``. The kernels run on the GPU where a CUDA driver
and device are found (through ``kiln-run``, which compiles them to PTX and a
cubin and times them with device events) and on the host target otherwise;
the table gives each kernel's size, its compile time, the median time of a
launch and the largest error against numpy (relative, or absolute below 1).
On the GPU the sizes are larger, and it adds the rate (GB/s moving each
array once, TFLOP/s for the matmul) and, where PyTorch sees the GPU, the
time of PyTorch's eager equivalent in the same run and Kiln's speed against
it. Exits 1 if a result is wrong.
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
from typing import Any, Callable

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
    #: PyTorch's eager equivalent: given torch and the case's arrays as
    #: CUDA tensors (in argument order), the function to time.
    peer: Callable[[Any, list], Callable[[], Any]]
    flops: float = 0.0


def cases(rng: np.random.Generator, gpu: bool) -> list[Case]:
    """The examples' launches: sizes that keep a GPU busy on one, sizes the
    host target runs in a moment otherwise."""
    n = 1 << 22 if gpu else 100_000
    x, y = rng.standard_normal((2, n), dtype=np.float32)
    out = np.zeros(n, np.float32)
    rows, cols = (8192 if gpu else 256), 1000
    s = (rng.standard_normal((rows, cols)) * 3).astype(np.float32)
    s_out = np.zeros_like(s)

    def softmax() -> np.ndarray:
        e = np.exp(s - s.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    g = (rng.standard_normal(n) * 3).astype(np.float32)
    g_out = np.zeros_like(g)
    c_out, t_out, r_out = (np.zeros(n, np.float32) for _ in range(3))
    erf = np.vectorize(math.erf)
    ln_rows, ln_cols = (8192 if gpu else 256), 768
    ln = rng.standard_normal((ln_rows, ln_cols)).astype(np.float32)
    ln_out = np.zeros_like(ln)
    w, bias = rng.standard_normal((2, ln_cols)).astype(np.float32)

    def layer_norm() -> np.ndarray:
        x64 = ln.astype(np.float64)
        mean = x64.mean(axis=1, keepdims=True)
        return (x64 - mean) / np.sqrt(x64.var(axis=1, keepdims=True)
                                      + 1e-5) * w + bias

    m, nn, k = (2048, 2048, 2048) if gpu else (200, 150, 300)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, nn)).astype(np.float16)
    c = np.zeros((m, nn), np.float32)
    elementwise = ((n + 1023) // 1024,)
    return [
        Case("vector_add", f"n={n}", elementwise, (x, y, out, n),
             out, lambda: x + y, 0.0,
             lambda torch, t: lambda: torch.add(t[0], t[1], out=t[2])),
        Case("cos_cos", f"n={n}", elementwise, (x, c_out, n),
             c_out, lambda: np.cos(np.cos(x.astype(np.float64))), 1e-5,
             lambda torch, t: lambda: torch.cos(torch.cos(t[0]))),
        Case("gelu", f"n={n}", elementwise, (g, g_out, n), g_out,
             lambda: 0.5 * g * (1 + erf(g / math.sqrt(2))), 1e-5,
             lambda torch, t: lambda: torch.nn.functional.gelu(t[0])),
        Case("gelu_tanh", f"n={n}", elementwise, (g, t_out, n),
             t_out, lambda: 0.5 * g * (1 + np.tanh(
                 math.sqrt(2 / math.pi) * (g + 0.044715 * g.astype(
                     np.float64) ** 3))), 1e-5,
             lambda torch, t: lambda: torch.nn.functional.gelu(
                 t[0], approximate="tanh")),
        Case("relu_axpb", f"n={n}", elementwise,
             (x, r_out, np.float32(1.5), np.float32(-0.25), n), r_out,
             lambda: np.maximum(1.5 * x - 0.25, 0), 1e-6,
             lambda torch, t: lambda: torch.relu(t[0] * 1.5 - 0.25)),
        Case("softmax", f"{rows}x{cols}", (rows,), (s, s_out, cols, cols),
             s_out, softmax, 1e-5,
             lambda torch, t: lambda: torch.softmax(t[0], dim=1)),
        Case("layer_norm", f"{ln_rows}x{ln_cols}", (ln_rows,),
             (ln, ln_out, w, bias, ln_cols, ln_cols, 1e-5), ln_out,
             layer_norm, 1e-4,
             lambda torch, t: lambda: torch.nn.functional.layer_norm(
                 t[0], (ln_cols,), t[2], t[3], 1e-5)),
        Case("matmul", f"{m}x{nn}x{k} f16", ((m + 63) // 64, (nn + 63) // 64),
             (a, b, c, m, nn, k), c,
             lambda: a.astype(np.float32) @ b.astype(np.float32), 1e-3,
             lambda torch, t: lambda: torch.matmul(t[0], t[1]),
             flops=2.0 * m * nn * k),
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


def torch_on_gpu() -> Any:
    """PyTorch, where it is installed and sees the GPU; else None."""
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


def peer_seconds(torch: Any, case: Case) -> float:
    """The median time of PyTorch's equivalent of `case` on the case's
    arrays, by CUDA events (after a warm-up), as kiln-run times Kiln's."""
    tensors = [torch.from_numpy(arg).cuda() if isinstance(arg, np.ndarray)
               else arg for arg in case.args]
    run = case.peer(torch, tensors)
    for _ in range(3):
        run()
    times = []
    for _ in range(50):
        start, end = (torch.cuda.Event(enable_timing=True) for _ in range(2))
        start.record()
        run()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / 1e3)
    return statistics.median(times)


def rate(case: Case, seconds: float) -> str:
    """TFLOP/s of a case that counts its FLOPs, else GB/s moving each of
    its arrays once (as kiln-run counts them)."""
    if case.flops:
        return f"{case.flops / seconds / 1e12:.1f} TFLOP/s"
    moved = sum(arg.nbytes for arg in case.args if isinstance(arg, np.ndarray))
    return f"{moved / seconds / 1e9:.0f} GB/s"


def main() -> int:
    gpu = kiln.cuda.is_available() and kiln.cuda.device_count() > 0
    torch = torch_on_gpu() if gpu else None
    if gpu:
        print(f"target: GPU ({kiln.cuda.device_info(0).name}), through "
              "kiln-run; " + ("PyTorch's eager equivalent timed beside it"
                              if torch else "PyTorch not found: no peer")
              + "\n")
    else:
        print("target: host (CPU, LLVM JIT): "
              f"{kiln.cuda.unavailable_reason() or 'no CUDA device'}\n")
    print(f"{'kernel':<12} {'size':<18} {'compile':>9} {'launch':>10} "
          + (f"{'rate':>14} {'PyTorch':>10} {'speed':>6} " if gpu else "")
          + f"{'max error':>10}  check")
    failed = 0
    with kiln.Context() as ctx:
        for case in cases(np.random.default_rng(0), gpu):
            compile_s, launch_s = (run_on_gpu(case) if gpu
                                   else run_on_host(ctx, case))
            expected = case.expected()
            error = float(np.max(np.abs(case.output - expected) /
                                 np.maximum(np.abs(expected), 1.0)))
            ok = error <= case.tolerance
            failed += not ok
            measured = ""
            if gpu:
                measured = f"{rate(case, launch_s):>14} "
                if torch:
                    peer_s = peer_seconds(torch, case)
                    measured += (f"{peer_s * 1e3:7.3f} ms "
                                 f"{peer_s / launch_s:5.2f}x ")
                else:
                    measured += f"{'-':>10} {'-':>6} "
            print(f"{case.kernel:<12} {case.size:<18} {compile_s * 1e3:7.0f} ms"
                  f" {launch_s * 1e3:7.3f} ms {measured}{error:10.2e}"
                  f"  {'ok' if ok else 'WRONG'}")
    if gpu and torch:
        print("\nspeed: PyTorch's time over Kiln's (above 1: Kiln is faster)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
