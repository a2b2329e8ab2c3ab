"""Dynamic per-token fp8 quantization, as LLM serving libraries write it
in Triton before an fp8 matmul: a row's absolute maximum gives its scale
(``amax / fp8_max``), and the row divided by it, clamped to the format's
range, is stored as ``float8e4nv``; the scale is stored beside it."""

import ml_dtypes
import numpy as np

import kiln.triton as triton
import kiln.triton.language as tl


@triton.jit
def per_token_quant_fp8_kernel(x_ptr, y_ptr, scale_ptr, stride_x, stride_y,
                               N, fp8_min, fp8_max, eps,
                               BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_ptr += row * stride_x
    y_ptr += row * stride_y
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    amax = tl.maximum(tl.max(tl.abs(x)), eps)
    scale = amax / fp8_max
    y = tl.clamp(x / scale, fp8_min, fp8_max).to(y_ptr.dtype.element_ty)
    tl.store(y_ptr + cols, y, mask=mask)
    tl.store(scale_ptr + row, scale)


FP8_MAX = float(ml_dtypes.finfo(ml_dtypes.float8_e4m3fn).max)


def per_token_quant_fp8(x, eps=1e-10):
    M, N = x.shape
    y = np.empty((M, N), ml_dtypes.float8_e4m3fn)
    scale = np.empty(M, np.float32)
    BLOCK = triton.next_power_of_2(N)
    num_warps = min(max(BLOCK // 256, 1), 8)
    per_token_quant_fp8_kernel[(M,)](
        x, y, scale, x.strides[0] // x.itemsize, y.strides[0] // y.itemsize,
        N, -FP8_MAX, FP8_MAX, eps, BLOCK=BLOCK, num_warps=num_warps)
    return y, scale


def reference(x, eps=1e-10):
    """The same steps in float32 (each rounded once, as the kernel's), the
    quotient rounded to e4m3 to nearest even."""
    x = x.astype(np.float32)
    amax = np.maximum(np.abs(x).max(axis=1), np.float32(eps))
    scale = (amax / np.float32(FP8_MAX)).astype(np.float32)
    y = np.clip(x / scale[:, None], -FP8_MAX, FP8_MAX)
    return y.astype(ml_dtypes.float8_e4m3fn), scale


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    x = rng.standard_normal((37, 300)).astype(np.float16)
    (y, scale), (want_y, want_scale) = per_token_quant_fp8(x), reference(x)
    np.testing.assert_array_equal(y.view(np.uint8), want_y.view(np.uint8))
    np.testing.assert_array_equal(scale, want_scale)
    print("per-token fp8 quantization: ok")
