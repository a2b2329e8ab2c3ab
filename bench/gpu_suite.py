"""GPU benchmarks: the corpus of kernels written in Triton's idiom
(bench/corpus/timing.py: each compiled by Kiln and by Triton from the same
file, beside PyTorch doing the same work); the example kernels, Kiln
(through kiln-run) against PyTorch eager and torch.compile on the same
machine, in the same run (matmuls against torch.matmul and Triton), with
the device's bandwidth measured by a large device-to-device copy; and the
cost of a launch from Python (Kiln, PyTorch, Triton where installed), with
and without CUDA graphs.

    python3 bench/gpu_suite.py --out DIR [--kiln-run PATH]

Each kernel runs on arrays far larger than the L2 cache; times are medians
of device-event timings over many launches after a warm-up, inputs random
and non-zero. Kiln's correctness is checked by the GPU tests, not here.
Writes DIR/gpu_suite.md (a table), DIR/gpu_suite.json and, where
matplotlib is installed, DIR/roofline.png (bench/roofline.py, which can
also draw it later from the JSON).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
REPEATS = 100
#: Launches captured in one CUDA graph, for the launch overhead with graphs.
GRAPH_LAUNCHES = 100
#: What the suite measures, in order (what matters most first: a run
#: stopped at its time limit keeps the sections it finished); --sections
#: picks some.
SECTIONS = ("corpus", "shapes", "overhead", "kernels", "matmul", "mlp",
            "rows", "fuse")
#: The launch overhead table's columns: kernel, and whether through a graph.
OVERHEAD_COLUMNS = ("empty", "1-element add", "empty, CUDA graph",
                    "1-element add, CUDA graph")


def torch_time(fn, repeats: int = REPEATS) -> float:
    """Median seconds of `fn()` by CUDA events, after a warm-up."""
    import torch
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start, stop = (torch.cuda.Event(enable_timing=True) for _ in range(2))
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) / 1e3)
    return statistics.median(times)


def kiln_time(kiln_run: str, kernel: str, grid: tuple[int, ...],
              args: list[str], source: Path | None = None,
              num_warps: int = 4, tolerance: float | None = 1e-4,
              dims: tuple[int, ...] = ()) -> float:
    """Median seconds of a launch of an example kernel (or of `source`),
    from kiln-run, whose first launch is checked against the host target
    on the same inputs within `tolerance` (None: not checked). A kernel
    that fails its check raises, and its time is not reported. An empty
    `grid` runs an array function (its launch plan) on random inputs, its
    dynamic dimensions `dims`."""
    source = source or ROOT / "docs" / "examples" / f"{kernel}.mlir"
    check = (["--check=host", f"--tolerance={tolerance}"]
             if tolerance is not None else ["--check=none"])
    launch = (["--grid=" + ",".join(map(str, grid))] +
              [f"--arg={a}" for a in args] if grid else ["--init=rand"])
    if dims:
        launch.append("--dims=" + ",".join(map(str, dims)))
    command = [kiln_run, str(source), f"--kernel={kernel}", "--target=gpu",
               *check, f"--repeat={REPEATS}", f"--num-warps={num_warps}",
               *launch]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(result.stdout + result.stderr)
    per = re.search(r"([0-9.]+) ms per (?:launch|run)", result.stdout)
    return float(per[1]) / 1e3


def suite_kernels():
    """bench/suite_kernels.py, with the Kiln package of this tree (or of
    the bundle) importable."""
    sys.path.insert(0, str(ROOT / "python"))
    import suite_kernels as kernels
    return kernels


def eager_us(torch, launch: Callable[[], object],
             count: int = 2000) -> float:
    """Microseconds per launch of `launch()` called `count` times back to
    back, wall clock until the last is done, after a warm-up."""
    for _ in range(20):
        launch()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(count):
        launch()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / count * 1e6


def graph_us(torch, launch: Callable[[], object],
             count: int = GRAPH_LAUNCHES, replays: int = 50) -> float:
    """Microseconds per launch of `count` calls of `launch()` captured in
    one CUDA graph, replayed `replays` times: what a launch costs once the
    host's share is gone. `launch` must enqueue its work on
    torch.cuda.current_stream(), which is the capturing stream while the
    graph is captured."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    # Warm up off the default stream before capturing, as PyTorch asks.
    with torch.cuda.stream(side):
        for _ in range(3):
            launch()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(count):
            launch()
    graph.replay()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(replays):
        graph.replay()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / (replays * count) * 1e6


