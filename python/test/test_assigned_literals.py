"""A Python number assigned to a name in a kernel is a scalar tensor in
Triton (its code generator passes every assigned value through
``semantic.to_tensor``): ``a = 100; a + x_i8`` is i32, ``scale = 0.1;
x_f16 * scale`` is f32, ``a = -7; a // 2`` is -3. Kiln had kept such
numbers as Python numbers, which take a tile's type: the same source
computed in other types, silently. Checked compiled for the host and in
the interpreter, with the types asserted in the kernel (``static_assert``)
and the values against numpy, and the typing rule against Triton's own
``to_tensor_type`` where the wheel is installed."""

from __future__ import annotations

import numpy as np
import pytest

import kiln
import kiln.language as kl
from kiln import semantics

BOTH = pytest.mark.parametrize("interpret", [False, True],
                               ids=["host", "interpreter"])


def test_python_number_types_are_tritons():
    pytest.importorskip("triton.language")
    from triton.language.semantic import TritonSemantic
    names = {"int1": "i1", "int32": "i32", "int64": "i64", "uint32": "ui32",
             "uint64": "ui64", "fp32": "f32", "fp64": "f64"}
    semantic = TritonSemantic(None)
    values = [True, False, 0, 1, -1, 2**31 - 1, -2**31, 2**31, 2**32 - 1,
              2**32, -2**31 - 1, 2**63 - 1, -2**63, 2**63, 2**64 - 1, 0.0,
              -0.0, 0.1, 1e-5, 1e38, 3.5e38, 1e-38, 1e-300, 1e300,
              float("inf"), float("-inf"), float("nan"), 2.0**-126,
              2.0**-127]
    for value in values:
        expected = semantic.to_tensor_type(value)
        assert semantics.python_number_type(value) == names[expected.name], \
            value


