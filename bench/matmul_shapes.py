"""The GPU suite's ``shapes`` section (issue 25's benchmark):
``kiln.ops.matmul`` at the square sizes and at the shapes LLMs run, beside
``torch.matmul`` (cuBLAS) and Triton, in one run.

For each shape, on the same tensors:

- Kiln: the plan ``kiln.ops.gemm.heuristic`` picks, and the fastest of
  ``gemm.configs`` (what ``kiln.ops.matmul(..., tune=True)`` picks);
- Triton: the same file (``python/kiln/ops/gemm.py``) compiled by Triton,
  each of the same configs timed and the fastest kept (Triton's best
  autotuned kernel over that space);
- ``torch.matmul`` (cuBLAS); for 8-bit floats, ``torch._scaled_mm``.

A call is timed whole, as a user makes it: C's allocation (zeroed for the
split and stream kernels) and, for those, the rounding of the float32 C to
its type. Times are medians of device events with the L2 cache
flushed before each launch (``bench/corpus/timing.py``). Each plan's
result, Kiln's and Triton's, is checked against PyTorch's before it is
timed (a plan that fails is left out of the fastest).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

#: The corpus's folder, whose compare.py loads gemm.py on Triton.
CORPUS = Path(__file__).resolve().parent / "corpus"

#: Square sizes, both types.
SQUARE = [(size, size, size, dtype) for dtype in ("float16", "bfloat16")
          for size in (4096, 8192)]
#: Decode and prefill shapes: M rows of activations times a K x N weight.
LLM = [(m, n, k, "float16") for m in (1, 16, 64, 128)
       for n in (4096, 8192, 14336) for k in (4096, 8192, 14336)]
#: 8-bit floats (e4m3, B stored N x K as torch._scaled_mm takes it, scales
#: of one, bfloat16 out) against torch._scaled_mm.
FP8 = [(size, size, size, "float8_e4m3fn") for size in (4096, 8192)]
SHAPES = SQUARE + FP8 + LLM
#: Timed launches per median.
REPEATS = 20


def describe(plan) -> str:
    """A plan in a few words: ``split_k 4, 16x64x128``."""
    cut = {"tiles": "", "split_k": f" {plan.split}",
           "stream_k": f" {plan.programs}"}[plan.kernel]
    return (f"{plan.kernel}{cut}, {plan.block_m}x{plan.block_n}x"
            f"{plan.block_k}")


def _fastest(time, run, plans, check) -> tuple:
    """(seconds, plan) of the fastest of ``plans`` by ``time(run(plan))``,
    each plan's result passed to ``check`` (which raises where it is
    wrong) before it is timed; plans that fail either are skipped (None
    where all do)."""
    best = (math.inf, None)
    for plan in plans:
        try:
            check(run(plan))
            best = min(best, (time(lambda: run(plan)), plan),
                       key=lambda pair: pair[0])
        except Exception:  # a config one compiler cannot build or gets wrong
            continue
    return best if best[1] is not None else (None, None)


def _checker(torch, want):
    """A check of a result against ``want``, PyTorch's."""
    def check(got):
        if not torch.allclose(got.float(), want.float(), atol=2e-2,
                              rtol=2e-2):
            error = (got.float() - want.float()).abs().max().item()
            raise AssertionError(f"wrong result (max error {error:.3g})")
    return check


def _operands(torch, m: int, n: int, k: int, dtype: str,
              device: str) -> tuple:
    """(A, B, PyTorch's call, C's type) for one shape: torch.matmul of
    16-bit floats in their type; torch._scaled_mm of 8-bit ones (B
    column-major) into bfloat16."""
    kind = getattr(torch, dtype)
    if dtype.startswith("float8"):
        a = torch.randn(m, k, device=device).to(kind)
        b = (torch.randn(n, k, device=device) / math.sqrt(k)).to(kind).T
        one = torch.ones((), device=device)
        return a, b, lambda: torch._scaled_mm(
            a, b, scale_a=one, scale_b=one,
            out_dtype=torch.bfloat16), "bfloat16"
    a = torch.randn(m, k, dtype=kind, device=device)
    b = torch.randn(k, n, dtype=kind, device=device) / math.sqrt(k)
    return a, b, lambda: torch.matmul(a, b), dtype


def shape_rows(torch, time, shapes=SHAPES, device="cuda") -> list[dict]:
    """Each shape timed: ``time(fn)`` is seconds per call of ``fn``."""
    if str(CORPUS) not in sys.path:
        sys.path.insert(0, str(CORPUS))
    import compare
    from kiln.ops import gemm
    triton_gemm = compare.load_triton("gemm")
    rows = []
    for m, n, k, dtype in shapes:
        row = {"shape": [m, n, k], "dtype": dtype, "flops": 2 * m * n * k}
        a, b, peer, out = _operands(torch, m, n, k, dtype, device)
        want = peer()
        row["torch_s"] = time(peer)
        check = _checker(torch, want)
        plans = gemm.configs(m, n, k, gemm.multiprocessors(a))
        try:
            check(gemm.run(a, b, plans[0], 1.0, out))
            row["kiln_plan"] = describe(plans[0])
            row["kiln_s"] = time(lambda: gemm.run(a, b, plans[0], 1.0, out))
            tuned_s, tuned = _fastest(
                time, lambda p: gemm.run(a, b, p, 1.0, out), plans, check)
            row["tuned_s"], row["tuned_plan"] = tuned_s, describe(tuned)
        except Exception as error:  # a failed cell, not a crash
            row["kiln_error"] = str(error)[-500:]
        triton_s, best = _fastest(
            time, lambda p: triton_gemm.run(a, b, triton_gemm.Plan(
                **vars(p)), 1.0, out), plans, check)
        if best is not None:
            row["triton_s"], row["triton_plan"] = triton_s, describe(best)
        rows.append(row)
    return rows


def shape_table(rows: list[dict]) -> list[str]:
    """The rows as Markdown: TFLOP/s, plans, and Kiln's fraction of
    cuBLAS (torch.matmul's time over Kiln's)."""
    lines = ["", "kiln.ops.matmul by shape (bench/matmul_shapes.py): the "
             "heuristic's plan and the fastest config, beside torch.matmul "
             "and Triton's fastest config of the same file:", "",
             "| M x N x K | type | Kiln plan | Kiln TFLOP/s | tuned "
             "TFLOP/s (plan) | torch.matmul TFLOP/s | Triton TFLOP/s "
             "(plan) | Kiln / cuBLAS | tuned / cuBLAS |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|"]

    def rate(row, key):
        return f"{row['flops'] / row[key] / 1e12:.1f}" if key in row else "-"

    def fraction(row, key):
        return (f"{row['torch_s'] / row[key]:.2f}" if key in row
                else "failed")

    for row in rows:
        shape = " x ".join(str(size) for size in row["shape"])
        tuned = (f"{rate(row, 'tuned_s')} ({row['tuned_plan']})"
                 if "tuned_s" in row else "-")
        triton = (f"{rate(row, 'triton_s')} ({row['triton_plan']})"
                  if "triton_s" in row else "failed")
        lines.append(f"| {shape} | {row['dtype']} | "
                     f"{row.get('kiln_plan', 'failed')} | "
                     f"{rate(row, 'kiln_s')} | {tuned} | "
                     f"{rate(row, 'torch_s')} | {triton} | "
                     f"{fraction(row, 'kiln_s')} | "
                     f"{fraction(row, 'tuned_s')} |")
    errors = [f"- {' x '.join(map(str, row['shape']))}: {row['kiln_error']}"
              for row in rows if "kiln_error" in row]
    return lines + ([""] + errors if errors else [])
