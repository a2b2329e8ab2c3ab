"""A persistent matmul in the manner of Triton 3.9's persistent-matmul
tutorial on Hopper with host-side tensor descriptors: as many programs as
SMs walk the tiles of C in grouped order with ``tl.range(start_pid,
num_tiles, NUM_SMS, flatten=True, warp_specialize=WARP_SPECIALIZE)``; B
arrives K-major (an ``(N, K)`` array, read with ``b_desc.load(...)`` and
used as ``b.T``); the epilogue finds its tile again from a counter the
loop carries (``tile_id_c += NUM_SMS``) and stores C through a
descriptor, whole or, with ``EPILOGUE_SUBTILE``, in two halves split off
the accumulator."""

import numpy as np

import kiln.triton as triton
import kiln.triton.language as tl
from kiln.triton.tools.tensor_descriptor import TensorDescriptor


@triton.jit
def _compute_pid(tile_id, num_pid_in_group, num_pid_m, GROUP_SIZE_M):
    group_id = tile_id // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + (tile_id % group_size_m)
    pid_n = (tile_id % num_pid_in_group) // group_size_m
    return pid_m, pid_n


@triton.jit
def matmul_kernel_tma_persistent(a_desc, b_desc, c_desc, M, N, K,
                                 BLOCK_SIZE_M: tl.constexpr,
                                 BLOCK_SIZE_N: tl.constexpr,
                                 BLOCK_SIZE_K: tl.constexpr,
                                 GROUP_SIZE_M: tl.constexpr,
                                 EPILOGUE_SUBTILE: tl.constexpr,
                                 NUM_SMS: tl.constexpr,
                                 WARP_SPECIALIZE: tl.constexpr):
    dtype = tl.float16
    start_pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    k_tiles = tl.cdiv(K, BLOCK_SIZE_K)
    num_tiles = num_pid_m * num_pid_n

    tile_id_c = start_pid - NUM_SMS
    num_pid_in_group = GROUP_SIZE_M * num_pid_n

    for tile_id in tl.range(start_pid, num_tiles, NUM_SMS, flatten=True,
                            warp_specialize=WARP_SPECIALIZE):
        pid_m, pid_n = _compute_pid(tile_id, num_pid_in_group, num_pid_m,
                                    GROUP_SIZE_M)
        offs_am = pid_m * BLOCK_SIZE_M
        offs_bn = pid_n * BLOCK_SIZE_N

        accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        for ki in range(k_tiles):
            offs_k = ki * BLOCK_SIZE_K
            a = a_desc.load([offs_am, offs_k])
            b = b_desc.load([offs_bn, offs_k])
            accumulator = tl.dot(a, b.T, accumulator)

        tile_id_c += NUM_SMS
        pid_m, pid_n = _compute_pid(tile_id_c, num_pid_in_group, num_pid_m,
                                    GROUP_SIZE_M)
        offs_cm = pid_m * BLOCK_SIZE_M
        offs_cn = pid_n * BLOCK_SIZE_N

        if EPILOGUE_SUBTILE:
            acc = tl.reshape(accumulator, (BLOCK_SIZE_M, 2, BLOCK_SIZE_N // 2))
            acc = tl.permute(acc, (0, 2, 1))
            acc0, acc1 = tl.split(acc)
            c0 = acc0.to(dtype)
            c_desc.store([offs_cm, offs_cn], c0)
            c1 = acc1.to(dtype)
            c_desc.store([offs_cm, offs_cn + BLOCK_SIZE_N // 2], c1)
        else:
            c = accumulator.to(dtype)
            c_desc.store([offs_cm, offs_cn], c)


def descriptors(a, b, c, block_m, block_n, block_k, epilogue_subtile):
    """A (M x K), B (N x K, K-major) and C, as the tutorial's launcher
    wraps them: C's block halved along N for a subtiled epilogue."""
    c_block_n = block_n // 2 if epilogue_subtile else block_n
    return (TensorDescriptor.from_tensor(a, [block_m, block_k]),
            TensorDescriptor.from_tensor(b, [block_n, block_k]),
            TensorDescriptor.from_tensor(c, [block_m, c_block_n]))


def matmul(a, b, block_m=128, block_n=128, block_k=64, group_m=8,
           num_sms=4, epilogue_subtile=False, warp_specialize=False,
           num_warps=8):
    """C = A @ B.T for f16 A (M x K) and B (N x K)."""
    M, K = a.shape
    N, _ = b.shape
    c = np.empty((M, N), dtype=np.float16)
    tiles = triton.cdiv(M, block_m) * triton.cdiv(N, block_n)
    grid = (min(num_sms, tiles),)
    matmul_kernel_tma_persistent[grid](
        *descriptors(a, b, c, block_m, block_n, block_k, epilogue_subtile),
        M, N, K, BLOCK_SIZE_M=block_m, BLOCK_SIZE_N=block_n,
        BLOCK_SIZE_K=block_k, GROUP_SIZE_M=group_m,
        EPILOGUE_SUBTILE=epilogue_subtile, NUM_SMS=num_sms,
        WARP_SPECIALIZE=warp_specialize, num_warps=num_warps)
    return c


def reference(a, b):
    return a.astype(np.float64) @ b.astype(np.float64).T


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    a = rng.standard_normal((200, 96)).astype(np.float16)
    b = rng.standard_normal((72, 96)).astype(np.float16)
    triton.testing.assert_close(matmul(a, b, 32, 32, 32, num_sms=3),
                                reference(a, b), atol=2e-2, rtol=2e-2)
    print("persistent TMA matmul: ok")
