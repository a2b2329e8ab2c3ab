"""
Layer normalization
===================

The forward pass of layer normalization over the rows of an ``M x N``
matrix: for each row ``x``,

.. code-block:: text

    y = (x - mean(x)) / sqrt(var(x) + eps) * w + b

with a weight ``w`` and a bias ``b`` of length N shared by every row.

One program handles one row. Unlike the softmax of the previous tutorial
the row need not fit in one tile: the kernel walks it ``BLOCK`` columns at
a time, three times (for the mean, the variance, then the output), and
each walk is a ``for`` loop that carries a float32 tile of partial sums
from one step to the next. The mean and ``1 / std`` of each row are
stored too, as a backward pass would need them.

This tutorial shows:

* loops carrying tiles, reduced once after the loop;
* moving a pointer argument to the row's start
  (``X += row * x_row_stride``);
* scalars (``mean``, ``rstd``) meeting tiles, and ``kl.where`` to keep the
  padding lanes out of the variance;
* storing one value per program (``kl.store(Mean + row, mean)``);
* float16 data with float32 statistics.

Run it with ``PYTHONPATH=python python3 docs/tutorials/04_layer_norm.py``.
"""

import numpy as np

import kiln
import kiln.language as kl
from harness import Report, empty_like, stride, targets

# %%
# The kernel
# ----------


@kiln.jit
def layer_norm_kernel(X, Y, W, B, Mean, Rstd, x_row_stride, y_row_stride, N,
                      eps, BLOCK: kl.constexpr):
    row = kl.program_id(0)
    X += row * x_row_stride
    Y += row * y_row_stride
    partial = kl.zeros((BLOCK,), kl.float32)
    for start in range(0, N, BLOCK):
        cols = start + kl.arange(0, BLOCK)
        partial += kl.load(X + cols, mask=cols < N, other=0.0).to(kl.float32)
    mean = kl.sum(partial, axis=0) / N

    partial = kl.zeros((BLOCK,), kl.float32)
    for start in range(0, N, BLOCK):
        cols = start + kl.arange(0, BLOCK)
        x = kl.load(X + cols, mask=cols < N, other=0.0).to(kl.float32)
        diff = kl.where(cols < N, x - mean, 0.0)
        partial += diff * diff
    rstd = kl.rsqrt(kl.sum(partial, axis=0) / N + eps)
    kl.store(Mean + row, mean)
    kl.store(Rstd + row, rstd)

    for start in range(0, N, BLOCK):
        cols = start + kl.arange(0, BLOCK)
        mask = cols < N
        w = kl.load(W + cols, mask=mask).to(kl.float32)
        b = kl.load(B + cols, mask=mask).to(kl.float32)
        x = kl.load(X + cols, mask=mask, other=0.0).to(kl.float32)
        kl.store(Y + cols, (x - mean) * rstd * w + b, mask=mask)


# %%
# The launcher
# ------------
# ``BLOCK`` is at most 1024 columns (and no more than the row needs); a
# longer row takes more steps of each loop.


def layer_norm(x, w, b, eps: float = 1e-5):
    M, N = x.shape
    block = min(1024, 1 << (N - 1).bit_length())
    y = empty_like(x)
    mean = empty_like(x, (M,), np.float32)
    rstd = empty_like(x, (M,), np.float32)
    layer_norm_kernel[(M,)](x, y, w, b, mean, rstd, stride(x, 0),
                            stride(y, 0), N, eps, BLOCK=block)
    return y, mean, rstd


# %%
# Checking it
# -----------
# The statistics are sums of N float32 terms, so they are within about
# ``N * eps32`` (relative) of exact; that error carries into the normalized
# row ``x_hat``, which ``w`` and ``b`` scale and shift, and the store rounds
# once more to the data's type.

if __name__ == "__main__":
    rng = np.random.default_rng(0)
    eps = 1e-5
    eps32 = np.finfo(np.float32).eps
    report = Report()
    for target in targets():
        for dtype in (np.float32, np.float16):
            for M, N in ((503, 1151), (16, 5000), (7, 3)):
                x = (rng.standard_normal((M, N)) * 2 + 0.5).astype(dtype)
                w, b = rng.standard_normal((2, N)).astype(dtype)
                y, mean, rstd = map(target.get, layer_norm(
                    target.put(x), target.put(w), target.put(b), eps))
                x64, w64, b64 = (a.astype(np.float64) for a in (x, w, b))
                mean64 = x64.mean(axis=1)
                rstd64 = 1 / np.sqrt(x64.var(axis=1) + eps)
                x_hat = (x64 - mean64[:, None]) * rstd64[:, None]
                rtol = N * eps32 + np.finfo(dtype).eps
                scale = (np.abs(x_hat) + 1) * np.abs(w64) + np.abs(b64)
                size = f"{M}x{N}"
                report.check("layer_norm_kernel: y", dtype, size, target.name,
                             y, x_hat * w64 + b64, rtol * scale)
                report.check("layer_norm_kernel: mean", dtype, size,
                             target.name, mean, mean64,
                             N * eps32 * np.abs(x64).mean(axis=1))
                report.check("layer_norm_kernel: rstd", dtype, size,
                             target.name, rstd, rstd64, N * eps32 * rstd64)
    report.finish()
