"""A matmul in Triton 3.9's idiom for TMA with host-side descriptors: the
host wraps A, B and C in ``TensorDescriptor.from_tensor`` with the block
each program reads or writes, and the kernel takes the descriptors as
arguments (``a_desc.load([m, k])``), as Triton's persistent-matmul
tutorial does; the program's tile chosen in grouped order."""

import numpy as np

import kiln.triton as triton
import kiln.triton.language as tl
from kiln.triton.tools.tensor_descriptor import TensorDescriptor


@triton.jit
def matmul_host_descriptor_kernel(a_desc, b_desc, c_desc, M, N, K,
                                  BLOCK_M: tl.constexpr,
                                  BLOCK_N: tl.constexpr,
                                  BLOCK_K: tl.constexpr,
                                  GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_m = pid_m * BLOCK_M
    offs_n = pid_n * BLOCK_N
    accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([offs_m, k * BLOCK_K])
        b = b_desc.load([k * BLOCK_K, offs_n])
        accumulator = tl.dot(a, b, accumulator)
    c_desc.store([offs_m, offs_n], accumulator.to(tl.float16))


def descriptors(a, b, c, block_m, block_n, block_k):
    return (TensorDescriptor.from_tensor(a, [block_m, block_k]),
            TensorDescriptor.from_tensor(b, [block_k, block_n]),
            TensorDescriptor.from_tensor(c, [block_m, block_n]))


def matmul(a, b, block_m=128, block_n=128, block_k=64, group_m=8,
           num_warps=8):
    M, K = a.shape
    _, N = b.shape
    c = np.empty((M, N), dtype=np.float16)
    grid = (triton.cdiv(M, block_m) * triton.cdiv(N, block_n),)
    matmul_host_descriptor_kernel[grid](
        *descriptors(a, b, c, block_m, block_n, block_k), M, N, K,
        BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k, GROUP_M=group_m,
        num_warps=num_warps)
    return c


def reference(a, b):
    return a.astype(np.float64) @ b.astype(np.float64)


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    a = rng.standard_normal((200, 96)).astype(np.float16)
    b = rng.standard_normal((96, 72)).astype(np.float16)
    triton.testing.assert_close(matmul(a, b, 32, 32, 32), reference(a, b),
                                atol=2e-2, rtol=2e-2)
    print("host-descriptor matmul: ok")
