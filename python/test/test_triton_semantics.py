"""Types and NaNs as Triton's language has them, compiled for the host and
in the interpreter: the computation type of every pair of element types
(and of a tile with a Python number), checked against Triton's own
``computation_type_impl`` where the ``triton`` wheel is installed, with
numerics against numpy in that type; ``/`` and ``%`` of f16 and bf16 in
f32; ``maximum``, ``minimum``, ``clamp`` and the ``max`` / ``min``
reductions letting a NaN give way unless ``propagate_nan`` is ALL. A
review found each of these silently different from Triton. Those cases'
kernels (triton_idiom_semantics.py) also run in Triton's own interpreter,
against the same numpy references (``THREE``)."""

from __future__ import annotations

import itertools
import re
import warnings

import ml_dtypes
import numpy as np
import pytest

import kiln
import kiln.language as kl
import triton_idiom_semantics as idiom
import triton_interpreter
from triton_interpreter import launch
from test_unsigned import philox_reference
from kiln import semantics

BOTH = pytest.mark.parametrize("interpret", [False, True],
                               ids=["host", "interpreter"])
#: The kernels of triton_idiom_semantics.py run three ways: on the host
#: target, in Kiln's interpreter and in Triton's own, on the same cases.
THREE = pytest.mark.parametrize("target", triton_interpreter.TARGETS)
TYPES = ("i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "ui64", "f16",
         "bf16", "f32", "f64")
RNG = np.random.default_rng(30)


def unless_triton_stores_bf16(target: str, *outputs: np.ndarray) -> None:
    """Skips the Triton-interpreter run of a case that stores bfloat16:
    Triton 3.9's interpreter writes wrong bfloat16 results (1.5 comes
    back as about 4e-38), though it reads bfloat16 right."""
    if target == "triton-interpreter" and any(
            o.dtype == ml_dtypes.bfloat16 for o in outputs):
        pytest.skip("Triton's interpreter stores bfloat16 wrongly")


def numpy_type(elem: str) -> np.dtype:
    return kl.BY_IR[elem].numpy


def sample(elem: str, n: int, nonzero: bool = False) -> np.ndarray:
    """Values every type holds exactly: small integers, or halves."""
    if elem.startswith("ui"):
        return RNG.integers(1 if nonzero else 0, 10, n).astype(
            numpy_type(elem))
    if elem.startswith("i"):
        values = RNG.integers(1 if nonzero else -9, 10, n)
        if not nonzero:
            return values.astype(numpy_type(elem))
        return (values * RNG.choice([-1, 1], n)).astype(numpy_type(elem))
    values = RNG.integers(-16, 17, n) / 2
    if nonzero:
        values[values == 0] = 1.5
    return values.astype(numpy_type(elem))


@pytest.fixture(scope="module")
def triton_semantic():
    triton_language = pytest.importorskip("triton.language")
    from triton.language.semantic import TritonSemantic
    names = {"i1": "int1", "i8": "int8", "i16": "int16", "i32": "int32",
             "i64": "int64", "ui8": "uint8", "ui16": "uint16",
             "ui32": "uint32", "ui64": "uint64", "f16": "float16",
             "bf16": "bfloat16", "f32": "float32", "f64": "float64",
             "f8E4M3FN": "float8e4nv", "f8E5M2": "float8e5",
             "f8E4M3FNUZ": "float8e4b8", "f8E5M2FNUZ": "float8e5b16"}
    semantic = TritonSemantic(None)

    def computation_type(a, a_number, b, b_number, division):
        """Triton's type, or None where Triton refuses the pair (it takes
        int1 as unsigned, and refuses / and % of mixed signedness)."""
        try:
            result = semantic.computation_type_impl(
                getattr(triton_language, names[a]), a_number,
                getattr(triton_language, names[b]), b_number, division)
        except TypeError:
            return None
        return next(k for k, v in names.items()
                    if getattr(triton_language, v) == result)
    return computation_type


def test_computation_types_are_tritons(triton_semantic):
    """Every pair of element types, as tiles and as a Python number's type
    against a tile, with and without ``/`` and ``%``."""
    elems = ("i1",) + TYPES + semantics.FLOAT8
    number_types = ("i1", "i32", "ui32", "i64", "ui64", "f32")
    cases = [(a, False, b, False) for a, b in itertools.product(elems, elems)]
    cases += [(n, True, t, False) for n in number_types for t in elems]
    cases += [(t, False, n, True) for n in number_types for t in elems]
    compared = 0
    for (a, a_number, b, b_number), division in itertools.product(
            cases, (False, True)):
        expected = triton_semantic(a, a_number, b, b_number, division)
        if expected is None:  # Triton refuses it, and so does Kiln
            with pytest.raises(ValueError, match="mix signedness|no "
                               "common type"):
                semantics.computation_type(a, a_number, b, b_number,
                                           division)
            continue
        compared += 1
        assert semantics.computation_type(a, a_number, b, b_number,
                                          division) == expected, \
            (a, a_number, b, b_number, division)
    assert compared > 800


def test_the_differences_a_review_found():
    """The cases that were silently different, without Triton installed."""
    assert semantics.computation_type("f16", False, "bf16", False) == "f16"
    assert semantics.true_division_type("f16", False, "f16", False) == "f32"
    assert semantics.true_division_type("bf16", False, "f32", True) == "f32"
    assert semantics.true_division_type("i32", False, "i32", False) == "f32"
    assert semantics.computation_type("bf16", False, "i32", False) == "f32"
    assert semantics.computation_type("f16", False, "f32", True) == "f16"
    assert semantics.computation_type("i8", False, "i32", True) == "i8"
    assert semantics.extremum_reduction_type("f16") == "f32"


@THREE
@pytest.mark.parametrize("a, b", list(itertools.product(TYPES, TYPES)),
                         ids=lambda t: t)
def test_every_pair_of_types_computes_in_its_meeting_type(target, a, b):
    """``x op y`` for tiles of types ``a`` and ``b``: the type is the
    computation type (static_assert in the kernel), and the numbers are
    numpy's in that type."""
    meet = semantics.computation_type(a, False, b, False)
    divides = kl.BY_IR[a].is_float or kl.BY_IR[b].is_float or \
        semantics.is_unsigned(a) == semantics.is_unsigned(b)
    quotient = semantics.true_division_type(a, False, b, False) \
        if divides else "f32"
    remainder = semantics.computation_type(a, False, b, False, True) \
        if divides else meet
    n = 16
    x, y = sample(a, n), sample(b, n, nonzero=True)
    outs = {name: np.zeros(n, numpy_type(t)) for name, t in (
        ("add", meet), ("mul", meet), ("div", quotient), ("mod", remainder),
        ("max", meet))}
    lt = np.zeros(n, np.bool_)
    unless_triton_stores_bf16(target, *outs.values())
    launch(target, idiom.pair_kernel, (1,), x, y, outs["add"], outs["mul"],
           outs["div"], outs["mod"], outs["max"], lt, N=n,
           MEET=kl.BY_IR[meet], QUOTIENT=kl.BY_IR[quotient],
           DIVIDES=divides)
    xm, ym = x.astype(numpy_type(meet)), y.astype(numpy_type(meet))
    xq, yq = x.astype(numpy_type(quotient)), y.astype(numpy_type(quotient))
    xr, yr = (x.astype(numpy_type(remainder)),
              y.astype(numpy_type(remainder)))
    np.testing.assert_array_equal(outs["add"], xm + ym)
    np.testing.assert_array_equal(outs["mul"], xm * ym)
    if divides:
        np.testing.assert_array_equal(outs["div"], xq / yq)
        np.testing.assert_array_equal(outs["mod"], np.fmod(xr, yr))
    np.testing.assert_array_equal(outs["max"], np.maximum(xm, ym))
    np.testing.assert_array_equal(lt, xm < ym)


@THREE
@pytest.mark.parametrize("elem", TYPES)
def test_a_python_number_of_no_higher_kind_takes_the_tiles_type(
        target, elem):
    """``x * 3`` keeps ``x``'s type; ``x * 2.5`` is f32 for integer
    tiles; ``x / 2`` of a half-precision tile is f32."""
    with_int = semantics.computation_type(elem, False, "i32", True)
    with_float = semantics.computation_type(elem, False, "f32", True)
    quotient = semantics.true_division_type(elem, False, "i32", True)
    assert with_int == elem
    assert with_float == (elem if elem.startswith(("f", "bf")) else "f32")
    n = 8
    x = sample(elem, n)
    by_int = np.zeros(n, numpy_type(with_int))
    by_float = np.zeros(n, numpy_type(with_float))
    halved = np.zeros(n, numpy_type(quotient))
    unless_triton_stores_bf16(target, by_int, by_float, halved)
    launch(target, idiom.number_kernel, (1,), x, by_int, by_float, halved,
           N=n,
           WITH_INT=kl.BY_IR[with_int], WITH_FLOAT=kl.BY_IR[with_float],
           QUOTIENT=kl.BY_IR[quotient])
    np.testing.assert_array_equal(by_int, x * numpy_type(elem).type(3))
    np.testing.assert_array_equal(
        by_float, x.astype(numpy_type(with_float)) * numpy_type(
            with_float).type(2.5))
    np.testing.assert_array_equal(halved, x.astype(numpy_type(quotient)) / 2)


@THREE
def test_nan_gives_way_unless_propagate_nan_is_all(target):
    """Triton's default: maximum, minimum, clamp, Python's max and the
    reductions return the number; PropagateNan.ALL returns the NaN; a
    row of NaNs reduces to NaN."""
    n = 8
    x = np.array([1, np.nan, 3, np.nan, -5, 0.5, 7, -8], np.float32)
    y = np.array([np.nan, 2, 1, np.nan, 9, 0, -9, 9], np.float32)
    rows = RNG.standard_normal((4, n)).astype(np.float32)
    rows[0, 3] = rows[1, 0] = rows[1, 7] = np.nan
    rows[2, :] = np.nan
    out = np.zeros(6 * n + 12, np.float32)
    launch(target, idiom.nan_kernel, (1,), x, y, out, rows, N=n)
    np.testing.assert_array_equal(out[:n], np.fmax(x, y))
    np.testing.assert_array_equal(out[n:2 * n], np.fmin(x, y))
    np.testing.assert_array_equal(out[2 * n:3 * n], np.maximum(x, y))
    np.testing.assert_array_equal(out[3 * n:4 * n], np.minimum(x, y))
    clamped = np.fmin(np.fmax(x, -1), 1)
    if target != "triton-interpreter":
        # clamp(x, -1.0, 1.0) is min.xorsign.abs in Triton's compiled
        # code: a NaN gives 1 with its sign (its interpreter gives -1).
        clamped = np.where(np.isnan(x), np.copysign(1, x), clamped)
    np.testing.assert_array_equal(out[4 * n:5 * n], clamped)
    if target != "triton-interpreter":
        # Python's max of two tiles: Triton's compiled kernels take it as
        # tl.maximum, as Kiln does; its interpreter runs Python's max on
        # the whole tensors.
        np.testing.assert_array_equal(out[5 * n:6 * n], np.fmax(x, y))
    with np.errstate(invalid="ignore"):
        maxima, minima = np.fmax.reduce(rows, 1), np.fmin.reduce(rows, 1)
    np.testing.assert_array_equal(out[6 * n:6 * n + 4], maxima)
    np.testing.assert_array_equal(out[6 * n + 4:6 * n + 8], minima)
    np.testing.assert_array_equal(out[6 * n + 8:], maxima)


@THREE
def test_narrow_extrema_reduce_in_32_bits(target):
    """As Triton: max / min of f16 and bf16 are f32, of i8 i32; with
    return_indices the value keeps the tile's type."""
    n = 16
    h = sample("f16", n)
    b = sample("bf16", n)
    small = sample("i8", n)
    out = np.zeros(4, np.float32)
    index = np.zeros(1, np.int32)
    launch(target, idiom.narrow_max_kernel, (1,), h, b, small, out, index,
           N=n)
    assert out.tolist() == [float(h.max()), float(b.astype(np.float32).min()),
                            float(small.max()), float(h.max())]
    assert index[0] == int(np.argmax(h))


@kiln.jit
def bf16_kernel(x_ptr, y_ptr, out_ptr, sum_ptr, N: kl.constexpr):
    i = kl.arange(0, N)
    x = kl.load(x_ptr + i)
    kl.store(out_ptr + i, kl.exp(x) * x + kl.load(y_ptr + i))
    kl.store(sum_ptr, kl.sum(x, axis=0))