@kiln.jit
def typed_kernel(x_ptr, h_ptr, out_ptr, wide_ptr, f_ptr, N: kl.constexpr):
    i = kl.arange(0, N)
    x = kl.load(x_ptr + i)  # i8
    a = 100
    y = a + x
    kl.static_assert(y.dtype == kl.int32)
    kl.store(out_ptr + i, y)
    h = kl.load(h_ptr + i)  # f16
    scale = 0.1
    z = h * scale
    kl.static_assert(z.dtype == kl.float32)
    kl.store(f_ptr + i, z)
    acc = 0
    wide = acc.to(kl.int64) + 2**40
    kl.static_assert(wide.dtype == kl.int64)
    kl.store(wide_ptr, wide)
    c = -7
    kl.store(out_ptr + N, c // 2)  # toward zero, as i32 tensors divide
    kl.store(out_ptr + N + 1, c % 2)
    big = 2**30
    kl.store(out_ptr + N + 2, big * 4)  # wraps in i32
    flag = True
    kl.store(out_ptr + N + 3, (~flag).to(kl.int32))
    # A constexpr-annotated number stays a number: it takes x's type.
    k: kl.constexpr = 100
    kl.store(out_ptr + N + 4 + i, (k + x).to(kl.int32))


@BOTH
def test_assigned_numbers_are_typed_as_tensors(interpret):
    n = 16
    x = (np.arange(n) * 8).astype(np.int8)
    h = np.linspace(-3, 3, n).astype(np.float16)
    out = np.zeros(2 * n + 4, np.int32)
    wide = np.zeros(1, np.int64)
    f = np.zeros(n, np.float32)
    kiln.jit(typed_kernel.fn, interpret=interpret)[(1,)](x, h, out, wide, f,
                                                         N=n)
    np.testing.assert_array_equal(out[:n], x.astype(np.int32) + 100)
    # f16 * f32(0.1) computes in f32: no rounding to f16.
    np.testing.assert_array_equal(f, h.astype(np.float32) *
                                  np.float32(0.1))
    assert wide[0] == 2**40
    assert list(out[n:n + 4]) == [-3, -1, 0, 0]
    np.testing.assert_array_equal(out[n + 4:],
                                  (x + np.int8(100)).astype(np.int32))


@kiln.jit
def _scaled(x, factor, N: kl.constexpr):
    return x * factor + kl.arange(0, N).to(kl.float16)


@kiln.jit
def idioms_kernel(h_ptr, out_ptr, n_rows, N: kl.constexpr):
    # A literal still serves where a constant is needed.
    width = N
    i = kl.arange(0, width)
    shape = (1, width)
    h = kl.load(h_ptr + i)  # f16
    total = kl.zeros(shape, kl.float32)
    lo, hi = 0, 2.0
    total += h[None, :] * hi  # f32, as hi is an f32 tensor
    count = 0
    count += 1
    for r in range(lo, n_rows):
        count = count + r
    kl.static_assert(count.dtype == kl.int32)
    # A literal passed to a constexpr parameter is its number there.
    scaled = _scaled(h, 2, width)
    kl.static_assert(scaled.dtype == kl.float16)
    half = 0.5
    kl.store(out_ptr + i, kl.reshape(total, (width,)) + half)
    kl.store(out_ptr + width + i, scaled)
    kl.store(out_ptr + 2 * width, count)


@BOTH
def test_literals_in_shapes_loops_tuples_and_calls(interpret):
    n = 8
    h = np.linspace(-1, 1, n).astype(np.float16)
    out = np.zeros(2 * n + 1, np.float32)
    kiln.jit(idioms_kernel.fn, interpret=interpret)[(1,)](h, out, 5, N=n)
    np.testing.assert_array_equal(out[:n], h.astype(np.float32) * 2 + 0.5)
    np.testing.assert_array_equal(
        out[n:2 * n], (h * np.float16(2) + np.arange(n).astype(np.float16)
                       ).astype(np.float32))
    assert out[2 * n] == 1 + sum(range(5))


@kiln.jit
def branches_kernel(x_ptr, out_ptr):
    x = kl.load(x_ptr)  # i32
    if x > 2:
        y = 1.5
    else:
        y = 2
    kl.store(out_ptr, y)


@kiln.jit
def loop_float_kernel(x_ptr, out_ptr, n):
    x = kl.load(x_ptr)  # i32
    for i in range(n):
        x = 1.5
    kl.store(out_ptr, x)


@kiln.jit
def unsigned_kernel(out_ptr, x_ptr):
    a = 3_000_000_000
    kl.static_assert(a.dtype == kl.uint32)
    x = kl.load(x_ptr + kl.arange(0, 4))
    kl.static_assert((a + x).dtype == kl.uint32)  # uint32 beats int32
    kl.store(out_ptr + kl.arange(0, 4), (a + x) // 7)


def test_literals_of_different_types_do_not_merge_silently():
    """Triton refuses an if whose branches leave an f32 and an i32 tensor,
    and a loop that makes an i32 variable f32; neither converts 1.5 to
    1."""
    x = np.array([3], np.int32)
    out = np.zeros(1, np.float32)
    with pytest.raises(kiln.KilnCompileError, match="'y' is f32 after the "
                       "if branch but i32 after the else branch"):
        branches_kernel[(1,)](x, out)
    with pytest.raises(kiln.KilnCompileError,
                       match="'x' is i32 before the loop but f32"):
        loop_float_kernel[(1,)](x, out, 2)


@BOTH
def test_an_assigned_number_past_int32_is_uint32(interpret):
    """As Triton types it: 3e9 is uint32, and meeting an int32 tile it
    stays uint32, so that the sum wraps and divides as unsigned."""
    x = np.array([0, 1, 1_300_000_000, 1_294_967_296], np.int32)
    out = np.zeros(4, np.uint32)
    kiln.jit(unsigned_kernel.fn, interpret=interpret)[(1,)](out, x)
    expected = (np.uint32(3_000_000_000) + x.astype(np.uint32)) // 7
    np.testing.assert_array_equal(out, expected)
