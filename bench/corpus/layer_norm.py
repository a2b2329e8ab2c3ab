"""Layer normalization, forward, in the idiom of Triton's layer-norm
tutorial: one program per row, the row pointers moved with ``X += row *
stride``, mean and variance accumulated over blocks of the row in float32,
and the row's mean and 1/std stored for a backward pass.

The tutorial's backward kernel is not here: it serializes its partial
sums with a lock taken by ``tl.atomic_cas``, which Kiln lacks (see
README.md)."""

import numpy as np

import kiln.triton as triton
import kiln.triton.language as tl


@triton.jit
def _layer_norm_fwd_fused(X, Y, W, B, Mean, Rstd, stride, N, eps,
                          BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    mean = 0
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        a = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        _mean += a
    mean = tl.sum(_mean, axis=0) / N
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
        x_hat = (x - mean) * rstd
        y = x_hat * w + b
        tl.store(Y + cols, y, mask=mask)


def layer_norm(x, weight, bias, eps=1e-5, block_size=None):
    """``(y, mean, rstd)`` of the rows of the 2-D ``x``; blocks as the
    tutorial picks them (at most 64 KB of a row) unless ``block_size``."""
    M, N = x.shape
    y = np.empty_like(x)
    mean = np.empty((M,), dtype=np.float32)
    rstd = np.empty((M,), dtype=np.float32)
    MAX_FUSED_SIZE = 65536 // x.itemsize
    BLOCK_SIZE = block_size or min(MAX_FUSED_SIZE, triton.next_power_of_2(N))
    num_warps = min(max(BLOCK_SIZE // 256, 1), 8)
    _layer_norm_fwd_fused[(M,)](x, y, weight, bias, mean, rstd,
                                x.strides[0] // x.itemsize, N, eps,
                                BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)
    return y, mean, rstd


def reference(x, weight, bias, eps=1e-5):
    x = x.astype(np.float64)
    mean = x.mean(axis=1)
    rstd = 1 / np.sqrt(x.var(axis=1) + eps)
    y = (x - mean[:, None]) * rstd[:, None] * weight + bias
    return y, mean, rstd


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 1000)).astype(np.float32)
    w, b = rng.standard_normal((2, 1000)).astype(np.float32)
    for got, want in zip(layer_norm(x, w, b, block_size=256),
                         reference(x, w, b)):
        triton.testing.assert_close(got, want, atol=1e-4)
    print("layer norm: ok")
