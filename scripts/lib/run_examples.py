"""Kiln's main job, end to end: the example kernels of ``docs/examples``
compiled and run on random data, each checked against numpy.

Run by ``scripts/demo.sh``. The kernels run on the host target (the GPU
target is not built yet); the table gives each kernel's size, its compile
time, the median time of a launch and the largest error against numpy
(relative, or absolute below 1). Exits 1 if a result is wrong.
"""

from __future__ import annotations

import math
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

import kiln
from kiln.host import HostExecutable

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"


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


def main() -> int:
    print("target: host (CPU, LLVM JIT); the GPU target is not built yet\n")
    print(f"{'kernel':<12} {'size':<18} {'compile':>9} {'launch':>10} "
          f"{'max error':>10}  check")
    failed = 0
    with kiln.Context() as ctx:
        for case in cases(np.random.default_rng(0)):
            source = (EXAMPLES / f"{case.kernel}.mlir").read_text()
            start = time.perf_counter()
            exe = HostExecutable(kiln.Module.parse(ctx, source,
                                                   f"{case.kernel}.mlir"))
            compile_s = time.perf_counter() - start
            times = []
            for _ in range(5):
                start = time.perf_counter()
                exe.launch(case.kernel, case.grid, *case.args)
                times.append(time.perf_counter() - start)
            expected = case.expected()
            error = float(np.max(np.abs(case.output - expected) /
                                 np.maximum(np.abs(expected), 1.0)))
            ok = error <= case.tolerance
            failed += not ok
            print(f"{case.kernel:<12} {case.size:<18} {compile_s * 1e3:7.0f} ms"
                  f" {statistics.median(times) * 1e3:7.2f} ms {error:10.2e}"
                  f"  {'ok' if ok else 'WRONG'}")
            exe.close()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
