"""A split-K matmul in the idiom of the split-K kernels Triton users write
for skinny (decode) shapes, where M is a few rows and the grid of output
tiles alone would leave most of the machine idle: a second grid axis
splits K, each program walks every ``SPLIT_K``-th block of K with its
pointers advanced by ``BLOCK_K * SPLIT_K``, masks K against what is left,
and adds its float32 partial product into C with ``tl.atomic_add`` (C
zeroed first); with ``SPLIT_K == 1`` it stores instead."""

import numpy as np

import kiln.triton as triton
import kiln.triton.language as tl


@triton.jit
def matmul_split_k_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                          stride_am, stride_ak, stride_bk, stride_bn,
                          stride_cm, stride_cn,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                          BLOCK_K: tl.constexpr, SPLIT_K: tl.constexpr,
                          GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    pid_k = tl.program_id(1)
    grid_m = tl.cdiv(M, BLOCK_M)
    grid_n = tl.cdiv(N, BLOCK_N)
    width = GROUP_M * grid_n
    group_id = pid // width
    group_size = min(grid_m - group_id * GROUP_M, GROUP_M)
    pid_m = group_id * GROUP_M + (pid % group_size)
    pid_n = (pid % width) // group_size
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    ram = tl.max_contiguous(tl.multiple_of(rm % M, BLOCK_M), BLOCK_M)
    rbn = tl.max_contiguous(tl.multiple_of(rn % N, BLOCK_N), BLOCK_N)
    rk = pid_k * BLOCK_K + tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (ram[:, None] * stride_am + rk[None, :] * stride_ak)
    b_ptrs = b_ptr + (rk[:, None] * stride_bk + rbn[None, :] * stride_bn)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K * SPLIT_K)):
        k_remaining = K - k * (BLOCK_K * SPLIT_K)
        a = tl.load(a_ptrs, mask=rk[None, :] < k_remaining, other=0.0)
        b = tl.load(b_ptrs, mask=rk[:, None] < k_remaining, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * SPLIT_K * stride_ak
        b_ptrs += BLOCK_K * SPLIT_K * stride_bk
    c_ptrs = c_ptr + (rm[:, None] * stride_cm + rn[None, :] * stride_cn)
    mask = (rm < M)[:, None] & (rn < N)[None, :]
    if SPLIT_K == 1:
        tl.store(c_ptrs, acc, mask=mask)
    else:
        tl.atomic_add(c_ptrs, acc, mask=mask)


def _strides(x):
    return tuple(s // x.itemsize for s in x.strides)


def matmul_split_k(a, b, split_k=4, block_m=16, block_n=32, block_k=32,
                   group_m=8):
    """float32 ``a @ b`` of float16 ``a`` (M x K) and ``b`` (K x N), K
    split ``split_k`` ways."""
    M, K = a.shape
    _, N = b.shape
    c = np.zeros((M, N), dtype=np.float32)
    grid = (triton.cdiv(M, block_m) * triton.cdiv(N, block_n), split_k)
    matmul_split_k_kernel[grid](
        a, b, c, M, N, K, *_strides(a), *_strides(b), *_strides(c),
        BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k, SPLIT_K=split_k,
        GROUP_M=group_m)
    return c


def reference(a, b):
    return a.astype(np.float64) @ b.astype(np.float64)


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    a = rng.standard_normal((5, 300)).astype(np.float16)
    b = rng.standard_normal((300, 70)).astype(np.float16)
    triton.testing.assert_close(matmul_split_k(a, b), reference(a, b),
                                atol=1e-2, rtol=1e-2)
    print("split-K matmul: ok")
