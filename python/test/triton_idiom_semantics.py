"""test_triton_semantics.py's kernels of types and NaNs, as Triton's users
write them, on kiln.triton: the test runs each on the host target, in
Kiln's interpreter and, its imports pointed at Triton, in Triton's own
interpreter, on the same cases."""

import collections
import math

import kiln.triton as triton
import kiln.triton.language as tl

#: Module-level constants as Triton's users write them (Triton's compiled
#: kernels read no other globals).
MODE = tl.constexpr(1)
OFF = tl.constexpr(False)
WIDTH = tl.constexpr(4)


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


@triton.jit
def shifts_kernel(x_ptr, s_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i)
    s = tl.load(s_ptr + i)
    tl.store(out_ptr + i, x << s)
    tl.store(out_ptr + N + i, x >> s)
    tl.store(out_ptr + 2 * N + i, (x.to(tl.uint32) >> s).to(tl.int32))
    tl.store(out_ptr + 3 * N + i, x << 33)
    tl.store(out_ptr + 4 * N + i, x >> 40)


@triton.jit
def float_to_int_kernel(f_ptr, d_ptr, h_ptr, i32_ptr, u32_ptr, i64_ptr,
                        i16_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    f = tl.load(f_ptr + i)
    tl.store(i32_ptr + i, f.to(tl.int32))
    tl.store(u32_ptr + i, f.to(tl.uint32))
    tl.store(i64_ptr + i, tl.load(d_ptr + i).to(tl.int64))
    tl.store(i16_ptr + i, tl.load(h_ptr + i).to(tl.int16))


@triton.jit
def narrow_int_kernel(f_ptr, i8_ptr, u8_ptr, stored_i8_ptr, stored_i32_ptr,
                      atomic_ptr, f8_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    f = tl.load(f_ptr + i)
    tl.store(i8_ptr + i, f.to(tl.int8))
    tl.store(u8_ptr + i, f.to(tl.uint8))
    tl.store(stored_i8_ptr + i, f)  # converted by the store
    tl.store(stored_i32_ptr + i, f)
    tl.atomic_add(atomic_ptr + i, f)
    tl.store(f8_ptr + i, f)


@triton.jit
def other_kernel(u_ptr, d_ptr, h_ptr, out_u_ptr, out_d_ptr, out_h_ptr,
                 N: tl.constexpr):
    i = tl.arange(0, N)
    first = i < 2
    tl.store(out_u_ptr + i, tl.load(u_ptr + i, mask=first, other=-1))
    tl.store(out_d_ptr + i, tl.load(d_ptr + i, mask=first, other=0.1))
    tl.store(out_h_ptr + i, tl.load(h_ptr + i, mask=first, other=70000))


@triton.jit
def nan_argmax_kernel(x_ptr, out_ptr, value_ptr, N: tl.constexpr):
    row = tl.program_id(0)
    x = tl.load(x_ptr + row * N + tl.arange(0, N))
    tl.store(out_ptr + 3 * row, tl.argmax(x, 0))
    tl.store(out_ptr + 3 * row + 1, tl.argmin(x, 0))
    value, index = tl.max(x, 0, return_indices=True)
    tl.store(out_ptr + 3 * row + 2, index)
    tl.store(value_ptr + row, value)


@triton.jit
def untied_argmax_kernel(x_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i)
    tl.store(out_ptr, tl.argmax(x, 0, tie_break_left=False))
    tl.store(out_ptr + 1, tl.argmin(x, 0, tie_break_left=False))
    value, index = tl.max(x, 0, return_indices=True,
                          return_indices_tie_break_left=False)
    tl.store(out_ptr + 2, index)
    tl.store(out_ptr + 3, value.to(tl.int32))


@triton.jit
def toward_zero_kernel(x_ptr, half_ptr, bf16_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i)
    tl.store(half_ptr + i, x.to(tl.float16, fp_downcast_rounding="rtz"))
    tl.store(bf16_ptr + i,
             x.to(tl.bfloat16, fp_downcast_rounding="rtz").to(tl.float32))


@triton.jit
def half_accumulator_kernel(a_ptr, b_ptr, c_ptr, d_ptr, N: tl.constexpr):
    r = tl.arange(0, N)
    tile = r[:, None] * N + r[None, :]
    a = tl.load(a_ptr + tile)
    b = tl.load(b_ptr + tile)
    tl.store(c_ptr + tile, tl.dot(a, b, out_dtype=tl.float16))
    tl.store(d_ptr + tile, tl.dot(a, b, tl.load(d_ptr + tile)))


@triton.jit
def wide_offsets_kernel(out_ptr, seed, BASE: tl.constexpr, N: tl.constexpr):
    i = tl.arange(0, N)
    offsets = i.to(tl.int64) + BASE
    tl.store(out_ptr + i, tl.randint(seed, offsets))
    low = offsets.to(tl.uint32)
    zero = low * 0
    word, _, _, _ = tl.philox(seed, low, (offsets >> 32).to(tl.uint32), zero,
                              zero)
    tl.store(out_ptr + N + i, word)
    tl.store(out_ptr + 2 * N + i, tl.randint(seed, low))


@triton.jit
def constexpr_globals_kernel(out_ptr, N: tl.constexpr):
    if MODE == 1:
        tl.store(out_ptr, 11)
    else:
        tl.store(out_ptr, 22)
    if not OFF:
        tl.store(out_ptr + 1, 33)
    else:
        tl.store(out_ptr + 1, 44)
    tl.store(out_ptr + 2, tl.where(OFF, 55, 66))
    i = tl.arange(0, WIDTH)
    total = tl.zeros((WIDTH,), tl.int32)
    for k in range(WIDTH):
        total += i * k
    tl.store(out_ptr + 3 + i, total + WIDTH * 2 + N)


@triton.jit
def constexpr_value_kernel(out_ptr, N: tl.constexpr):
    tl.store(out_ptr, N.value + MODE.value)


@triton.jit
def optional_bias_kernel(x_ptr, bias_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i)
    if bias_ptr is not None:
        x += tl.load(bias_ptr + i)
    tl.store(out_ptr + i, x)


@triton.jit
def pointer_comparison_kernel(x_ptr, y_ptr, out_ptr):
    tl.store(out_ptr, (x_ptr == y_ptr).to(tl.int32))


@triton.jit
def float_offset_kernel(x_ptr, out_ptr):
    tl.store(out_ptr, tl.load(x_ptr + 1.0))


@triton.jit
def mixed_dot_kernel(a_ptr, b_ptr, out_ptr):
    r = tl.arange(0, 16)
    tile = r[:, None] * 16 + r[None, :]
    tl.store(out_ptr + tile,
             tl.dot(tl.load(a_ptr + tile), tl.load(b_ptr + tile)))


@triton.jit
def argument_one_kernel(x_ptr, out_ptr, wide_ptr, step, N: tl.constexpr):
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i)
    tl.static_assert((x + step).dtype == tl.int8)
    tl.store(out_ptr + i, (x + step) // 2)
    tl.store(out_ptr + N + tl.arange(0, step * N), x)
    tl.store(wide_ptr, (step - 2) // 2)
    tl.store(wide_ptr + 1, (step - 3) % 5)
    tl.store(wide_ptr + 2, step << 33)


@triton.jit
def scalar_step_kernel(out_ptr, step):
    tl.store(out_ptr, (step - 2) // 2)
    tl.store(out_ptr + 1, (step - 3) % 5)


@triton.jit
def _add(a, b):
    return a + b


@triton.jit
def bool_arithmetic_kernel(x_ptr, y_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    b = tl.load(x_ptr + i) != 0
    c = tl.load(y_ptr + i) != 0
    tl.store(out_ptr + i, b + c)
    tl.store(out_ptr + N + i, b - c)
    tl.store(out_ptr + 2 * N + i, b * c)
    tl.store(out_ptr + 3 * N + i, b << c)
    tl.store(out_ptr + 4 * N + i, b + True)
    tl.store(out_ptr + 5 * N + i, tl.associative_scan(b, 0, _add))


@triton.jit
def integer_condition_kernel(c_ptr, f_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    tl.store(out_ptr + i, tl.where(tl.load(c_ptr + i), 10, 20))
    tl.store(out_ptr + N + i, tl.where(tl.load(f_ptr + i), 1, 2))


@triton.jit
def integer_fma_kernel(x_ptr, out_ptr):
    x = tl.load(x_ptr)
    tl.store(out_ptr, tl.fma(x, x, x))


@triton.jit
def python_float_kernel(x_ptr, wide_ptr, out_ptr, n, B: tl.constexpr):
    off = tl.arange(0, B)
    x = tl.load(x_ptr + off)  # int32
    tl.store(wide_ptr, 0.1)  # float32's 0.1, then float64
    tl.store(wide_ptr + 1 + off, 0.1, mask=off < 1)
    tl.store(wide_ptr + 2, 0.1 + 0.2)
    tl.store(out_ptr + off, x * 1e39)  # 1e39 is a float64
    tl.store(out_ptr + B + off, tl.where(x > 1, x, 1e-50))
    tl.store(out_ptr + 2 * B + off, x / 1e-300)
    tl.store(out_ptr + 3 * B + off, n * 1e39 + off * 0)


@triton.jit
def boolean_operators_kernel(x_ptr, out_ptr, n, N: tl.constexpr,
                             A: tl.constexpr, B: tl.constexpr):
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i)
    tl.store(out_ptr + i, (0 < x < 5).to(tl.int32))
    tl.store(out_ptr + N + i, (not (x > 2)).to(tl.int32))
    if A and B:  # Python's truth of 2 and 1
        tl.store(out_ptr + 2 * N, 1)
    else:
        tl.store(out_ptr + 2 * N, 0)
    tl.store(out_ptr + 2 * N + 1, A or B)
    tl.store(out_ptr + 2 * N + 2, (n > 0 and n < 10).to(tl.int32))
    tl.store(out_ptr + 2 * N + 3, B == 0 or 7 // B)


@triton.jit
def tuple_loop_kernel(out_ptr, n, B: tl.constexpr):
    i = tl.arange(0, B)
    pair = (n, n)
    acc = (tl.zeros((B,), tl.float32), (i, 2))
    for k in range(3):
        pair = (pair[0] + k, pair[1] * 2)
        acc = (acc[0] + i * k, (acc[1][0] + 1, acc[1][1]))
    count = 0
    state = (n, 0)
    while state[0] > 0:
        state = (state[0] - 2, state[1] + 1)
    tl.store(out_ptr + i, acc[0])
    tl.store(out_ptr + B + i, acc[1][0] * acc[1][1])
    tl.store(out_ptr + 2 * B, pair[0])
    tl.store(out_ptr + 2 * B + 1, pair[1])
    tl.store(out_ptr + 2 * B + 2, state[1] + count)


#: A named tuple, as Triton's users pass one to a kernel.
Pair = collections.namedtuple("Pair", ["ptr", "scale"])


@triton.jit
def tuple_argument_kernel(ptrs, out_ptr, scales, pair, N: tl.constexpr):
    i = tl.arange(0, N)
    acc = tl.load(ptrs[0] + i) * scales[0] + tl.load(ptrs[1] + i) * scales[1]
    if scales[2] is not None:
        acc += scales[2]
    for j in tl.static_range(len(ptrs)):
        acc += tl.load(ptrs[j] + i)
    acc += tl.load(pair.ptr + i) * pair.scale
    tl.store(out_ptr + i, acc)


@triton.jit
def volatile_kernel(flag_ptr, x_ptr, out_ptr, N: tl.constexpr):
    # A spin-wait on a flag another program sets, then the same elements
    # read twice.
    while tl.load(flag_ptr, volatile=True) == 0:
        pass
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i, mask=i < N - 1, other=-1.0, volatile=True)
    tl.store(out_ptr + i, x + tl.load(x_ptr + i, volatile=True))


@triton.jit
def mixed_shift_kernel(x_ptr, s_ptr, out_ptr, a, N: tl.constexpr):
    # >> keeps the sign of its left tile (x signed, s unsigned), whatever
    # type the two meet in; a Python number takes its right tile's.
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i)
    s = tl.load(s_ptr + i)
    minus = -16
    tl.store(out_ptr + i, x >> s)
    tl.store(out_ptr + N + i, s >> (x & 3))
    tl.store(out_ptr + 2 * N + i, minus >> s)
    tl.store(out_ptr + 3 * N + i, 200 >> s)
    tl.store(out_ptr + 4 * N + i, a >> s)
    tl.store(out_ptr + 5 * N + i, tl.load(x_ptr) >> s)


@triton.jit
def number_condition_kernel(x_ptr, out_ptr, n):
    # An if, a while and a ternary on numbers: true where not zero (a
    # NaN is true).
    pid = tl.program_id(0)
    v = tl.load(x_ptr + pid)
    taken = 0
    if v:
        taken = 1
    steps = 0
    count = n
    while count:
        count = count // 2
        steps += 1
    tl.store(out_ptr + 3 * pid, taken)
    tl.store(out_ptr + 3 * pid + 1, 5 if v else 7)
    tl.store(out_ptr + 3 * pid + 2, steps)


@triton.jit
def dot_out_dtype_kernel(a_ptr, b_ptr, out_ptr, bits_ptr, OUT: tl.constexpr):
    m = tl.arange(0, 16)[:, None]
    n = tl.arange(0, 16)[None, :]
    c = tl.dot(tl.load(a_ptr + m * 16 + n), tl.load(b_ptr + m * 16 + n),
               out_dtype=OUT)
    tl.store(bits_ptr, c.dtype.primitive_bitwidth)
    tl.store(out_ptr + m * 16 + n, c.to(tl.float64))


@triton.jit
def signed_zeros_kernel(x_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i)
    y = tl.flip(x, 0)
    tl.store(out_ptr + i, tl.maximum(x, y))
    tl.store(out_ptr + N + i, tl.minimum(x, y))
    tl.store(out_ptr + 2 * N + i,
             tl.maximum(x, y, propagate_nan=tl.PropagateNan.ALL))
    tl.store(out_ptr + 3 * N + i, tl.maximum(x, 0.0))
    tl.store(out_ptr + 4 * N, tl.max(x, 0))
    tl.store(out_ptr + 4 * N + 1, tl.min(x, 0))
    tl.store(out_ptr + 4 * N + 2, max(tl.load(x_ptr), tl.load(x_ptr + 1)))


@triton.jit
def implicit_index_kernel(x_ptr, out_ptr, R: tl.constexpr, C: tl.constexpr):
    # An index keeps the dimensions it leaves out at the end, as numpy's.
    r = tl.arange(0, R)[:, None]
    c = tl.arange(0, C)[None, :]
    x = tl.load(x_ptr + r * C + c)
    a = x[:, None]  # (R, 1, C)
    b = x[None]  # (1, R, C)
    tl.store(out_ptr + r * C + c, tl.sum(a + b, 1))
    v = tl.arange(0, C)[None, None]  # (1, 1, C)
    tl.store(out_ptr + R * C + r * C + c, tl.sum(a + v, 1))
    e = tl.expand_dims(x, (0, -1))  # (1, R, C, 1)
    tl.store(out_ptr + 2 * R * C + r * C + c, tl.reshape(e, (R, C)) * 2)


@triton.jit
def _factorial(n: tl.constexpr):
    if n <= 1:
        return 1
    else:
        return n * _factorial(n - 1)


@triton.jit
def _doubled(x, n: tl.constexpr):
    if n == 0:
        return x
    return _doubled(x * 2 + 1, n - 1)


@triton.jit
def recursion_kernel(x_ptr, out_ptr, N: tl.constexpr):
    # Recursions that end as the kernel compiles, on constexpr arguments.
    i = tl.arange(0, N)
    tl.store(out_ptr + i, _doubled(tl.load(x_ptr + i), 4) + _factorial(5))


@triton.jit
def colliding_atomic_kernel(held_ptr, x_ptr, old_ptr, N: tl.constexpr):
    # The elements meet at two addresses.
    i = tl.arange(0, N)
    tl.store(old_ptr + i, tl.atomic_min(held_ptr + i % 2, tl.load(x_ptr + i)))
    tl.store(old_ptr + N + i,
             tl.atomic_max(held_ptr + 2 + i % 2, tl.load(x_ptr + i)))


@triton.jit
def pointer_offsets_kernel(x_ptr, u_ptr, out_ptr, big, N: tl.constexpr):
    # Numbers offsetting a pointer keep their own types (int64 past int32,
    # uint32 in [2**31, 2**32)); a subtracted offset is negated in its
    # type, where it wraps, then extended.
    i = tl.arange(0, N)
    c = 4294967296
    tl.store(out_ptr + i, tl.load(x_ptr + c + big + i))
    tl.store(out_ptr + N + i, tl.load(x_ptr - 2147483648 + (big >> 1) + i))
    u = tl.load(u_ptr + i)
    tl.store(out_ptr + 2 * N + i, tl.load(x_ptr + 300 - u))


@triton.jit
def narrow_offset_kernel(x_ptr, s_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    tl.store(out_ptr + i, tl.load(x_ptr + 40000 - tl.load(s_ptr + i)))


@triton.jit
def reused_loop_variable_kernel(x_ptr, y_ptr, out_ptr, n, rows, label,
                                B: tl.constexpr):
    # Every block loop is `for i in range(0, n, B)`, as Liger's kernels
    # write them: in later loops' bodies, under an if, in a while, and
    # after a branch that returns.
    total = 0.0
    for i in range(0, n, B):
        total += tl.sum(tl.load(x_ptr + i + tl.arange(0, B)))
    for r in range(0, rows):
        for i in range(0, n, B):
            tl.store(y_ptr + r * n + i + tl.arange(0, B),
                     tl.load(x_ptr + i + tl.arange(0, B)) + total)
    r = 0
    while r < rows:
        i = r * 2
        tl.store(out_ptr + 2 + r, i)
        r += 1
    if label < 0:
        for i in range(0, n, B):
            tl.store(y_ptr + i + tl.arange(0, B), tl.zeros((B,), tl.float32))
        tl.store(out_ptr, -1.0)
        return
    for i in range(0, n, B):
        total += tl.sum(tl.load(x_ptr + i + tl.arange(0, B)))
    tl.store(out_ptr, total)


@triton.jit
def pointer_views_kernel(x_ptr, out_ptr, R: tl.constexpr, C: tl.constexpr):
    # Tiles of pointers go through the ops that move elements.
    rows = tl.arange(0, R)[:, None]
    cols = tl.arange(0, C)[None, :]
    p = x_ptr + rows * C + cols
    tl.store(out_ptr + tl.arange(0, C)[:, None] * R + tl.arange(0, R)[None, :],
             tl.load(tl.trans(p)))
    tl.store(out_ptr + R * C + tl.arange(0, R * C),
             tl.load(tl.reshape(p, (R * C,))))
    tl.store(out_ptr + 2 * R * C + rows * C + cols,
             tl.load(tl.broadcast_to((x_ptr + tl.arange(0, C))[None, :],
                                     (R, C))))
    even, odd = tl.split(tl.reshape(p, (R, C // 2, 2)))
    tl.store(out_ptr + 3 * R * C + rows * (C // 2) +
             tl.arange(0, C // 2)[None, :], tl.load(odd) - tl.load(even))


@triton.jit
def odd_shape_kernel(out_ptr, WHAT: tl.constexpr):
    if WHAT == "zeros":
        x = tl.zeros((3, 8), tl.float32)
    elif WHAT == "full":
        x = tl.full((3, 8), 1.0, tl.float32)
    elif WHAT == "broadcast_to":
        x = tl.broadcast_to(tl.zeros((1, 8), tl.float32), (3, 8))
    else:
        x = tl.reshape(tl.zeros((8, 4), tl.float32), (3, 8))
    tl.store(out_ptr + tl.arange(0, 8), tl.sum(x, 0))


@triton.jit
def same_type_kernel(x_ptr, f8_ptr, out_ptr, f8_out_ptr, flags_ptr,
                     N: tl.constexpr):
    # A conversion to a value's own type is the value; pointers convert to
    # their addresses (uint64) and to whether they are null (int1).
    i = tl.arange(0, N)
    f = tl.load(f8_ptr + i)
    tl.store(f8_out_ptr + i, f.to(f8_ptr.dtype.element_ty))
    b = tl.load(x_ptr + i) > 0
    tl.store(out_ptr + i, b.to(tl.int1, bitcast=True).to(tl.int32))
    p = x_ptr + i
    tl.store(flags_ptr + i, ((p + 1).to(tl.uint64) - p.to(tl.uint64)) +
             p.to(tl.int1).to(tl.uint64))


def _blocks(n, block):
    return (n + block - 1) // block


@triton.jit
def compile_time_call_kernel(out_ptr, D: tl.constexpr, N: tl.constexpr):
    scale = 1 / math.sqrt(D)
    tl.store(out_ptr, scale)
    tl.store(out_ptr + 1, _blocks(N, 16))
    tl.store(out_ptr + 2 + tl.arange(0, _blocks(N, 16)), 1.0)


@triton.jit
def random_streams_kernel(seeds_ptr, useed, out_ptr, bits_ptr, words_ptr,
                          R: tl.constexpr, C: tl.constexpr):
    # A seed per row (a tile), an unsigned 64-bit seed argument, int16
    # offsets, and Philox 4x64 of 64-bit counters.
    r = tl.arange(0, R)[:, None]
    c = tl.arange(0, C)[None, :]
    seeds = tl.load(seeds_ptr + r)
    tl.store(out_ptr + r * C + c, tl.randint(seeds, c))
    tl.store(out_ptr + R * C + tl.arange(0, C),
             tl.randint(useed, tl.arange(0, C).to(tl.int16) - 4))
    n = tl.arange(0, C)
    w0, w1, w2, w3 = tl.philox(useed, n.to(tl.uint64), n.to(tl.int64) * 3,
                               tl.full((C,), 5, tl.int64), n.to(tl.uint64))
    tl.store(words_ptr + tl.arange(0, C), w0)
    tl.store(words_ptr + C + tl.arange(0, C), w3)
    tl.store(bits_ptr + tl.arange(0, C), tl.uint_to_uniform_float(w1))


@triton.jit
def batched_transpose_kernel(x_ptr, out_ptr, pair_ptr, one_ptr, a, b):
    # trans without a permutation swaps the last two dimensions; two
    # scalars interleave to their pair; a tile of one number reshapes to
    # that number.
    i = tl.arange(0, 2)[:, None, None]
    j = tl.arange(0, 4)[None, :, None]
    k = tl.arange(0, 8)[None, None, :]
    x = tl.load(x_ptr + i * 32 + j * 8 + k)
    t = tl.trans(x)
    tl.store(out_ptr + i * 32 + tl.trans(k) * 4 + tl.trans(j), t)
    tl.store(pair_ptr + tl.arange(0, 2), tl.interleave(a, b))
    one = tl.reshape(tl.load(x_ptr + 5 + tl.arange(0, 1)), ())
    tl.store(one_ptr, one + 1)


@triton.jit
def sort_flags_kernel(x_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    flags = tl.load(x_ptr + i) > 0
    tl.store(out_ptr + i, tl.sort(flags).to(tl.int32))
    tl.store(out_ptr + N + i, tl.sort(flags, descending=True).to(tl.int32))


@triton.jit
def python_forms_kernel(out_ptr, a, b, n_ptr, MODE: tl.constexpr,
                        SIZES: tl.constexpr):
    # One run-time value left in `and`/`or` is the result as it is; `in`
    # of compile-time values; a comprehension over a tuple, a walrus, an
    # f-string of constexprs; a loop bound of a narrow integer type.
    tl.static_assert(len(SIZES) == 3, f"three sizes, not {SIZES}")
    tl.store(out_ptr, b or False)
    tl.store(out_ptr + 1, True and b)
    if MODE in ("sum", "mean"):
        tl.store(out_ptr + 2, 1)
    if MODE not in ("max",):
        tl.store(out_ptr + 3, 1)
    doubled = [s * 2 for s in SIZES if s > 1]
    tl.store(out_ptr + 4, doubled[0] + doubled[1])
    if (c := a * 2) > 4:
        tl.store(out_ptr + 5, c)
    total = 0
    for i in range(tl.load(n_ptr)):
        total += i
    tl.store(out_ptr + 6, total)


@triton.jit
def and_true_kernel(out_ptr, a):
    tl.store(out_ptr, a and True)


@triton.jit
def chosen_descriptor_kernel(x_ptr, y_ptr, out_ptr, flag, M, N,
                             BM: tl.constexpr, BN: tl.constexpr):
    # A descriptor chosen by a run-time if, and one carried by a loop.
    if flag > 0:
        desc = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [BM, BN])
    else:
        desc = tl.make_tensor_descriptor(y_ptr, [M - 1, N], [N, 1],
                                         [BM, BN])
    out = tl.make_tensor_descriptor(out_ptr, [2 * M, N], [N, 1], [BM, BN])
    out.store([0, 0], desc.load([0, 0]))
    walking = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [1, BN])
    total = tl.zeros((1, BN), tl.float32)
    for i in range(M):
        total += walking.load([0, 0])
        walking = tl.make_tensor_descriptor(x_ptr + (i + 1) * N, [M, N],
                                            [N, 1], [1, BN])
    row = tl.make_tensor_descriptor(out_ptr, [2 * M, N], [N, 1], [1, BN])
    row.store([BM, 0], total)


@triton.jit
def float32_dot_kernel(a_ptr, b_ptr, c_ptr, h_ptr, out_ptr,
                       N: tl.constexpr):
    # A float32 dot naming no precision, and tf32 flags (in any case) on
    # float16 operands, which Triton takes and ignores.
    i = tl.arange(0, N)
    tile = i[:, None] * N + i[None, :]
    a = tl.load(a_ptr + tile)
    b = tl.load(b_ptr + tile)
    tl.store(c_ptr + tile, tl.dot(a, b))
    h = tl.load(h_ptr + tile)
    both = tl.dot(h, h, allow_tf32=True) + tl.dot(h, h, input_precision="TF32")
    tl.store(out_ptr + tile, both + tl.dot(a, b, input_precision="IEEE"))


@triton.jit
def half_accumulator_dot_kernel(a_ptr, b_ptr, c_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    tile = i[:, None] * N + i[None, :]
    acc = tl.load(c_ptr + tile)
    acc = tl.dot(tl.load(a_ptr + tile), tl.load(b_ptr + tile), acc)
    tl.store(c_ptr + tile, acc)


@triton.jit
def one_element_condition_kernel(x_ptr, out_ptr):
    # A tile of one element is a condition (Triton takes its element).
    x = tl.load(x_ptr + tl.arange(0, 1))
    if x > 0:
        tl.store(out_ptr, 1)
    else:
        tl.store(out_ptr, 2)


@triton.jit
def print_kernel(x_ptr):
    # Triton's kernels print with Python's print, as device_print.
    print("x", tl.load(x_ptr))


@triton.jit
def rank_mismatched_hint_kernel(out_ptr):
    offsets = tl.arange(0, 4)[:, None] * 4 + tl.arange(0, 4)[None, :]
    tl.store(out_ptr + tl.multiple_of(offsets, 16), 1)


@triton.jit
def dot_scaled_kernel(a_ptr, a_scale_ptr, b_ptr, b_scale_ptr, out_ptr,
                      M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
                      A_FORMAT: tl.constexpr, B_FORMAT: tl.constexpr,
                      GROUP: tl.constexpr, SCALED: tl.constexpr):
    # Tutorial 10's block-scaled matmul, one block: e2m1 packs two values
    # a byte along K.
    A_K: tl.constexpr = K // 2 if A_FORMAT == "e2m1" else K
    B_K: tl.constexpr = K // 2 if B_FORMAT == "e2m1" else K
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    a = tl.load(a_ptr + rows[:, None] * A_K + tl.arange(0, A_K)[None, :])
    b = tl.load(b_ptr + tl.arange(0, B_K)[:, None] * N + cols[None, :])
    if SCALED:
        groups = tl.arange(0, K // GROUP)
        a_scale = tl.load(a_scale_ptr + rows[:, None] * (K // GROUP)
                          + groups[None, :])
        b_scale = tl.load(b_scale_ptr + cols[:, None] * (K // GROUP)
                          + groups[None, :])
        c = tl.dot_scaled(a, a_scale, A_FORMAT, b, b_scale, B_FORMAT)
    else:
        c = tl.dot_scaled(a, None, A_FORMAT, b, None, B_FORMAT)
    tl.store(out_ptr + rows[:, None] * N + cols[None, :], c)


@triton.jit
def two_numbers_kernel(c_ptr, where_ptr, tiny_ptr, min_ptr, max_ptr,
                       wide_ptr, unsigned_ptr, N: tl.constexpr):
    # Two Python numbers meet in one type, as two operands of an operator
    # do: 0.1 and 1e300 in float64, 1 and 2**40 in int64.
    i = tl.arange(0, N)
    cond = tl.load(c_ptr + i) > 0
    tl.store(where_ptr + i, tl.where(cond, 0.1, 1e300))
    tl.store(tiny_ptr + i, tl.where(cond, 0.5, 1e-50))
    tl.store(min_ptr, tl.minimum(0.5, 1e-50))
    tl.store(max_ptr, tl.maximum(0.1, 1e300))
    tl.store(wide_ptr + i, tl.where(cond, 1, 2**40))
    tl.store(unsigned_ptr + i, tl.where(cond, 1, 2**31))


@triton.jit
def atomic_literal_kernel(p_ptr, old_ptr):
    # A float literal is a float32 constant first, then the pointee's
    # float64, as in every store and atomic.
    tl.store(old_ptr, tl.atomic_min(p_ptr, 0.1))
    tl.store(old_ptr + 1, tl.atomic_max(p_ptr + 1, -0.1))


@triton.jit
def scalar_index_kernel(out_ptr):
    # `None` indices make a scalar a tile of ones, as tl.expand_dims does.
    s = tl.program_id(0) + 5
    t = s[None, None]
    tl.static_assert(t.shape == (1, 1))
    tl.store(out_ptr + tl.arange(0, 1)[:, None] + tl.zeros_like(t), t)


@triton.jit
def symmetric_clamp_kernel(x_ptr, out_ptr, half_ptr, N: tl.constexpr):
    # fp8 quantization's clamp to +-448: Triton's GPU code is PTX's
    # min.xorsign.abs, where a NaN gives 448 with the NaN's sign.
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i)
    tl.store(out_ptr + i, tl.clamp(x, -448.0, 448.0))
    tl.store(half_ptr + i, tl.clamp(x.to(tl.float16), -2.0, 2.0))
    tl.store(out_ptr + N + i, tl.clamp(x, -2.0, 3.0))
