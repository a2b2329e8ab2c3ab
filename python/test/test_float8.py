"""Triton's 8-bit float types (``float8e4nv``, ``float8e5``,
``float8e4b8``, ``float8e5b16``), compiled for the host and in the
interpreter: every code widened, narrowing rounded to nearest even and
saturated as PTX's ``cvt.rn.satfinite`` (what Triton emits) with the
format's NaN, arithmetic in f32 rounded once, conversions from and to
integers, a dot, and the errors of what has no meaning on them."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import kiln
import kiln.language as kl
from kiln import float8

BOTH = pytest.mark.parametrize("interpret", [False, True],
                               ids=["host", "interpreter"])
FORMATS = (kl.float8e4nv, kl.float8e5, kl.float8e4b8, kl.float8e5b16)
ALL = pytest.mark.parametrize("fmt", FORMATS, ids=lambda d: d.name)


@kiln.jit
def widen_kernel(x_ptr, out_ptr, N: kl.constexpr):
    i = kl.arange(0, N)
    kl.store(out_ptr + i, kl.load(x_ptr + i).to(out_ptr.dtype.element_ty))


@BOTH
@ALL
@pytest.mark.parametrize("wide", [np.float32, np.float16])
def test_every_code_widens_exactly(interpret, fmt, wide):
    # To f16, the formats whose codes place into f16's bits (e4m3, e5m2,
    # e4m3b8) take that path; e5b16 decodes through f32.
    codes = np.arange(256, dtype=np.uint8).view(fmt.numpy)
    out = np.zeros(256, wide)
    kiln.jit(widen_kernel.fn, interpret=interpret)[(1,)](codes, out, N=256)
    np.testing.assert_array_equal(out, codes.astype(np.float32).astype(wide))


@kiln.jit
def narrow_kernel(x_ptr, out_ptr, N: kl.constexpr, FMT: kl.constexpr):
    i = kl.arange(0, N)
    kl.store(out_ptr + i, kl.load(x_ptr + i).to(FMT))


def narrowing_inputs(fmt: kl.dtype) -> np.ndarray:
    """Every finite code's value, the midpoints between neighbours (ties),
    points just off them, values past the range, infinities, NaN and
    signed zeros."""
    values = np.arange(256, dtype=np.uint8).view(fmt.numpy).astype(
        np.float64)
    finite = np.unique(values[np.isfinite(values)])
    middles = (finite[1:] + finite[:-1]) / 2
    around = np.concatenate([middles * (1 + 2.0**-20),
                             middles * (1 - 2.0**-20)])
    largest = float(ml_dtypes.finfo(fmt.numpy).max)
    extremes = [largest * 1.01, largest * 4, 1e30, np.inf, np.nan, 0.0,
                -0.0, 1e-30]
    out = np.concatenate([finite, middles, around, extremes])
    return np.concatenate([out, -out]).astype(np.float32)


@BOTH
@ALL
def test_narrowing_rounds_to_nearest_even_and_saturates(interpret, fmt):
    x = narrowing_inputs(fmt)
    n = 1 << (len(x) - 1).bit_length()
    x = np.resize(x, n)
    out = np.zeros(n, fmt.numpy)
    kiln.jit(narrow_kernel.fn, interpret=interpret)[(1,)](x, out, N=n,
                                                         FMT=fmt)
    np.testing.assert_array_equal(out.view(np.uint8),
                                  float8.saturated(x, fmt.numpy).view(
                                      np.uint8))


def test_the_reference_rounding_is_cvt_satfinite():
    """float8.saturated, which the tests compare with, by hand: ties to
    even, infinity and overflow to the largest value, NaN kept, and +0
    for -0 where the format has no negative zero."""
    e4m3 = np.dtype(ml_dtypes.float8_e4m3fn)
    values = np.array([1.0625, 1.1875, 460.0, np.inf, -1e9, np.nan],
                      np.float32)
    got = float8.saturated(values, e4m3).astype(np.float32)
    np.testing.assert_array_equal(got, [1.0, 1.25, 448.0, 448.0, -448.0,
                                        np.nan])
    e5m2 = np.dtype(ml_dtypes.float8_e5m2)
    assert float8.saturated(np.float32(np.inf), e5m2) == 57344.0
    fnuz = np.dtype(ml_dtypes.float8_e4m3fnuz)
    assert float8.saturated(np.float32(-0.0), fnuz).view(np.uint8) == 0
    assert float8.bits(-0.0, e4m3) == 0x80


@kiln.jit
def arithmetic_kernel(x_ptr, y_ptr, out_ptr, flags_ptr, wide_ptr,
                      N: kl.constexpr):
    i = kl.arange(0, N)
    x = kl.load(x_ptr + i)  # float8e4nv
    y = kl.load(y_ptr + i)  # float8e4nv
    kl.static_assert((x * y).dtype == kl.float8e4nv)
    kl.static_assert((x + 1.5).dtype == kl.float8e4nv)
    kl.static_assert((x / y).dtype == kl.float32)  # as Triton's
    kl.static_assert((x + y.to(kl.float8e5)).dtype == kl.float16)
    kl.static_assert(kl.max(x, 0).dtype == kl.float32)
    kl.store(out_ptr + i, x * y)
    kl.store(out_ptr + N + i, x + 1.5)
    kl.store(out_ptr + 2 * N + i, kl.maximum(x, y))
    kl.store(out_ptr + 3 * N + i, -x)
    kl.store(out_ptr + 4 * N + i, kl.abs(y))
    kl.store(flags_ptr + i, x < y)
    kl.store(wide_ptr + i, x / y)
    kl.store(wide_ptr + N + i, kl.sum(x, 0).to(kl.float32))


@BOTH
def test_arithmetic_in_f32_rounded_once(interpret):
    n = 64
    rng = np.random.default_rng(8)
    x = (rng.standard_normal(n) * 40).astype(ml_dtypes.float8_e4m3fn)
    y = (rng.standard_normal(n) * 40).astype(ml_dtypes.float8_e4m3fn)
    out = np.zeros(5 * n, ml_dtypes.float8_e4m3fn)
    flags = np.zeros(n, np.bool_)
    wide = np.zeros(2 * n, np.float32)
    kiln.jit(arithmetic_kernel.fn, interpret=interpret)[(1,)](
        x, y, out, flags, wide, N=n)
    xf, yf = x.astype(np.float32), y.astype(np.float32)
    expected = [xf * yf, xf + np.float32(1.5), np.fmax(xf, yf), -xf,
                np.abs(yf)]
    for k, want in enumerate(expected):
        np.testing.assert_array_equal(
            out[k * n:(k + 1) * n].view(np.uint8),
            float8.saturated(want, x.dtype).view(np.uint8),
            err_msg=f"result {k}")
    np.testing.assert_array_equal(flags, xf < yf)
    np.testing.assert_array_equal(wide[:n], xf / yf)
    np.testing.assert_array_equal(
        wide[n:], float8.saturated(np.float32(xf.sum(dtype=np.float32)),
                                   x.dtype).astype(np.float32))


@kiln.jit
def integers_kernel(i_ptr, f_ptr, back_ptr, N: kl.constexpr):
    i = kl.arange(0, N)
    f = kl.load(i_ptr + i).to(kl.float8e5)
    kl.store(f_ptr + i, f)
    kl.store(back_ptr + i, f.to(kl.int32))


@BOTH
def test_integers_convert_through_f32(interpret):
    n = 32
    ints = np.array(list(range(-8, 8)) + [100, 1000, 10**5, -10**6] +
                    [3, 5, 7, 9, 11, 13, 17, 19, 23, 29, 31, 37],
                    np.int32)
    f = np.zeros(n, ml_dtypes.float8_e5m2)
    back = np.zeros(n, np.int32)
    kiln.jit(integers_kernel.fn, interpret=interpret)[(1,)](ints, f, back,
                                                           N=n)
    expected = float8.saturated(ints, f.dtype)
    np.testing.assert_array_equal(f.view(np.uint8), expected.view(np.uint8))
    np.testing.assert_array_equal(back, expected.astype(np.float32)
                                  .astype(np.int32))


@kiln.jit
def dot_kernel(a_ptr, b_ptr, c_ptr, N: kl.constexpr):
    r = kl.arange(0, N)
    a = kl.load(a_ptr + r[:, None] * N + r[None, :])
    b = kl.load(b_ptr + r[:, None] * N + r[None, :])
    kl.store(c_ptr + r[:, None] * N + r[None, :], kl.dot(a, b))


@BOTH
def test_a_dot_of_two_formats_accumulates_in_f32(interpret):
    n = 16
    rng = np.random.default_rng(3)
    a = rng.standard_normal((n, n)).astype(ml_dtypes.float8_e4m3fn)
    b = rng.standard_normal((n, n)).astype(ml_dtypes.float8_e5m2)
    c = np.zeros((n, n), np.float32)
    kiln.jit(dot_kernel.fn, interpret=interpret)[(1,)](a, b, c, N=n)
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(
        np.float32), rtol=1e-6, atol=1e-6)


@kiln.jit
def fp8_matmul(a_ptr, b_ptr, c_ptr, K, BM: kl.constexpr, BN: kl.constexpr,
               BK: kl.constexpr):
    rm = kl.arange(0, BM)
    rn = kl.arange(0, BN)
    rk = kl.arange(0, BK)
    acc = kl.zeros((BM, BN), kl.float32)
    for k in range(0, K, BK):
        a = kl.load(a_ptr + rm[:, None] * K + k + rk[None, :])
        b = kl.load(b_ptr + (k + rk[:, None]) * BN + rn[None, :])
        acc += kl.dot(a, b)
    kl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


@pytest.mark.parametrize("formats", [("float8_e4m3fn", "float8_e4m3fn"),
                                     ("float8_e4m3fn", "float8_e5m2"),
                                     ("float8_e5m2", "float8_e5m2")])
def test_an_fp8_matmul_is_exact_and_runs_on_wgmma_on_sm90a(formats):
    """Two 8-bit floats reach tile.dot as they are: the host multiplies
    their f16 widenings (each product exact in f32), sm_90a's wgmma
    multiplies them as they are (B transposed into K-major shared memory
    first), and sm_80 widens them to f16 for mma.sync, with a remark."""
    rng = np.random.default_rng(5)
    k = 128
    a = rng.standard_normal((64, k)).astype(getattr(ml_dtypes, formats[0]))
    b = rng.standard_normal((k, 64)).astype(getattr(ml_dtypes, formats[1]))
    c = np.zeros((64, 64), np.float32)
    fp8_matmul[(1,)](a, b, c, k, BM=64, BN=64, BK=64)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(
        np.float64), rtol=1e-5, atol=1e-4)
    names = {"float8_e4m3fn": "e4m3", "float8_e5m2": "e5m2"}
    ptx = fp8_matmul.warmup(a, b, c, k, BM=64, BN=64, BK=64,
                            chip="sm_90a").asm["ptx"]
    assert ptx.count("wgmma.mma_async.sync.aligned.m64n64k32.f32."
                     f"{names[formats[0]]}.{names[formats[1]]}") == 2
    assert "mma.sync" not in ptx and "st.shared.b8" in ptx
    with pytest.warns(kiln.CompilerRemark, match="8-bit float operands "
                      "widened to f16: only sm_90a's wgmma"):
        ptx80 = fp8_matmul.warmup(a, b, c, k, BM=64, BN=64, BK=64,
                                  chip="sm_80").asm["ptx"]
    assert "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" in ptx80
    assert "cp.async" in ptx80


@kiln.jit
def mixed_kernel(x_ptr, i_ptr):
    x = kl.load(x_ptr)
    i = kl.load(i_ptr)
    kl.store(x_ptr, x + i)


@kiln.jit
def atomic_kernel(x_ptr):
    kl.atomic_add(x_ptr, 1.0)


@BOTH
def test_what_has_no_meaning_is_an_error(interpret):
    x = np.zeros(1, ml_dtypes.float8_e4m3fn)
    with pytest.raises(kiln.KilnError, match="float8e4nv and int32 have no "
                       "common type"):
        kiln.jit(mixed_kernel.fn, interpret=interpret)[(1,)](
            x, np.zeros(1, np.int32))
    with pytest.raises(kiln.KilnError, match="8-bit floats"):
        kiln.jit(atomic_kernel.fn, interpret=interpret)[(1,)](x)


def test_dtype_queries():
    assert kl.float8e4nv.is_fp8() and kl.float8e5.is_fp8e5()
    assert kl.float8e4nv.primitive_bitwidth == 8
    assert kl.float8e5.fp_mantissa_width == 2
    assert kl.float8e4b8.fp_mantissa_width == 3
    assert not kl.float16.is_fp8() and kl.float8e4nv.is_floating()
