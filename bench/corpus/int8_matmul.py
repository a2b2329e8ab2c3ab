"""int8 matrix multiplication with an int32 accumulator, as quantized
inference kernels write it: int8 tiles of A and B, ``tl.dot(a, b, acc)``
into ``tl.zeros(..., dtype=tl.int32)``, the int32 product stored as it
is (the dequantizing scales left to the caller). Triton's matmul
tutorial otherwise: grouped program order, offsets wrapped with ``% M``
and ``% N``, K masked with ``other=0``."""

import numpy as np

import kiln.triton as triton
import kiln.triton.language as tl


@triton.jit
def matmul_int8_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                       stride_am, stride_ak, stride_bk, stride_bn,
                       stride_cm, stride_cn,
                       BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                       BLOCK_SIZE_K: tl.constexpr,
                       GROUP_SIZE_M: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am
                      + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk
                      + offs_bn[None, :] * stride_bn)

    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.int32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K,
                    other=0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K,
                    other=0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk

    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = (c_ptr + stride_cm * offs_cm[:, None]
              + stride_cn * offs_cn[None, :])
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, accumulator, mask=c_mask)


def _strides(x):
    return tuple(s // x.itemsize for s in x.strides)


def matmul_int8(a, b, block_m=128, block_n=128, block_k=64, group_m=8,
                num_warps=8, num_stages=3):
    """int8 ``a @ b`` with int32 sums."""
    assert a.dtype == b.dtype == np.int8
    assert a.shape[1] == b.shape[0], "incompatible dimensions"
    M, K = a.shape
    K, N = b.shape
    c = np.empty((M, N), dtype=np.int32)
    grid = lambda META: (triton.cdiv(M, META["BLOCK_SIZE_M"])
                         * triton.cdiv(N, META["BLOCK_SIZE_N"]),)
    matmul_int8_kernel[grid](a, b, c, M, N, K, *_strides(a), *_strides(b),
                             *_strides(c), BLOCK_SIZE_M=block_m,
                             BLOCK_SIZE_N=block_n, BLOCK_SIZE_K=block_k,
                             GROUP_SIZE_M=group_m, num_warps=num_warps,
                             num_stages=num_stages)
    return c


def reference(a, b):
    return a.astype(np.int32) @ b.astype(np.int32)


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    a = rng.integers(-128, 128, (100, 90), dtype=np.int8)
    b = rng.integers(-128, 128, (90, 72), dtype=np.int8)
    np.testing.assert_array_equal(matmul_int8(a, b, 32, 32, 32, 2),
                                  reference(a, b))
    print("int8_matmul: ok")
