"""
Fused softmax
=============

The softmax of each row of a matrix,
``softmax(x)[i, j] = exp(x[i, j] - max_j x[i, :]) / sum_j exp(...)``.

Written with whole-array operations (numpy, PyTorch eager), it reads and
writes the matrix several times: once for the maximum, once for the
subtraction, once for the exponential, once for the sum, once for the
division. A *fused* kernel reads each row once, keeps it in registers,
does every step there and writes the result once. That is what a tile
compiler makes easy: one program instance per row, the row as one tile.

This tutorial shows:

* reductions along an axis (``kl.max``, ``kl.sum``) and elementwise math
  (``kl.exp``) on a tile;
* ``other=`` on a masked load: padding lanes read ``-inf``, so they do not
  change the maximum and their ``exp`` is 0;
* row strides, so the kernel reads a view of a wider array in place;
* computing in float32 for float16 inputs (``.to(kl.float32)``); a store
  converts to the element type of the array it writes;
* ``num_warps=``, the warps per program on the GPU (ignored on the host).

Run it with ``PYTHONPATH=python python3 docs/tutorials/02_fused_softmax.py``.
"""

import numpy as np

import kiln
import kiln.language as kl
from harness import Report, empty_like, stride, targets

# %%
# The kernel
# ----------
# ``BLOCK`` is the row length rounded up to a power of two; the mask keeps
# the lanes past the end of the row out of every step.


@kiln.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols,
                   BLOCK: kl.constexpr):
    row = kl.program_id(0)
    cols = kl.arange(0, BLOCK)
    mask = cols < n_cols
    x = kl.load(in_ptr + row * in_row_stride + cols, mask=mask,
                other=-float("inf"))
    x = x.to(kl.float32)
    x = x - kl.max(x, axis=0)
    numerator = kl.exp(x)
    denominator = kl.sum(numerator, axis=0)
    kl.store(out_ptr + row * out_row_stride + cols, numerator / denominator,
             mask=mask)


# %%
# The launcher
# ------------
# One program per row. Longer rows get more warps on the GPU, so each
# thread holds a similar share of the row.


def next_power_of_2(n: int) -> int:
    return 1 << (n - 1).bit_length()


def softmax(x):
    rows, n_cols = x.shape
    block = next_power_of_2(n_cols)
    num_warps = 4 if block <= 1024 else 8 if block <= 4096 else 16
    out = empty_like(x)
    softmax_kernel[(rows,)](out, x, stride(x, 0), stride(out, 0), n_cols,
                            BLOCK=block, num_warps=num_warps)
    return out


# %%
# Checking it
# -----------
# The input is a view of the first ``n_cols`` columns of a wider array, so
# its rows are ``n_cols + 19`` elements apart. Error bound: the sum of
# ``n_cols`` float32 terms is within about ``n_cols * eps32`` of exact
# (relative), the subtraction and ``exp`` add a few units more, and the
# store rounds once more to the output's type (``eps`` of that type). The
# absolute term covers results that underflow.

if __name__ == "__main__":
    rng = np.random.default_rng(0)
    report = Report()
    for target in targets():
        for dtype in (np.float32, np.float16):
            for rows, n_cols in ((1823, 781), (64, 3000), (5, 1)):
                wide = (rng.standard_normal((rows, n_cols + 19)) * 3
                        ).astype(dtype)
                out = target.get(softmax(target.put(wide)[:, :n_cols]))
                x = wide[:, :n_cols].astype(np.float64)
                e = np.exp(x - x.max(axis=1, keepdims=True))
                reference = e / e.sum(axis=1, keepdims=True)
                eps32 = np.finfo(np.float32).eps
                rtol = (n_cols + 32) * eps32 + np.finfo(dtype).eps
                atol = (np.finfo(dtype).smallest_subnormal
                        + np.finfo(np.float32).tiny)
                report.check("softmax_kernel", dtype, f"{rows}x{n_cols}",
                             target.name, out, reference,
                             rtol * reference + atol)
    report.finish()
