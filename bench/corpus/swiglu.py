"""SwiGLU (``silu(a) * b``), one row per program, as LLM kernel libraries
write it in Triton: ``a`` in float32 through a ``@triton.jit`` ``silu``
helper, cast back to ``b``'s type before the product."""

import numpy as np

import kiln.triton as triton
import kiln.triton.language as tl


@triton.jit
def silu(x):
    return x * tl.sigmoid(x)


@triton.jit
def _swiglu_forward_kernel(a_ptr, b_ptr, c_ptr, stride, n_cols: tl.constexpr,
                           BLOCK_SIZE: tl.constexpr):
    program_id = tl.program_id(0).to(tl.int64)
    a_ptr += program_id * stride
    b_ptr += program_id * stride
    c_ptr += program_id * stride
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols
    a_row = tl.load(a_ptr + col_offsets, mask=mask, other=0).to(tl.float32)
    b_row = tl.load(b_ptr + col_offsets, mask=mask, other=0)
    c_row = silu(a_row).to(b_row.dtype) * b_row
    tl.store(c_ptr + col_offsets, c_row, mask=mask)


def swiglu(a, b):
    n_rows, n_cols = a.shape
    c = np.empty_like(a)
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    _swiglu_forward_kernel[(n_rows,)](a, b, c, a.strides[0] // a.itemsize,
                                      n_cols=n_cols, BLOCK_SIZE=BLOCK_SIZE)
    return c


def reference(a, b):
    a = a.astype(np.float64)
    return a / (1 + np.exp(-a)) * b.astype(np.float64)


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 33, 500)).astype(np.float16)
    triton.testing.assert_close(swiglu(a, b), reference(a, b), atol=2e-2)
    print("swiglu: ok")