def kiln_module_launch(torch, kernel, grid: tuple[int, ...], *args,
                       **constexprs) -> Callable[[], None]:
    """A launch of `kernel`'s compiled specialization for `args` through its
    CudaModule (the checked path), on torch's current stream."""
    bound = kernel.bind(args, constexprs)
    types, constants = kernel.specialize(bound)
    module = kernel.compile_gpu(types, constants)
    values = [value for name, value in bound.arguments.items()
              if name not in kernel.constexprs]
    name = kernel.fn.__name__
    return lambda: module.launch(
        name, grid, *values, stream=torch.cuda.current_stream().cuda_stream)


def launch_overhead(torch) -> tuple[dict[str, dict[str, float]],
                                    dict[str, dict[str, str]]]:
    """Microseconds per launch from Python of an empty kernel and of a
    one-element add (Kiln's @kiln.jit and its CudaModule, a PyTorch op
    and, where installed, Triton), launched back to back and captured
    `GRAPH_LAUNCHES` at a time in a CUDA graph; wall
    clock over many launches. Returns the times and the reasons of
    skipped cells, by peer and OVERHEAD_COLUMNS column; a cell in neither
    does not apply (PyTorch has no empty kernel)."""
    kernels = suite_kernels()
    x = torch.zeros(1, device="cuda")
    peers: dict[str, dict[str, Callable[[], object]]] = {
        "kiln @jit": {
            "empty": lambda: kernels.empty[(1,)](x),
            "1-element add": lambda: kernels.add_one[(1,)](x, 1, BLOCK=32)}}
    skipped: dict[str, dict[str, str]] = {}
    try:
        peers["kiln CudaModule.launch"] = {
            "empty": kiln_module_launch(torch, kernels.empty, (1,), x),
            "1-element add": kiln_module_launch(torch, kernels.add_one, (1,),
                                                x, 1, BLOCK=32)}
    except Exception as error:  # a skipped row, not a crash
        skipped["kiln CudaModule.launch"] = {
            column: f"{type(error).__name__}: {str(error)[-300:]}"
            for column in OVERHEAD_COLUMNS}
    peers["torch x.add_(1)"] = {"1-element add": lambda: x.add_(1)}
    if kernels.TRITON_MISSING:
        skipped["triton @jit"] = dict.fromkeys(OVERHEAD_COLUMNS,
                                               kernels.TRITON_MISSING)
    else:
        peers["triton @jit"] = {
            "empty": lambda: kernels.triton_empty[(1,)](x),
            "1-element add": lambda: kernels.triton_add_one[(1,)](
                x, 1, BLOCK=32)}
    times: dict[str, dict[str, float]] = {}
    for peer, launches in peers.items():
        for kernel, launch in launches.items():
            for column, measure in ((kernel, eager_us),
                                    (f"{kernel}, CUDA graph", graph_us)):
                if column in skipped.get(peer, {}):
                    continue
                try:
                    times.setdefault(peer, {})[column] = measure(torch, launch)
                except Exception as error:  # a skipped cell, not a crash
                    skipped.setdefault(peer, {})[column] = \
                        f"{type(error).__name__}: {str(error)[-300:]}"
    return times, skipped


def overhead_table(times: dict[str, dict[str, float]],
                   skipped: dict[str, dict[str, str]]) -> list[str]:
    """The launch overhead as Markdown: a row per peer, "skipped" cells
    with their reasons below the table, "-" where a cell does not apply.

    >>> print("\\n".join(overhead_table(
    ...     {"torch x.add_(1)": {"1-element add": 4.25}},
    ...     {"triton @jit": {"empty": "no Triton"}})[3:]))
    | torch x.add_(1) | - | 4.25 | - | - |
    | triton @jit | skipped | - | - | - |
    <BLANKLINE>
    Skipped: triton @jit, empty: no Triton.
    """
    lines = ["", "| launch from Python, us per launch | " +
             " | ".join(OVERHEAD_COLUMNS) + " |",
             "|---|" + "---:|" * len(OVERHEAD_COLUMNS)]
    reasons = []
    for peer in dict.fromkeys(list(times) + list(skipped)):
        cells = []
        for column in OVERHEAD_COLUMNS:
            if column in times.get(peer, {}):
                cells.append(f"{times[peer][column]:.2f}")
            elif column in skipped.get(peer, {}):
                cells.append("skipped")
            else:
                cells.append("-")
        lines.append(f"| {peer} | " + " | ".join(cells) + " |")
        why = skipped.get(peer, {})
        if set(why) == set(OVERHEAD_COLUMNS) and len(set(why.values())) == 1:
            reasons.append(f"{peer}: {why[OVERHEAD_COLUMNS[0]]}")
        else:
            reasons += [f"{peer}, {column}: {reason}"
                        for column, reason in why.items()]
    if any(column.endswith("CUDA graph") for row in times.values()
           for column in row):
        lines += ["", f"A CUDA graph holds {GRAPH_LAUNCHES} launches; its "
                  "time per launch is a replay's over that."]
    if reasons:
        lines += [""] + [f"Skipped: {reason}." for reason in reasons]
    return lines


