"""The GPU suite's ``fuse`` section: array programs written with PyTorch
and run by ``kiln.fuse`` on CUDA tensors, and by ``torch.compile`` with
``kiln.dynamo_backend``, against PyTorch eager and ``torch.compile``
(inductor) in the same run (issue 27's speed table). Each Kiln result is
checked against eager before it is timed."""

from __future__ import annotations

from typing import Callable


def programs(torch) -> list[tuple]:
    """(name, inputs, function, FLOPs, bytes moved at least, tolerance)."""
    import torch.nn.functional as F
    cuda = {"device": "cuda"}
    n = 4096
    x16, w16 = (torch.randn(n, n, dtype=torch.float16, **cuda),
                torch.randn(n, n, dtype=torch.float16, **cuda) / 64)
    b16 = torch.randn(n, dtype=torch.float16, **cuda)
    rows = torch.randn(4096, 8192, **cuda)
    gamma, beta = torch.randn(8192, **cuda), torch.randn(8192, **cuda)
    flat = torch.randn(64 << 20, **cuda)
    tall = torch.randn(32768, 1024, **cuda)
    return [
        ("GELU(x @ w + b), f16 4096³", (x16, w16, b16),
         lambda x, w, b: F.gelu(x @ w + b), 2 * n ** 3, 4 * 2 * n * n,
         2e-2),
        ("softmax, 4096 x 8192", (rows,), lambda x: torch.softmax(x, -1),
         0, 8 * rows.numel(), 1e-5),
        ("layer norm, 4096 x 8192", (rows, gamma, beta),
         lambda x, g, b: F.layer_norm(x, (8192,), g, b), 0,
         8 * rows.numel(), 1e-4),
        ("relu(1.5 x - 0.25), 64M", (flat,),
         lambda x: torch.relu(1.5 * x - 0.25), 0, 8 * flat.numel(), 1e-6),
        ("column mean and var, 32768 x 1024", (tall,),
         lambda x: (x.mean(0), x.var(0, unbiased=False)), 0,
         4 * tall.numel(), 1e-4),
    ]


def _checked(torch, run: Callable, want, tolerance: float) -> None:
    got = run()
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    for g, w in zip(got, want):
        if not torch.allclose(g.float(), w.float(), rtol=tolerance,
                              atol=tolerance):
            error = (g.float() - w.float()).abs().max().item()
            raise AssertionError(f"wrong result (max error {error:.3g})")


def fuse_rates(torch, torch_time: Callable) -> list[dict]:
    """Times each of ``programs`` four ways (seconds, or the error that
    stopped a column)."""
    import kiln
    rows = []
    for name, inputs, function, flops, moved, tolerance in programs(torch):
        row = {"program": name, "flops": flops, "bytes": moved}
        want = function(*inputs)
        row["eager_s"] = torch_time(lambda: function(*inputs))
        ways = {"compiled": lambda: torch.compile(function),
                "kiln": lambda: kiln.fuse(function),
                "dynamo": lambda: torch.compile(
                    function, backend=kiln.dynamo_backend)}
        for way, make in ways.items():
            try:
                made = make()
                with torch.no_grad():
                    # Twice: kiln.fuse's second call is its first from a
                    # CUDA graph.
                    for _ in range(2):
                        _checked(torch, lambda: made(*inputs), want,
                                 tolerance)
                    row[f"{way}_s"] = torch_time(lambda: made(*inputs))
            except Exception as error:  # a failed cell, not a crash
                row[f"{way}_error"] = str(error)[-500:]
        rows.append(row)
    return rows


def fuse_table(rows: list[dict]) -> list[str]:
    """The rows as Markdown: times, and eager's time over each."""
    lines = ["", "Array programs from PyTorch on CUDA tensors "
             "(bench/fuse_programs.py): `kiln.fuse`, and `torch.compile` "
             "with `kiln.dynamo_backend`, beside eager and inductor:", "",
             "| program | eager (us) | torch.compile (us) | kiln.fuse (us) | "
             "kiln dynamo (us) | eager / kiln.fuse | torch.compile / "
             "kiln.fuse |", "|---|---:|---:|---:|---:|---:|---:|"]

    def cell(row, way):
        if f"{way}_s" in row:
            return f"{row[f'{way}_s'] * 1e6:.1f}"
        return "failed" if f"{way}_error" in row else "-"

    for row in rows:
        kiln_s = row.get("kiln_s")
        speedup = (f"{row['eager_s'] / kiln_s:.2f}" if kiln_s else "-")
        versus = (f"{row['compiled_s'] / kiln_s:.2f}"
                  if kiln_s and "compiled_s" in row else "-")
        lines.append(f"| {row['program']} | {cell(row, 'eager')} | "
                     f"{cell(row, 'compiled')} | {cell(row, 'kiln')} | "
                     f"{cell(row, 'dynamo')} | {speedup} | {versus} |")
    return lines
