"""RMS normalization (``x / sqrt(mean(x**2) + eps) * w``), one row per
program, as LLM kernel libraries write it in Triton: the row in float32,
the result cast back to the output's element type."""

import numpy as np

import kiln.triton as triton
import kiln.triton.language as tl


@triton.jit
def rms_norm_kernel(X, Y, W, stride_x, stride_y, N, eps,
                    BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    X += row * stride_x
    Y += row * stride_y
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < N
    x = tl.load(X + cols, mask=mask, other=0.0).to(tl.float32)
    mean_square = tl.sum(x * x, axis=0) / N
    rstd = tl.rsqrt(mean_square + eps)
    w = tl.load(W + cols, mask=mask, other=0.0).to(tl.float32)
    y = x * rstd * w
    tl.store(Y + cols, y.to(Y.dtype.element_ty), mask=mask)


def rms_norm(x, weight, eps=1e-6):
    M, N = x.shape
    y = np.empty_like(x)
    BLOCK_SIZE = triton.next_power_of_2(N)
    rms_norm_kernel[(M,)](x, y, weight, x.strides[0] // x.itemsize,
                          y.strides[0] // y.itemsize, N, eps,
                          BLOCK_SIZE=BLOCK_SIZE)
    return y


def reference(x, weight, eps=1e-6):
    x = x.astype(np.float64)
    rstd = 1 / np.sqrt((x * x).mean(axis=1, keepdims=True) + eps)
    return x * rstd * weight.astype(np.float64)


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    x = rng.standard_normal((37, 300)).astype(np.float16)
    w = rng.standard_normal(300).astype(np.float16)
    triton.testing.assert_close(rms_norm(x, w), reference(x, w), atol=1e-2)
    print("rms norm: ok")
