"""test_triton_semantics.py's kernels of types and NaNs, as Triton's users
write them, on kiln.triton: the test runs each on the host target, in
Kiln's interpreter and, its imports pointed at Triton, in Triton's own
interpreter, on the same cases."""

import kiln.triton as triton
import kiln.triton.language as tl


@triton.jit
def pair_kernel(x_ptr, y_ptr, add_ptr, mul_ptr, div_ptr, mod_ptr, max_ptr,
                lt_ptr, N: tl.constexpr, MEET: tl.constexpr,
                QUOTIENT: tl.constexpr, DIVIDES: tl.constexpr):
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i)
    y = tl.load(y_ptr + i)
    tl.static_assert((x + y).dtype == MEET)
    tl.static_assert((x * y).dtype == MEET)
    tl.static_assert(tl.maximum(x, y).dtype == MEET)
    tl.store(add_ptr + i, x + y)
    tl.store(mul_ptr + i, x * y)
    if DIVIDES:  # not integers of mixed signedness
        tl.static_assert((x / y).dtype == QUOTIENT)
        tl.store(div_ptr + i, x / y)
        tl.store(mod_ptr + i, x % y)
    tl.store(max_ptr + i, tl.maximum(x, y))
    tl.store(lt_ptr + i, x < y)


@triton.jit
def number_kernel(x_ptr, int_ptr, float_ptr, div_ptr, N: tl.constexpr,
                  WITH_INT: tl.constexpr, WITH_FLOAT: tl.constexpr,
                  QUOTIENT: tl.constexpr):
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i)
    tl.static_assert((x * 3).dtype == WITH_INT)
    tl.static_assert((x * 2.5).dtype == WITH_FLOAT)
    tl.static_assert((x / 2).dtype == QUOTIENT)
    tl.store(int_ptr + i, x * 3)
    tl.store(float_ptr + i, x * 2.5)
    tl.store(div_ptr + i, x / 2)


@triton.jit
def nan_kernel(x_ptr, y_ptr, out_ptr, rows_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i)
    y = tl.load(y_ptr + i)
    tl.store(out_ptr + i, tl.maximum(x, y))
    tl.store(out_ptr + N + i, tl.minimum(x, y))
    tl.store(out_ptr + 2 * N + i,
             tl.maximum(x, y, propagate_nan=tl.PropagateNan.ALL))
    tl.store(out_ptr + 3 * N + i,
             tl.minimum(x, y, propagate_nan=tl.PropagateNan.ALL))
    tl.store(out_ptr + 4 * N + i, tl.clamp(x, -1.0, 1.0))
    tl.store(out_ptr + 5 * N + i, max(x, y))
    r = tl.arange(0, 4)
    tile = tl.load(rows_ptr + r[:, None] * N + i[None, :])
    tl.store(out_ptr + 6 * N + r, tl.max(tile, axis=1))
    tl.store(out_ptr + 6 * N + 4 + r, tl.min(tile, axis=1))
    tl.store(out_ptr + 6 * N + 8 + r, tile.max(1))


@triton.jit
def narrow_max_kernel(h_ptr, b_ptr, i_ptr, out_ptr, index_ptr,
                      N: tl.constexpr):
    i = tl.arange(0, N)
    h = tl.load(h_ptr + i)
    b = tl.load(b_ptr + i)
    small = tl.load(i_ptr + i)
    tl.static_assert(tl.max(h, axis=0).dtype == tl.float32)
    tl.static_assert(tl.min(b, axis=0).dtype == tl.float32)
    tl.static_assert(tl.max(small, axis=0).dtype == tl.int32)
    value, index = tl.max(h, axis=0, return_indices=True)
    tl.static_assert(value.dtype == tl.float16)
    tl.store(out_ptr, tl.max(h, axis=0))
    tl.store(out_ptr + 1, tl.min(b, axis=0))
    tl.store(out_ptr + 2, tl.max(small, axis=0))
    tl.store(out_ptr + 3, value)
    tl.store(index_ptr, index)


@triton.jit
def booleans_kernel(x_ptr, bytes_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    b = tl.load(x_ptr + i) != 0
    tl.store(out_ptr + i, (-b).to(tl.int32))
    stored = tl.load(bytes_ptr + i)
    tl.store(out_ptr + N + i, stored.to(tl.int32))
    tl.store(out_ptr + 2 * N + i, (~stored).to(tl.int32))


@triton.jit
def float_atomic_extrema_kernel(max_ptr, min_ptr, x_ptr, old_ptr,
                                N: tl.constexpr):
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i)
    tl.store(old_ptr + i, tl.atomic_max(max_ptr + i, x, mask=i < N - 1))
    tl.store(old_ptr + N + i, tl.atomic_min(min_ptr + i, x))


@triton.jit
def narrow_from_double_kernel(x_ptr, half_ptr, bf16_ptr, fma_ptr,
                              N: tl.constexpr):
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i)
    tl.store(half_ptr + i, x.to(tl.float16))
    tl.store(bf16_ptr + i, x.to(tl.bfloat16).to(tl.float32))
    h = tl.load(half_ptr + i)
    tl.store(fma_ptr + i, tl.fma(h, h, h))
