"""Matrix multiplication with block pointers, in the form of Triton
2.1's tutorial 08 (``matmul_kernel_with_block_pointers``): A, B and C
described once by ``tl.make_block_ptr`` (shape, strides, offsets, block
shape, order), moved along K by ``tl.advance``, loaded and stored with
``boundary_check`` in place of masks; float16 in, float32 accumulated,
float16 out."""

import numpy as np

import kiln.triton as triton
import kiln.triton.language as tl


@triton.jit
def matmul_kernel_with_block_pointers(
        a_ptr, b_ptr, c_ptr,
        M, N, K,
        stride_am, stride_ak,
        stride_bk, stride_bn,
        stride_cm, stride_cn,
        BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
        BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + (pid % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    a_block_ptr = tl.make_block_ptr(base=a_ptr, shape=(M, K),
                                    strides=(stride_am, stride_ak),
                                    offsets=(pid_m * BLOCK_SIZE_M, 0),
                                    block_shape=(BLOCK_SIZE_M, BLOCK_SIZE_K),
                                    order=(1, 0))
    b_block_ptr = tl.make_block_ptr(base=b_ptr, shape=(K, N),
                                    strides=(stride_bk, stride_bn),
                                    offsets=(0, pid_n * BLOCK_SIZE_N),
                                    block_shape=(BLOCK_SIZE_K, BLOCK_SIZE_N),
                                    order=(1, 0))
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_SIZE_K):
        a = tl.load(a_block_ptr, boundary_check=(0, 1))
        b = tl.load(b_block_ptr, boundary_check=(0, 1))
        accumulator += tl.dot(a, b)
        a_block_ptr = tl.advance(a_block_ptr, (0, BLOCK_SIZE_K))
        b_block_ptr = tl.advance(b_block_ptr, (BLOCK_SIZE_K, 0))
    c = accumulator.to(tl.float16)

    c_block_ptr = tl.make_block_ptr(base=c_ptr, shape=(M, N),
                                    strides=(stride_cm, stride_cn),
                                    offsets=(pid_m * BLOCK_SIZE_M,
                                             pid_n * BLOCK_SIZE_N),
                                    block_shape=(BLOCK_SIZE_M, BLOCK_SIZE_N),
                                    order=(1, 0))
    tl.store(c_block_ptr, c, boundary_check=(0, 1))


def _strides(x):
    return tuple(s // x.itemsize for s in x.strides)


def matmul(a, b, block_m=128, block_n=256, block_k=64, group_m=8,
           num_warps=8, num_stages=3):
    """float16 ``a @ b``, accumulated in float32."""
    assert a.shape[1] == b.shape[0], "incompatible dimensions"
    M, K = a.shape
    K, N = b.shape
    c = np.empty((M, N), dtype=np.float16)
    grid = lambda META: (triton.cdiv(M, META["BLOCK_SIZE_M"])
                         * triton.cdiv(N, META["BLOCK_SIZE_N"]),)
    matmul_kernel_with_block_pointers[grid](
        a, b, c, M, N, K, *_strides(a), *_strides(b), *_strides(c),
        BLOCK_SIZE_M=block_m, BLOCK_SIZE_N=block_n, BLOCK_SIZE_K=block_k,
        GROUP_SIZE_M=group_m, num_warps=num_warps, num_stages=num_stages)
    return c


def reference(a, b):
    return a.astype(np.float32) @ b.astype(np.float32)


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    a = rng.standard_normal((100, 90)).astype(np.float16)
    b = rng.standard_normal((90, 72)).astype(np.float16)
    triton.testing.assert_close(matmul(a, b, 32, 32, 32, 2), reference(a, b),
                                atol=2e-2)
    print("matmul_block_ptr: ok")
