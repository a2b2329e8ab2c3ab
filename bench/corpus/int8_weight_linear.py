"""A weight-only quantized linear layer (``x @ (weight * scale).T`` with
int8 weights and one float32 scale per output feature), as LLM inference
libraries write it in Triton: the weight stored N x K and read
transposed (a K-major B), each tile widened in the loop with
``b.to(tl.float16)`` before ``tl.dot``, the scale applied to the float32
accumulator. Otherwise Triton's matmul tutorial: grouped program order,
offsets wrapped with ``% M`` and ``% N``, K masked."""

import numpy as np

import kiln.triton as triton
import kiln.triton.language as tl


@triton.jit
def int8_weight_linear_kernel(a_ptr, b_ptr, scale_ptr, c_ptr, M, N, K,
                              stride_am, stride_ak, stride_bn, stride_bk,
                              stride_cm, stride_cn,
                              BLOCK_SIZE_M: tl.constexpr,
                              BLOCK_SIZE_N: tl.constexpr,
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
    b_ptrs = b_ptr + (offs_bn[None, :] * stride_bn
                      + offs_k[:, None] * stride_bk)

    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K,
                    other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K,
                    other=0)
        accumulator = tl.dot(a, b.to(tl.float16), accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    scale = tl.load(scale_ptr + offs_bn)
    c = (accumulator * scale[None, :]).to(tl.float16)

    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = (c_ptr + stride_cm * offs_cm[:, None]
              + stride_cn * offs_cn[None, :])
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


def _strides(x):
    return tuple(s // x.itemsize for s in x.strides)


def int8_weight_linear(x, weight, scale, block_m=128, block_n=128,
                       block_k=64, group_m=8, num_warps=8, num_stages=3):
    """float16 ``x @ (weight * scale[:, None]).T`` for int8 ``weight`` of
    shape (N, K) and float32 ``scale`` of shape (N,)."""
    assert x.shape[1] == weight.shape[1], "incompatible dimensions"
    M, K = x.shape
    N, K = weight.shape
    c = np.empty((M, N), dtype=np.float16)
    grid = lambda META: (triton.cdiv(M, META["BLOCK_SIZE_M"])
                         * triton.cdiv(N, META["BLOCK_SIZE_N"]),)
    int8_weight_linear_kernel[grid](
        x, weight, scale, c, M, N, K, *_strides(x), *_strides(weight),
        *_strides(c), BLOCK_SIZE_M=block_m, BLOCK_SIZE_N=block_n,
        BLOCK_SIZE_K=block_k, GROUP_SIZE_M=group_m, num_warps=num_warps,
        num_stages=num_stages)
    return c


def reference(x, weight, scale):
    return (x.astype(np.float64) @ weight.astype(np.float64).T
            * scale.astype(np.float64))


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    x = rng.standard_normal((100, 90)).astype(np.float16)
    w = rng.integers(-128, 128, (72, 90)).astype(np.int8)
    s = (rng.random(72) / 64).astype(np.float32)
    triton.testing.assert_close(int8_weight_linear(x, w, s, 32, 32, 32, 2),
                                reference(x, w, s), atol=2e-2, rtol=2e-3)
    print("int8-weight linear: ok")
