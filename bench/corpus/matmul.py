"""Matrix multiplication in the idiom of Triton's matmul tutorial: blocks
of C in grouped order (for L2 reuse), offsets wrapped with ``% M`` and
``% N``, the accumulator passed to ``tl.dot``, an activation chosen by a
string constexpr and applied by a ``@triton.jit`` helper, and the result
cast to float16 before the store. ``matmul_autotuned`` picks its blocks
with ``@triton.autotune``."""

import numpy as np

import kiln.triton as triton
import kiln.triton.language as tl


@triton.jit
def leaky_relu(x):
    return tl.where(x >= 0, x, 0.01 * x)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn,
                  stride_cm, stride_cn,
                  BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                  BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr,
                  ACTIVATION: tl.constexpr):
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

    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K,
                    other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K,
                    other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    if ACTIVATION == "leaky_relu":
        accumulator = leaky_relu(accumulator)
    c = accumulator.to(tl.float16)

    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = (c_ptr + stride_cm * offs_cm[:, None]
              + stride_cn * offs_cn[None, :])
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


matmul_autotuned_kernel = triton.autotune(
    configs=[
        triton.Config({"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 32,
                       "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 2},
                      num_stages=3, num_warps=4),
        triton.Config({"BLOCK_SIZE_M": 16, "BLOCK_SIZE_N": 32,
                       "BLOCK_SIZE_K": 16, "GROUP_SIZE_M": 4},
                      num_stages=2, num_warps=2),
    ],
    key=["M", "N", "K"], warmup=1, rep=1,
)(matmul_kernel)


def _strides(x):
    return tuple(s // x.itemsize for s in x.strides)


def matmul(a, b, activation="", block_m=32, block_n=32, block_k=32,
           group_m=8):
    """float16 ``a @ b`` (accumulated in float32), with an optional
    ``activation="leaky_relu"``."""
    assert a.shape[1] == b.shape[0], "incompatible dimensions"
    M, K = a.shape
    K, N = b.shape
    c = np.empty((M, N), dtype=np.float16)
    grid = lambda META: (triton.cdiv(M, META["BLOCK_SIZE_M"])
                         * triton.cdiv(N, META["BLOCK_SIZE_N"]),)
    matmul_kernel[grid](a, b, c, M, N, K, *_strides(a), *_strides(b),
                        *_strides(c), BLOCK_SIZE_M=block_m,
                        BLOCK_SIZE_N=block_n, BLOCK_SIZE_K=block_k,
                        GROUP_SIZE_M=group_m, ACTIVATION=activation)
    return c


def matmul_autotuned(a, b, activation=""):
    M, K = a.shape
    K, N = b.shape
    c = np.empty((M, N), dtype=np.float16)
    grid = lambda META: (triton.cdiv(M, META["BLOCK_SIZE_M"])
                         * triton.cdiv(N, META["BLOCK_SIZE_N"]),)
    matmul_autotuned_kernel[grid](a, b, c, M, N, K, *_strides(a),
                                  *_strides(b), *_strides(c),
                                  ACTIVATION=activation)
    return c


def reference(a, b, activation=""):
    c = a.astype(np.float32) @ b.astype(np.float32)
    if activation == "leaky_relu":
        c = np.where(c >= 0, c, np.float32(0.01) * c)
    return c


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    a = rng.standard_normal((100, 90)).astype(np.float16)
    b = rng.standard_normal((90, 72)).astype(np.float16)
    triton.testing.assert_close(matmul(a, b, "leaky_relu"),
                                reference(a, b, "leaky_relu"), atol=2e-2)
    print("matmul: ok")
