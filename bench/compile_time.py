"""Compile time and launch overhead on the host: no GPU needed.

    PYTHONPATH=python python3 bench/compile_time.py [OUTPUT_DIR]

For every example kernel of docs/examples: the cold compile time (parse,
lower and JIT in a fresh context) and the time of each pass of the host
pipeline (kiln-opt --mlir-timing; the rest of a compile is LLVM's code
generation at -O3); for a @kiln.jit kernel: the first launch
(translation + compile + run) against a cached launch; and the host launch
overhead of an empty kernel from Python. Writes compile_time.md and
compile_time.json to OUTPUT_DIR (default: bench/results). Timings are
medians of several runs on this machine's CPU; they are measurements, not
thresholds.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

import kiln  # noqa: E402
import kiln.language as kl  # noqa: E402
from kiln.host import HostExecutable  # noqa: E402

BUILD = Path(os.environ.get("KILN_BUILD_DIR", ROOT / "build"))
REPEATS = 5


def median_seconds(fn, repeats: int = REPEATS) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def cold_compile(source: str) -> float:
    def compile_once():
        with kiln.Context() as ctx:
            HostExecutable(kiln.Module.parse(ctx, source)).close()
    return median_seconds(compile_once)


def pass_times(path: Path) -> list[tuple[str, float]]:
    """(pass, seconds) of the host pipeline, slowest first, and
    ("pipeline", seconds) for all of it."""
    result = subprocess.run(
        [str(BUILD / "bin" / "kiln-opt"), str(path), "-kiln-host-lowering",
         "--mlir-timing", "--mlir-timing-display=list", "-o", os.devnull],
        capture_output=True, text=True, check=True)
    rows, total = [], 0.0
    row = re.compile(r"\s*[\d.]+ \(\s*[\d.]+%\)\s+([\d.]+) \(\s*[\d.]+%\)"
                     r"\s+(.+)")
    for line in result.stderr.splitlines():
        match = row.match(line)
        name = match[2].strip() if match else ""
        if match and name not in ("root", "Output", "Rest", "Total") and \
                not name.startswith("Pipeline Collection"):
            rows.append((name, float(match[1])))
        if match and name == "Total":
            total = float(match[1])
    return [("pipeline", total)] + sorted(rows, key=lambda r: -r[1])


@kiln.jit
def empty_kernel(x_ptr):
    pass


@kiln.jit
def scale_kernel(x_ptr, n, BLOCK: kl.constexpr):
    offs = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK)
    mask = offs < n
    kl.store(x_ptr + offs, kl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)


def main() -> None:
    out_dir = Path(sys.argv[1]) if len(sys.argv) > 1 else \
        ROOT / "bench" / "results"
    out_dir.mkdir(parents=True, exist_ok=True)
    report: dict = {"machine": os.uname().nodename, "examples": {},
                    "jit": {}, "launch_overhead_us": {}}
    for path in sorted((ROOT / "docs" / "examples").glob("*.mlir")):
        seconds = cold_compile(path.read_text())
        (_, pipeline), *passes = pass_times(path)
        report["examples"][path.stem] = {
            "cold_compile_ms": seconds * 1e3,
            "mlir_pipeline_ms": pipeline * 1e3,
            "slowest_passes_ms": {name: t * 1e3 for name, t in passes[:3]},
        }

    x = np.zeros(4096, np.float32)
    start = time.perf_counter()
    scale_kernel[(4,)](x, 4096, BLOCK=1024)
    first = time.perf_counter() - start
    cached = median_seconds(lambda: scale_kernel[(4,)](x, 4096, BLOCK=1024),
                            50)
    report["jit"]["scale_kernel"] = {"first_launch_ms": first * 1e3,
                                     "cached_launch_us": cached * 1e6}
    empty_kernel[(1,)](x)
    report["launch_overhead_us"]["empty_kernel_python"] = median_seconds(
        lambda: empty_kernel[(1,)](x), 200) * 1e6

    lines = ["# Compile time and launch overhead (host)", "",
             "| kernel | cold compile (ms) | of which MLIR passes (ms) | "
             "slowest passes (ms) |",
             "|---|---:|---:|---|"]
    for name, row in report["examples"].items():
        passes = ", ".join(f"{p}: {t:.1f}" for p, t in
                           row["slowest_passes_ms"].items())
        lines.append(f"| {name} | {row['cold_compile_ms']:.1f} | "
                     f"{row['mlir_pipeline_ms']:.1f} | {passes} |")
    jit = report["jit"]["scale_kernel"]
    lines += ["", f"@kiln.jit scale_kernel: first launch "
              f"{jit['first_launch_ms']:.1f} ms, cached launch "
              f"{jit['cached_launch_us']:.1f} us",
              f"Empty kernel launch from Python: "
              f"{report['launch_overhead_us']['empty_kernel_python']:.1f} us"]
    (out_dir / "compile_time.md").write_text("\n".join(lines) + "\n")
    (out_dir / "compile_time.json").write_text(json.dumps(report, indent=2))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
