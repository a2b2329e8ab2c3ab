"""Launch overhead from Python against the stand-in CUDA driver: no GPU
needed.

    PYTHONPATH=python python3 bench/launch_overhead.py [OUTPUT_DIR]

Times the cache-hit launch of two `@kiln.jit` kernels written as
`bench/kiln-launch-overhead`'s (an empty kernel with one pointer, and a
one-element add), passed a tensor as PyTorch presents one (attributes and
methods in C, read by the launch extension itself) and an array with only
`__cuda_array_interface__` (as CuPy presents one, read in Python), through
the stand-in driver (`build/unittests/libKilnFakeCudaDriver.so`, whose
launch records the launch and returns): what Kiln's own code costs per
launch, the driver's share being almost nothing. Beside it, in the same run, `kiln-launch-overhead`
through the same driver: `cuLaunchKernel` called directly, and Kiln's C++
runtime (`Module::launch`). The ratio to `cuLaunchKernel` is issue 28's
stand-in figure. Writes launch_overhead.md and launch_overhead.json to
OUTPUT_DIR (default: bench/results). Medians of several runs; measurements,
not thresholds.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
BUILD = Path(os.environ.get("KILN_BUILD_DIR", ROOT / "build")).resolve()
FAKE = BUILD / "unittests" / "libKilnFakeCudaDriver.so"
os.environ["KILN_CUDA_DRIVER"] = str(FAKE)
os.environ.setdefault("KILN_PTXAS", "/nonexistent")  # PTX is what it loads
sys.path.insert(0, str(ROOT / "python"))

import kiln  # noqa: E402
import kiln.language as kl  # noqa: E402

LAUNCHES = 20_000
REPEATS = 5


class DeviceArray:
    """A device array as CuPy presents one; the stand-in's "device" memory
    is host memory."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array
        self.__cuda_array_interface__ = {
            "data": (array.ctypes.data, False), "shape": array.shape,
            "typestr": array.dtype.str, "version": 3}


class TorchTensor(DeviceArray):
    """A CUDA tensor as PyTorch presents one: what a launch reads of it
    are attributes and C methods."""

    def __init__(self, array: np.ndarray) -> None:
        super().__init__(array)
        self.is_cuda, self.requires_grad = True, False
        self.dtype = "torch.float32"
        self.data_ptr = array.ctypes.data.__int__
        self.numel = array.size.__int__
        self.get_device = (0).__int__


@kiln.jit
def empty(x_ptr):
    pass


@kiln.jit
def add_one(x_ptr, n):
    offsets = kl.arange(0, 32)
    mask = offsets < n
    kl.store(x_ptr + offsets, kl.load(x_ptr + offsets, mask=mask) + 1.0,
             mask=mask)


def per_launch_us(launch) -> float:
    """The median over REPEATS of LAUNCHES back-to-back launches, per
    launch."""
    launch()  # compiles, loads and registers the cache-hit path
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        for _ in range(LAUNCHES):
            launch()
        times.append((time.perf_counter() - start) / LAUNCHES)
    return statistics.median(times) * 1e6


def runtime_rows() -> dict[tuple[str, str], float]:
    """kiln-launch-overhead's host microseconds per launch, by (kernel,
    path), through the same driver."""
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "report.json"
        subprocess.run([str(BUILD / "bin" / "kiln-launch-overhead"),
                        f"--launches={LAUNCHES}", f"--repeat={REPEATS}",
                        f"--json={report}"], check=True,
                       stdout=subprocess.DEVNULL)
        rows = json.loads(report.read_text())["rows"]
    return {(row["kernel"], row["path"]): row["host_us"] for row in rows}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("output_dir", nargs="?", type=Path,
                        default=ROOT / "bench" / "results",
                        help="where launch_overhead.md and .json go "
                             "(default: bench/results)")
    out_dir = parser.parse_args().output_dir
    if not FAKE.exists():
        print(f"launch_overhead: the stand-in driver is not built ({FAKE})")
        return 77
    python = {}
    for argument, kind in (("PyTorch tensor", TorchTensor),
                           ("CuPy array", DeviceArray)):
        x = kind(np.zeros(32, np.float32))
        python[("empty", argument)] = per_launch_us(lambda: empty[(1,)](x))
        python[("add_one", argument)] = per_launch_us(
            lambda: add_one[(1,)](x, 1))
    runtime = runtime_rows()
    report = {"launches": LAUNCHES, "repeats": REPEATS, "rows": []}
    lines = ["# Launch overhead against the stand-in CUDA driver", "",
             f"Host microseconds per launch, medians of {REPEATS} runs of "
             f"{LAUNCHES} back-to-back launches.", "",
             "| kernel | argument | `@kiln.jit` cache hit | Kiln's C++ "
             "runtime (`Module::launch`) | `cuLaunchKernel` | cache hit "
             "minus `cuLaunchKernel` | cache hit / `cuLaunchKernel` |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for (kernel, argument), seconds in python.items():
        raw = runtime[(kernel, "cuLaunchKernel")]
        module = runtime[(kernel, "Module::launch")]
        report["rows"].append({"kernel": kernel, "argument": argument,
                               "jit_us": seconds,
                               "module_launch_us": module,
                               "cu_launch_kernel_us": raw})
        lines.append(f"| {kernel} | {argument} | {seconds:.2f} | "
                     f"{module:.2f} | {raw:.2f} | {seconds - raw:.2f} | "
                     f"{seconds / raw:.0f}x |")
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "launch_overhead.md").write_text("\n".join(lines) + "\n")
    (out_dir / "launch_overhead.json").write_text(
        json.dumps(report, indent=2) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
