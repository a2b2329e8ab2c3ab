"""What a ``@kiln.jit`` kernel computes where Python, numpy and C could
disagree, the same compiled for the host and in the interpreter: booleans
compared as Python does, NaN in argmax (Triton's rule), bit casts,
integer scalars that truncate and wrap as the kernel's i32, Python floats
as float32, the loop variable after its loop, range with a step of either
sign known at run time, and float16 sums. Each case runs both ways against numpy (a
review found the host and the interpreter disagreeing on each)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import kiln
import kiln.language as kl
from kiln.extra import libdevice

RNG = np.random.default_rng(5)
BOTH = pytest.mark.parametrize("interpret", [False, True],
                               ids=["host", "interpreter"])


def launch(kernel, interpret, grid, *args, **kwargs):
    kiln.jit(kernel.fn, interpret=interpret)[grid](*args, **kwargs)


@kiln.jit
def bool_compare_kernel(a_ptr, b_ptr, out_ptr, arg_ptr, N: kl.constexpr):
    i = kl.arange(0, N)
    a = kl.load(a_ptr + i) != 0
    b = kl.load(b_ptr + i) != 0
    kl.store(out_ptr + i, a < b)
    kl.store(out_ptr + N + i, a >= b)
    kl.store(out_ptr + 2 * N + i, a > b)
    kl.store(arg_ptr, kl.argmax(a, axis=0))
    kl.store(arg_ptr + 1, kl.argmin(b, axis=0))


@BOTH
def test_booleans_compare_as_in_python(interpret):
    """True > False: comparisons, argmax and argmin of booleans."""
    a = np.array([0, 0, 0, 1, 1, 0, 1, 0], np.int8)
    b = np.array([1, 1, 0, 0, 1, 0, 0, 1], np.int8)
    out, arg = np.zeros(24, np.int8), np.zeros(2, np.int32)
    launch(bool_compare_kernel, interpret, (1,), a, b, out, arg, N=8)
    a, b = a.astype(bool), b.astype(bool)
    np.testing.assert_array_equal(out, np.concatenate([a < b, a >= b, a > b]))
    assert arg.tolist() == [int(np.argmax(a)), int(np.argmin(b))]


@kiln.jit
def arg_nan_kernel(x_ptr, out_ptr, N: kl.constexpr):
    row = kl.program_id(0)
    x = kl.load(x_ptr + row * N + kl.arange(0, N))
    kl.store(out_ptr + 2 * row, kl.argmax(x, axis=0))
    kl.store(out_ptr + 2 * row + 1, kl.argmin(x, axis=0))


def nan_last_arg(fn, rows):
    """``fn`` (numpy's argmax or argmin) of each row's numbers, 0 for a
    row of NaNs alone (numpy's nanargmax would take a NaN for -inf)."""
    result = []
    for row in rows:
        numbers = np.flatnonzero(~np.isnan(row))
        result.append(int(numbers[fn(row[numbers])]) if numbers.size else 0)
    return result


@BOTH
def test_argmax_with_nan_is_tritons(interpret):
    """A NaN loses to any number, as in Triton (whose interpreter takes
    numpy's nanargmax; that one takes a NaN for -inf, the last row); the
    first of NaNs alone; ties to the first."""
    rows = np.array([
        [1, np.nan, 7, 7, 0, 2, 3, 4],
        [1, 2, 9, 9, 0, 0, 5, np.nan],
        [np.nan] * 8,
        [3, 3, 3, 3, 3, 3, 3, 3],
        [0, -1, 5, np.nan, 5, np.nan, -1, 2],
        [-np.inf, np.inf, 0, 0, np.inf, -np.inf, 1, 1],
        [np.nan, -np.inf, np.nan, -np.inf, np.nan, np.inf, np.nan, np.inf],
        [np.nan, -np.inf, np.nan, -np.inf, np.nan, np.nan, np.nan, np.nan],
    ], np.float32)
    out = np.zeros(2 * len(rows), np.int32)
    launch(arg_nan_kernel, interpret, (len(rows),), rows, out, N=8)
    assert out[0::2].tolist() == nan_last_arg(np.argmax, rows)
    assert out[1::2].tolist() == nan_last_arg(np.argmin, rows)
    assert out[0::2].tolist() == [2, 2, 0, 0, 2, 1, 5, 1]
    assert out[1::2].tolist() == [4, 4, 0, 0, 1, 0, 1, 1]


@kiln.jit
def bitcast_kernel(x_ptr, bits_ptr, back_ptr, h_ptr, hbits_ptr):
    i = kl.arange(0, 4)
    bits = kl.load(x_ptr + i).to(kl.int32, bitcast=True)
    kl.store(bits_ptr + i, bits)
    kl.store(back_ptr + i, bits.to(kl.float32, bitcast=True))
    kl.store(hbits_ptr + i, kl.load(h_ptr + i).to(kl.int16, bitcast=True))


@BOTH
def test_bitcast_reinterprets_bits(interpret):
    x = np.array([1.0, 2.5, -1.0, -0.0], np.float32)
    h = np.array([1.0, -2.0, 65504.0, np.inf], np.float16)
    bits, back = np.zeros(4, np.int32), np.zeros(4, np.float32)
    hbits = np.zeros(4, np.int16)
    launch(bitcast_kernel, interpret, (1,), x, bits, back, h, hbits)
    np.testing.assert_array_equal(bits, x.view(np.int32))
    np.testing.assert_array_equal(back.view(np.int32), x.view(np.int32))
    np.testing.assert_array_equal(hbits, h.view(np.int16))


@kiln.jit
def bad_bitcast_kernel(x_ptr):
    kl.store(x_ptr, kl.load(x_ptr).to(kl.int16, bitcast=True))


def test_bitcast_needs_one_width():
    with pytest.raises(kiln.KilnCompileError,
                       match="f32 and i16 must have the same width"):
        bad_bitcast_kernel[(1,)](np.zeros(1, np.float32))


@kiln.jit
def scalar_kernel(ints_ptr, floats_ptr, a, b, f):
    pid = kl.program_id(0)
    kl.store(ints_ptr + 0, a // b)
    kl.store(ints_ptr + 1, a % b)
    kl.store(ints_ptr + 2, (pid + 65536) * 65536)   # wraps to 0 in i32
    kl.store(ints_ptr + 3, kl.cdiv(a, b))
    kl.store(ints_ptr + 4, pid.to(kl.int64) * 3000000000 // 1000)
    kl.store(floats_ptr + 0, f + 1.0 - f)           # 0 in float32
    kl.store(floats_ptr + 1, a / b)


@BOTH
@pytest.mark.parametrize("a,b", [(-7, 2), (7, -2), (-8, 3), (1, 1)])
def test_scalars_are_the_kernels_i32_and_f32(interpret, a, b):
    """Scalar arguments and program ids are i32 (division truncates,
    products wrap) and Python floats float32, compiled or interpreted,
    and whether or not an argument equal to 1 is compiled as a
    constant."""
    ints, floats = np.zeros(5, np.int64), np.zeros(2, np.float32)
    launch(scalar_kernel, interpret, (1,), ints, floats, a, b, 16777216.0)
    trunc = int(a / b)
    assert ints.tolist() == [trunc, a - b * trunc, 0,
                             int((a + b - 1) / b), 0]
    assert floats.tolist() == [0.0, np.float32(a) / np.float32(b)]


@kiln.jit
def float64_scale_kernel(x_ptr, out_ptr, scale, N: kl.constexpr):
    i = kl.arange(0, N)
    acc = kl.zeros((N,), dtype=kl.float32)
    for _ in range(3):
        acc += kl.load(x_ptr + i) * scale
    kl.store(out_ptr + i, acc)


@BOTH
def test_a_numpy_float64_scalar_is_float32(interpret):
    """1 / np.sqrt(d) is a numpy float64, a Python float: float32 as in
    Triton, so a float32 accumulator stays float32."""
    x = np.arange(8, dtype=np.float32)
    out = np.zeros(8, np.float32)
    scale = 1 / np.sqrt(16.0)
    launch(float64_scale_kernel, interpret, (1,), x, out, scale, N=8)
    np.testing.assert_allclose(out, 3 * x * np.float32(scale), rtol=1e-6)


@kiln.jit
def loop_variable_kernel(out_ptr, n, step):
    i = 100
    for i in range(n):
        pass
    kl.store(out_ptr, i)
    count = 0
    j = -1
    for j in range(10, -n, step):
        count += 1
    kl.store(out_ptr + 1, count)
    kl.store(out_ptr + 2, j)


@BOTH
@pytest.mark.parametrize("n,step", [(5, -3), (0, -1), (3, 4), (2, 7),
                                    (4, -20), (1, 0)])
def test_loop_variable_and_run_time_steps(interpret, n, step):
    """After a loop its variable holds its last value (the value before
    where the body never ran); a step known only at run time counts as
    Python's range, down for a negative one (none for 0)."""
    out = np.zeros(3, np.int32)
    launch(loop_variable_kernel, interpret, (1,), out, n, step)
    trips = range(10, -n, step) if step else range(0)
    assert out[0] == (n - 1 if n > 0 else 100)
    assert out[1] == len(trips)
    assert out[2] == (trips[-1] if len(trips) else -1)


@kiln.jit
def pipelined_sum_kernel(out_ptr, n):
    acc = 0
    for i in range(0, n, num_stages=2):
        acc += i
    kl.store(out_ptr, acc)


@BOTH
def test_range_takes_num_stages(interpret):
    out = np.zeros(1, np.int32)
    launch(pipelined_sum_kernel, interpret, (1,), out, 7)
    assert out[0] == 21


@kiln.jit
def half_sum_kernel(x_ptr, out_ptr, prefix_ptr, N: kl.constexpr):
    i = kl.arange(0, N)
    x = kl.load(x_ptr + i)
    kl.store(out_ptr, kl.sum(x, axis=0))
    kl.store(prefix_ptr + i, kl.cumsum(x, axis=0))


@BOTH
def test_float16_sums_are_summed_in_float32(interpret):
    """4096 ones sum to 4096 (a float16 running sum stops at 2048), and
    each prefix sum is rounded once."""
    ones = np.ones(4096, np.float16)
    out, prefix = np.zeros(1, np.float16), np.zeros(4096, np.float16)
    launch(half_sum_kernel, interpret, (1,), ones, out, prefix, N=4096)
    assert out[0] == 4096
    np.testing.assert_array_equal(
        prefix, np.cumsum(ones.astype(np.float32)).astype(np.float16))


# Triton idioms (a review's list of what Triton kernels write and Kiln
# refused), each against numpy both ways.

@kiln.jit
def reductions_kernel(x_ptr, out_ptr, arg_ptr, keep_ptr):
    r = kl.arange(0, 4)
    c = kl.arange(0, 8)
    x = kl.load(x_ptr + r[:, None] * 8 + c[None, :])
    kl.store(out_ptr + r, kl.sum(x, axis=-1))
    kl.store(out_ptr + 4 + c, x.max(axis=0))
    kl.store(out_ptr + 12 + r, x.min(-1))
    kl.store(out_ptr + 16, x.sum())
    kl.store(arg_ptr, kl.argmax(x, axis=None))
    kl.store(arg_ptr + 1 + r, x.argmin(axis=-1))
    centered = x - kl.max(x, axis=1, keep_dims=True)
    kl.store(keep_ptr + r[:, None] * 8 + c[None, :], centered)
    kl.store(keep_ptr + 32 + r[:, None] * 0 + c[None, :] * 0,
             kl.sum(x, axis=None, keep_dims=True))
    kl.store(arg_ptr + 5 + r[:, None], kl.argmax(x, 1, keep_dims=True))


@BOTH
def test_reduction_axes_keep_dims_and_methods(interpret):
    x = RNG.standard_normal((4, 8)).astype(np.float32)
    out, args = np.zeros(17, np.float32), np.zeros(9, np.int32)
    keep = np.zeros(33, np.float32)
    launch(reductions_kernel, interpret, (1,), x, out, args, keep)
    np.testing.assert_allclose(out[:4], x.sum(-1), rtol=1e-5)
    np.testing.assert_array_equal(out[4:12], x.max(0))
    np.testing.assert_array_equal(out[12:16], x.min(-1))
    np.testing.assert_allclose(out[16], x.sum(), rtol=1e-5)
    assert args[0] == np.argmax(x)
    np.testing.assert_array_equal(args[1:5], x.argmin(-1))
    np.testing.assert_array_equal(args[5:9], x.argmax(1))
    np.testing.assert_array_equal(keep[:32].reshape(4, 8),
                                  x - x.max(1, keepdims=True))
    np.testing.assert_allclose(keep[32], x.sum(), rtol=1e-5)


@kiln.jit
def builtins_kernel(x_ptr, out_ptr, n, step):
    i = kl.arange(0, 8)
    x = kl.load(x_ptr + kl.multiple_of(i, 8))
    kl.store(out_ptr + i, kl.clamp(x, -1.0, 1.0))
    kl.store(out_ptr + 8 + i, kl.floor(x) + kl.ceil(x))
    kl.store(out_ptr + 16 + i, kl.zeros_like(x) + kl.full_like(x, 2.5))
    row = kl.expand_dims(x, 0)
    kl.store(out_ptr + 24 + i, kl.sum(kl.broadcast_to(row, (4, 8)), axis=0))
    kl.store(out_ptr + 32, min(n, 5) + max(n, step, 2))
    total = n * 0  # of n's type: an i64 n makes an i64 loop
    for k in range(0, n, step):
        total += k
    kl.store(out_ptr + 33, total)
    kl.store(out_ptr + 34 + i, kl.max_contiguous(x, 8).to(
        out_ptr.dtype.element_ty))


@BOTH
@pytest.mark.parametrize("n", [3, np.int64(7)])
def test_triton_builtins(interpret, n):
    """clamp, floor, ceil, zeros_like, full_like, expand_dims,
    broadcast_to, the multiple_of and max_contiguous hints, Python's
    min and max on run-time scalars, a range over an int64 bound, and
    pointer.dtype.element_ty."""
    x = np.array([-2.5, -1, -0.5, 0, 0.25, 1, 1.5, 3], np.float32)
    out = np.zeros(42, np.float32)
    launch(builtins_kernel, interpret, (1,), x, out, n, 2)
    np.testing.assert_array_equal(out[:8], np.clip(x, -1, 1))
    np.testing.assert_array_equal(out[8:16], np.floor(x) + np.ceil(x))
    np.testing.assert_array_equal(out[16:24], np.full(8, 2.5))
    np.testing.assert_array_equal(out[24:32], 4 * x)
    assert out[32] == min(n, 5) + max(n, 2, 2)
    assert out[33] == sum(range(0, n, 2))
    np.testing.assert_array_equal(out[34:42], x)


@kiln.jit
def dot_options_kernel(a_ptr, b_ptr, out_ptr, wide_ptr):
    r = kl.arange(0, 16)
    a = kl.load(a_ptr + r[:, None] * 16 + r[None, :])
    b = kl.load(b_ptr + r[:, None] * 16 + r[None, :])
    c = kl.dot(a, b, allow_tf32=False)
    kl.store(out_ptr + r[:, None] * 16 + r[None, :], c)
    d = kl.dot(a.to(kl.float64), b.to(kl.float64), out_dtype=kl.float64)
    kl.store(wide_ptr + r[:, None] * 16 + r[None, :], d)


@BOTH
def test_dot_takes_out_dtype_and_allow_tf32(interpret):
    a = RNG.standard_normal((16, 16)).astype(np.float32)
    b = RNG.standard_normal((16, 16)).astype(np.float32)
    out, wide = np.zeros((16, 16), np.float32), np.zeros((16, 16))
    launch(dot_options_kernel, interpret, (1,), a, b, out, wide)
    np.testing.assert_allclose(out, a @ b, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(wide, a.astype(np.float64) @ b, rtol=1e-12)


# Mistakes get a kiln exception naming the line or the argument, not a
# Python error from inside Kiln.

@kiln.jit
def pointer_product_kernel(x_ptr):
    kl.store(x_ptr * 2, 1.0)  # marker: pointer product


@kiln.jit
def two_arguments(a, b):
    return a + b


@kiln.jit
def arity_kernel(x_ptr):
    kl.store(x_ptr, two_arguments(1))  # marker: arity


@kiln.jit
def recursive(n):
    return recursive(n)


@kiln.jit
def recursion_kernel(x_ptr):
    kl.store(x_ptr, recursive(1))


@kiln.jit
def constant_division_kernel(x_ptr, N: kl.constexpr):
    kl.store(x_ptr, N // 0)


def test_front_end_mistakes_are_kiln_errors():
    x = np.zeros(4, np.float32)
    with pytest.raises(kiln.KilnCompileError,
                       match="operator Mult is not defined on pointers"):
        pointer_product_kernel[(1,)](x)
    with pytest.raises(kiln.KilnCompileError,
                       match=r"two_arguments\(\): missing a required "
                             "argument: 'b'"):
        arity_kernel[(1,)](x)
    with pytest.raises(kiln.KilnCompileError,
                       match=r"recursive\(\) calls itself"):
        recursion_kernel[(1,)](x)
    with pytest.raises(kiln.KilnCompileError,
                       match="division or modulo by zero"):
        constant_division_kernel[(1,)](x, N=4)


@kiln.jit
def mismatch_kernel(x_ptr):
    a = kl.arange(0, 4)
    b = kl.arange(0, 2)
    kl.store(x_ptr + a, a + b)  # marker: mismatch


@kiln.jit
def tile_if_kernel(x_ptr):
    a = kl.arange(0, 4)
    if a > 1:
        kl.store(x_ptr + a, a)


@kiln.jit
def plain_kernel(x_ptr, n):
    kl.store(x_ptr, n)


@BOTH
def test_launch_mistakes_are_kiln_errors(interpret):
    """Both ways, a bad grid or argument is a KilnError naming it, and so
    is a kernel operation numpy refuses in the interpreter."""
    x = np.zeros(4, np.int32)
    kernel = kiln.jit(plain_kernel.fn, interpret=interpret)
    for grid in [("a",), (-1,), (1, 1, 1, 1), (2**31,), (1, 2**32 + 1)]:
        with pytest.raises(kiln.KilnError, match="grid must be 1 to 3 "
                                                 "integer sizes from 0"):
            kernel[grid](x, 1)
    # None is a constant of the specialization, as in Triton; stored as a
    # value, it is an error at the line that stores it.
    with pytest.raises(kiln.KilnError, match=r"test_kernel_semantics\.py:"
                       r"\d+.*(None cannot be used as a value|NoneType)"):
        kernel[(1,)](x, None)
    with pytest.raises(kiln.KilnError,
                       match="argument 'x_ptr' of type list"):
        kernel[(1,)]([0, 0], 1)
    with pytest.raises(kiln.KilnError, match="numpy dtype complex64"):
        kernel[(1,)](x.astype(np.complex64), 1)
    with pytest.raises(kiln.KilnError, match="broadcast") as info:
        kiln.jit(mismatch_kernel.fn, interpret=interpret)[(1,)](x)
    if interpret:
        assert "# marker: mismatch" in str(info.value)
    with pytest.raises(kiln.KilnError, match="scalar"):
        kiln.jit(tile_if_kernel.fn, interpret=interpret)[(1,)](x)


# Random numbers: Philox 4x32-10 with Triton's conventions.

def _signed(v: int) -> int:
    return v - (1 << 32) if v >= 1 << 31 else v


@kiln.jit
def philox_kernel(out_ptr, seed, c0, c1, c2, c3):
    w0, w1, w2, w3 = kl.philox(seed, c0, c1, c2, c3)
    kl.store(out_ptr, w0)
    kl.store(out_ptr + 1, w1)
    kl.store(out_ptr + 2, w2)
    kl.store(out_ptr + 3, w3)


@kiln.jit
def philox_constant_seed_kernel(out_ptr, SEED: kl.constexpr):
    ones = kl.full((2,), -1, kl.int32)
    words = kl.philox(SEED, ones, ones, ones, ones)
    kl.store(out_ptr + kl.arange(0, 2), words[0])


@BOTH
def test_philox_known_answers(interpret):
    """Random123's known-answer vectors for Philox 4x32-10: counter and
    key all zeros, all ones (a constant seed of 2**64 - 1), and the
    digits of pi."""
    out = np.zeros(4, np.int32)
    kernel = kiln.jit(philox_kernel.fn, interpret=interpret)
    kernel[(1,)](out, 0, 0, 0, 0, 0)
    assert (out.view(np.uint32) == [0x6627E8D5, 0xE169C58D, 0xBC57AC4C,
                                    0x9B00DBD8]).all()
    kernel[(1,)](out, np.int64(0x299F31D0A4093822), _signed(0x243F6A88),
                 _signed(0x85A308D3), _signed(0x13198A2E), 0x03707344)
    assert (out.view(np.uint32) == [0xD16CFE09, 0x94FDCCEB, 0x5001E420,
                                    0x24126EA1]).all()
    first = np.zeros(2, np.int32)
    launch(philox_constant_seed_kernel, interpret, (1,), first,
           SEED=2**64 - 1)
    assert (first.view(np.uint32) == 0x408F276D).all()


@kiln.jit
def random_kernel(ints_ptr, uniform_ptr, normal_ptr, seed,
                  BLOCK: kl.constexpr):
    offsets = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK)
    kl.store(ints_ptr + offsets, kl.randint(seed, offsets))
    kl.store(uniform_ptr + offsets, kl.rand(seed, offsets))
    kl.store(normal_ptr + offsets, kl.randn(seed, offsets))


def _random(interpret, seed, n=4096):
    ints = np.zeros(n, np.int32)
    uniform, normal = np.zeros(n, np.float32), np.zeros(n, np.float32)
    launch(random_kernel, interpret, (n // 256,), ints, uniform, normal,
           seed, BLOCK=256)
    return ints, uniform, normal


@pytest.mark.parametrize("seed", [0, 42, -7, np.int64(2**40 + 3)])
def test_random_numbers_agree_and_are_distributed(seed):
    """The host and the interpreter draw the same integers and uniforms
    (bit for bit) and normals (to float32 rounding of log and cos); the
    uniforms lie in [0, 1), the normals have mean 0 and variance 1; and a
    number depends only on the seed and its offset."""
    host = _random(False, seed)
    interpreted = _random(True, seed)
    np.testing.assert_array_equal(host[0], interpreted[0])
    np.testing.assert_array_equal(host[1], interpreted[1])
    np.testing.assert_allclose(host[2], interpreted[2], rtol=1e-5,
                               atol=1e-5)
    ints, uniform, normal = host
    assert 0 <= uniform.min() and uniform.max() < 1
    assert abs(uniform.mean() - 0.5) < 0.02
    assert abs(normal.mean()) < 0.06 and abs(normal.var() - 1) < 0.08
    assert len(np.unique(ints)) == len(ints)
    # The first word, read as int32 and made non-negative, scaled.
    made = np.where(ints < 0, -(ints.astype(np.int64)) - 1, ints)
    np.testing.assert_array_equal(
        uniform, made.astype(np.float32) * np.float32(4.6566127342e-10))
    fewer = np.zeros(1024, np.int32)
    launch(random_kernel, False, (4,), fewer, np.zeros(1024, np.float32),
           np.zeros(1024, np.float32), seed, BLOCK=256)
    np.testing.assert_array_equal(fewer, ints[:1024])
    assert not np.array_equal(_random(False, 1)[0], _random(False, 2)[0])


@kiln.jit
def dropout_kernel(x_ptr, out_ptr, n, p, seed, BLOCK: kl.constexpr):
    offsets = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK)
    mask = offsets < n
    x = kl.load(x_ptr + offsets, mask=mask)
    keep = kl.rand(seed, offsets) > p
    kl.store(out_ptr + offsets, kl.where(keep, x / (1 - p), 0.0), mask=mask)


def test_dropout_compiles_for_the_gpu():
    """Triton's dropout tutorial kernel: its Philox rounds take the high
    words of 32-bit products (mul.hi.u32) on sm_80 and sm_90a."""
    x = np.zeros(1000, np.float32)
    for chip in ("sm_80", "sm_90a"):
        ptx = dropout_kernel.asm(x, x, 1000, 0.5, 7, BLOCK=256,
                                 chip=chip)["ptx"]
        assert "mul.hi.u32" in ptx


@kiln.jit
def exponent_literals_kernel(out_ptr, x):
    kl.store(out_ptr, x + 1e-05)
    kl.store(out_ptr + 1, 2.5e20)
    kl.store(out_ptr + 2, x * 1e-30)


@BOTH
def test_float_literals_with_exponents(interpret):
    """1e-05 (Python's repr has no point) is a float literal MLIR
    parses."""
    out = np.zeros(3, np.float32)
    launch(exponent_literals_kernel, interpret, (1,), out, 2.0)
    np.testing.assert_array_equal(
        out, np.array([np.float32(2.0) + np.float32(1e-05),
                       np.float32(2.5e20), np.float32(2e-30)], np.float32))


# kl.reduce and kl.associative_scan with the kernel's own combining
# function (Triton's tl.reduce and tl.associative_scan: a Welford
# combine, an argmax over (value, index) pairs, a running maximum).

@kiln.jit
def add_values(a, b):
    return a + b


@kiln.jit
def larger(a, b):
    return kl.maximum(a, b)


@kiln.jit
def argmax_pairs(value_a, index_a, value_b, index_b):
    take = (value_a > value_b) | ((value_a == value_b) & (index_a < index_b))
    return kl.where(take, value_a, value_b), kl.where(take, index_a, index_b)


@kiln.jit
def welford_combine(mean_a, m2_a, n_a, mean_b, m2_b, n_b):
    n = n_a + n_b
    weight = kl.where(n == 0, 0.0, n_b / kl.maximum(n, 1.0))
    delta = mean_b - mean_a
    return (mean_a + delta * weight,
            m2_a + m2_b + delta * delta * n_a * weight, n)


@kiln.jit
def combining_kernel(x_ptr, out_ptr, index_ptr, scan_ptr, R: kl.constexpr,
                     C: kl.constexpr):
    r = kl.arange(0, R)
    c = kl.arange(0, C)
    at = r[:, None] * C + c[None, :]
    x = kl.load(x_ptr + at)
    kl.store(out_ptr + r, kl.reduce(x, 1, add_values))
    kl.store(out_ptr + R + c, x.max(0))
    _, best = kl.reduce((x, kl.broadcast_to(c[None, :], (R, C))), -1,
                        argmax_pairs)
    kl.store(index_ptr + r, best)
    mean, m2, n = kl.reduce((x, kl.zeros_like(x), kl.full_like(x, 1.0)), 1,
                            welford_combine)
    kl.store(out_ptr + R + C + r, mean)
    kl.store(out_ptr + 2 * R + C + r, m2 / n)
    kl.store(out_ptr + 3 * R + C, kl.reduce(x, None, add_values))
    kl.store(out_ptr + 3 * R + C + 1 + r[:, None],
             kl.reduce(x, 1, larger, keep_dims=True))
    kl.store(scan_ptr + at, kl.associative_scan(x, 1, larger))
    kl.store(scan_ptr + R * C + at,
             kl.associative_scan(x, 1, add_values, reverse=True))
    kl.store(scan_ptr + 2 * R * C + at, kl.associative_scan(x, 0, add_values))


@BOTH
def test_reduce_and_scan_with_combining_functions(interpret):
    R, C = 4, 16
    x = RNG.standard_normal((R, C)).astype(np.float32)
    x[1, 3] = x[1, 9] = x[1].max() + 1  # a tie: the first index wins
    out = np.zeros(3 * R + C + 1 + R, np.float32)
    index, scans = np.zeros(R, np.int32), np.zeros(3 * R * C, np.float32)
    launch(combining_kernel, interpret, (1,), x, out, index, scans, R=R, C=C)
    wide = x.astype(np.float64)
    np.testing.assert_allclose(out[:R], wide.sum(1), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(out[R:R + C], x.max(0))
    np.testing.assert_array_equal(index, x.argmax(1))
    np.testing.assert_allclose(out[R + C:2 * R + C], wide.mean(1), atol=1e-5)
    np.testing.assert_allclose(out[2 * R + C:3 * R + C], wide.var(1),
                               rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(out[3 * R + C], wide.sum(), atol=1e-4)
    np.testing.assert_array_equal(out[3 * R + C + 1:], x.max(1))
    scans = scans.reshape(3, R, C)
    np.testing.assert_array_equal(scans[0], np.maximum.accumulate(x, 1))
    np.testing.assert_allclose(scans[1], np.cumsum(wide[:, ::-1], 1)[:, ::-1],
                               atol=1e-5)
    np.testing.assert_allclose(scans[2], np.cumsum(wide, 0), atol=1e-5)


@kiln.jit
def first_of_pairs(a, i, b, j):
    return a + b


@kiln.jit
def wrong_count_kernel(x_ptr):
    x = kl.load(x_ptr + kl.arange(0, 4))
    kl.store(x_ptr, kl.reduce((x, x), 0, first_of_pairs))


@kiln.jit
def wrong_arity_kernel(x_ptr):
    x = kl.load(x_ptr + kl.arange(0, 4))
    kl.store(x_ptr, kl.reduce((x, x), 0, add_values))


def test_a_combining_function_must_fit():
    x = np.zeros(4, np.float32)
    with pytest.raises(kiln.KilnCompileError,
                       match="combine_fn returns 1 values for 2 tiles"):
        wrong_count_kernel[(1,)](x)
    with pytest.raises(kiln.KilnCompileError,
                       match=r"add_values\(\): too many positional"):
        wrong_arity_kernel[(1,)](x)


def test_combining_kernels_compile_for_the_gpu():
    x = np.zeros(64, np.float32)
    for chip in ("sm_80", "sm_90a"):
        ptx = combining_kernel.asm(x, x, np.zeros(4, np.int32), x, R=4, C=16,
                                   chip=chip)["ptx"]
        assert "shfl.sync" in ptx


@kiln.jit
def unsigned_constant_kernel(x_ptr, x):
    kl.store(x_ptr, x * 2891336453)


def test_a_constant_out_of_the_tiles_range_is_an_error():
    """As in Triton ("out of range for type int32"): the number takes the
    int32 tile's type, which does not hold it."""
    with pytest.raises(kiln.KilnCompileError,
                       match="2891336453 does not fit in int32"):
        unsigned_constant_kernel[(1,)](np.zeros(1, np.int32), 3)


# A second review's findings, each both ways.

@kiln.jit
def division_kernel(out_ptr, a, b):
    kl.store(out_ptr, a // b)
    kl.store(out_ptr + 1, a % b)
    kl.store(out_ptr + 2, kl.cdiv(a, b))


@BOTH
@pytest.mark.parametrize("a,b", [(7, 0), (-2**31, -1), (-2**31, 0), (0, 0),
                                 (-7, 2)])
def test_integer_division_never_traps(interpret, a, b):
    """x // 0 and x % 0 are 0 and the lowest i32 // -1 wraps to itself:
    a CPU's division instruction faults on both, which killed the Python
    process on the host."""
    out = np.zeros(3, np.int32)
    launch(division_kernel, interpret, (1,), out, a, b)
    if b == 0:
        assert out[:2].tolist() == [0, 0]
    elif (a, b) == (-2**31, -1):
        assert out[:2].tolist() == [-2**31, 0]
    else:
        assert out[:2].tolist() == [int(a / b), a - b * int(a / b)]


@kiln.jit
def big_steps_kernel(out_ptr, lo, hi, step):
    count = 0
    last = 0
    for i in range(lo, hi, 1073741824):
        count += 1
        last = i
    kl.store(out_ptr, count)
    kl.store(out_ptr + 1, last)
    count = 0
    for i in range(lo, hi, step):
        count += 1
    kl.store(out_ptr + 2, count)
    total = 0
    for j in range(hi - 1, hi):
        total = j * 1000000 + j // -7
    kl.store(out_ptr + 3, total)


@BOTH
def test_ranges_near_the_largest_i32(interpret):
    """A step that would carry the loop variable past 2**31 - 1 ends (the
    host looped forever, or ran no iteration for a run-time step), and
    the interpreter's loop variable is an i32 that wraps."""
    out = np.zeros(4, np.int64)
    launch(big_steps_kernel, interpret, (1,), out, 0, 2**31 - 1, 2**30)
    j = np.int32(2**31 - 2)
    with np.errstate(over="ignore"):
        wrapped = int(j * np.int32(1000000)) + int(int(j) / -7)
    assert out.tolist() == [2, 2**30, 2, int(np.int32(wrapped))]


@kiln.jit
def pair(x):
    if x > 0:
        return x, x + 1
    return 0, 0


@kiln.jit
def tuples_kernel(out_ptr, a):
    t = (a, a)
    if a > 0:
        t = (a + 1, a + 2)
    first, second = pair(a)
    kl.store(out_ptr, t[0])
    kl.store(out_ptr + 1, t[1])
    kl.store(out_ptr + 2, first)
    kl.store(out_ptr + 3, second)


@BOTH
@pytest.mark.parametrize("a", [4, -3])
def test_tuples_cross_run_time_ifs(interpret, a):
    out = np.zeros(4, np.int32)
    launch(tuples_kernel, interpret, (1,), out, a)
    assert out.tolist() == ([a + 1, a + 2, a, a + 1] if a > 0 else
                            [a, a, 0, 0])


@kiln.jit
def tile_min_kernel(x_ptr, y_ptr, out_ptr):
    i = kl.arange(0, 4)
    x, y = kl.load(x_ptr + i), kl.load(y_ptr + i)
    kl.store(out_ptr + i, min(x, y))
    kl.store(out_ptr + 4 + i, max(x, y, 0.5))


@BOTH
def test_builtin_min_max_on_tiles(interpret):
    x = np.array([0, 1, 2, 3], np.float32)
    y = np.array([3, 2, -1, 3], np.float32)
    out = np.zeros(8, np.float32)
    launch(tile_min_kernel, interpret, (1,), x, y, out)
    np.testing.assert_array_equal(out[:4], np.minimum(x, y))
    np.testing.assert_array_equal(out[4:], np.maximum(np.maximum(x, y), 0.5))


@kiln.jit
def float_before_loop_kernel(out_ptr, n):
    x = 2.5
    for x in range(n):
        pass
    kl.store(out_ptr, x)


@kiln.jit
def assigned_loop_variable_kernel(out_ptr, n):
    for i in range(n):
        i = i * 10
    kl.store(out_ptr, i)


@kiln.jit
def pointer_like_kernel(out_ptr):
    kl.store(out_ptr, kl.full_like(out_ptr, 1))


@kiln.jit
def zero_static_step_kernel(out_ptr):
    for i in kl.static_range(0, 4, 0):
        kl.store(out_ptr, i)


@kiln.jit
def shape_index_kernel(out_ptr):
    x = kl.arange(0, 4)
    kl.store(out_ptr, x.shape[3])


def test_loop_variables_and_compile_time_mistakes():
    out = np.zeros(1, np.float32)
    with pytest.raises(kiln.KilnCompileError,
                       match="'x' is f32 before its loop and "
                             "i32 in it"):
        float_before_loop_kernel[(1,)](out, 3)
    with pytest.raises(kiln.KilnCompileError,
                       match="the loop variable 'i' is assigned in its "
                             "loop"):
        assigned_loop_variable_kernel[(1,)](out, 3)
    with pytest.raises(kiln.KilnCompileError,
                       match="kl.full_like takes a tile of numbers"):
        pointer_like_kernel[(1,)](out)
    with pytest.raises(kiln.KilnCompileError,
                       match="kl.static_range: range.. arg 3 must not be "
                             "zero"):
        zero_static_step_kernel[(1,)](out)
    with pytest.raises(kiln.KilnCompileError, match="tuple index out of "
                                                    "range"):
        shape_index_kernel[(1,)](out)


# A third review's findings.

@kiln.jit
def unbound_after_loop_kernel(out_ptr, n):
    for i in range(n):
        pass
    kl.store(out_ptr, i)


@kiln.jit
def bound_after_constant_loop_kernel(out_ptr):
    for i in range(0, 7, 3):
        pass
    kl.store(out_ptr, i)


@kiln.jit
def boolean_division_kernel(x_ptr, out_ptr):
    offs = kl.arange(0, 4)
    x = kl.load(x_ptr + offs)
    quotient = (x > 0) // (x > 1)
    kl.store(out_ptr + offs, quotient + quotient)
    kl.store(out_ptr + 4 + offs, (x > 0) % (x > 1))


@kiln.jit
def cdiv_kernel(out_ptr, a, b, A: kl.constexpr, B: kl.constexpr):
    kl.store(out_ptr, kl.cdiv(a, b))
    kl.store(out_ptr + 1, kl.cdiv(A, B))


@kiln.jit
def constant_in_tuple_kernel(x_ptr, out_ptr, n, BLOCK: kl.constexpr):
    t = (x_ptr, BLOCK)
    if n > 0:
        t = (x_ptr + 1, BLOCK)
    offs = kl.arange(0, t[1])
    kl.store(out_ptr + offs, kl.load(t[0] + offs))


@BOTH
def test_third_review(interpret):
    """A loop variable read after a loop that may not run needs a value
    before it (the host gave lower - step); booleans divide as ints; a
    compile-time kl.cdiv divides in Python, flooring, as Triton's @jit
    cdiv does on constexprs (a fourth review), where a run-time one
    truncates; a constant that is
    the same in both branches of a run-time if stays a constant."""
    out = np.zeros(8, np.int32)
    if not interpret:
        with pytest.raises(kiln.KilnCompileError,
                           match="'i' has no value after a loop that may "
                                 "not run"):
            unbound_after_loop_kernel[(1,)](out, 3)
    launch(bound_after_constant_loop_kernel, interpret, (1,), out)
    assert out[0] == 6
    x = np.array([0, 1, 2, 3], np.int32)
    launch(boolean_division_kernel, interpret, (1,), x, out)
    assert out.tolist() == [0, 0, 2, 2, 0, 0, 0, 0]
    for a, b in [(7, -2), (-7, 2), (7, 2), (-8, 2), (6, -4)]:
        launch(cdiv_kernel, interpret, (1,), out, a, b, A=a, B=b)
        assert out[0] == int((a + b - 1) / b)
        assert out[1] == (a + b - 1) // b
    values = np.arange(8, dtype=np.float32)
    result = np.zeros(4, np.float32)
    launch(constant_in_tuple_kernel, interpret, (1,), values, result, 1,
           BLOCK=4)
    np.testing.assert_array_equal(result, values[1:5])


@kiln.jit
def bfloat16_kernel(x_ptr, y_ptr, product_ptr, ints_ptr, converted_ptr):
    i = kl.arange(0, 4)
    kl.store(product_ptr + i, kl.load(x_ptr + i) * kl.load(y_ptr + i))
    kl.store(converted_ptr + i, kl.load(ints_ptr + i).to(kl.bfloat16))


@BOTH
def test_bfloat16_keeps_subnormals_and_rounds_integers_once(interpret):
    """As the GPU's mul.bf16 and cvt.rn.bf16.s32 (a review of FlagGems-style
    kernels found the host flushing subnormal products, through its CPU's
    AVX512-BF16 conversion, and rounding integers twice, through f32)."""
    bf16 = ml_dtypes.bfloat16
    x = np.array([1e-20, 2**-126, 3e-39, 1], np.float32).astype(bf16)
    y = np.array([1e-20, 0.5, 1, 1], np.float32).astype(bf16)
    ints = np.array([2**24 + 2**16 + 1, 2**24, 1077936129,
                     -(2**24 + 2**16 + 1)], np.int32)
    product, converted = np.zeros(4, bf16), np.zeros(4, bf16)
    launch(bfloat16_kernel, interpret, (1,), x, y, product, ints, converted)
    np.testing.assert_array_equal(product.view(np.uint16),
                                  [0x0001, 0x0040, 0x0021, 0x3F80])
    np.testing.assert_array_equal(
        converted.view(np.uint16),
        ints.astype(np.float64).astype(bf16).view(np.uint16))
    assert converted.view(np.uint16).tolist() == [0x4B81, 0x4B80, 0x4E81,
                                                  0xCB81]


@kiln.jit
def square_root_power_kernel(x_ptr, out_ptr, plus_ptr):
    i = kl.arange(0, 4)
    x = kl.load(x_ptr + i)
    kl.store(out_ptr + i, libdevice.pow(x, 0.5))
    kl.store(plus_ptr + i, +x)


@BOTH
def test_pow_of_a_half_is_cs_pow_and_unary_plus_is_the_value(interpret):
    """pow(-0, 0.5) is +0 and pow(-inf, 0.5) +inf, as C's pow and
    libdevice's powf (the interpreter took numpy's square root: -0 and
    NaN); +x is x (the interpreter raised TypeError)."""
    x = np.array([-0.0, -np.inf, 4.0, 2.25], np.float32)
    out, plus = np.zeros(4, np.float32), np.zeros(4, np.float32)
    launch(square_root_power_kernel, interpret, (1,), x, out, plus)
    np.testing.assert_array_equal(out.view(np.uint32),
                                  np.array([0.0, np.inf, 2.0, 1.5],
                                           np.float32).view(np.uint32))
    np.testing.assert_array_equal(plus.view(np.uint32), x.view(np.uint32))


@kiln.jit
def half_sigmoid_kernel(x_ptr, out_ptr, bits_ptr):
    i = kl.arange(0, 4)
    y = kl.sigmoid(kl.load(x_ptr + i))
    kl.store(out_ptr + i, y)
    kl.store(bits_ptr, y.dtype.primitive_bitwidth)


@BOTH
def test_a_float16_sigmoid_is_the_same_both_ways(interpret):
    """exp in float16, then 1 / (1 + e), whose `/` of float16 is float32
    (the interpreter rounded the whole to float16)."""
    x = np.array([0.5, -2, 3, 0], np.float16)
    out, bits = np.zeros(4, np.float32), np.zeros(1, np.int32)
    launch(half_sigmoid_kernel, interpret, (1,), x, out, bits)
    e = np.exp(-x.astype(np.float32)).astype(np.float16)
    expected = np.float32(1) / (np.float16(1) + e).astype(np.float32)
    np.testing.assert_array_equal(out, expected)
    assert bits[0] == 32
