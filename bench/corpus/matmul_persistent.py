"""A persistent matrix multiplication in the idiom of Triton's persistent
matmul tutorial: as many programs as SMs, each walking the tiles of C in
grouped order with ``tl.range(start, num_tiles, NUM_SMS, flatten=True)``;
the tile's row and column offsets clamped with ``tl.where`` and marked
``tl.multiple_of`` / ``tl.max_contiguous``; K masked against what is left;
the pid computation in a ``@triton.jit`` helper returning two values."""

import numpy as np

import kiln.triton as triton
import kiln.triton.language as tl


@triton.jit
def _tile_pids(tile_id, num_pid_in_group, num_pid_m, GROUP_SIZE_M):
    group_id = tile_id // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + (tile_id % group_size_m)
    pid_n = (tile_id % num_pid_in_group) // group_size_m
    return pid_m, pid_n


@triton.jit
def matmul_kernel_persistent(a_ptr, b_ptr, c_ptr, M, N, K,
                             stride_am, stride_ak, stride_bk, stride_bn,
                             stride_cm, stride_cn,
                             BLOCK_SIZE_M: tl.constexpr,
                             BLOCK_SIZE_N: tl.constexpr,
                             BLOCK_SIZE_K: tl.constexpr,
                             GROUP_SIZE_M: tl.constexpr,
                             NUM_SMS: tl.constexpr):
    start_pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    k_tiles = tl.cdiv(K, BLOCK_SIZE_K)
    num_tiles = num_pid_m * num_pid_n
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    offs_k_for_mask = tl.arange(0, BLOCK_SIZE_K)

    for tile_id in tl.range(start_pid, num_tiles, NUM_SMS, flatten=True):
        pid_m, pid_n = _tile_pids(tile_id, num_pid_in_group, num_pid_m,
                                  GROUP_SIZE_M)
        offs_am = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
        offs_bn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
        offs_am = tl.where(offs_am < M, offs_am, 0)
        offs_bn = tl.where(offs_bn < N, offs_bn, 0)
        offs_am = tl.max_contiguous(tl.multiple_of(offs_am, BLOCK_SIZE_M),
                                    BLOCK_SIZE_M)
        offs_bn = tl.max_contiguous(tl.multiple_of(offs_bn, BLOCK_SIZE_N),
                                    BLOCK_SIZE_N)

        accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N),
                               dtype=tl.float32)
        for ki in range(k_tiles):
            offs_k = ki * BLOCK_SIZE_K + tl.arange(0, BLOCK_SIZE_K)
            a_ptrs = a_ptr + (offs_am[:, None] * stride_am
                              + offs_k[None, :] * stride_ak)
            b_ptrs = b_ptr + (offs_k[:, None] * stride_bk
                              + offs_bn[None, :] * stride_bn)
            left = K - ki * BLOCK_SIZE_K
            a = tl.load(a_ptrs, mask=offs_k_for_mask[None, :] < left,
                        other=0.0)
            b = tl.load(b_ptrs, mask=offs_k_for_mask[:, None] < left,
                        other=0.0)
            accumulator = tl.dot(a, b, accumulator)

        offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
        offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
        c_ptrs = (c_ptr + stride_cm * offs_cm[:, None]
                  + stride_cn * offs_cn[None, :])
        c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
        tl.store(c_ptrs, accumulator.to(tl.float16), mask=c_mask)


def _strides(x):
    return tuple(s // x.itemsize for s in x.strides)


def matmul_persistent(a, b, num_sms=4, block_m=32, block_n=32, block_k=32,
                      group_m=8):
    """float16 ``a @ b`` (accumulated in float32) by ``num_sms`` programs
    (the SM count on a GPU), each taking every ``num_sms``-th tile."""
    assert a.shape[1] == b.shape[0], "incompatible dimensions"
    M, K = a.shape
    K, N = b.shape
    c = np.empty((M, N), dtype=np.float16)
    tiles = triton.cdiv(M, block_m) * triton.cdiv(N, block_n)
    grid = (min(num_sms, tiles),)
    matmul_kernel_persistent[grid](
        a, b, c, M, N, K, *_strides(a), *_strides(b), *_strides(c),
        BLOCK_SIZE_M=block_m, BLOCK_SIZE_N=block_n, BLOCK_SIZE_K=block_k,
        GROUP_SIZE_M=group_m, NUM_SMS=num_sms)
    return c


def reference(a, b):
    return a.astype(np.float32) @ b.astype(np.float32)


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    a = rng.standard_normal((100, 90)).astype(np.float16)
    b = rng.standard_normal((90, 70)).astype(np.float16)
    np.testing.assert_allclose(matmul_persistent(a, b), reference(a, b),
                               rtol=1e-2, atol=1e-2)
    print("persistent matmul: ok")
