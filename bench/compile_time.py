"""Compile time and launch overhead on the host: no GPU needed.

    PYTHONPATH=python python3 bench/compile_time.py [OUTPUT_DIR]

For every example kernel of docs/examples: the cold compile time (parse,
lower and JIT in a fresh context) and the time of each pass of the host
pipeline (kiln-opt --mlir-timing; the rest of a compile is LLVM's code
generation at -O3); for a @kiln.jit kernel: the first launch
(translation + compile + run), the first launch of a new process with the
host object in the disk cache, and a cached launch; and the host launch
overhead of an empty kernel from Python. Then, where ptxas is found,
the GPU compile for sm_90a of four kernels written twice, with @kiln.jit
and, where Triton is installed, with @triton.jit (vector add, softmax of a
row, layer norm of a row, a 64x64x32 fp16 matmul): cold (a fresh disk
cache) and cached (a hit in that cache) compile times from the Python
function to a cubin, and the registers and spills ptxas -v reports, both
compilers using the same release of ptxas (Triton the program, Kiln in
process where it has the PTX compiler library). Writes compile_time.md and
compile_time.json to OUTPUT_DIR (default: bench/results). Timings are
medians of several runs on this machine's CPU; they are measurements, not
thresholds.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

import kiln  # noqa: E402
import kiln.language as kl  # noqa: E402
from kiln.gpu import _parse_ptxas_log, find_ptxas, ptx_assembler  # noqa: E402
from kiln.host import HostExecutable  # noqa: E402

import triton_peer  # noqa: E402

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


# The GPU compile against Triton: each kernel twice, with the same text but
# for `kl`/`tl` (the Triton vector add, softmax and layer norm in
# bench/suite_kernels.py, which the GPU suite times too), at module level
# because both compilers look a kernel's names up among its module's
# globals.

#: The chip Kiln compiles for; Triton compiles capability 9.0 as sm_90a.
CHIP = "sm_90a"
NUM_WARPS, NUM_STAGES = 4, 3


@kiln.jit
def vector_add(x_ptr, y_ptr, out_ptr, n, BLOCK: kl.constexpr):
    offsets = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK)
    mask = offsets < n
    kl.store(out_ptr + offsets, kl.load(x_ptr + offsets, mask=mask) +
             kl.load(y_ptr + offsets, mask=mask), mask=mask)


@kiln.jit
def softmax(in_ptr, out_ptr, row_stride, n_cols, BLOCK: kl.constexpr):
    row = kl.program_id(0)
    cols = kl.arange(0, BLOCK)
    mask = cols < n_cols
    x = kl.load(in_ptr + row * row_stride + cols, mask=mask,
                other=-float("inf"))
    x = x - kl.max(x, axis=0)
    numerator = kl.exp(x)
    kl.store(out_ptr + row * row_stride + cols,
             numerator / kl.sum(numerator, axis=0), mask=mask)


@kiln.jit
def layer_norm(x_ptr, y_ptr, w_ptr, b_ptr, row_stride, n_cols, eps,
               BLOCK: kl.constexpr):
    row = kl.program_id(0)
    cols = kl.arange(0, BLOCK)
    mask = cols < n_cols
    x = kl.load(x_ptr + row * row_stride + cols, mask=mask, other=0.0)
    mean = kl.sum(x, axis=0) / n_cols
    diff = kl.where(mask, x - mean, 0.0)
    rstd = kl.rsqrt(kl.sum(diff * diff, axis=0) / n_cols + eps)
    w = kl.load(w_ptr + cols, mask=mask)
    b = kl.load(b_ptr + cols, mask=mask)
    kl.store(y_ptr + row * row_stride + cols, diff * rstd * w + b, mask=mask)


@kiln.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: kl.constexpr,
           BLOCK_N: kl.constexpr, BLOCK_K: kl.constexpr):
    rows = kl.program_id(0) * BLOCK_M + kl.arange(0, BLOCK_M)
    cols = kl.program_id(1) * BLOCK_N + kl.arange(0, BLOCK_N)
    ks = kl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rows[:, None] * K + ks[None, :]
    b_ptrs = b_ptr + ks[:, None] * N + cols[None, :]
    acc = kl.zeros((BLOCK_M, BLOCK_N), kl.float32)
    for k in range(0, K, BLOCK_K):
        a = kl.load(a_ptrs, mask=(rows[:, None] < M) & (ks[None, :] < K - k),
                    other=0.0)
        b = kl.load(b_ptrs, mask=(ks[:, None] < K - k) & (cols[None, :] < N),
                    other=0.0)
        acc += kl.dot(a, b)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * N
    kl.store(c_ptr + rows[:, None] * N + cols[None, :], acc,
             mask=(rows[:, None] < M) & (cols[None, :] < N))


try:
    import triton
    import triton.language as tl
    from triton.backends.compiler import GPUTarget
except ImportError as error:
    TRITON_MISSING: str | None = f"Triton is not installed ({error})"
    TRITON_KERNELS: dict = {}
else:
    TRITON_MISSING = None

    # The vector add, softmax and layer norm: the GPU suite's Triton peers
    # (bench/suite_kernels.py), in the words of their @kiln.jit twins above.
    from suite_kernels import (triton_layer_norm, triton_softmax,
                               triton_vector_add)

    @triton.jit
    def triton_matmul(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr,
                      BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
        rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
        cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
        ks = tl.arange(0, BLOCK_K)
        a_ptrs = a_ptr + rows[:, None] * K + ks[None, :]
        b_ptrs = b_ptr + ks[:, None] * N + cols[None, :]
        acc = tl.zeros((BLOCK_M, BLOCK_N), tl.float32)
        for k in range(0, K, BLOCK_K):
            a = tl.load(a_ptrs,
                        mask=(rows[:, None] < M) & (ks[None, :] < K - k),
                        other=0.0)
            b = tl.load(b_ptrs,
                        mask=(ks[:, None] < K - k) & (cols[None, :] < N),
                        other=0.0)
            acc += tl.dot(a, b)
            a_ptrs += BLOCK_K
            b_ptrs += BLOCK_K * N
        tl.store(c_ptr + rows[:, None] * N + cols[None, :], acc,
                 mask=(rows[:, None] < M) & (cols[None, :] < N))

    TRITON_KERNELS = {"vector_add": triton_vector_add,
                      "softmax": triton_softmax,
                      "layer_norm": triton_layer_norm,
                      "matmul": triton_matmul}


def gpu_kernels() -> dict[str, tuple]:
    """Row name -> (Kiln kernel, arguments, constexprs): launches on
    arrays of 4096 elements, 1024-element rows, 1024-square matrices."""
    def zeros(shape, dtype=np.float32):
        return np.zeros(shape, dtype)
    rows = zeros((16, 1024))
    square_f16 = zeros((1024, 1024), np.float16)
    return {
        "vector_add": (vector_add, (zeros(4096), zeros(4096), zeros(4096),
                                    4096), {"BLOCK": 1024}),
        "softmax (row of 1024)": (softmax, (rows, zeros((16, 1024)), 1024,
                                            1024), {"BLOCK": 1024}),
        "layer_norm (row of 1024)": (
            layer_norm, (rows, zeros((16, 1024)), zeros(1024), zeros(1024),
                         1024, 1024, 1e-5), {"BLOCK": 1024}),
        "matmul (64x64x32 blocks, fp16)": (
            matmul, (square_f16, square_f16, zeros((1024, 1024)), 1024, 1024,
                     1024), {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}),
    }


def ptxas_version(ptxas: str) -> str:
    """The release line of ``ptxas --version``."""
    output = subprocess.run([ptxas, "--version"], capture_output=True,
                            text=True).stdout
    return next((line for line in output.splitlines() if "release" in line),
                output.strip())


@contextlib.contextmanager
def environment(**variables: str):
    """Sets environment variables for the block, then restores them."""
    saved = {name: os.environ.get(name) for name in variables}
    os.environ.update(variables)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@contextlib.contextmanager
def fresh_cache(variable: str):
    """An empty cache directory named by ``variable`` for the block."""
    with tempfile.TemporaryDirectory() as folder, \
            environment(**{variable: folder}):
        yield


def spilled(report: dict) -> int:
    """Bytes of spill stores and spill loads together."""
    return report["spill_stores"] + report["spill_loads"]


def kiln_gpu(kernel, args: tuple, constexprs: dict) -> dict:
    """Kiln's compile for CHIP. Cold: from the Python function to a cubin
    stored in the disk cache, in a fresh cache directory (`warmup`, whose
    SASS is disassembled only when read: Triton's compile has no
    counterpart of it). Cached: what a launch in a new process does when
    the disk cache holds the cubin (the kernel's source fingerprint, the
    specialization, the entry read: `cached_binary`); the kernel's source
    is read and parsed once a process, as Triton reads its kernels' at
    decoration, and neither figure counts that."""
    def compile_cold():
        with fresh_cache("KILN_CACHE_DIR"):
            return kernel.warmup(*args, chip=CHIP, num_warps=NUM_WARPS,
                                 num_stages=NUM_STAGES, **constexprs)

    def compile_cached():
        binary = kernel.cached_binary(*args, chip=CHIP, num_warps=NUM_WARPS,
                                      num_stages=NUM_STAGES, **constexprs)
        if binary is None:
            raise RuntimeError(f"{kernel.__name__}: not in the cache")
        binary.close()

    with fresh_cache("KILN_CACHE_DIR"):
        metadata = kernel.warmup(*args, chip=CHIP, num_warps=NUM_WARPS,
                                 num_stages=NUM_STAGES,
                                 **constexprs).metadata
        cached = median_seconds(compile_cached)
    return {"cold_ms": median_seconds(compile_cold) * 1e3,
            "cached_ms": cached * 1e3, "registers": metadata.registers,
            "spill_stores": metadata.spill_stores,
            "spill_loads": metadata.spill_loads}


def triton_gpu(kernel, args: tuple, constexprs: dict) -> dict:
    """Triton's compile for capability 9.0 (sm_90a), from the Python
    function to a cubin: cold in a fresh TRITON_CACHE_DIR, cached as a hit
    there. Registers and spills from Triton's own ptxas -v log."""
    source = triton_peer.source(kernel, dict(zip(kernel.arg_names, args)),
                                constexprs)

    def compile_():
        triton.compile(source, target=GPUTarget("cuda", 90, 32),
                       options={"num_warps": NUM_WARPS,
                                "num_stages": NUM_STAGES})

    def compile_cold():
        with fresh_cache("TRITON_CACHE_DIR"):
            compile_()

    with fresh_cache("TRITON_CACHE_DIR"):
        log = io.StringIO()
        with environment(TRITON_DUMP_PTXAS_LOG="1"), \
                contextlib.redirect_stdout(log):
            compile_()
        cached = median_seconds(compile_)
    found = _parse_ptxas_log(log.getvalue()).get(kernel.__name__)
    if found is None:
        raise RuntimeError(f"no ptxas report of {kernel.__name__}")
    return {"cold_ms": median_seconds(compile_cold) * 1e3,
            "cached_ms": cached * 1e3, "registers": found["registers"],
            "spill_stores": found["spill_stores"],
            "spill_loads": found["spill_loads"]}


