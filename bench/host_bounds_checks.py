"""What the host target's bounds checks cost: no GPU needed.

    PYTHONPATH=python python3 bench/host_bounds_checks.py

Runs kernels of the corpus (Triton's idiom) on the host target with
bounds checks (the default) and without (``KILN_HOST_CHECK_BOUNDS=0``),
alternating, and prints the median time of each and their ratio. The
checks test a tile's accesses at once where they fall in the array their
pointer came from, so the ratio is the price of keeping them on.
Measurements, not thresholds.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent / "python"))
sys.path.insert(0, str(ROOT / "corpus"))

import layer_norm  # noqa: E402
import matmul  # noqa: E402
import softmax  # noqa: E402
import vector_add  # noqa: E402


def cases() -> dict:
    rng = np.random.default_rng(0)
    x = rng.standard_normal(1 << 22, dtype=np.float32)
    rows = rng.standard_normal((4096, 1024), dtype=np.float32)
    weight, bias = rng.standard_normal((2, 1024), dtype=np.float32)
    a = rng.standard_normal((256, 256), dtype=np.float32).astype(np.float16)
    return {
        "vector add, 4M f32": lambda: vector_add.add(x, x),
        "softmax, 4096x1024 f32": lambda: softmax.softmax(rows),
        "layer norm, 4096x1024 f32":
            lambda: layer_norm.layer_norm(rows, weight, bias),
        "matmul, 256^3 f16": lambda: matmul.matmul(a, a),
    }


def median_seconds(run, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()
    print("| kernel | checked (ms) | unchecked (ms) | checked / unchecked |")
    print("|---|---|---|---|")
    for name, run in cases().items():
        seconds = {}
        for setting in ("", "0"):  # compile (and warm) both first
            os.environ["KILN_HOST_CHECK_BOUNDS"] = setting
            run()
        for setting in ("", "0") * 2:
            os.environ["KILN_HOST_CHECK_BOUNDS"] = setting
            seconds.setdefault(setting, []).append(median_seconds(run, 3))
        checked, unchecked = min(seconds[""]), min(seconds["0"])
        print(f"| {name} | {checked * 1e3:.1f} | {unchecked * 1e3:.1f} | "
              f"{checked / unchecked:.2f} |")


if __name__ == "__main__":
    main()
