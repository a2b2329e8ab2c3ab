"""A sum over a non-contiguous axis: the sums of the columns of a
row-major matrix (axis 0), each program holding a block of columns and
walking down the rows in blocks, reducing each 2-D tile along its first
axis. Any strides work, so a transposed view sums its rows."""

import numpy as np

import kiln.triton as triton
import kiln.triton.language as tl


@triton.jit
def sum_axis0_kernel(x_ptr, out_ptr, M, N, stride_m, stride_n,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    cols = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for start in range(0, M, BLOCK_M):
        rows = start + tl.arange(0, BLOCK_M)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        x = tl.load(x_ptr + rows[:, None] * stride_m
                    + cols[None, :] * stride_n, mask=mask, other=0.0)
        acc += tl.sum(x.to(tl.float32), axis=0)
    tl.store(out_ptr + cols, acc.to(out_ptr.dtype.element_ty),
             mask=cols < N)


def sum_axis0(x, block_m=16, block_n=32):
    M, N = x.shape
    out = np.empty((N,), dtype=x.dtype)
    stride_m, stride_n = (s // x.itemsize for s in x.strides)
    grid = lambda meta: (triton.cdiv(N, meta["BLOCK_N"]),)
    sum_axis0_kernel[grid](x, out, M, N, stride_m, stride_n,
                           BLOCK_M=block_m, BLOCK_N=block_n)
    return out


def reference(x):
    return x.astype(np.float64).sum(axis=0)


if __name__ == "__main__":
    x = np.random.default_rng(0).standard_normal((300, 77), np.float32)
    triton.testing.assert_close(sum_axis0(x), reference(x), atol=1e-4)
    triton.testing.assert_close(sum_axis0(x.T), reference(x.T), atol=1e-4)
    print("column sum: ok")