def gpu_compile() -> tuple[dict, list[str]]:
    """The GPU compile section of the report: its JSON and its Markdown."""
    ptxas = find_ptxas()
    if ptxas is None:
        reason = "ptxas was not found (KILN_PTXAS, PATH, CUDA_HOME)"
        return {"skipped": reason}, ["", f"GPU compile: skipped, {reason}."]
    version = ptxas_version(ptxas)
    assembler = ptx_assembler()
    section: dict = {"chip": CHIP, "ptxas": ptxas, "ptxas_version": version,
                     "kiln_assembler": assembler,
                     "triton": None if TRITON_MISSING else triton.__version__,
                     "triton_skipped": TRITON_MISSING, "kernels": {}}
    # Both compilers assemble with the same release of ptxas: Triton runs
    # the program, Kiln its own choice (in process where it has the PTX
    # compiler library). Triton keeps its default FMA fusion (which it
    # warns it will change) without the warning.
    with environment(TRITON_PTXAS_PATH=ptxas,
                     TRITON_PTXAS_BLACKWELL_PATH=ptxas,
                     TRITON_DEFAULT_FP_FUSION="1"):
        for name, (kernel, args, constexprs) in gpu_kernels().items():
            row = section["kernels"][name] = {
                "kiln": kiln_gpu(kernel, args, constexprs)}
            peer = TRITON_KERNELS.get(kernel.__name__)
            if peer is None:
                continue
            try:
                row["triton"] = triton_gpu(peer, args, constexprs)
            except Exception as error:  # a failed peer is a cell, not a crash
                row["triton_error"] = str(error)[-500:]

    def cell(row: dict, peer: str, key: str) -> str:
        if peer in row:
            return f"{row[peer][key]:.1f}"
        return "failed" if f"{peer}_error" in row else "skipped"

    def ratio(row: dict, key: str) -> str:
        if "triton" not in row:
            return "-"
        return f"{row['kiln'][key] / row['triton'][key]:.2f}"

    def both(row: dict, show) -> str:
        peer = show(row["triton"]) if "triton" in row else "-"
        return f"{show(row['kiln'])} / {peer}"

    lines = ["", f"## GPU compile for {CHIP}, Kiln against Triton "
             f"{section['triton'] or '(skipped)'}", "",
             f"ptxas: {version}; Triton runs {ptxas}, Kiln {assembler}", "",
             "| kernel | Kiln cold (ms) | Triton cold (ms) | Kiln / Triton | "
             "Kiln cached (ms) | Triton cached (ms) | Kiln / Triton | "
             "registers, Kiln / Triton | spilled bytes (stores + loads), "
             "Kiln / Triton |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, row in section["kernels"].items():
        lines.append(
            f"| {name} | {cell(row, 'kiln', 'cold_ms')} | "
            f"{cell(row, 'triton', 'cold_ms')} | {ratio(row, 'cold_ms')} | "
            f"{cell(row, 'kiln', 'cached_ms')} | "
            f"{cell(row, 'triton', 'cached_ms')} | "
            f"{ratio(row, 'cached_ms')} | "
            f"{both(row, lambda r: r['registers'])} | "
            f"{both(row, spilled)} |")
    if TRITON_MISSING:
        lines += ["", f"Triton skipped: {TRITON_MISSING}."]
    for name, row in section["kernels"].items():
        if "triton_error" in row:
            lines += ["", f"Triton failed on {name}: {row['triton_error']}"]
    return section, lines


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Timings are medians of several runs on this machine's CPU.")
    parser.add_argument("output_dir", nargs="?", type=Path,
                        default=ROOT / "bench" / "results",
                        help="where compile_time.md and compile_time.json "
                        "go (default: bench/results)")
    out_dir = parser.parse_args().output_dir
    out_dir.mkdir(parents=True, exist_ok=True)
    report: dict = {"machine": os.uname().nodename, "examples": {},
                    "jit": {}, "launch_overhead_us": {}}
    for path in sorted((ROOT / "docs" / "examples").glob("*.mlir")):
        if path.stem.endswith("_array"):
            continue  # a whole-tensor program, not a tile kernel
        seconds = cold_compile(path.read_text())
        (_, pipeline), *passes = pass_times(path)
        report["examples"][path.stem] = {
            "cold_compile_ms": seconds * 1e3,
            "mlir_pipeline_ms": pipeline * 1e3,
            "slowest_passes_ms": {name: t * 1e3 for name, t in passes[:3]},
        }

    x = np.zeros(4096, np.float32)
    with fresh_cache("KILN_CACHE_DIR"):
        start = time.perf_counter()
        scale_kernel[(4,)](x, 4096, BLOCK=1024)
        first = time.perf_counter() - start
        # A new jit function of the same source, as in a second process:
        # its first launch links the object the disk cache keeps.
        again = kiln.jit(scale_kernel.fn)
        start = time.perf_counter()
        again[(4,)](x, 4096, BLOCK=1024)
        from_disk = time.perf_counter() - start
    cached = median_seconds(lambda: scale_kernel[(4,)](x, 4096, BLOCK=1024),
                            50)
    report["jit"]["scale_kernel"] = {"first_launch_ms": first * 1e3,
                                     "disk_hit_launch_ms": from_disk * 1e3,
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
              f"{jit['first_launch_ms']:.1f} ms, first launch of a new "
              f"process (a disk hit) {jit['disk_hit_launch_ms']:.1f} ms, "
              f"cached launch {jit['cached_launch_us']:.1f} us",
              f"Empty kernel launch from Python: "
              f"{report['launch_overhead_us']['empty_kernel_python']:.1f} us"]
    report["gpu_compile"], gpu_lines = gpu_compile()
    lines += gpu_lines
    (out_dir / "compile_time.md").write_text("\n".join(lines) + "\n")
    (out_dir / "compile_time.json").write_text(json.dumps(report, indent=2))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