def triton_time(torch, launch: Callable[[], object], written,
                eager: Callable[[], object]) -> dict:
    """A Triton peer's time, after checking once that what it wrote
    matches PyTorch eager's result; else why it was not timed."""
    try:
        launch()
        torch.cuda.synchronize()
        expected = eager()
        if not torch.allclose(written, expected, rtol=1e-4, atol=1e-4):
            error = (written - expected).abs().max().item()
            return {"triton_error": f"wrong result (max error {error:.3g})"}
        return {"triton_s": torch_time(launch)}
    except Exception as error:  # a failed cell, not a crash
        return {"triton_error": str(error)[-500:]}


def mlp_source(scratch: Path, m: int, n: int, k: int) -> Path:
    """docs/examples/matmul_bias_gelu_array.mlir (100 x 200 times 200 x
    150) with other sizes, written to `scratch`."""
    text = (ROOT / "docs" / "examples" / "matmul_bias_gelu_array.mlir"
            ).read_text()
    for old, new in (("100x200", f"{m}x{k}"), ("200x150", f"{k}x{n}"),
                     ("100x150", f"{m}x{n}"),
                     ("tensor<150xf32>", f"tensor<{n}xf32>")):
        text = text.replace(old, new)
    source = scratch / f"mlp_{m}x{n}x{k}.mlir"
    source.write_text(text)
    return source