@BOTH
def test_bfloat16_arrays_in_both_modes(interpret):
    """bfloat16 numpy arrays (ml_dtypes) go in and out of kernels; exp
    computes in bf16 and a sum in f32, rounded once."""
    n = 32
    x = sample("bf16", n)
    y = sample("bf16", n)
    out = np.zeros(n, ml_dtypes.bfloat16)
    total = np.zeros(1, ml_dtypes.bfloat16)
    kiln.jit(bf16_kernel.fn, interpret=interpret)[(1,)](x, y, out, total, N=n)
    expected = np.exp(x.astype(np.float32)).astype(ml_dtypes.bfloat16) * x + y
    np.testing.assert_allclose(out.astype(np.float32),
                               expected.astype(np.float32), rtol=2 ** -7)
    assert total[0] == x.astype(np.float32).sum().astype(ml_dtypes.bfloat16)


def test_propagate_nan_takes_only_the_enum():
    @kiln.jit
    def bad(x_ptr):
        x = kl.load(x_ptr)
        kl.store(x_ptr, kl.maximum(x, 1.0, propagate_nan=True))

    with pytest.raises(kiln.KilnError, match="propagate_nan is"):
        bad[(1,)](np.zeros(1, np.float32))
    with pytest.raises(kiln.KilnError, match="propagate_nan is"):
        kiln.jit(bad.fn, interpret=True)[(1,)](np.zeros(1, np.float32))


