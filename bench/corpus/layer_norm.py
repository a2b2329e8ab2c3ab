"""Layer normalization in the idiom of Triton's layer-norm tutorial.

Forward: one program per row, the row pointers moved with ``X += row *
stride``, mean and variance accumulated over blocks of the row in float32,
and the row's mean and 1/std stored for the backward pass.

Backward, in two kernels as the tutorial has them: each row's program
computes its dx and adds its partial dw and db into one of GROUP_SIZE_M
rows of partial sums, serialized per group by a spin lock
(``while tl.atomic_cas(Lock, 0, 1) == 1: pass``) and a count of the
writers so far; a second kernel sums the groups' partials column block by
column block."""

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


@triton.jit
def _layer_norm_bwd_dx_fused(DX, DY, DW, DB, X, W, Mean, Rstd, Lock, stride,
                             N, GROUP_SIZE_M: tl.constexpr,
                             BLOCK_SIZE_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE_N)
    mask = cols < N
    X += row * stride
    DY += row * stride
    DX += row * stride
    # This row's group of partial sums, its lock and its writer count.
    lock_id = row % GROUP_SIZE_M
    Lock += lock_id
    Count = Lock + GROUP_SIZE_M
    DW = DW + lock_id * N + cols
    DB = DB + lock_id * N + cols
    x = tl.load(X + cols, mask=mask, other=0).to(tl.float32)
    dy = tl.load(DY + cols, mask=mask, other=0).to(tl.float32)
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    mean = tl.load(Mean + row)
    rstd = tl.load(Rstd + row)
    xhat = tl.where(mask, (x - mean) * rstd, 0.)
    wdy = tl.where(mask, w * dy, 0.)
    c1 = tl.sum(xhat * wdy, axis=0) / N
    c2 = tl.sum(wdy, axis=0) / N
    dx = (wdy - (xhat * c1 + c2)) * rstd
    tl.store(DX + cols, dx, mask=mask)
    partial_dw = (dy * xhat).to(w.dtype)
    partial_db = dy.to(w.dtype)
    while tl.atomic_cas(Lock, 0, 1) == 1:
        pass
    count = tl.load(Count)
    if count == 0:
        tl.atomic_xchg(Count, 1)
    else:
        partial_dw += tl.load(DW, mask=mask)
        partial_db += tl.load(DB, mask=mask)
    tl.store(DW, partial_dw, mask=mask)
    tl.store(DB, partial_db, mask=mask)
    tl.atomic_xchg(Lock, 0)


@triton.jit
def _layer_norm_bwd_dwdb(DW, DB, FINAL_DW, FINAL_DB, M, N,
                         BLOCK_SIZE_M: tl.constexpr,
                         BLOCK_SIZE_N: tl.constexpr):
    pid = tl.program_id(0)
    cols = pid * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    dw = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    db = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for i in range(0, M, BLOCK_SIZE_M):
        rows = i + tl.arange(0, BLOCK_SIZE_M)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        offs = rows[:, None] * N + cols[None, :]
        dw += tl.load(DW + offs, mask=mask, other=0.)
        db += tl.load(DB + offs, mask=mask, other=0.)
    sum_dw = tl.sum(dw, axis=0)
    sum_db = tl.sum(db, axis=0)
    tl.store(FINAL_DW + cols, sum_dw, mask=cols < N)
    tl.store(FINAL_DB + cols, sum_db, mask=cols < N)


def layer_norm_backward(dy, x, weight, mean, rstd, group_size_m=None):
    """``(dx, dw, db)`` of the layer norm that gave ``mean`` and ``rstd``,
    as the tutorial launches its two kernels."""
    M, N = x.shape
    BLOCK_SIZE_N = min(65536 // x.itemsize, triton.next_power_of_2(N))
    GROUP_SIZE_M = 64
    if N <= 8192:
        GROUP_SIZE_M = 96
    if N <= 4096:
        GROUP_SIZE_M = 128
    if N <= 1024:
        GROUP_SIZE_M = 256
    GROUP_SIZE_M = group_size_m or GROUP_SIZE_M
    locks = np.zeros(2 * GROUP_SIZE_M, dtype=np.int32)
    _dw = np.zeros((GROUP_SIZE_M, N), dtype=x.dtype)
    _db = np.zeros((GROUP_SIZE_M, N), dtype=x.dtype)
    dw = np.empty((N,), dtype=weight.dtype)
    db = np.empty((N,), dtype=weight.dtype)
    dx = np.empty_like(dy)
    num_warps = min(max(BLOCK_SIZE_N // 256, 1), 8)
    _layer_norm_bwd_dx_fused[(M,)](
        dx, dy, _dw, _db, x, weight, mean, rstd, locks,
        x.strides[0] // x.itemsize, N, GROUP_SIZE_M=GROUP_SIZE_M,
        BLOCK_SIZE_N=BLOCK_SIZE_N, num_warps=num_warps)
    grid = (triton.cdiv(N, 128),)
    _layer_norm_bwd_dwdb[grid](_dw, _db, dw, db, GROUP_SIZE_M, N,
                               BLOCK_SIZE_M=32, BLOCK_SIZE_N=128)
    return dx, dw, db


def reference_backward(dy, x, weight, eps=1e-5):
    x, dy = x.astype(np.float64), dy.astype(np.float64)
    mean = x.mean(axis=1, keepdims=True)
    rstd = 1 / np.sqrt(x.var(axis=1, keepdims=True) + eps)
    xhat = (x - mean) * rstd
    wdy = weight * dy
    dx = (wdy - (xhat * (xhat * wdy).mean(axis=1, keepdims=True)
                 + wdy.mean(axis=1, keepdims=True))) * rstd
    return dx, (dy * xhat).sum(axis=0), dy.sum(axis=0)


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
    dy = rng.standard_normal((64, 1000)).astype(np.float32)
    _, mean, rstd = layer_norm(x, w, b)
    for got, want in zip(layer_norm_backward(dy, x, w, mean, rstd),
                         reference_backward(dy, x, w)):
        triton.testing.assert_close(got, want, atol=1e-3)
    print("layer norm: ok")