def mlp_rates(torch, kiln_run: str, scratch: Path) -> dict:
    """y = GELU(x @ w + b) in f16 at 4096³ (x f32 cast to f16, w f16, b
    f32, the tanh GELU): Kiln's array program (fused into one kernel by
    kiln-fuse, checked against the host target at the example's own size
    first), PyTorch eager, torch.compile and a fused Triton kernel
    (checked against eager), in the same run."""
    import torch.nn.functional as F
    size = 4096
    x = torch.randn(size, size, device="cuda")
    w = torch.randn(size, size, device="cuda", dtype=torch.float16)
    b = torch.randn(size, device="cuda")
    y = torch.empty(size, size, device="cuda", dtype=torch.float16)

    def eager():
        return F.gelu(torch.matmul(x.half(), w).float() + b,
                      approximate="tanh").half()

    row = {"size": size, "flops": 2 * size ** 3,
           "bytes": 4 * size * size + 2 * size * size + 4 * size +
           2 * size * size, "torch_s": torch_time(eager, 20)}
    try:
        kiln_time(kiln_run, "mlp", (), [], ROOT / "docs" / "examples" /
                  "matmul_bias_gelu_array.mlir", tolerance=2e-3)
        row["kiln_s"] = kiln_time(kiln_run, "mlp", (), [],
                                  mlp_source(scratch, size, size, size),
                                  tolerance=None)
    except Exception as error:  # reported, and the suite goes on
        row["kiln_error"] = str(error)[-500:]
    try:
        row["compiled_s"] = torch_time(torch.compile(eager), 20)
    except Exception as error:  # a skipped column, not a crash
        row["compiled_error"] = str(error)[-500:]
    try:
        peer = suite_kernels().triton_mlp
    except Exception:  # no Triton column, as without Triton
        peer = None
    if peer is not None:
        # kiln-tile's default blocks, kiln-run's default warps and stages.
        def launch():
            peer[(size // 64, size // 64)](x, w, b, y, size, size, size,
                                           BM=64, BN=64, BK=32, num_warps=4,
                                           num_stages=3)

        try:
            launch()
            torch.cuda.synchronize()
            expected = eager()
            if torch.allclose(y.float(), expected.float(), rtol=2e-2,
                              atol=5e-2):
                row["triton_s"] = torch_time(launch, 20)
            else:
                error = (y.float() - expected.float()).abs().max().item()
                row["triton_error"] = f"wrong result (max error {error:.3g})"
        except Exception as error:  # a failed cell, not a crash
            row["triton_error"] = str(error)[-500:]
    return row


ROW_SHAPES = [(32768, 1024), (4096, 8192), (512, 65536)]


# Kiln's array programs over rows or columns of dynamic length: kernel,
# example, the input dimensions --dims takes for x's [rows, columns], the
# bytes it moves at least (f32), PyTorch's peer.
ROW_PROGRAMS = [
    ("softmax", "softmax_rows_array.mlir", lambda r, c: (r, c),
     lambda r, c: 8 * r * c,
     lambda torch, x: lambda: torch.softmax(x, dim=-1)),
    ("layer_norm", "layer_norm_rows_array.mlir", lambda r, c: (r, c, c, c),
     lambda r, c: 8 * r * c + 8 * c,
     lambda torch, x: (lambda w, b: lambda: torch.nn.functional.layer_norm(
         x, (x.shape[-1],), w, b, eps=1e-5))(
             torch.randn(x.shape[-1], device="cuda"),
             torch.randn(x.shape[-1], device="cuda"))),
    # Reductions over the leading axis: x read once, two values a column.
    ("column_stats", "column_stats_array.mlir", lambda r, c: (r, c),
     lambda r, c: 4 * r * c + 8 * c,
     lambda torch, x: lambda: torch.var_mean(x, dim=0, unbiased=False)),
]


def row_rates(torch, kiln_run: str) -> list[dict]:
    """Each of ROW_PROGRAMS (docs/examples: a softmax and a layer norm
    over rows of dynamic length, each row walked in chunks of 512: read
    twice, written once; a column mean and variance, x read once in blocks
    of 32 columns) against PyTorch's softmax, layer_norm and var_mean in
    the same run; each checked against the host target at 7 x 3000
    first."""
    rows = []
    for kernel, example, dims, moved, peer in ROW_PROGRAMS:
        source = ROOT / "docs" / "examples" / example
        try:
            kiln_time(kiln_run, kernel, (), [], source, dims=dims(7, 3000))
            checked = None
        except Exception as error:  # reported in each of its rows
            checked = str(error)[-500:]
        for shape in ROW_SHAPES:
            x = torch.randn(*shape, device="cuda")
            row = {"program": kernel, "shape": list(shape),
                   "bytes": moved(*shape),
                   "torch_s": torch_time(peer(torch, x))}
            if checked is not None:
                row["kiln_error"] = checked
            else:
                try:
                    row["kiln_s"] = kiln_time(kiln_run, kernel, (), [], source,
                                              tolerance=None,
                                              dims=dims(*shape))
                except Exception as error:  # reported; the suite goes on
                    row["kiln_error"] = str(error)[-500:]
            rows.append(row)
    return rows


def row_table(rows: list[dict]) -> list[str]:
    """The programs over rows or columns of dynamic length as Markdown
    (GB/s of the bytes each moves at least: its inputs read and its
    results written once)."""
    lines = ["", "Over rows or columns of dynamic length "
             "(`softmax_rows_array.mlir`, `layer_norm_rows_array.mlir`, "
             "`column_stats_array.mlir`):", "",
             "| program | rows x columns | Kiln (us) | Kiln GB/s | "
             "PyTorch (us) | PyTorch GB/s | Kiln / PyTorch time |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for row in rows:
        torch_us = row["torch_s"] * 1e6
        torch_gbs = row["bytes"] / row["torch_s"] / 1e9
        shape = " x ".join(map(str, row["shape"]))
        if "kiln_s" in row:
            lines.append(
                f"| {row['program']} | {shape} | {row['kiln_s'] * 1e6:.1f} | "
                f"{row['bytes'] / row['kiln_s'] / 1e9:.0f} | {torch_us:.1f} | "
                f"{torch_gbs:.0f} | {row['kiln_s'] / row['torch_s']:.2f} |")
        else:
            lines.append(f"| {row['program']} | {shape} | failed | | "
                         f"{torch_us:.1f} | {torch_gbs:.0f} | |")
    return lines


def mlp_table(row: dict) -> list[str]:
    """The matmul + bias + GELU row as Markdown."""
    def cell(key):
        if key in row:
            return (f"{row[key] * 1e3:.3f} ms, "
                    f"{row['flops'] / row[key] / 1e12:.1f} TFLOP/s")
        return "failed" if key.replace("_s", "_error") in row else "skipped"
    ratio = (f"{row['kiln_s'] / row['torch_s']:.2f}" if "kiln_s" in row
             else "-")
    return ["", "| GELU(x @ w + b), f16, 4096³ | Kiln | torch eager | "
            "torch.compile | Triton | Kiln / torch time |",
            "|---|---|---|---|---|---:|",
            f"| fused | {cell('kiln_s')} | {cell('torch_s')} | "
            f"{cell('compiled_s')} | {cell('triton_s')} | {ratio} |"]


# Kiln's matmul examples: kernel, block of C (square), K step, warps.
# matmul_tma is matmul_large's blocking written with block pointers: on
# sm_90a its operands come by TMA instead of cp.async.
MATMUL_BLOCKINGS = [("matmul", 64, 32, 4), ("matmul_large", 128, 64, 8),
                    ("matmul_tma", 128, 64, 8)]


def matmul_rates(torch, kiln_run: str, scratch: Path) -> list[dict]:
    """TFLOP/s of fp16 and bf16 matmuls (fp32 accumulation) at 1024, 4096
    and 8192 for each of MATMUL_BLOCKINGS: Kiln's docs/examples/matmul.mlir
    (64x64x32 blocks, 4 warps), matmul_large.mlir (128x128x64, 8 warps;
    wgmma on sm_90a) and matmul_tma.mlir (the same through block pointers:
    TMA on sm_90a), tensor cores, 3-stage pipeline (their bf16
    twins written to `scratch`), through kiln-run; torch.matmul
    (cuBLAS), torch.compile of it and, where installed, a Triton kernel
    with the same blocking, in the same run."""
    try:
        triton_matmul = suite_kernels().triton_matmul
    except Exception:  # no Triton column, as without Triton
        triton_matmul = None
    rows = []
    # PyTorch's times by (size, type), measured once for all blockings:
    # torch.matmul (cuBLAS, the matmul ceiling) and torch.compile of it;
    # Triton's by (size, type, blocking), once per blocking.
    peers: dict[tuple[int, str], dict] = {}
    for kernel, block, step, warps in MATMUL_BLOCKINGS:
        rows += blocking_rates(torch, kiln_run, scratch, triton_matmul, peers,
                               kernel, block, step, warps)
    return rows


def pytorch_matmul_times(torch, a, b) -> dict:
    """torch.matmul's time, and torch.compile's of it (or why not)."""
    times = {"torch_s": torch_time(lambda: torch.matmul(a, b), 20)}
    try:
        compiled = torch.compile(lambda: torch.matmul(a, b))
        times["compiled_s"] = torch_time(compiled, 20)
    except Exception as error:  # a skipped cell, not a crash
        times["compiled_error"] = str(error)[-500:]
    return times


def blocking_rates(torch, kiln_run: str, scratch: Path, triton_matmul,
                   peers: dict, kernel: str, block: int, step: int,
                   warps: int) -> list[dict]:
    """matmul_rates for one blocking (PyTorch's times kept in `peers`)."""
    bf16_source = scratch / f"{kernel}_bf16.mlir"
    bf16_source.write_text((ROOT / "docs" / "examples" / f"{kernel}.mlir")
                           .read_text().replace("f16", "bf16"))
    blocks = f"{block}x{block}x{step}, {warps} warps"
    rows = []
    # Checked against the host target at 1024³ (the host takes too long
    # at the larger sizes, which only loop and launch more); a type that
    # fails there is not timed at all.
    checked: dict[str, str] = {}
    for (size, name) in [(s, n) for n in ("f16", "bf16")
                         for s in (1024, 4096, 8192)]:
        flops = 2 * size ** 3
        dtype = torch.float16 if name == "f16" else torch.bfloat16
        a = torch.randn(size, size, device="cuda", dtype=dtype)
        b = torch.randn(size, size, device="cuda", dtype=dtype)
        # A and B read once, the fp32 C written once.
        if (size, name) not in peers:
            peers[size, name] = pytorch_matmul_times(torch, a, b)
        row = {"size": size, "dtype": name, "blocks": blocks, "flops": flops,
               "bytes": 8 * size * size, **peers[size, name]}
        try:
            if checked.get(name):
                raise RuntimeError(f"failed its check at 1024³: "
                                   f"{checked[name]}")
            row["kiln_s"] = kiln_time(
                kiln_run, kernel, (size // block, size // block),
                [f"{name}[{size * size}]=rand", f"{name}[{size * size}]=rand",
                 f"f32[{size * size}]=zeros", f"i32={size}", f"i32={size}",
                 f"i32={size}"],
                None if name == "f16" else bf16_source, warps,
                tolerance=1e-3 if size == 1024 else None)
        except Exception as error:  # reported, and the suite goes on
            row["kiln_error"] = str(error)[-500:]
            if size == 1024:
                checked[name] = row["kiln_error"]
        triton_key = ("triton", size, name, block, step, warps)
        if triton_matmul is not None and triton_key not in peers:
            c = torch.empty(size, size, device="cuda", dtype=torch.float32)
            grid = (size // block, size // block)
            try:
                peers[triton_key] = {"triton_s": torch_time(
                    lambda: triton_matmul[grid](a, b, c, size, size, size,
                                                BM=block, BN=block, BK=step,
                                                num_warps=warps,
                                                num_stages=3), 20)}
            except Exception as error:  # a failed cell, not a crash
                peers[triton_key] = {"triton_error": str(error)[-500:]}
        row.update(peers.get(triton_key, {}))
        rows.append(row)
    return rows


def matmul_table(rows: list[dict]) -> list[str]:
    """The matmul rates as Markdown, Kiln as a fraction of cuBLAS."""
    def rate(row, key):
        return f"{row['flops'] / row[key] / 1e12:.1f}" if key in row else "-"
    lines = ["", "| matmul (fp32 acc.) | blocks | Kiln TFLOP/s | "
             "torch.matmul TFLOP/s | torch.compile TFLOP/s | Triton TFLOP/s "
             "| Kiln / torch rate |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for row in rows:
        ratio = (f"{row['torch_s'] / row['kiln_s']:.2f}" if "kiln_s" in row
                 else "failed")
        lines.append(f"| {row['dtype']} {row['size']}³ | "
                     f"{row['blocks']} | {rate(row, 'kiln_s')} | "
                     f"{rate(row, 'torch_s')} | {rate(row, 'compiled_s')} | "
                     f"{rate(row, 'triton_s')} | {ratio} |")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--kiln-run", default=str(
        Path(os.environ.get("KILN_BUILD_DIR", ROOT / "build")) / "bin" /
        "kiln-run"))
    parser.add_argument(
        "--sections", default=os.environ.get("KILN_GPU_SUITE_SECTIONS",
                                             ",".join(SECTIONS)),
        help="comma-separated, of " + ", ".join(SECTIONS) + " (default all; "
        "or $KILN_GPU_SUITE_SECTIONS)")
    options = parser.parse_args()
    wanted = set(options.sections.split(","))
    if not wanted <= set(SECTIONS):
        parser.error(f"unknown sections: {sorted(wanted - set(SECTIONS))}")
    options.out.mkdir(parents=True, exist_ok=True)
    try:
        import torch
        import torch.nn.functional as F
    except ImportError:
        print("gpu_suite: PyTorch is not installed; nothing measured")
        return 2
    if not torch.cuda.is_available():
        print("gpu_suite: PyTorch sees no GPU; nothing measured")
        return 2

    device = torch.cuda.get_device_name(0)
    n = 1 << 26  # 256 MiB of f32 per array
    rows, cols = 1 << 16, 1024
    x = torch.randn(n, device="cuda") + 0.1
    y = torch.randn(n, device="cuda") + 0.1
    big = torch.empty(1 << 30, dtype=torch.uint8, device="cuda")
    big_out = torch.empty_like(big)
    copy_s = torch_time(lambda: big_out.copy_(big), 20)
    copy_gbs = 2 * big.numel() / copy_s / 1e9
    m = torch.randn(rows, cols, device="cuda")
    w, b = torch.randn(2, cols, device="cuda")

    blocks = (n + 1023) // 1024
    f32n = f"f32[{n}]=rand"
    f32m = f"f32[{rows * cols}]=rand"
    # kernel: (kiln grid, kiln args, torch eager, bytes moved once, FLOPs).
    # FLOPs count each arithmetic operation and math function (cos, erf,
    # exp, ...) of an element once, row reductions once per element.
    cases = {
        "vector_add": ((blocks,), [f32n, f32n, f32n, f"i32={n}"],
                       lambda: x + y, 12 * n, n),
        "cos_cos": ((blocks,), [f32n, f32n, f"i32={n}"],
                    lambda: torch.cos(torch.cos(x)), 8 * n, 2 * n),
        "gelu": ((blocks,), [f32n, f32n, f"i32={n}"],
                 lambda: F.gelu(x), 8 * n, 5 * n),
        "gelu_tanh": ((blocks,), [f32n, f32n, f"i32={n}"],
                      lambda: F.gelu(x, approximate="tanh"), 8 * n, 9 * n),
        "relu_axpb": ((blocks,), [f32n, f32n, "f32=1.5", "f32=-0.25",
                                  f"i32={n}"],
                      lambda: torch.relu(1.5 * x - 0.25), 8 * n, 3 * n),
        "softmax": ((rows,), [f32m, f32m, f"i32={cols}", f"i32={cols}"],
                    lambda: torch.softmax(m, dim=1), 8 * rows * cols,
                    5 * rows * cols),
        "layer_norm": ((rows,), [f32m, f32m, f"f32[{cols}]=rand",
                                 f"f32[{cols}]=rand", f"i32={cols}",
                                 f"i32={cols}", "f32=1e-5"],
                       lambda: F.layer_norm(m, (cols,), w, b),
                       8 * rows * cols, 7 * rows * cols),
    }
    # Triton's peers (bench/suite_kernels.py), launched on the same
    # tensors: kernel name -> (launch, the tensor it writes).
    out, out_m = torch.empty_like(x), torch.empty_like(m)
    try:
        peers = suite_kernels().TRITON_BANDWIDTH
    except Exception:  # no Triton column, as without Triton
        peers = {}
    triton_launches = {
        "vector_add": (lambda k: k[(blocks,)](x, y, out, n, BLOCK=1024), out),
        "cos_cos": (lambda k: k[(blocks,)](x, out, n, BLOCK=1024), out),
        "gelu": (lambda k: k[(blocks,)](x, out, n, BLOCK=1024), out),
        "gelu_tanh": (lambda k: k[(blocks,)](x, out, n, BLOCK=1024), out),
        "relu_axpb": (lambda k: k[(blocks,)](x, out, 1.5, -0.25, n,
                                             BLOCK=1024), out),
        "softmax": (lambda k: k[(rows,)](m, out_m, cols, cols, BLOCK=cols),
                    out_m),
        "layer_norm": (lambda k: k[(rows,)](m, out_m, w, b, cols, cols, 1e-5,
                                            BLOCK=cols), out_m),
    }
    # The launch overhead first and each section's results written as soon
    # as it ends, so that a run stopped at a time limit keeps what it has.
    results = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
               "device": device, "torch": torch.__version__,
               "copy_GBps": copy_gbs, "kernels": []}
    lines = [f"# GPU suite: {device}, {results['date']}", "",
             f"Device-to-device copy (1 GiB, read + written): "
             f"{copy_gbs:.0f} GB/s."]
    print("\n".join(lines), flush=True)

    def section(new_lines: list[str]) -> None:
        lines.extend(new_lines)
        print("\n".join(new_lines), flush=True)
        (options.out / "gpu_suite.md").write_text("\n".join(lines) + "\n")
        (options.out / "gpu_suite.json").write_text(
            json.dumps(results, indent=2))

    if "corpus" in wanted:
        try:
            sys.path.insert(0, str(ROOT / "bench" / "corpus"))
            import timing
            results["corpus"] = timing.corpus_rows(torch)
            section(["", "The corpus (bench/corpus), each kernel compiled "
                     "by Kiln and by Triton from the same file:"] +
                    timing.table(results["corpus"]))
        except Exception as error:  # reported, and the suite goes on
            results["corpus_error"] = str(error)[-500:]
            section(["", f"corpus not measured: {error}"])
    if "shapes" in wanted:
        try:
            sys.path.insert(0, str(ROOT / "bench" / "corpus"))
            import matmul_shapes
            import timing
            flush = torch.empty(timing.FLUSH_BYTES, dtype=torch.int8,
                                device="cuda")
            results["shapes"] = matmul_shapes.shape_rows(
                torch, lambda fn: timing.median_seconds(torch, fn, flush))
            section(matmul_shapes.shape_table(results["shapes"]))
        except Exception as error:  # reported, and the suite goes on
            results["shapes_error"] = str(error)[-500:]
            section(["", f"matmul shapes not measured: {error}"])
    if "overhead" in wanted:
        try:
            times, skipped = launch_overhead(torch)
            results["launch_overhead_us"] = times
            results["launch_overhead_skipped"] = skipped
            results["launch_overhead_graph_launches"] = GRAPH_LAUNCHES
            section(overhead_table(times, skipped))
        except Exception as error:  # reported, and the suite goes on
            results["launch_overhead_error"] = str(error)[-500:]
            section(["", f"launch overhead not measured: {error}"])
    if "kernels" in wanted:
        section(["", "| kernel | Kiln (us) | Kiln GB/s | of copy | "
                 "torch eager (us) | torch GB/s | torch.compile (us) | "
                 "Triton (us) | Kiln / torch time |",
                 "|---|---:|---:|---:|---:|---:|---:|---:|---:|"])
        for name, (grid, args, eager, nbytes, flops) in cases.items():
            row = {"kernel": name, "bytes": nbytes, "flops": flops}
            try:
                row["kiln_s"] = kiln_time(options.kiln_run, name, grid, args)
            except Exception as error:  # reported, and the suite goes on
                row["kiln_error"] = str(error)[-500:]
            row["torch_s"] = torch_time(eager)
            try:
                row["compiled_s"] = torch_time(torch.compile(eager))
            except Exception as error:  # a skipped column, not a crash
                row["compiled_error"] = str(error)[-500:]
            if name in peers:
                launch, written = triton_launches[name]
                row.update(triton_time(torch, lambda: launch(peers[name]),
                                       written, eager))
            compiled = (f"{row['compiled_s'] * 1e6:.1f}"
                        if "compiled_s" in row else "skipped")
            peer = (f"{row['triton_s'] * 1e6:.1f}" if "triton_s" in row
                    else "failed" if "triton_error" in row else "skipped")
            results["kernels"].append(row)
            if "kiln_s" in row:
                gbs = nbytes / row["kiln_s"] / 1e9
                section([
                    f"| {name} | {row['kiln_s'] * 1e6:.1f} | {gbs:.0f} | "
                    f"{gbs / copy_gbs:.0%} | {row['torch_s'] * 1e6:.1f} | "
                    f"{nbytes / row['torch_s'] / 1e9:.0f} | {compiled} | "
                    f"{peer} | {row['kiln_s'] / row['torch_s']:.2f} |"])
            else:
                section([f"| {name} | failed | | | "
                         f"{row['torch_s'] * 1e6:.1f} | | {compiled} | "
                         f"{peer} | |"])
    # The kernels' generated sources stay out of the results folder.
    with tempfile.TemporaryDirectory(prefix="kiln-gpu-suite-") as scratch:
        if "matmul" in wanted:
            results["matmul"] = matmul_rates(torch, options.kiln_run,
                                             Path(scratch))
            section(matmul_table(results["matmul"]))
        if "mlp" in wanted:
            results["mlp"] = mlp_rates(torch, options.kiln_run,
                                       Path(scratch))
            section(mlp_table(results["mlp"]))
    if "rows" in wanted:
        results["rows"] = row_rates(torch, options.kiln_run)
        section(row_table(results["rows"]))
    if "fuse" in wanted:
        import fuse_programs
        results["fuse"] = fuse_programs.fuse_rates(torch, torch_time)
        section(fuse_programs.fuse_table(results["fuse"]))
    if wanted == set(SECTIONS):
        section(["", roofline_plot(results, options.out / "roofline.png")])
    measured = results["kernels"] + results.get("matmul", []) + \
        results.get("rows", []) + ([results["mlp"]] if "mlp" in results
                                   else [])
    measured += results.get("corpus", []) + results.get("shapes", [])
    failed = "launch_overhead_error" in results or \
        "corpus_error" in results or "shapes_error" in results or not all(
            "kiln_s" in row and row.get("matches_triton", True)
            for row in measured)
    return 1 if failed else 0


def roofline_plot(results: dict, path: Path) -> str:
    """Draws the run's roofline plot at `path` (bench/roofline.py); a line
    that says where it is or why there is none, also left in `results`. A
    plot that fails loses nothing else of the run."""
    try:
        import roofline
        roofline.write_roofline(results, path)
    except Exception as error:  # RooflineError, or matplotlib failing
        results["roofline_error"] = str(error)
        return f"No roofline plot: {error}"
    results["roofline_png"] = path.name
    return f"Roofline plot: {path.name}."


if __name__ == "__main__":
    sys.exit(main())