@kiln.jit
def methods_kernel(x_ptr, out_ptr, count_ptr, N: kl.constexpr):
    i = kl.arange(0, N)
    x = kl.load(x_ptr + i)
    y = x.abs().sqrt().exp2().log2() + x.sigmoid() * x.erf() - x.cos() \
        + x.sin() + x.exp().log() + x.rsqrt().floor() * x.ceil()
    (out_ptr + i).store(y.cast(kl.float32))
    (out_ptr + N + i).store(x.cumsum(0) + x.max(0) + x.argmin(0))
    (out_ptr + 2 * N + i).store(x.reshape(N // 2, 2).trans().reshape(N))
    cube = x.reshape((2, 2, N // 4)).permute(2, 0, 1)
    kl.static_assert(cube.shape == (N // 4, 2, 2))
    (out_ptr + 3 * N + 3 + i).store(cube.reshape(N))
    (out_ptr + 3 * N).store((kl.program_id(0) + N).cdiv(3))
    (out_ptr + 3 * N + 1).store(x.reduce(0, _add))
    (out_ptr + 3 * N + 2).store(x.expand_dims(0).broadcast_to(2, N).sum())
    count_ptr.atomic_add(1)
    count_ptr.atomic_max(5)


@kiln.jit
def _add(a, b):
    return a + b


@BOTH
def test_tensor_methods_are_the_language_functions(interpret):
    """Triton's tensor member functions that Kiln has, as methods: of
    tiles (x.exp()), of pointers (p.store(v), p.atomic_add(1))."""
    n = 8
    x = (np.arange(n, dtype=np.float32) + 1) / 4
    out = np.zeros(4 * n + 3, np.float32)
    count = np.zeros(1, np.int32)
    kiln.jit(methods_kernel.fn, interpret=interpret)[(1,)](x, out, count,
                                                           N=n)
    from math import erf
    erfs = np.array([erf(v) for v in x], np.float32)
    expected = (np.log2(np.exp2(np.sqrt(np.abs(x)))) + 1 / (1 + np.exp(-x))
                * erfs - np.cos(x) + np.sin(x) + np.log(np.exp(x))
                + np.floor(1 / np.sqrt(x)) * np.ceil(x))
    np.testing.assert_allclose(out[:n], expected, rtol=1e-5)
    np.testing.assert_allclose(out[n:2 * n],
                               np.cumsum(x) + x.max() + np.argmin(x))
    np.testing.assert_array_equal(out[2 * n:3 * n],
                                  x.reshape(n // 2, 2).T.reshape(n))
    assert out[3 * n:3 * n + 3].tolist() == [3.0, x.sum(), 2 * x.sum()]
    np.testing.assert_array_equal(
        out[3 * n + 3:], x.reshape(2, 2, n // 4).transpose(2, 0, 1).ravel())
    assert count[0] == 5


@kiln.jit
def reductions_kernel(x_ptr, bits_ptr, out_ptr, ints_ptr, N: kl.constexpr):
    r = kl.arange(0, 4)
    c = kl.arange(0, N)
    x = kl.load(x_ptr + r[:, None] * N + c[None, :])
    bits = kl.load(bits_ptr + r[:, None] * N + c[None, :])
    kl.store(out_ptr + r[:, None] * N + c[None, :],
             kl.cumsum(x, 1, reverse=True))
    kl.store(out_ptr + 4 * N + r[:, None] * N + c[None, :],
             x.cumprod(axis=0))
    kl.store(out_ptr + 8 * N + r[:, None] * N + c[None, :],
             kl.cumprod(x, 1, True))
    total = kl.sum(x, axis=1, dtype=kl.float64)
    kl.static_assert(total.dtype == kl.float64)
    kl.store(out_ptr + 12 * N + r, total)
    kl.store(ints_ptr + r, kl.xor_sum(bits, axis=1))
    kl.store(ints_ptr + 4 + c, bits.reduce_or(0))
    kl.store(ints_ptr + 4 + N, kl.xor_sum(bits))
    small = bits.to(kl.int8)
    kl.static_assert(kl.cumsum(small, 1).dtype == kl.int32)
    kl.static_assert(kl.sum(small, 1, dtype=kl.int8).dtype == kl.int8)
    kl.store(ints_ptr + 5 + N + c, kl.sum(small * 16, 0, dtype=kl.int8))


@BOTH
def test_sum_dtype_reverse_scans_products_and_bitwise_reductions(interpret):
    n = 8
    x = RNG.integers(-3, 4, (4, n)).astype(np.float32) / 2
    bits = RNG.integers(0, 2**20, (4, n)).astype(np.int32)
    out = np.zeros(12 * n + 4, np.float64)
    ints = np.zeros(5 + 2 * n, np.int32)
    kiln.jit(reductions_kernel.fn, interpret=interpret)[(1,)](
        x, bits, out, ints, N=n)
    np.testing.assert_array_equal(out[:4 * n].reshape(4, n),
                                  np.cumsum(x[:, ::-1], 1)[:, ::-1])
    np.testing.assert_array_equal(out[4 * n:8 * n].reshape(4, n),
                                  np.cumprod(x, 0))
    np.testing.assert_array_equal(out[8 * n:12 * n].reshape(4, n),
                                  np.cumprod(x[:, ::-1], 1)[:, ::-1])
    np.testing.assert_array_equal(out[12 * n:], x.astype(np.float64).sum(1))
    np.testing.assert_array_equal(ints[:4], np.bitwise_xor.reduce(bits, 1))
    np.testing.assert_array_equal(ints[4:4 + n], np.bitwise_or.reduce(bits, 0))
    assert ints[4 + n] == np.bitwise_xor.reduce(bits.ravel())
    # An int8 sum wraps in int8, as the dtype asks.
    np.testing.assert_array_equal(
        ints[5 + n:], (bits.astype(np.int8) * np.int8(16)).sum(
            0, dtype=np.int8))


def test_bitwise_reductions_need_integers():
    @kiln.jit
    def bad(x_ptr):
        kl.store(x_ptr, kl.xor_sum(kl.load(x_ptr + kl.arange(0, 4))))

    for interpret in (False, True):
        with pytest.raises(kiln.KilnError, match="needs integers"):
            kiln.jit(bad.fn, interpret=interpret)[(1,)](
                np.zeros(4, np.float32))


@kiln.jit
def shapes_and_math_kernel(x_ptr, y_ptr, i_ptr, out_ptr, ints_ptr,
                           N: kl.constexpr):
    i = kl.arange(0, N)
    x = kl.load(x_ptr + i)
    y = kl.load(y_ptr + i)
    pair = kl.join(x, y)
    kl.static_assert(pair.shape == (N, 2))
    first, second = kl.split(pair)
    kl.store(out_ptr + i, kl.where(first == x, second, 99.0))
    kl.store(out_ptr + N + kl.arange(0, 2 * N), kl.interleave(x, y))
    grid = x.reshape(2, N // 2)
    kl.store(out_ptr + 3 * N + i, kl.ravel(kl.unsqueeze(grid, 0)))
    kl.store(out_ptr + 4 * N + i,
             kl.squeeze(grid.reshape(1, 2, N // 2), 0).view(N))
    kl.store(out_ptr + 5 * N + i,
             kl.add(x, y) + kl.sub(x, 1) + kl.mul(2, y))
    kl.store(out_ptr + 6 * N + i, kl.fdiv(x, y) + kl.div_rn(x, y))
    kl.store(out_ptr + 7 * N + i, kl.sqrt_rn(kl.abs(x)))
    a = kl.load(i_ptr + i)
    kl.assume(N > 0)
    kl.assume(a == a)
    kl.store(ints_ptr + i, kl.umulhi(a, a * 3 + 1))
    kl.store(ints_ptr + N + i, kl.split(kl.join(a, -a))[1])


@BOTH
def test_join_split_interleave_reshapes_and_functional_math(interpret):
    n = 8
    x = (np.arange(n, dtype=np.float32) - 3.5) * 1.25
    y = np.linspace(-2.0, 3.0, n).astype(np.float32)
    y[3] = -0.0  # split keeps the sign of zero
    a = np.array([0, 1, -1, 2**31 - 1, -2**31, 123456789, -98765, 7],
                 np.int32)
    out = np.zeros(8 * n, np.float32)
    ints = np.zeros(2 * n, np.int32)
    kiln.jit(shapes_and_math_kernel.fn, interpret=interpret)[(1,)](
        x, y, a, out, ints, N=n)
    np.testing.assert_array_equal(out[:n], y)
    assert np.signbit(out[3])
    np.testing.assert_array_equal(out[n:3 * n], np.stack([x, y], 1).ravel())
    np.testing.assert_array_equal(out[3 * n:4 * n], x)
    np.testing.assert_array_equal(out[4 * n:5 * n], x)
    np.testing.assert_array_equal(out[5 * n:6 * n], (x + y) + (x - 1) + 2 * y)
    with np.errstate(divide="ignore"):
        np.testing.assert_array_equal(out[6 * n:7 * n], 2 * (x / y))
    np.testing.assert_array_equal(out[7 * n:], np.sqrt(np.abs(x)))
    b = (a * np.int32(3) + np.int32(1))
    high = (a.view(np.uint32).astype(np.uint64) *
            b.view(np.uint32).astype(np.uint64)) >> np.uint64(32)
    np.testing.assert_array_equal(ints[:n],
                                  high.astype(np.uint32).view(np.int32))
    np.testing.assert_array_equal(ints[n:], -a)


@kiln.jit
def random_helpers_kernel(out_ptr, seed, N: kl.constexpr):
    i = kl.arange(0, N)
    u0, u1, u2, u3 = kl.rand4x(seed, i)
    n0, n1, n2, n3 = kl.randn4x(seed, i)
    kl.store(out_ptr + i, u0)
    kl.store(out_ptr + N + i, u3)
    kl.store(out_ptr + 2 * N + i, n0)
    kl.store(out_ptr + 3 * N + i, n1 + n2 * 0 + n3 * 0)
    kl.store(out_ptr + 4 * N + i, kl.rand(seed, i))
    kl.store(out_ptr + 5 * N + i, kl.randn(seed, i))
    words = kl.randint4x(seed, i)
    kl.store(out_ptr + 6 * N + i, kl.uint_to_uniform_float(words[2]))
    first, second = kl.pair_uniform_to_normal(u0, u1)
    kl.store(out_ptr + 7 * N + i, second)


@BOTH
def test_random_helpers_are_tritons_compositions(interpret):
    """rand4x / randn4x are four uniforms / normals of one Philox call;
    their first is rand / randn, the second normal the sine half of
    pair_uniform_to_normal of the first two uniforms."""
    n = 64
    out = np.zeros(8 * n, np.float32)
    kiln.jit(random_helpers_kernel.fn, interpret=interpret)[(1,)](out, 7,
                                                                  N=n)
    u0, u3, n0, n1, rand, randn, u2, sine = out.reshape(8, n)
    np.testing.assert_array_equal(u0, rand)
    np.testing.assert_array_equal(n0, randn)
    np.testing.assert_array_equal(n1, sine)
    assert (0 <= u3).all() and (u3 < 1).all() and (u2 < 1).all()
    assert not np.array_equal(u0, u3) and not np.array_equal(n0, n1)
    assert abs(float(np.concatenate([n0, n1]).mean())) < 0.3


@kiln.jit
def dtype_queries_kernel(x_ptr, h_ptr, out_ptr):
    x = kl.load(x_ptr)
    h = kl.load(h_ptr)
    kl.static_assert(x.dtype.is_int() and x.dtype.is_int_signed())
    kl.static_assert(x.dtype.is_int32() and not x.dtype.is_floating())
    kl.static_assert(x.dtype.primitive_bitwidth == 32)
    kl.static_assert(h.dtype.is_floating() and h.dtype.is_fp16())
    kl.static_assert(h.dtype.fp_mantissa_width == 10)
    kl.static_assert(x_ptr.dtype.is_ptr())
    kl.static_assert(x_ptr.dtype.element_ty == kl.int32)
    kl.static_assert((x > 0).dtype.is_bool())
    kl.static_assert(not (x > 0).dtype.is_int_signed())
    scalar = kl.full((), 3, kl.int32)
    kl.static_assert(scalar.shape == ())
    kl.store(out_ptr, scalar + x)


@BOTH
def test_dtype_queries_and_a_full_scalar(interpret):
    out = np.zeros(1, np.int32)
    kiln.jit(dtype_queries_kernel.fn, interpret=interpret)[(1,)](
        np.array([4], np.int32), np.zeros(1, np.float16), out)
    assert out[0] == 7


@kiln.jit
def arrangement_kernel(x_ptr, h_ptr, out_ptr, h_out_ptr, ints_ptr,
                       N: kl.constexpr):
    i = kl.arange(0, N)
    x = kl.load(x_ptr + i)
    grid = kl.load(x_ptr + kl.arange(0, 4)[:, None] * 4
                   + kl.arange(0, 4)[None, :])
    kl.store(out_ptr + i, kl.flip(x))
    kl.store(out_ptr + N + kl.arange(0, 2 * N), kl.cat(x, x * 10))
    both = kl.cat(grid, grid + 100, dim=1)
    kl.static_assert(both.shape == (4, 8))
    kl.store(out_ptr + 3 * N + kl.arange(0, 32), kl.ravel(both))
    kl.store(out_ptr + 3 * N + 32 + kl.arange(0, 16),
             kl.ravel(grid.flip(0)))
    kl.store(out_ptr + 3 * N + 48 + kl.arange(0, 16),
             kl.ravel(kl.softmax(grid, 1)))
    h = kl.load(h_ptr + i)
    kl.store(h_out_ptr + i, kl.flip(h, 0))
    flags = kl.flip(x > 2.0)
    row, col = kl.broadcast(kl.arange(0, 4)[:, None], kl.arange(0, 4)[None, :])
    new_row, new_col = kl.swizzle2d(row, col, 4, 4, 2)
    kl.store(ints_ptr + kl.arange(0, 16), kl.ravel(new_row * 4 + new_col))
    kl.store(ints_ptr + 16 + i, flags.to(kl.int32) + kl.to_tensor(7))


@BOTH
def test_flip_cat_softmax_swizzle_and_broadcast(interpret):
    n = 16
    x = (np.arange(n, dtype=np.float32) - 4) / 2
    x[5] = -0.0
    h = (np.arange(n) * 1.5 - 3).astype(np.float16)
    out = np.zeros(3 * n + 64, np.float32)
    h_out = np.zeros(n, np.float16)
    ints = np.zeros(16 + n, np.int32)
    kiln.jit(arrangement_kernel.fn, interpret=interpret)[(1,)](
        x, h, out, h_out, ints, N=n)
    np.testing.assert_array_equal(out[:n], x[::-1])
    assert np.signbit(out[n - 1 - 5])
    np.testing.assert_array_equal(out[n:3 * n], np.concatenate([x, x * 10]))
    grid = x.reshape(4, 4)
    np.testing.assert_array_equal(out[3 * n:3 * n + 32],
                                  np.concatenate([grid, grid + 100], 1).ravel())
    np.testing.assert_array_equal(out[3 * n + 32:3 * n + 48],
                                  grid[::-1].ravel())
    e = np.exp(grid - grid.max(1, keepdims=True))
    np.testing.assert_allclose(out[3 * n + 48:],
                               (e / e.sum(1, keepdims=True)).ravel(),
                               rtol=1e-6)
    np.testing.assert_array_equal(h_out, h[::-1])
    # Triton's documented example of swizzle2d (4 x 4, groups of 2 rows):
    # element (i, j) moves to where the documented matrix holds i * 4 + j.
    documented = np.array([0, 2, 4, 6, 1, 3, 5, 7,
                           8, 10, 12, 14, 9, 11, 13, 15])
    np.testing.assert_array_equal(ints[:16], np.argsort(documented))
    np.testing.assert_array_equal(ints[16:], (x[::-1] > 2) + 7)


@kiln.jit
def barrier_kernel(x_ptr, out_ptr, N: kl.constexpr):
    i = kl.arange(0, N)
    kl.store(out_ptr + i, kl.load(x_ptr + i) * 2)
    kl.debug_barrier()
    # Each element reads its neighbour's store, which the barrier orders.
    kl.store(x_ptr + i, kl.load(out_ptr + (i + 1) % N))


@BOTH
def test_debug_barrier(interpret):
    n = 64
    x = np.arange(n, dtype=np.float32)
    out = np.zeros(n, np.float32)
    kiln.jit(barrier_kernel.fn, interpret=interpret)[(1,)](x, out, N=n)
    np.testing.assert_array_equal(x, np.roll(np.arange(n) * 2, -1))


def test_debug_barrier_is_bar_sync():
    x = np.zeros(64, np.float32)
    ptx = barrier_kernel.asm(x, x, N=64, chip="sm_90a")["ptx"]
    assert "bar.sync \t0;" in ptx


@kiln.jit
def sort_kernel(x_ptr, i_ptr, h_ptr, out_ptr, ints_ptr, h_out_ptr,
                R: kl.constexpr, N: kl.constexpr):
    r = kl.arange(0, R)[:, None]
    c = kl.arange(0, N)[None, :]
    x = kl.load(x_ptr + r * N + c)
    kl.store(out_ptr + r * N + c, kl.sort(x))
    kl.store(out_ptr + R * N + r * N + c, x.sort(descending=True))
    kl.store(out_ptr + 2 * R * N + r * 4 + kl.arange(0, 4)[None, :],
             kl.topk(x, 4))
    kl.store(out_ptr + 2 * R * N + 4 * R + r, kl.topk(x, 1, descending=False))
    i = kl.load(i_ptr + kl.arange(0, N))
    kl.store(ints_ptr + kl.arange(0, N), kl.sort(i, descending=True))
    h = kl.load(h_ptr + kl.arange(0, N))
    top = kl.topk(h, 2)
    kl.static_assert(top.dtype == kl.float32)
    kl.store(h_out_ptr + kl.arange(0, 2), top)


@BOTH
def test_sort_and_topk_are_tritons_bitonic_network(interpret):
    rows, n = 4, 16
    x = RNG.standard_normal((rows, n)).astype(np.float32)
    x[1, 3] = x[1, 7]  # a tie
    i = RNG.integers(-100, 100, n).astype(np.int32)
    h = RNG.standard_normal(n).astype(np.float16)
    out = np.zeros(2 * rows * n + 5 * rows, np.float32)
    ints = np.zeros(n, np.int32)
    h_out = np.zeros(2, np.float32)
    kiln.jit(sort_kernel.fn, interpret=interpret)[(1,)](
        x, i, h, out, ints, h_out, R=rows, N=n)
    np.testing.assert_array_equal(out[:rows * n].reshape(rows, n),
                                  np.sort(x, 1))
    np.testing.assert_array_equal(out[rows * n:2 * rows * n].reshape(rows, n),
                                  -np.sort(-x, 1))
    top4 = out[2 * rows * n:2 * rows * n + 4 * rows].reshape(rows, 4)
    np.testing.assert_array_equal(top4, -np.sort(-x, 1)[:, :4])
    np.testing.assert_array_equal(out[2 * rows * n + 4 * rows:], x.min(1))
    np.testing.assert_array_equal(ints, np.sort(i)[::-1])
    np.testing.assert_array_equal(h_out, np.sort(h)[::-1][:2])


@THREE
def test_booleans_are_bytes_not_zero_and_negate_to_themselves(target):
    """As Triton: -b of a boolean stays boolean (0 - b modulo 2, not in
    int32), and a stored boolean is true where its byte is not zero, not
    its low bit (a load of the byte 2 as i1 was 2 on the host, false on
    the GPU)."""
    n = 8
    x = np.array([0, 1, 0, 7, 0, -1, 0, 1], np.int32)
    stored = np.array([0, 1, 2, 255, 128, 0, 1, 3], np.uint8).view(np.bool_)
    out = np.zeros(3 * n, np.int32)
    launch(target, idiom.booleans_kernel, (1,), x, stored, out, N=n)
    truth = stored.view(np.uint8) != 0
    np.testing.assert_array_equal(out[:n], x != 0)
    np.testing.assert_array_equal(out[n:2 * n], truth)
    np.testing.assert_array_equal(out[2 * n:], ~truth)


@THREE
def test_float_atomic_extrema_order_the_bits(target):
    """Triton's float atomic_max / atomic_min are integer atomics on the
    bits (signed where the value's sign is clear, unsigned where set), so
    -0 is below +0 and a NaN beyond the infinity of its sign: not IEEE's
    maxNum, which the host took."""
    nan, inf = np.float32(np.nan), np.float32(np.inf)
    negative_nan = -np.abs(nan)
    held = np.array([0.0, 5.0, nan, -1.0, -0.0, 3.0, -inf, 2.0], np.float32)
    x = np.array([-0.0, nan, 1.0, -0.0, 0.0, negative_nan, -2.0, 9.0],
                 np.float32)
    maxima, minima = held.copy(), held.copy()
    old = np.zeros(16, np.float32)
    launch(target, idiom.float_atomic_extrema_kernel, (1,), maxima, minima,
           x, old, N=8)

    def ordered(v):
        bits = v.view(np.int32).astype(np.int64)
        return np.where(bits >= 0, bits, -(bits & 0x7FFFFFFF) - 1)
    bigger = ordered(x) > ordered(held)
    expected_max = np.where(bigger, x, held)
    expected_max[7] = held[7]  # masked off
    expected_min = np.where(ordered(x) < ordered(held), x, held)
    np.testing.assert_array_equal(maxima.view(np.uint32),
                                  expected_max.view(np.uint32))
    np.testing.assert_array_equal(minima.view(np.uint32),
                                  expected_min.view(np.uint32))
    np.testing.assert_array_equal(old[:7].view(np.uint32),
                                  held[:7].view(np.uint32))
    np.testing.assert_array_equal(old[8:].view(np.uint32),
                                  held.view(np.uint32))
    # Where the old and new orders disagree: maxNum took 5.0 over a NaN,
    # and +0 over -0 either way.
    assert np.isnan(maxima[1]) and np.signbit(minima[0]) and \
        not np.signbit(maxima[0])


def _halfway_cases(narrow: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    """Doubles just above, at and just below the midpoints of adjacent
    values of a 16-bit float format, and each one rounded once to nearest
    even: where rounding to float first lands on the midpoint, a second
    rounding goes the wrong way."""
    bits = np.arange(0x0001, 0x7BFF, 61, dtype=np.uint16)
    low = bits.view(narrow).astype(np.float64)
    high = (bits + 1).view(narrow).astype(np.float64)
    middle = (low + high) / 2
    even = np.where(bits % 2 == 0, low, high)
    x = np.concatenate([middle * (1 + 2.0 ** -40), middle,
                        middle * (1 - 2.0 ** -40)])
    rounded = np.concatenate([high, even, low])
    return np.concatenate([x, -x]), np.concatenate([rounded, -rounded])


@THREE
def test_doubles_narrow_to_16_bits_rounded_once(target):
    """f64 -> f16 and f64 -> bf16 round once, to nearest even, where the
    host target could not compile them (the JIT had no __truncdfhf2), and
    an f16 fma (which LLVM computes in f64) likewise."""
    x16, half = _halfway_cases(np.dtype(np.float16))
    xb, bf16 = _halfway_cases(np.dtype(ml_dtypes.bfloat16))
    n = 4096
    x = np.zeros(n, np.float64)
    x[:len(x16)] = x16
    x[len(x16):len(x16) + 4] = [65519.99, 65520.0, -65520.0, 1e300]
    half_out = np.zeros(n, np.float16)
    bf16_out = np.zeros(n, np.float32)
    fma_out = np.zeros(n, np.float16)
    launch(target, idiom.narrow_from_double_kernel, (1,), x, half_out,
           bf16_out, fma_out, N=n)
    np.testing.assert_array_equal(half_out[:len(x16)], half)
    np.testing.assert_array_equal(half_out[len(x16):len(x16) + 4],
                                  [65504, np.inf, -np.inf, np.inf])
    h = half_out.astype(np.float64)
    finite = np.isfinite(h)
    np.testing.assert_array_equal(fma_out[finite],
                                  (h * h + h)[finite].astype(np.float16))
    if target == "triton-interpreter":
        return  # it narrows f64 to bfloat16 wrongly (1.5 becomes 0)
    x[:len(xb)] = xb
    launch(target, idiom.narrow_from_double_kernel, (1,), x, half_out,
           bf16_out, fma_out, N=n)
    np.testing.assert_array_equal(bf16_out[:len(xb)], bf16)


def test_float_atomic_extrema_are_integer_atomics_on_the_gpu():
    """On the GPU, Triton's instructions: a signed max and an unsigned min
    of the bits for atomic_max (the reverse for atomic_min), no float
    atomic and no compare-and-swap loop."""
    x = np.zeros(8, np.float32)
    ptx = kiln.jit(idiom.float_atomic_extrema_kernel.fn).warmup(
        x, x.copy(), x.copy(), np.zeros(16, np.float32), N=8).asm["ptx"]
    for instruction in ("atom.global.max.s32", "atom.global.min.u32",
                        "atom.global.min.s32", "atom.global.max.u32"):
        assert instruction in ptx
    assert ".f32" not in "".join(
        line for line in ptx.splitlines() if "atom." in line)
    assert "atom.global.cas" not in ptx


@pytest.mark.parametrize("interpret", [False, True])
def test_half_float_atomic_extrema_are_refused(interpret):
    """Triton refuses float16 and bfloat16 atomic_max / atomic_min; an
    order of their bits would need 16-bit atomics the GPU lacks."""

    @kiln.jit(interpret=interpret)
    def kernel(p):
        kl.atomic_max(p + kl.arange(0, 4), kl.zeros((4,), kl.float16))

    with pytest.raises(kiln.KilnError, match="float32 or float64"):
        kernel[(1,)](np.zeros(4, np.float16))


def _gpu_shift(x: np.ndarray, s: np.ndarray, left: bool) -> np.ndarray:
    """x << s or x >> s as PTX's shl / shr: the amount, read unsigned,
    clamped to the width."""
    width = 8 * x.dtype.itemsize
    amount = np.minimum(s.astype(np.uint64) & (2 ** width - 1), width)
    wide = x.astype(object)
    return np.array([
        (v << int(a)) % 2 ** width if left else v >> int(a)
        for v, a in zip(wide, amount)], dtype=object).astype(
            np.int64).astype(x.dtype) if left else np.array(
                [v >> int(a) for v, a in zip(wide, amount)]).astype(x.dtype)


@THREE
def test_shifts_past_the_width_give_the_gpus_results(target):
    """A shift by the width or more, or by a negative amount: Triton
    leaves it undefined; its kernels run PTX's shl / shr, which clamp the
    amount (read unsigned) to the width, giving 0 or the sign. The host
    shifted by the amount modulo 32 (x86), and a constant amount past the
    width gave garbage."""
    n = 8
    x = np.array([123, -123, 1, -1, 1, -1, 5, -5], np.int32)
    s = np.array([32, 32, 33, 35, -1, -31, 3, 40], np.int32)
    out = np.zeros(5 * n, np.int32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", kiln.CompilerRemark)
        launch(target, idiom.shifts_kernel, (1,), x, s, out, N=n)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(out[:n], _gpu_shift(x, s, True))
    np.testing.assert_array_equal(out[n:2 * n], _gpu_shift(x, s, False))
    np.testing.assert_array_equal(
        out[2 * n:3 * n],
        _gpu_shift(x.view(np.uint32), s, False).view(np.int32))
    np.testing.assert_array_equal(out[6], 5 << 3)
    if target == "triton-interpreter":
        return  # Triton: a constant shift past the width is poison
    np.testing.assert_array_equal(out[3 * n:4 * n], 0)
    np.testing.assert_array_equal(out[4 * n:], np.where(x < 0, -1, 0))


def test_a_constant_shift_past_the_width_is_remarked():
    """At the user's line, for the GPU too (int16 elements here, a
    specialization no other test compiles)."""
    x = np.ones(8, np.int16)
    with pytest.warns(kiln.CompilerRemark,
                      match=r"shifting i16 by 33 \(outside \[0, 16\)\)"):
        kiln.jit(idiom.shifts_kernel.fn).warmup(
            x, np.zeros(8, np.int32), np.zeros(40, np.int32), N=8)


@pytest.mark.parametrize("interpret", [False, True],
                         ids=["host", "interpreter"])
def test_floats_convert_to_integers_as_the_gpus_cvt(interpret):
    """A float outside an integer's range, or a NaN: undefined in LLVM
    (x86 gives 0x80000000 or 0xFFFFFFFF), numpy's in Triton's interpreter;
    Triton's kernels run cvt.rzi, which saturates to the range and takes a
    NaN to 0, so the host and Kiln's interpreter do too."""
    f = np.array([np.nan, np.inf, -np.inf, 3e9, -3e9, -2.5, 2.5,
                  2147483520.0], np.float32)
    d = np.array([np.nan, 1e19, -1e19, 2.0 ** 63, -2.0 ** 63, -0.5, 7.9,
                  -7.9])
    h = np.array([np.nan, np.inf, -np.inf, 65504, -65504, 32767, -32768,
                  40000], np.float16)
    i32, u32 = np.zeros(8, np.int32), np.zeros(8, np.uint32)
    i64, i16 = np.zeros(8, np.int64), np.zeros(8, np.int16)
    kiln.jit(idiom.float_to_int_kernel.fn, interpret=interpret)[(1,)](
        f, d, h, i32, u32, i64, i16, N=8)
    top32, top64 = 2 ** 31 - 1, 2 ** 63 - 1
    np.testing.assert_array_equal(
        i32, [0, top32, -top32 - 1, top32, -top32 - 1, -2, 2, 2147483520])
    np.testing.assert_array_equal(
        u32, [0, 2 ** 32 - 1, 0, 3000000000, 0, 0, 2, 2147483520])
    np.testing.assert_array_equal(
        i64, [0, top64, -top64 - 1, top64, -top64 - 1, 0, 7, -7])
    np.testing.assert_array_equal(
        i16, [0, 32767, -32768, 32767, -32768, 32767, -32768, 32767])


def test_compiled_triton_converts_and_shifts_as_the_host_now_does():
    """The GPU semantics the host follows are the instructions Triton's
    kernels (and Kiln's) compile these conversions and shifts to: cvt.rzi
    and shl / shr (Triton compiles for sm_90a without a GPU)."""
    f, d, h = (np.zeros(8, t) for t in (np.float32, np.float64, np.float16))
    args = {"f_ptr": f, "d_ptr": d, "h_ptr": h,
            "i32_ptr": np.zeros(8, np.int32),
            "u32_ptr": np.zeros(8, np.uint32),
            "i64_ptr": np.zeros(8, np.int64), "i16_ptr": np.zeros(8, np.int16)}
    classes = ("cvt.rzi.s32.f32", "cvt.rzi.u32.f32", "cvt.rzi.s64.f64")
    ours = kiln.jit(idiom.float_to_int_kernel.fn).warmup(
        **args, N=8).asm["ptx"]
    for instruction in classes:
        assert instruction in ours, instruction
    theirs = triton_interpreter.tritons_asm(idiom.float_to_int_kernel, args,
                                            {"N": 8})
    for instruction in classes:
        assert instruction in theirs, instruction


NARROW = np.array([190.5, -300.7, 1e10, -1e10, np.nan, 70000.0, -40000.0,
                   2.5], np.float32)


def narrow_int_arrays() -> dict:
    return {"f_ptr": NARROW.copy(), "i8_ptr": np.zeros(8, np.int8),
            "u8_ptr": np.zeros(8, np.uint8),
            "stored_i8_ptr": np.zeros(8, np.int8),
            "stored_i32_ptr": np.zeros(8, np.int32),
            "atomic_ptr": np.ones(8, np.int32),
            "f8_ptr": np.zeros(8, ml_dtypes.float8_e4m3fn)}


@BOTH
def test_floats_convert_to_8_bit_integers_through_16_bits(interpret):
    """PTX has no 8-bit registers: Triton's kernels (and Kiln's) convert
    a float to int8 or uint8 with cvt.rzi to 16 bits, saturating there,
    and keep the low byte (190.5 is -66), where the host and Kiln's
    interpreter saturated to 8 bits. A store or an atomic converts as
    ``.to`` does (the interpreter's wrapped, and put NaN in float8)."""
    arrays = narrow_int_arrays()
    kiln.jit(idiom.narrow_int_kernel.fn, interpret=interpret)[(1,)](
        **arrays, N=8)
    sixteen = np.array([190, -300, 32767, -32768, 0, 32767, -32768, 2],
                       np.int16)
    np.testing.assert_array_equal(arrays["i8_ptr"], sixteen.astype(np.int8))
    assert arrays["i8_ptr"][0] == -66
    np.testing.assert_array_equal(arrays["stored_i8_ptr"], arrays["i8_ptr"])
    np.testing.assert_array_equal(arrays["u8_ptr"],
                                  [190, 0, 255, 0, 0, 255, 0, 2])
    top = 2 ** 31 - 1
    saturated = np.array([190, -300, top, -top - 1, 0, 70000, -40000, 2],
                         np.int32)
    np.testing.assert_array_equal(arrays["stored_i32_ptr"], saturated)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(arrays["atomic_ptr"], saturated + 1)
    np.testing.assert_array_equal(
        arrays["f8_ptr"].astype(np.float32),
        [192, -288, 448, -448, np.nan, 448, -448, 2.5])


def test_compiled_triton_converts_to_8_bits_through_16():
    """The instruction both compilers give the 8-bit conversions."""
    ours = kiln.jit(idiom.narrow_int_kernel.fn).warmup(
        **narrow_int_arrays(), N=8).asm["ptx"]
    theirs = triton_interpreter.tritons_asm(idiom.narrow_int_kernel,
                                            narrow_int_arrays(), {"N": 8})
    for ptx in (ours, theirs):
        assert "cvt.rzi.s16.f32" in ptx and "cvt.rzi.u16.f32" in ptx
        assert "cvt.rzi.s8" not in ptx and "cvt.rzi.u8" not in ptx


@THREE
def test_a_loads_other_is_a_number_of_its_own_type_converted(target):
    """As Triton's load: ``other`` is a scalar of the number's own type
    (int32, float32), then converted to the element type: -1 of a uint32
    load is 0xFFFFFFFF (Kiln refused it as a negative number meeting an
    unsigned tile), 0.1 of a float64 one is float32's 0.1, 70000 of a
    float16 one infinity."""
    n = 4
    u, d = np.arange(n, dtype=np.uint32), np.arange(n, dtype=np.float64)
    h = np.arange(n, dtype=np.float16)
    out_u, out_d, out_h = np.zeros_like(u), np.zeros_like(d), \
        np.zeros_like(h)
    launch(target, idiom.other_kernel, (1,), u, d, h, out_u, out_d, out_h,
           N=n)
    np.testing.assert_array_equal(out_u, [0, 1, 2 ** 32 - 1, 2 ** 32 - 1])
    np.testing.assert_array_equal(
        out_d, [0, 1, np.float32(0.1), np.float32(0.1)])
    np.testing.assert_array_equal(out_h, [0, 1, np.inf, np.inf])


@THREE
def test_argmax_and_max_with_indices_pass_over_nans(target):
    """A NaN loses to any number in argmax, argmin and max with indices,
    as Triton's (its interpreter takes numpy's nanargmax; the combine of
    its compiled reduction keeps a number over a NaN met first); Kiln took
    numpy's argmax, the first NaN."""
    rows = np.array([[1, np.nan, 7, 7, 0, 2, 3, 4],
                     [np.nan, 2, 9, 9, 0, 0, 5, np.nan],
                     [0, -1, 5, np.nan, 5, np.nan, -1, 2],
                     [np.nan, 3, np.nan, -np.inf, np.nan, np.nan,
                      np.nan, np.nan]], np.float32)
    out = np.zeros(3 * len(rows), np.int32)
    values = np.zeros(len(rows), np.float32)
    launch(target, idiom.nan_argmax_kernel, (len(rows),), rows, out, values,
           N=8)
    np.testing.assert_array_equal(out.reshape(-1, 3), [
        [2, 4, 2], [2, 4, 2], [2, 1, 2], [1, 3, 1]])
    np.testing.assert_array_equal(values, [7, 9, 5, 3])


@THREE
def test_ties_without_tie_break_left_give_one_of_the_tied_indices(target):
    """tie_break_left=False (and return_indices_tie_break_left=False)
    promise no particular index among ties, in Triton; Kiln refused them.
    Any tied index is right."""
    x = np.array([3, 7, 1, 7, 1, 0, 7, 2], np.int32)
    out = np.zeros(4, np.int32)
    launch(target, idiom.untied_argmax_kernel, (1,), x, out, N=8)
    assert out[0] in (1, 3, 6) and out[2] in (1, 3, 6)
    assert out[1] == 5 and out[3] == 7


def _toward_zero(x: np.ndarray, narrow: np.dtype) -> np.ndarray:
    """``x`` rounded toward zero to ``narrow``: the nearest value, or its
    neighbour toward zero where the nearest is past ``x``."""
    nearest = x.astype(narrow)
    beyond = np.abs(nearest.astype(np.float64)) > np.abs(
        x.astype(np.float64))
    bits = nearest.view(np.int16) - beyond.astype(np.int16)
    return bits.view(narrow)


@THREE
def test_rounding_toward_zero_when_narrowing(target):
    """``.to(float16 / bfloat16, fp_downcast_rounding="rtz")``, which Kiln
    refused: past the largest finite value it stays there, below the
    smallest subnormal it is zero, NaN stays NaN."""
    rng = np.random.default_rng(7)
    x = (rng.standard_normal(256) * 10.0 ** rng.integers(-9, 6, 256)
         ).astype(np.float32)
    x[:6] = [70000.0, -70000.0, np.inf, 1e-9, -1e-9, np.nan]
    half, bf16 = np.zeros(256, np.float16), np.zeros(256, np.float32)
    launch(target, idiom.toward_zero_kernel, (1,), x, half, bf16, N=256)
    if target == "triton-interpreter":
        # It turns values past float16's range into NaN and stores
        # bfloat16 wrongly.
        inside = np.abs(x) <= 65504
        np.testing.assert_array_equal(half[inside],
                                      _toward_zero(x, np.float16)[inside])
        return
    np.testing.assert_array_equal(half, _toward_zero(x, np.float16))
    np.testing.assert_array_equal(half[:5], [65504, -65504, np.inf, 0, 0])
    np.testing.assert_array_equal(
        bf16, _toward_zero(x, np.dtype(ml_dtypes.bfloat16)).astype(
            np.float32))


@THREE
def test_a_float16_accumulator_takes_the_products_sum_rounded_once(target):
    """``dot(a, b, out_dtype=float16)`` and a float16 ``acc``: a tensor
    core sums an instruction's products (K 16) before rounding to float16;
    the host rounded after every product (177 of 256 results off, by up to
    1.8)."""
    n = 16
    rng = np.random.default_rng(5)
    a, b = (rng.standard_normal((n, n)) * 8).astype(np.float16), \
        (rng.standard_normal((n, n)) * 8).astype(np.float16)
    d = (rng.standard_normal((n, n)) * 8).astype(np.float16)
    c, total = np.zeros((n, n), np.float16), d.copy()
    launch(target, idiom.half_accumulator_kernel, (1,), a, b, c, total, N=n)
    product = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_array_equal(c, product.astype(np.float16))
    if target == "triton-interpreter":
        return  # it rounds the product to float16, then adds the acc
    np.testing.assert_array_equal(
        total, (product + d.astype(np.float64)).astype(np.float16))


@THREE
def test_int64_random_offsets_are_two_counter_words(target):
    """Triton's randint4x takes a 64-bit offset's low and high 32 bits as
    the first two counter words (Kiln refused int64 offsets): Philox of
    (low, high, 0, 0), not of the low word alone."""
    n = 8
    out = np.zeros(3 * n, np.uint32)
    launch(target, idiom.wide_offsets_kernel, (1,), out, 1234,
           BASE=2 ** 32 + 5, N=n)
    np.testing.assert_array_equal(out[:n], out[n:2 * n])
    assert (out[:n] != out[2 * n:]).all()


@THREE
def test_module_constexprs_are_their_values(target):
    """``MODE = tl.constexpr(1)`` at module level, as Triton's users give
    kernels constants: Kiln took the wrapper for the value, which is always
    true and equal to nothing, so ``if MODE == 1`` ran the else branch and
    ``if OFF`` the then branch; ``tl.arange(0, WIDTH)``, ``WIDTH * 2`` and
    ``range(WIDTH)`` were refused."""
    out = np.zeros(7, np.int32)
    launch(target, idiom.constexpr_globals_kernel, (1,), out, N=5)
    np.testing.assert_array_equal(out[:3], [11, 33, 66])
    np.testing.assert_array_equal(out[3:], np.arange(4) * 6 + 8 + 5)


def test_the_value_of_a_constexpr():
    """``N.value`` of a constexpr parameter or global, which compiled
    Triton takes. (The interpreters, Kiln's and Triton's, run the kernel
    as Python, where a constexpr parameter is the plain number.)"""
    out = np.zeros(1, np.int32)
    kiln.jit(idiom.constexpr_value_kernel.fn)[(1,)](out, N=5)
    assert out[0] == 6


@THREE
def test_a_none_argument_is_a_constant(target):
    """``bias_ptr=None`` with ``if bias_ptr is not None:`` in the kernel,
    as Triton's users make an operand optional: Triton specializes None as
    a constant; Kiln refused it. Both forms, one after the other."""
    x, bias = np.arange(4, dtype=np.float32), np.full(4, 10, np.float32)
    for given, expected in ((None, x), (bias, x + 10), (None, x)):
        out = np.zeros(4, np.float32)
        launch(target, idiom.optional_bias_kernel, (1,), x, given, out, N=4)
        np.testing.assert_array_equal(out, expected)


def test_a_none_argument_compiles_for_the_gpu():
    x = np.zeros(4, np.float32)
    ptx = kiln.jit(idiom.optional_bias_kernel.fn).warmup(
        x, None, x, N=4).asm["ptx"]
    assert ptx.count("ld.global") == 1


def test_pointers_do_not_compare():
    """As Triton refuses them: an error at the line, not an internal
    error about invalid IR."""
    x = np.zeros(4, np.float32)
    with pytest.raises(kiln.KilnError, match="comparisons are not defined "
                       "on pointers") as caught:
        kiln.jit(idiom.pointer_comparison_kernel.fn)[(1,)](
            x, x, np.zeros(1, np.int32))
    assert "triton_idiom_semantics.py" in str(caught.value)


@BOTH
def test_a_float_pointer_offset_is_refused_in_both_modes(interpret):
    """The interpreter read ``x_ptr + 1.0`` as index 1, where the compiler
    (and Triton) refuse it."""
    with pytest.raises(kiln.KilnError, match="pointer offsets must be "
                       "integers"):
        kiln.jit(idiom.float_offset_kernel.fn, interpret=interpret)[(1,)](
            np.arange(4, dtype=np.float32), np.zeros(1, np.float32))


@BOTH
def test_a_dot_of_two_element_types_is_refused_in_both_modes(interpret):
    """float16 times float32: the compiler's verifier refuses it (as
    Triton does); the interpreter multiplied them."""
    with pytest.raises(kiln.KilnError, match="element type"):
        kiln.jit(idiom.mixed_dot_kernel.fn, interpret=interpret)[(1,)](
            np.ones(256, np.float16), np.ones(256, np.float32),
            np.zeros(256, np.float32))


def argument_one_arrays() -> dict:
    return {"x_ptr": np.array([127, -128, -3, 0, 5, 6, 7, 100], np.int8),
            "out_ptr": np.zeros(16, np.int8),
            "wide_ptr": np.zeros(3, np.int64)}


@BOTH
def test_an_integer_argument_equal_to_1_is_the_constexpr_1(interpret):
    """Triton's compiler specializes an integer argument equal to 1 as
    the constexpr 1 (its interpreter passes an int32; Kiln passed one too):
    an int8 tile plus it stays int8 and wraps, Python's floor division,
    modulo and shifts fold it, and it sizes an arange."""
    arrays = argument_one_arrays()
    kiln.jit(idiom.argument_one_kernel.fn, interpret=interpret)[(1,)](
        **arrays, step=1, N=8)
    x = arrays["x_ptr"]
    with np.errstate(over="ignore"):
        expected = np.fix((x + np.int8(1)) / 2).astype(np.int8)
    np.testing.assert_array_equal(arrays["out_ptr"][:8], expected)
    assert arrays["out_ptr"][0] == -64  # 127 + 1 wrapped in int8
    np.testing.assert_array_equal(arrays["out_ptr"][8:], x)
    np.testing.assert_array_equal(arrays["wide_ptr"], [-1, 3, 2 ** 33])


@BOTH
@pytest.mark.parametrize("step,unspecialized,expected", [
    (1, False, [-1, 3]),  # the constexpr 1: Python's arithmetic
    (1, True, [0, -2]),   # do_not_specialize: an int32, truncating
    (2, False, [0, -1])])
def test_do_not_specialize_keeps_1_an_int32(interpret, step, unspecialized,
                                            expected):
    out = np.zeros(2, np.int32)
    kiln.jit(idiom.scalar_step_kernel.fn, interpret=interpret,
             do_not_specialize=["step"] if unspecialized else ())[(1,)](
        out, step)
    assert out.tolist() == expected


def test_compiled_triton_makes_an_argument_equal_to_1_the_constexpr():
    """What the tests above follow is Triton's compiler: its TTIR of the
    same launch has no parameter for it, int8 arithmetic, and the folded
    -1, 3 and 2**33 stored."""
    ttir = triton_interpreter.tritons_asm(
        idiom.argument_one_kernel, dict(argument_one_arrays(), step=1),
        {"N": 8}, stage="ttir")
    assert re.search(r"arith\.addi %\S+, %\S+ : tensor<8xi8>", ttir)
    assert "%step" not in ttir
    for constant in ("-1 : i64", "3 : i64", "8589934592 : i64"):
        assert f"arith.constant {constant}" in ttir, constant


@THREE
def test_boolean_arithmetic_wraps_modulo_2(target):
    """i1 arithmetic as compiled (and in Triton's interpreter): True + True
    is False. Kiln's interpreter computed numpy's booleans (True + True
    True, a subtraction refused)."""
    x = np.array([0, 0, 1, 1], np.int32)
    y = np.array([0, 1, 0, 1], np.int32)
    out = np.full(24, 7, np.int8)
    launch(target, idiom.bool_arithmetic_kernel, (1,), x, y, out, N=4)
    np.testing.assert_array_equal(out.reshape(6, 4), [
        [0, 1, 1, 0], [0, 1, 1, 0], [0, 0, 0, 1], [0, 0, 1, 0],
        [1, 1, 0, 0], [0, 0, 1, 0]])


@THREE
def test_a_condition_of_numbers_is_nonzero(target):
    """Triton takes tl.where's condition of integers or floats as ``!= 0``
    (deprecated, with a warning); Kiln's compiles refused it, its
    interpreter took it. A NaN is not 0."""
    c = np.array([0, 3, -1, 0], np.int32)
    f = np.array([0.0, -0.0, np.nan, 0.5], np.float32)
    out = np.zeros(8, np.int32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        launch(target, idiom.integer_condition_kernel, (1,), c, f, out, N=4)
    np.testing.assert_array_equal(out, [20, 10, 10, 20, 2, 2, 1, 1])


def test_a_condition_of_numbers_is_remarked_at_its_line():
    """For the GPU too (a specialization no other test compiles)."""
    with pytest.warns(kiln.CompilerRemark,
                      match="kl.where with a condition of int32") as caught:
        kiln.jit(idiom.integer_condition_kernel.fn).warmup(
            np.zeros(8, np.int32), np.zeros(8, np.float32),
            np.zeros(16, np.int32), N=8)
    assert caught[0].filename.endswith("triton_idiom_semantics.py")


@BOTH
def test_an_fma_of_integers_is_refused_in_both_modes(interpret):
    """As Triton's, whose fma takes floats; the interpreter computed it."""
    with pytest.raises(kiln.KilnError, match="kl.fma needs floats"):
        kiln.jit(idiom.integer_fma_kernel.fn, interpret=interpret)[(1,)](
            np.ones(1, np.int32), np.zeros(1, np.int32))


@THREE
def test_python_floats_are_float32_unless_out_of_its_range(target):
    """Triton's rule for a Python float: float32, or float64 where its
    magnitude is outside float32's normal range. Kiln stored 0.1 into a
    float64 with all its digits, and met an int32 tile with 1e39 in
    float32 (infinity)."""
    x = np.array([1, 2], np.int32)
    wide, out = np.zeros(3, np.float64), np.zeros(8, np.float64)
    launch(target, idiom.python_float_kernel, (1,), x, wide, out, 3, B=2)
    single = float(np.float32(0.1))
    np.testing.assert_array_equal(
        wide, [single, single, float(np.float32(0.1) + np.float32(0.2))])
    np.testing.assert_array_equal(
        out, [1e39, 2e39, 1e-50, 2.0, *(x / 1e-300), 3e39, 3e39])


def boolean_operator_arrays() -> dict:
    return {"x_ptr": np.array([-1, 0, 1, 3, 4, 5, 6, 2], np.int32),
            "out_ptr": np.full(20, -9, np.int32), "n": 3}


@BOTH
def test_and_or_not_and_chains_as_tritons(interpret):
    """Triton's boolean operators: `0 < x < 5` is two comparisons joined by
    `and`; `not` of a tile of booleans inverts it; compile-time operands
    keep Python's truth and short-circuit (`2 and 1` is 1, `2 or 1` is 2,
    nothing after a deciding one is evaluated). Kiln refused the first
    two and took `and` / `or` bitwise (2 & 1 is 0)."""
    arrays = boolean_operator_arrays()
    kiln.jit(idiom.boolean_operators_kernel.fn, interpret=interpret)[(1,)](
        **arrays, N=8, A=2, B=1)
    x, out = arrays["x_ptr"], arrays["out_ptr"]
    np.testing.assert_array_equal(out[:8], (0 < x) & (x < 5))
    np.testing.assert_array_equal(out[8:16], ~(x > 2))
    assert out[16:20].tolist() == [1, 2, 1, 7]


def test_compiled_triton_takes_the_same_boolean_operators():
    ttir = triton_interpreter.tritons_asm(
        idiom.boolean_operators_kernel, boolean_operator_arrays(),
        {"N": 8, "A": 2, "B": 1}, stage="ttir")
    assert "arith.andi" in ttir and "arith.xori" in ttir
    for constant in ("1 : i32", "2 : i32", "7 : i32"):
        assert f"arith.constant {constant}" in ttir, constant


@THREE
def test_loops_carry_tuples(target):
    """Triton carries a tuple through a loop element by element (nested,
    with constexpr members too); Kiln refused it with the tuple's
    internal representation as the message."""
    out = np.zeros(11, np.float32)
    launch(target, idiom.tuple_loop_kernel, (1,), out, 5, B=4)
    i = np.arange(4)
    np.testing.assert_array_equal(out[:4], 3 * i)
    np.testing.assert_array_equal(out[4:8], (i + 3) * 2)
    assert out[8:].tolist() == [8, 40, 3]


def test_compiled_triton_carries_the_same_tuples():
    ttir = triton_interpreter.tritons_asm(
        idiom.tuple_loop_kernel, {"out_ptr": np.zeros(11, np.float32),
                                  "n": 5}, {"B": 4}, stage="ttir")
    assert "scf.for" in ttir and "scf.while" in ttir


@THREE
def test_python_functions_of_compile_time_values_run_as_it_compiles(target):
    """Triton calls a Python function (math.sqrt, a plain helper) on
    compile-time values while compiling; Kiln refused the call."""
    out = np.zeros(8, np.float32)
    launch(target, idiom.compile_time_call_kernel, (1,), out, D=64, N=50)
    assert out.tolist() == [0.125, 4, 1, 1, 1, 1, 0, 0]


@kiln.jit
def tile_through_one_pointer_kernel(out_ptr, WHAT: kl.constexpr):
    i = kl.arange(0, 4)
    if WHAT == "store":
        kl.store(out_ptr, i + 5)
    elif WHAT == "mask":
        kl.store(out_ptr, 1, mask=i < 2)
    elif WHAT == "atomic":
        kl.atomic_add(out_ptr, i + 5)
    else:
        kl.atomic_cas(out_ptr, i, 1)


@BOTH
@pytest.mark.parametrize("what", ["store", "mask", "atomic", "cas"])
def test_a_tile_is_not_written_through_one_pointer(interpret, what):
    """As Triton refuses it; Kiln stored one of the elements (which, on
    the GPU, is a race) or added them all."""
    written = "mask" if what == "mask" else "value"
    with pytest.raises(kiln.KilnError, match=f"a {written} tile cannot be "
                       "written through one pointer"):
        kiln.jit(tile_through_one_pointer_kernel.fn, interpret=interpret)[
            (1,)](np.zeros(1, np.int32), WHAT=what)


@THREE
@pytest.mark.parametrize("ints", ["i32", "i64"])
def test_tuples_are_arguments(target, ints):
    """Triton takes (named) tuples of arrays and numbers as arguments,
    nested or holding None, each element specialized as an argument of
    its own; Kiln refused them."""
    x = RNG.standard_normal(8).astype(np.float32)
    y = RNG.integers(-50, 50, 8).astype(numpy_type(ints))
    for scales in ((2.0, 3, None), (0.5, 1, 7), (1, 2**40, -1.5)):
        out = np.zeros(8, np.float32)
        launch(target, idiom.tuple_argument_kernel, (1,), (x, y), out,
               scales, idiom.Pair(y, 4), N=8)
        extra = 0 if scales[2] is None else scales[2]
        expected = (x * np.float32(scales[0]) + y * np.float32(scales[1]) +
                    extra + x + y + y * 4).astype(np.float32)
        # The order of the sum is the compiler's.
        np.testing.assert_allclose(out, expected, rtol=1e-6,
                                   atol=1e-6 * np.abs(expected).max())


@BOTH
def test_a_tuple_element_is_refused_by_its_index(interpret):
    kernel = kiln.jit(idiom.tuple_argument_kernel.fn, interpret=interpret)
    x = np.zeros(8, np.float32)
    with pytest.raises(kiln.KilnError, match=r"argument 'scales\[1\]' of "
                       "type str cannot be passed"):
        kernel[(1,)]((x, x), x, (1.0, "2", None), idiom.Pair(x, 1), N=8)


def test_each_tuple_element_is_a_parameter_specialized_on_its_own():
    x = np.zeros(8, np.float32)
    ir = kiln.jit(idiom.tuple_argument_kernel.fn).ir(
        (x, x[1:]), x, (2.0, 1, None), idiom.Pair(x, 16), N=8)
    header = ir.splitlines()[0]
    # ptrs[1] is not 16-byte aligned, scales[1] == 1 is the constexpr 1
    # (its parameter stays, as Triton's), scales[2] None passes nothing.
    assert re.search(r"%arg0_0: !tile.ptr<f32> {tile.divisibility = 16",
                     header)
    assert re.search(r"%arg0_1: !tile.ptr<f32> loc", header)
    assert "%arg2_1: i32" in header and "%arg2_2" not in header
    assert re.search(r"%arg3_1: i32 {tile.divisibility = 16", header)


@THREE
def test_volatile_loads_read(target):
    x = RNG.standard_normal(64).astype(np.float32)
    out = np.zeros(64, np.float32)
    launch(target, idiom.volatile_kernel, (1,), np.ones(1, np.int32), x, out,
           N=64)
    expected = x + np.where(np.arange(64) < 63, x, -1)
    np.testing.assert_array_equal(out, expected.astype(np.float32))


def test_volatile_loads_are_ptx_volatile_loads_as_tritons():
    """Each volatile load is PTX's `ld.volatile`, as Triton's: the flag's
    inside the spin loop, and the two reads of x both kept."""
    args = {"flag_ptr": np.ones(1, np.int32), "x_ptr": np.zeros(64, np.float32),
            "out_ptr": np.zeros(64, np.float32)}
    theirs = triton_interpreter.tritons_asm(idiom.volatile_kernel, args,
                                            {"N": 64})
    ours = kiln.jit(idiom.volatile_kernel.fn).warmup(
        *args.values(), N=64).asm["ptx"]
    for ptx in (ours, theirs):
        loads = re.findall(r"ld(?:\.volatile)?\.global[.\w]*", ptx)
        assert len(loads) >= 3, loads
        assert all(".volatile" in load for load in loads), loads
        loop = re.search(r"(\$L__BB0_\d+):.*\n(?:.*\n)*?.*bra(?:\.uni)?\s+"
                         r"\1;", ptx)
        assert loop and "ld.volatile.global.b32" in loop.group(0)


@THREE
@pytest.mark.parametrize("signed, unsigned", [
    ("i8", "ui8"), ("i32", "ui32"), ("i64", "ui64"), ("i16", "ui32")])
def test_right_shift_keeps_the_sign_of_its_left_tile(target, signed,
                                                     unsigned):
    """Triton picks >>'s kind by the left tile's own signedness; Kiln took
    the unsigned type an int32 and a uint32 meet in and shifted in
    zeros."""
    x = np.array([-128, -16, -1, 64], numpy_type(signed))
    s = np.array([3, 2, 1, 1], numpy_type(unsigned))
    meet = numpy_type(semantics.integer_promotion(signed, unsigned))
    out = np.zeros(24, meet)
    launch(target, idiom.mixed_shift_kernel, (1,), x, s, out, -16, N=4)

    def shifted(left, amounts, arithmetic):
        # In 64 bits: sign-extended, or the meeting type's bits.
        wide = left.astype(np.int64) if arithmetic else \
            left.astype(meet).astype(np.uint64)
        return (wide >> amounts.astype(wide.dtype)).astype(meet)
    expected = np.concatenate([
        shifted(x, s, True), shifted(s, x & 3, False),
        shifted(np.full(4, -16), s, True), shifted(np.full(4, 200), s, False),
        shifted(np.full(4, -16), s, True), shifted(np.full(4, x[0]), s, True)])
    np.testing.assert_array_equal(out, expected)


@THREE
@pytest.mark.parametrize("elem", ["i32", "ui8", "f32", "f16"])
def test_a_number_is_a_condition_where_it_is_not_zero(target, elem):
    """As Triton compiles ``if v:`` on a number (`!= 0`, unordered for
    floats); Kiln's compiler refused it."""
    x = np.array([0, 3, 200, 1] if elem == "ui8" else
                 [0, -0.0, np.nan, 0.5] if elem[0] == "f" else [0, 3, -5, 1],
                 numpy_type(elem))
    out = np.zeros(12, np.int32)
    launch(target, idiom.number_condition_kernel, (4,), x, out, 37)
    taken = (x != 0) | np.isnan(x.astype(np.float64))
    np.testing.assert_array_equal(out.reshape(4, 3), np.stack(
        [taken.astype(np.int32), np.where(taken, 5, 7), np.full(4, 6)], 1))


@THREE
@pytest.mark.parametrize("operands, out, result", [
    ("f32", "f16", "f32"), ("bf16", "f16", "f32"), ("i8", "i8", "i32"),
    ("i8", "f32", "i32"), ("f64", "f32", "f64"), ("f32", "f64", "f32"),
    ("f16", "f16", "f16"), ("f16", "f32", "f32")])
def test_dot_types_its_result_by_its_operands_as_triton(target, operands,
                                                        out, result):
    """Triton's dot asks out_dtype only of float16 (and 8-bit float)
    operands; Kiln's interpreter rounded a float32 dot to out_dtype=float16
    (and wrapped an int8 one into int8), its compiler refused both."""
    if target == "triton-interpreter" and operands == "bf16":
        pytest.skip("Triton's interpreter multiplies bfloat16 wrongly")
    a, b = (RNG.integers(-128, 128, (16, 16)).astype(np.int8)
            if operands == "i8" else sample(operands, 256).reshape(16, 16)
            for _ in range(2))
    got, bits = np.zeros((16, 16)), np.zeros(1, np.int32)
    launch(target, idiom.dot_out_dtype_kernel, (1,), a, b, got, bits,
           OUT=kl.BY_IR[out])
    assert bits[0] == kl.BY_IR[result].bits
    wide = np.float32 if result == "f16" else numpy_type(result)
    expected = (a.astype(wide) @ b.astype(wide)).astype(numpy_type(result))
    np.testing.assert_allclose(got, expected.astype(np.float64),
                               rtol=2e-3 if result == "f16" else 1e-5)


@BOTH
@pytest.mark.parametrize("operands, out, message", [
    ("f32", "bf16", "out_dtype=bfloat16 is not supported"),
    ("f16", "f64", "float16 tiles accumulate in float32 or float16")])
def test_dot_refuses_what_triton_cannot_compile(interpret, operands, out,
                                                message):
    a = sample(operands, 256).reshape(16, 16)
    with pytest.raises(kiln.KilnError, match=message):
        kiln.jit(idiom.dot_out_dtype_kernel.fn, interpret=interpret)[(1,)](
            a, a, np.zeros((16, 16)), np.zeros(1, np.int32),
            OUT=kl.BY_IR[out])


def test_compiled_triton_types_a_float32_dot_as_float32():
    a = np.zeros((16, 16), np.float32)
    ttir = triton_interpreter.tritons_asm(
        idiom.dot_out_dtype_kernel, {"a_ptr": a, "b_ptr": a,
                                     "out_ptr": np.zeros((16, 16)),
                                     "bits_ptr": np.zeros(1, np.int32)},
        {"OUT": pytest.importorskip("triton.language").float16},
        stage="ttir")
    assert re.search(r"tt.dot .* -> tensor<16x16xf32>", ttir)


@BOTH
@pytest.mark.parametrize("elem", ["f16", "f32", "f64"])
@pytest.mark.parametrize("zeros", [(0.0, -0.0), (-0.0, 0.0), (-0.0, -0.0)])
def test_extrema_order_minus_zero_below_zero_as_the_gpu(interpret, elem,
                                                        zeros):
    """Triton's max and min are PTX's max and min (checked below), which
    order -0 below +0; Kiln's host took whichever zero came second, its
    interpreter whichever came first. (Triton's own interpreter, numpy's
    fmax, is not the GPU's here.)"""
    x = np.array(zeros, numpy_type(elem))
    out = np.ones(11, numpy_type(elem))
    launch("interpreter" if interpret else "host", idiom.signed_zeros_kernel,
           (1,), x, out, N=2)
    plus = not all(np.signbit(x))
    minus = any(np.signbit(x))
    negative = np.signbit(out)
    assert list(negative[:2]) == [not plus] * 2  # maximum
    assert list(negative[2:4]) == [minus] * 2  # minimum
    assert list(negative[4:6]) == [not plus] * 2  # maximum, ALL
    assert list(negative[6:8]) == [False] * 2  # relu: maximum(x, 0.0)
    assert list(negative[8:11]) == [not plus, minus, not plus]


def test_extrema_are_ptx_max_and_min_in_triton_and_kiln():
    args = {"x_ptr": np.zeros(2, np.float32),
            "out_ptr": np.zeros(11, np.float32)}
    theirs = triton_interpreter.tritons_asm(idiom.signed_zeros_kernel, args,
                                            {"N": 2})
    ours = kiln.jit(idiom.signed_zeros_kernel.fn).warmup(
        *args.values(), N=2).asm["ptx"]
    for ptx in (theirs, ours):
        assert re.search(r"\bmax\.f32", ptx), ptx
        assert re.search(r"\bmin\.f32", ptx)
        assert re.search(r"\bmax\.NaN\.f32", ptx)


@THREE
def test_an_index_keeps_the_dimensions_it_leaves_out(target):
    """x[:, None] of a 2-D tile is (R, 1, C) in Triton, as in numpy, and
    expand_dims takes several axes counted in the result; Kiln's compiler
    refused both."""
    x = sample("f32", 32).reshape(4, 8)
    out = np.zeros(96, np.float32)
    launch(target, idiom.implicit_index_kernel, (1,), x, out, R=4, C=8)
    np.testing.assert_array_equal(out.reshape(3, 4, 8), np.stack([
        (x[:, None] + x[None]).sum(1), x + np.arange(8), x * 2]))


@THREE
def test_a_recursion_on_constexprs_compiles(target):
    """Triton inlines a @jit function calling itself on constexprs until
    they end it; Kiln's compiler refused any function calling itself."""
    x = np.arange(8, dtype=np.int32)
    out = np.zeros(8, np.int32)
    launch(target, idiom.recursion_kernel, (1,), x, out, N=8)
    np.testing.assert_array_equal(out, x * 16 + 15 + 120)


@THREE
def test_float_atomic_extrema_meeting_at_an_address_take_clear_signs_first(
        target):
    """Triton's float atomic_min/max is one integer atomic over the
    elements whose sign is clear, then one over the others: where elements
    meet at an address, their old values come in that order. Kiln's
    interpreter took the elements in index order."""
    x = np.array([-6, -1, 10, 2, 3, -7, 0.5, -0.0], np.float32)
    held = np.full(4, 5, np.float32)
    old = np.zeros(16, np.float32)
    launch(target, idiom.colliding_atomic_kernel, (1,), held, x, old, N=8)
    expected, memory = np.zeros(16, np.float32), np.full(4, 5, np.float32)
    order = [k for k in range(8) if not np.signbit(x[k])] + \
        [k for k in range(8) if np.signbit(x[k])]
    for base, pick in ((0, min), (2, max)):
        for k in order:
            address = base + k % 2
            expected[4 * base + k] = memory[address]
            memory[address] = pick(memory[address], x[k])
    np.testing.assert_array_equal(old, expected)
    np.testing.assert_array_equal(held, memory)


@THREE
def test_pointer_offsets_keep_their_types(target):
    """Kiln's compiler truncated an int64 number added to a pointer to
    int32 (reading 2**32 elements before the array) and refused a literal
    past int32; `p - 2147483648` (a uint32 in Triton) negates in uint32,
    and `p + 300 - u` of a uint8 u wraps in uint8 (Kiln's interpreter
    subtracted exactly)."""
    x = np.arange(600, dtype=np.float32) + 0.5
    u = np.array([255, 128, 0, 7], np.uint8)
    out = np.zeros(12, np.float32)
    launch(target, idiom.pointer_offsets_kernel, (1,), x, u, out, -2**32, N=4)
    np.testing.assert_array_equal(out, np.concatenate([
        x[:4], x[:4], x[300 + (256 - u.astype(np.int64)) % 256]]))


@BOTH
def test_a_subtracted_offset_wraps_in_its_type(interpret):
    """Triton negates an int16 offset in int16 (-(-32768) is -32768)."""
    x = np.arange(80000, dtype=np.float32) + 0.5
    s = np.array([-32768, 5, -1, 7], np.int16)
    out = np.zeros(4, np.float32)
    kiln.jit(idiom.narrow_offset_kernel.fn, interpret=interpret)[(1,)](
        x, s, out, N=4)
    negated = -s.astype(np.int64)
    negated[negated == 32768] = -32768
    np.testing.assert_array_equal(out, x[40000 + negated])


@THREE
@pytest.mark.parametrize("label", [3, -1])
def test_a_loop_variable_is_the_variable_of_later_loops_too(target, label):
    """A name that was an earlier loop's variable (it has no value after
    it) taken again by later loops' bodies was carried by them, and Kiln's
    compiler refused the kernel."""
    x = np.arange(32, dtype=np.float32)
    y = np.zeros(64, np.float32)
    out = np.zeros(4, np.float32)
    launch(target, idiom.reused_loop_variable_kernel, (1,), x, y, out, 32,
           2, label, B=16)
    expected = np.concatenate([x, x]) + x.sum()
    if label < 0:
        expected[:32] = 0
    np.testing.assert_array_equal(y, expected)
    np.testing.assert_array_equal(
        out, [-1 if label < 0 else 2 * x.sum(), 0, 0, 2])


@THREE
def test_tiles_of_pointers_move_as_tiles_do(target):
    """Triton transposes, reshapes, broadcasts and splits tiles of
    pointers; Kiln's compiler crashed on the split and its interpreter
    refused them all."""
    x = np.arange(32, dtype=np.float32)
    out = np.zeros(112, np.float32)
    launch(target, idiom.pointer_views_kernel, (1,), x, out, R=4, C=8)
    grid = x.reshape(4, 8)
    np.testing.assert_array_equal(out, np.concatenate([
        grid.T.reshape(-1), x, np.tile(x[:8], 4), np.ones(16)]))


@BOTH
@pytest.mark.parametrize("what", ["zeros", "full", "broadcast_to", "reshape"])
def test_a_tile_has_power_of_two_dimensions(interpret, what):
    """As Triton's block types: Kiln made a (3, 8) tile on the host, whose
    reductions then failed to compile for the GPU."""
    with pytest.raises(kiln.KilnError, match=f"kl.{what}: a tile's "
                       r"dimensions are powers of two, as in Triton, not "
                       r"\[3, 8\]"):
        kiln.jit(idiom.odd_shape_kernel.fn, interpret=interpret)[(1,)](
            np.zeros(24, np.float32), WHAT=what)


@THREE
@pytest.mark.parametrize("float8", ["float8_e5m2", "float8_e4m3fn"])
def test_a_conversion_to_its_own_type_keeps_the_bits(target, float8):
    """Kiln's interpreter turned an e5m2 infinity into 57344 and NaN codes
    into one NaN, loading, storing or converting to the same type; it
    refused a bool bitcast to int1 and pointers to uint64 or int1."""
    if target == "triton-interpreter":
        pytest.skip("Triton's interpreter reads float8e5 infinity as 65536")
    codes = np.arange(256, dtype=np.uint8)
    x = np.linspace(-1, 1, 256).astype(np.float32)
    f8_out = np.zeros(256, np.uint8)
    out = np.zeros(256, np.int32)
    flags = np.zeros(256, np.uint64)
    launch(target, idiom.same_type_kernel, (1,), x,
           codes.view(getattr(ml_dtypes, float8)), out,
           f8_out.view(getattr(ml_dtypes, float8)), flags, N=256)
    np.testing.assert_array_equal(f8_out, codes)
    np.testing.assert_array_equal(out, x > 0)
    np.testing.assert_array_equal(flags, 5)


@THREE
def test_random_streams_take_tritons_seeds_offsets_and_counters(target):
    """As Triton: a tile of seeds (a stream per element), a seed of any
    integer type converted to uint64, offsets of any integer type
    converted to uint32, Philox 4x64 of 64-bit counters (keyed by the
    seed and 0), and 64-bit words to uniforms. Kiln refused all but int32
    and int64 scalar seeds and 32-bit counters."""
    R, C = 4, 8
    seeds = np.array([1, -1, 2**31 - 1, -7], np.int32)
    useed = 2**63 + 5
    out = np.zeros(R * C + C, np.uint32)
    bits = np.zeros(C, np.float32)
    words = np.zeros(2 * C, np.uint64)
    launch(target, idiom.random_streams_kernel, (1,), seeds, useed, out,
           bits, words, R=R, C=C)
    for row, seed in enumerate(seeds.tolist()):
        seed %= 2**64
        np.testing.assert_array_equal(out[row * C:(row + 1) * C], [
            philox_reference((c, 0, 0, 0), (seed & 0xFFFFFFFF, seed >> 32),
                             10, 32)[0] for c in range(C)])
    np.testing.assert_array_equal(out[R * C:], [
        philox_reference(((c - 4) % 2**32, 0, 0, 0),
                         (useed & 0xFFFFFFFF, useed >> 32), 10, 32)[0]
        for c in range(C)])
    wide = [philox_reference((c, 3 * c, 5, c), (useed, 0), 10, 64)
            for c in range(C)]
    np.testing.assert_array_equal(words[:C],
                                  np.array([w[0] for w in wide], np.uint64))
    np.testing.assert_array_equal(words[C:],
                                  np.array([w[3] for w in wide], np.uint64))
    signed = np.array([w[1] for w in wide], np.uint64).view(np.int64)
    np.testing.assert_array_equal(bits, np.where(
        signed < 0, ~signed, signed).astype(np.float32) *
        np.float32(1.0842020432385337e-19))


@THREE
def test_batched_transpose_scalar_interleave_and_reshape_to_a_number(
        target):
    """tl.trans of a 3-D tile swaps its last two dimensions, as Triton's
    (Kiln refused it); tl.interleave of two scalars is their pair and
    tl.reshape(x, ()) of a tile of one number that number (Kiln's compile
    failed on both)."""
    x = np.arange(64, dtype=np.float32)
    out = np.zeros(64, np.float32)
    pair = np.zeros(2, np.int32)
    one = np.zeros(1, np.float32)
    launch(target, idiom.batched_transpose_kernel, (1,), x, out, pair, one,
           3, 7)
    np.testing.assert_array_equal(out.reshape(2, 8, 4),
                                  x.reshape(2, 4, 8).transpose(0, 2, 1))
    assert pair.tolist() == [3, 7] and one[0] == 6


@THREE
def test_a_tile_of_booleans_sorts(target):
    """tl.sort of booleans, False before True (Kiln refused it)."""
    x = np.array([1, 0, 0, 3, 0, 5, 0, 0], np.int32)
    out = np.zeros(16, np.int32)
    launch(target, idiom.sort_flags_kernel, (1,), x, out, N=8)
    assert out.tolist() == [0] * 5 + [1] * 3 + [1] * 3 + [0] * 5


@THREE
def test_python_forms_of_jit_functions(target):
    """`b or False` is b (Kiln gave b != 0); `in` of compile-time values
    (Kiln's compile raised KeyError), comprehensions over tuples, walrus
    and f-strings of constexprs, an int8 loop bound (Kiln refused them)."""
    out = np.zeros(8, np.int32)
    n = np.array([5], np.int8)
    launch(target, idiom.python_forms_kernel, (1,), out, 3, 2, n,
           MODE="mean", SIZES=(1, 4, 8))
    assert out.tolist() == [2, 2, 1, 1, 24, 6, 10, 0]


@BOTH
def test_a_deciding_constant_dropped_leaves_the_value_itself(interpret):
    """`a and True` with a run-time int a is a, as Triton compiles it (its
    TTIR stores the argument itself); Triton's interpreter gives Python's
    True, which its compiler does not."""
    out = np.zeros(1, np.int32)
    kiln.jit(idiom.and_true_kernel.fn, interpret=interpret)[(1,)](out, -7)
    assert out[0] == -7
    ttir = triton_interpreter.tritons_asm(
        idiom.and_true_kernel, {"out_ptr": out, "a": -7}, {}, "ttir")
    assert re.search(r"tt\.store %out_ptr, %a :", ttir), ttir


@THREE
@pytest.mark.parametrize("flag", [1, 0])
def test_a_descriptor_may_be_chosen_at_run_time_and_carried(target, flag):
    """A tensor descriptor made in both branches of a run-time if, or
    reassigned in a loop, as Triton's (its TTIR carries !tt.tensordesc);
    Kiln refused it as a value."""
    M, N, BM, BN = 4, 8, 4, 8
    x = np.arange(M * N, dtype=np.float32).reshape(M, N)
    y = -x
    out = np.zeros((2 * BM, BN), np.float32)
    launch(target, idiom.chosen_descriptor_kernel, (1,), x, y, out, flag, M,
           N, BM=BM, BN=BN)
    chosen = x if flag else np.where(np.arange(M)[:, None] < M - 1, y, 0)
    np.testing.assert_array_equal(out[:BM], chosen)
    np.testing.assert_array_equal(out[BM], x.sum(axis=0))


@THREE
def test_float32_dots_default_to_tf32_and_tf32_flags_pass_over_halves(
        target):
    """Triton's float32 dot naming no precision is tf32; its tf32 flags on
    float16 operands change nothing, and the name is taken in any case
    (Kiln refused both). Every target computes float32 products exactly,
    as Triton's interpreter does."""
    N = 16
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((2, N, N)).astype(np.float32)
    h = rng.integers(-3, 4, (N, N)).astype(np.float16)
    c = np.zeros((N, N), np.float32)
    out = np.zeros((N, N), np.float32)
    launch(target, idiom.float32_dot_kernel, (1,), a, b, c, h, out, N=N)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c, exact, rtol=1e-5, atol=1e-5)
    halves = 2 * (h.astype(np.float64) @ h.astype(np.float64))
    np.testing.assert_allclose(out, halves + exact, rtol=1e-5, atol=1e-5)


def test_a_float32_dot_naming_no_precision_is_on_tensor_cores_as_tritons(
        monkeypatch):
    """tf32 mma.sync on sm_90a, as Triton's PTX for the same source (Kiln
    took ieee: FMAs on CUDA cores); TRITON_F32_DEFAULT=ieee asks for the
    exact products, as it does of Triton."""
    N = 16
    x = np.zeros((N, N), np.float32)
    h = np.zeros((N, N), np.float16)
    kernel = kiln.jit(idiom.float32_dot_kernel.fn)
    monkeypatch.delenv("TRITON_F32_DEFAULT", raising=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", kiln.CompilerRemark)
        ptx = kernel.asm(x, x, x, h, x, N=N, chip="sm_90a")["ptx"]
        theirs = triton_interpreter.tritons_asm(
            idiom.float32_dot_kernel,
            dict(a_ptr=x, b_ptr=x, c_ptr=x, h_ptr=h, out_ptr=x), {"N": N})
        assert ".tf32.tf32" in ptx and ".tf32.tf32" in theirs
        monkeypatch.setenv("TRITON_F32_DEFAULT", "ieee")
        exact = kernel.asm(x, x, x, h, x, N=N, chip="sm_90a")["ptx"]
    assert ".tf32.tf32" not in exact and "fma.rn.f32" in exact


@THREE
def test_a_float16_accumulator_dot_is_on_tensor_cores_rounded_once(target):
    """2048 + 16 * 0.5 is 2056 (Kiln's GPU added each product into the
    float16 accumulator, which stays at 2048), on tensor cores."""
    N = 16
    a = np.full((N, N), 0.5, np.float16)
    b = np.ones((N, N), np.float16)
    c = np.full((N, N), 2048, np.float16)
    launch(target, idiom.half_accumulator_dot_kernel, (1,), a, b, c, N=N)
    np.testing.assert_array_equal(c, 2056)
    if target == "host":
        for chip in ("sm_80", "sm_90a"):
            ptx = kiln.jit(idiom.half_accumulator_dot_kernel.fn).asm(
                a, b, c, N=N, chip=chip)["ptx"]
            assert "fma.rn.f16" not in ptx and ".f32.f16.f16.f32" in ptx


@THREE
@pytest.mark.parametrize("value, expected", [(3, 1), (-3, 2)])
def test_a_tile_of_one_element_is_a_condition(target, value, expected):
    """As Triton (with a warning there): Kiln's compile refused it."""
    out = np.zeros(1, np.int32)
    launch(target, idiom.one_element_condition_kernel, (1,),
           np.array([value], np.int32), out)
    assert out[0] == expected


def test_print_in_a_kernel_is_device_print():
    """Triton's code generator takes print as device_print."""
    ir = kiln.jit(idiom.print_kernel.fn).ir(np.zeros(1, np.float32))
    assert re.search(r'tile\.print "x', ir), ir


@pytest.mark.parametrize("interpret", [False, True],
                         ids=["host", "interpreter"])
def test_a_hint_of_another_rank_is_refused_both_ways(interpret):
    """tl.multiple_of of a 2-D tile takes two values, as Triton's (Kiln's
    interpreter took one silently)."""
    out = np.zeros(16, np.int32)
    with pytest.raises(kiln.KilnError, match=r"kl.multiple_of takes 2 "
                       r"positive integer\(s\) for a value of rank 2"):
        kiln.jit(idiom.rank_mismatched_hint_kernel.fn,
                 interpret=interpret)[(1,)](out)


E2M1 = np.array(semantics.E2M1_MAGNITUDES + tuple(
    -m for m in semantics.E2M1_MAGNITUDES), np.float64)


def mx_operand(fmt: str, rows: int, k: int, along_k_axis: int
               ) -> tuple[np.ndarray, np.ndarray]:
    """A random operand in ``fmt`` (rows x k, or k x rows where
    ``along_k_axis`` is 0) as the kernel takes it, and its float64
    values."""
    shape = (rows, k) if along_k_axis == 1 else (k, rows)
    if fmt == "e2m1":
        codes = RNG.integers(0, 16, shape).astype(np.uint8)
        values = E2M1[codes]
        low, high = (np.take(codes, range(i, k, 2), axis=along_k_axis)
                     for i in (0, 1))
        return (low | (high << 4)).astype(np.uint8), values
    element = {"e4m3": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2,
               "bf16": ml_dtypes.bfloat16, "fp16": np.float16}[fmt]
    values = (RNG.integers(-12, 13, shape) / 4).astype(element)
    return values, values.astype(np.float64)


@THREE
@pytest.mark.parametrize("formats", [
    ("e2m1", "e2m1"), ("e4m3", "e5m2"), ("e2m1", "bf16"), ("e5m2", "e2m1"),
    ("fp16", "e4m3"), ("bf16", "bf16")], ids="-".join)
@pytest.mark.parametrize("scaled", [True, False], ids=["scaled", "plain"])
def test_dot_scaled_is_the_product_of_the_scaled_operands(
        target, formats, scaled):
    """tl.dot_scaled as Triton emulates it on Hopper: e2m1 unpacked low
    nibble first, each group of 32 along K times 2^(s - 127) of its e8m0
    byte, then a float32 dot; against float64 numpy."""
    m, n, k, group = 16, 16, 64, 32
    a, a_values = mx_operand(formats[0], m, k, 1)
    b, b_values = mx_operand(formats[1], n, k, 0)
    a_scale = RNG.integers(124, 131, (m, k // group)).astype(np.uint8)
    b_scale = RNG.integers(124, 131, (n, k // group)).astype(np.uint8)
    if scaled:
        a_values = a_values * np.repeat(2.0 ** (a_scale - 127.0), group, 1)
        b_values = b_values * np.repeat(2.0 ** (b_scale - 127.0), group, 1).T
    out = np.zeros((m, n), np.float32)
    launch(target, idiom.dot_scaled_kernel, (1,), a, a_scale, b, b_scale,
           out, M=m, N=n, K=k, A_FORMAT=formats[0], B_FORMAT=formats[1],
           GROUP=group, SCALED=scaled)
    np.testing.assert_allclose(out, a_values @ b_values, rtol=1e-6,
                               atol=1e-6)


@THREE
def test_dot_scaled_reads_e8m0_bytes_as_triton(target):
    """Byte 255 is NaN (its row of the product too); byte 0 is 2^-127 in
    a bfloat16 product, so 0 with 254 (2^127) scales by one; fp8 operands
    may come as their uint8 bits."""
    m, n, k, group = 16, 16, 64, 32
    a, a_values = mx_operand("e4m3", m, k, 1)
    # e2m1 values of at most 1, so that 2^127 times them is finite.
    codes = RNG.choice(np.array([0, 1, 2, 8, 9, 10], np.uint8), (k, n))
    b = (codes[0::2] | (codes[1::2] << 4)).astype(np.uint8)
    b_values = E2M1[codes]
    a_scale = np.zeros((m, k // group), np.uint8)
    a_scale[3, 1] = 255
    b_scale = np.full((n, k // group), 254, np.uint8)
    out = np.zeros((m, n), np.float32)
    launch(target, idiom.dot_scaled_kernel, (1,), a.view(np.uint8), a_scale,
           b, b_scale, out, M=m, N=n, K=k, A_FORMAT="e4m3",
           B_FORMAT="e2m1", GROUP=group, SCALED=True)
    expected = a_values @ b_values
    expected[3] = np.nan
    np.testing.assert_allclose(out, expected, rtol=1e-6, atol=1e-6)


@THREE
def test_two_python_numbers_meet_in_one_type(target):
    """tl.where, tl.minimum and tl.maximum of two Python numbers: each
    number's own type, then the type both meet in (Kiln gave the second
    number the first one's type: 1e300 became an infinity, 1e-50 zero,
    2**40 an error)."""
    n = 4
    cond = np.array([1, 0, 1, 0], np.int32)
    where, tiny, wide = np.zeros(n), np.zeros(n), np.zeros(n, np.int64)
    smallest, largest = np.zeros(1), np.zeros(1)
    unsigned = np.zeros(n, np.uint32)
    launch(target, idiom.two_numbers_kernel, (1,), cond, where, tiny,
           smallest, largest, wide, unsigned, N=n)
    np.testing.assert_array_equal(where, [0.1, 1e300, 0.1, 1e300])
    np.testing.assert_array_equal(tiny, [0.5, 1e-50, 0.5, 1e-50])
    assert smallest[0] == 1e-50 and largest[0] == 1e300
    np.testing.assert_array_equal(wide, [1, 2**40, 1, 2**40])
    np.testing.assert_array_equal(unsigned, [1, 2**31, 1, 2**31])


@THREE
def test_a_float_literal_in_a_float64_atomic_is_float32_first(target):
    p = np.array([1.0, -1.0])
    old = np.zeros(2)
    launch(target, idiom.atomic_literal_kernel, (1,), p, old)
    np.testing.assert_array_equal(old, [1.0, -1.0])
    np.testing.assert_array_equal(
        p, [float(np.float32(0.1)), float(np.float32(-0.1))])


@THREE
def test_a_scalar_indexed_by_none_is_a_tile(target):
    out = np.zeros(1, np.int32)
    launch(target, idiom.scalar_index_kernel, (1,), out)
    assert out[0] == 5


@BOTH
@pytest.mark.parametrize("start, end", [(-4, 4), (2**31 - 8, 2**31)])
def test_an_arange_outside_int32_from_zero_is_refused(interpret, start, end):
    """As Triton's: arange(-4, 4) was accepted, and (2**31 - 8, 2**31) an
    internal verifier error."""
    @kiln.jit(interpret=interpret)
    def k(out_ptr, START: kl.constexpr, END: kl.constexpr):
        kl.store(out_ptr + kl.arange(0, END - START),
                 kl.arange(START, END))

    with pytest.raises(kiln.KilnError, match=r"start >= 0 and end < 2\*\*31"):
        k[(1,)](np.zeros(8, np.int32), START=start, END=end)


@BOTH
def test_flip_of_pointers_is_refused(interpret):
    """Triton refuses it; the compiler raised a raw KeyError."""
    @kiln.jit(interpret=interpret)
    def k(x_ptr, out_ptr):
        i = kl.arange(0, 4)
        kl.store(out_ptr + i, kl.load(kl.flip(x_ptr + i)))

    with pytest.raises(kiln.KilnError, match="not pointers"):
        k[(1,)](np.zeros(4, np.float32), np.zeros(4, np.float32))


@BOTH
def test_a_symmetric_clamp_of_nan_is_the_bound_with_its_sign(interpret):
    """tl.clamp(x, -C, C) of constants is one min.xorsign.abs in Triton's
    GPU code (float32 and float16; its PTX, read for sm_90a): a NaN gives
    C with the NaN's sign (Triton's interpreter gives -C, the maximum
    first). Other bounds keep maximum-then-minimum: a NaN gives the lower
    bound."""
    nan = np.float32("nan")
    x = np.array([nan, -nan, 500.0, -500.0, 1.0, -0.0, 2.5, -3.0],
                 np.float32)
    out = np.zeros(16, np.float32)
    half = np.zeros(8, np.float16)
    kernel = kiln.jit(idiom.symmetric_clamp_kernel.fn, interpret=interpret)
    kernel[(1,)](x, out, half, N=8)
    np.testing.assert_array_equal(
        out[:8], [448, -448, 448, -448, 1, -0.0, 2.5, -3.0])
    assert np.signbit(out[5])
    np.testing.assert_array_equal(half, [2, -2, 2, -2, 1, -0.0, 2, -2])
    np.testing.assert_array_equal(out[8:], [-2, -2, 3, -2, 1, -0.0, 2.5,
                                            -2])
