"""Row softmax, in the idiom of Triton's fused-softmax tutorial: one row
per program, and a persistent kernel whose programs stride over the rows
with a pipelined ``tl.range`` loop."""

import numpy as np

import kiln.triton as triton
import kiln.triton.language as tl


@triton.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride,
                   n_cols, BLOCK_SIZE: tl.constexpr):
    row_idx = tl.program_id(0)
    row_start_ptr = input_ptr + row_idx * input_row_stride
    col_offsets = tl.arange(0, BLOCK_SIZE)
    input_ptrs = row_start_ptr + col_offsets
    row = tl.load(input_ptrs, mask=col_offsets < n_cols, other=-float("inf"))
    row_minus_max = row - tl.max(row, axis=0)
    numerator = tl.exp(row_minus_max)
    denominator = tl.sum(numerator, axis=0)
    softmax_output = numerator / denominator
    output_row_start_ptr = output_ptr + row_idx * output_row_stride
    output_ptrs = output_row_start_ptr + col_offsets
    tl.store(output_ptrs, softmax_output, mask=col_offsets < n_cols)


@triton.jit
def persistent_softmax_kernel(output_ptr, input_ptr, input_row_stride,
                              output_row_stride, n_rows, n_cols,
                              BLOCK_SIZE: tl.constexpr,
                              num_stages: tl.constexpr):
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step,
                            num_stages=num_stages):
        row_start_ptr = input_ptr + row_idx * input_row_stride
        col_offsets = tl.arange(0, BLOCK_SIZE)
        input_ptrs = row_start_ptr + col_offsets
        mask = col_offsets < n_cols
        row = tl.load(input_ptrs, mask=mask, other=-float("inf"))
        row_minus_max = row - tl.max(row, axis=0)
        numerator = tl.exp(row_minus_max)
        denominator = tl.sum(numerator, axis=0)
        softmax_output = numerator / denominator
        output_row_start_ptr = output_ptr + row_idx * output_row_stride
        output_ptrs = output_row_start_ptr + col_offsets
        tl.store(output_ptrs, softmax_output, mask=mask)


def _row_stride(x):
    return x.strides[0] // x.itemsize


def softmax(x):
    """One program per row; the row length rounded up to a power of 2."""
    n_rows, n_cols = x.shape
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    num_warps = 4 if BLOCK_SIZE < 2048 else 8 if BLOCK_SIZE < 4096 else 16
    y = np.empty_like(x)
    softmax_kernel[(n_rows,)](y, x, _row_stride(x), _row_stride(y), n_cols,
                              BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)
    return y


def persistent_softmax(x, num_programs=4, num_stages=2):
    """``num_programs`` programs, each taking every ``num_programs``-th
    row; ``num_stages`` is both the kernel's constexpr and the launch's
    pipeline depth, as in Triton."""
    n_rows, n_cols = x.shape
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    y = np.empty_like(x)
    grid = (min(num_programs, n_rows),)
    persistent_softmax_kernel[grid](y, x, _row_stride(x), _row_stride(y),
                                    n_rows, n_cols, BLOCK_SIZE=BLOCK_SIZE,
                                    num_stages=num_stages)
    return y


def reference(x):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


if __name__ == "__main__":
    x = np.random.default_rng(0).standard_normal((1823, 781), np.float32)
    triton.testing.assert_close(softmax(x), reference(x), atol=1e-6)
    triton.testing.assert_close(persistent_softmax(x), reference(x), atol=1e-6)
    print("softmax: ok")
