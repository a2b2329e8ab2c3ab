"""Triton's ``tl.extra.cuda.libdevice`` over Kiln (kiln/extra/libdevice.py):
each function Kiln has, compiled for the host and in the interpreter,
against numpy and Python's math module; Triton's overloads exactly (from
the ``triton`` wheel's own table where it is installed); the functions Kiln
lacks are errors that say why; the GPU compile assembles with ptxas."""

from __future__ import annotations

import ast
import ctypes
import ctypes.util
import math
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import kiln
import kiln.language as kl
import kiln.triton.language as tl
from kiln.extra import libdevice
from kiln.triton.language.extra import libdevice as triton_style

BOTH = pytest.mark.parametrize("interpret", [False, True],
                               ids=["host", "interpreter"])
RNG = np.random.default_rng(7)
N = 64

#: name -> (reference on float64 values, arguments' domain). Compared in
#: the argument's type with a tolerance of a few units in the last place.
FLOAT_UNARY = {
    "floor": (np.floor, (-9, 9)), "ceil": (np.ceil, (-9, 9)),
    "trunc": (np.trunc, (-9, 9)), "rint": (np.rint, (-9, 9)),
    "nearbyint": (np.rint, (-9, 9)),
    "round": (lambda v: np.sign(v) * np.floor(np.abs(v) + 0.5), (-9, 9)),
    "sqrt": (np.sqrt, (0, 9)), "sqrt_rn": (np.sqrt, (0, 9)),
    "rsqrt": (lambda v: 1 / np.sqrt(v), (0.1, 9)), "cbrt": (np.cbrt, (-9, 9)),
    "exp": (np.exp, (-5, 5)), "exp2": (np.exp2, (-5, 5)),
    "exp10": (lambda v: 10.0 ** v, (-3, 3)), "expm1": (np.expm1, (-2, 2)),
    "log": (np.log, (0.1, 9)), "log2": (np.log2, (0.1, 9)),
    "log10": (np.log10, (0.1, 9)), "log1p": (np.log1p, (-0.5, 9)),
    "sin": (np.sin, (-3, 3)), "cos": (np.cos, (-3, 3)),
    "tan": (np.tan, (-1, 1)), "sinh": (np.sinh, (-3, 3)),
    "cosh": (np.cosh, (-3, 3)), "tanh": (np.tanh, (-3, 3)),
    "asin": (np.arcsin, (-0.9, 0.9)), "acos": (np.arccos, (-0.9, 0.9)),
    "atan": (np.arctan, (-9, 9)), "asinh": (np.arcsinh, (-9, 9)),
    "acosh": (np.arccosh, (1, 9)), "atanh": (np.arctanh, (-0.9, 0.9)),
    "erf": (np.vectorize(math.erf), (-3, 3)),
    "erfc": (np.vectorize(math.erfc), (-3, 3)),
    "abs": (np.abs, (-9, 9)), "rcp_rn": (lambda v: 1 / v, (0.5, 9)),
}
FAST = {"fast_expf": np.exp, "fast_logf": np.log, "fast_log2f": np.log2,
        "fast_log10f": np.log10, "fast_sinf": np.sin, "fast_cosf": np.cos,
        "fast_tanf": np.tan, "fast_exp10f": lambda v: 10.0 ** v}


#: The functions by name, which a kernel indexes with a constexpr.
BY_NAME = {name: getattr(libdevice, name) for name in libdevice.FUNCTIONS}


@kiln.jit
def unary_kernel(x_ptr, out_ptr, NAMES: kl.constexpr, N: kl.constexpr):
    """Row f of the output is function NAMES[f] of row f of the input: one
    compile for every function."""
    i = kl.arange(0, N)
    for f in kl.static_range(len(NAMES)):
        kl.store(out_ptr + f * N + i, BY_NAME[NAMES[f]](kl.load(
            x_ptr + f * N + i)))


def run_unary(names, domains, dtype, interpret):
    """Each function of ``names`` on N values of its domain: the inputs
    and outputs, a row per function."""
    x = np.stack([RNG.uniform(low, high, N) for low, high in domains]
                 ).astype(dtype)
    out = np.zeros_like(x)
    kiln.jit(unary_kernel.fn, interpret=interpret)[(1,)](
        x, out, NAMES=tuple(names), N=N)
    return x, out


@BOTH
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_functions(dtype, interpret):
    names = sorted(FLOAT_UNARY)
    x, out = run_unary(names, [FLOAT_UNARY[n][1] for n in names], dtype,
                       interpret)
    halves = [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49999997, -3.5]
    for row, name in enumerate(names):
        if name in ("round", "rint", "nearbyint"):
            continue
        expected = FLOAT_UNARY[name][0](x[row].astype(np.float64))
        np.testing.assert_allclose(
            out[row], expected.astype(dtype), rtol=4 * np.finfo(dtype).eps,
            atol=4 * np.finfo(dtype).tiny, err_msg=name)
    # Rounding, on halves (where the three differ) as well.
    names = ["round", "rint", "nearbyint"]
    x = np.tile(np.asarray(halves + list(RNG.uniform(-9, 9, N - 8)),
                           dtype), (3, 1))
    out = np.zeros_like(x)
    kiln.jit(unary_kernel.fn, interpret=interpret)[(1,)](
        x, out, NAMES=tuple(names), N=N)
    for row, name in enumerate(names):
        expected = FLOAT_UNARY[name][0](x[row].astype(np.float64))
        np.testing.assert_array_equal(out[row], expected.astype(dtype),
                                      err_msg=name)


@BOTH
def test_fast_functions_approximate(interpret):
    names = sorted(FAST)
    x, out = run_unary(names, [(0.1, 4) if "log" in n else (-1, 1)
                               for n in names], np.float32, interpret)
    for row, name in enumerate(names):
        np.testing.assert_allclose(out[row], FAST[name](
            x[row].astype(np.float64)), rtol=1e-5, atol=1e-6, err_msg=name)


@kiln.jit
def mixed_kernel(x_ptr, y_ptr, i_ptr, l_ptr, d_ptr, f_out, i_out, l_out,
                 d_out, N: kl.constexpr):
    r = kl.arange(0, N)
    x = kl.load(x_ptr + r)  # f32
    y = kl.load(y_ptr + r)  # f32
    i = kl.load(i_ptr + r)  # i32
    w = kl.load(l_ptr + r)  # i64
    d = kl.load(d_ptr + r)  # f64
    kl.store(f_out + r, libdevice.pow(x, y))
    kl.store(f_out + N + r, libdevice.pow(x, i % 5))
    kl.store(f_out + 2 * N + r, libdevice.atan2(x, y))
    kl.store(f_out + 3 * N + r, libdevice.copysign(y, x))
    kl.store(f_out + 4 * N + r, libdevice.fmod(x * 7, y))
    kl.store(f_out + 5 * N + r, libdevice.div_rn(x, y))
    kl.store(f_out + 6 * N + r, libdevice.fma(x, y, 0.25))
    kl.store(f_out + 7 * N + r, libdevice.saturatef(x))
    kl.store(f_out + 8 * N + r, libdevice.int_as_float(i))
    kl.store(f_out + 9 * N + r, libdevice.int2float_rn(i))
    kl.store(f_out + 10 * N + r, libdevice.double2float_rn(d))
    kl.store(f_out + 11 * N + r, libdevice.fast_dividef(x, y))
    kl.store(f_out + 12 * N + r, libdevice.fast_powf(y, x))
    kl.store(i_out + r, libdevice.isnan(x))
    kl.store(i_out + N + r, libdevice.isinf(x))
    kl.store(i_out + 2 * N + r, libdevice.finitef(x))
    kl.store(i_out + 3 * N + r, libdevice.signbit(x))
    kl.store(i_out + 4 * N + r, libdevice.clz(i))
    kl.store(i_out + 5 * N + r, libdevice.popc(w))
    kl.store(i_out + 6 * N + r, libdevice.mulhi(i, i * 977))
    kl.store(i_out + 7 * N + r, libdevice.abs(i))
    kl.store(i_out + 8 * N + r, libdevice.float_as_int(x))
    kl.store(i_out + 9 * N + r, libdevice.float2int_rn(x * 1e9))
    kl.store(i_out + 10 * N + r, libdevice.float2int_rd(x))
    kl.store(i_out + 11 * N + r, libdevice.float2uint_ru(x * 1e9))
    kl.store(i_out + 12 * N + r, libdevice.double2int_rz(d))
    kl.store(i_out + 13 * N + r, libdevice.isfinited(d))
    kl.store(l_out + r, libdevice.float2ll_rn(x * 1e12))
    kl.store(l_out + N + r, libdevice.llround(x))
    kl.store(l_out + 2 * N + r, libdevice.llrint(d))
    kl.store(l_out + 3 * N + r, libdevice.double_as_longlong(d))
    kl.store(l_out + 4 * N + r, libdevice.mulhi(w, w))
    kl.store(l_out + 5 * N + r, libdevice.double2ull_rz(d * 1e18))
    kl.store(d_out + r, libdevice.longlong_as_double(w))
    kl.store(d_out + N + r, libdevice.ll2double_rn(w))
    kl.store(d_out + 2 * N + r, libdevice.pow(d, 3))


def signed_bits(values, bits: int) -> np.ndarray:
    values = np.asarray([int(v) % 2**bits for v in values], dtype=object)
    return np.asarray([v - 2**bits if v >= 2**(bits - 1) else v
                       for v in values], dtype=np.int64)


@BOTH
def test_two_argument_predicates_counts_and_conversions(interpret):
    x = RNG.uniform(-4, 4, N).astype(np.float32)
    x[:8] = [np.nan, np.inf, -np.inf, -0.0, 2.5, -2.5, 3e9, -3e9]
    y = RNG.uniform(0.5, 3, N).astype(np.float32)
    i = RNG.integers(-2**31, 2**31, N).astype(np.int32)
    w = RNG.integers(-2**62, 2**62, N).astype(np.int64)
    d = RNG.uniform(-1e3, 1e3, N)
    d[:4] = [np.nan, 1e300, -1e300, 2.5]
    f_out = np.zeros(13 * N, np.float32)
    i_out = np.zeros(14 * N, np.int32)
    l_out = np.zeros(6 * N, np.int64)
    d_out = np.zeros(3 * N, np.float64)
    kiln.jit(mixed_kernel.fn, interpret=interpret)[(1,)](
        x, y, i, w, d, f_out, i_out, l_out, d_out, N=N)
    f = f_out.reshape(13, N)
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    with np.errstate(all="ignore"):
        close = dict(rtol=4e-7, equal_nan=True)
        np.testing.assert_allclose(f[0], np.power(x64, y64), **close)
        exponent = np.fmod(i, 5)
        np.testing.assert_allclose(f[1], x64 ** exponent, rtol=1e-6,
                                   equal_nan=True)
        np.testing.assert_allclose(f[2], np.arctan2(x64, y64), **close)
        np.testing.assert_array_equal(f[3], np.copysign(y, x))
        np.testing.assert_array_equal(f[4], np.fmod(x * np.float32(7), y))
        np.testing.assert_array_equal(f[5], x / y)
        np.testing.assert_array_equal(
            f[6], (x64 * y64 + 0.25).astype(np.float32))
        np.testing.assert_array_equal(f[7], np.nan_to_num(
            np.clip(x, 0, 1), nan=0.0))
        np.testing.assert_array_equal(f[8].view(np.int32), i)
        np.testing.assert_array_equal(f[9], i.astype(np.float32))
        np.testing.assert_array_equal(f[10], d.astype(np.float32))
        np.testing.assert_allclose(f[11], x / y, **close)
        np.testing.assert_allclose(f[12], np.power(y64, x64), rtol=1e-6,
                                   equal_nan=True)
    n = i_out.reshape(14, N)
    np.testing.assert_array_equal(n[0], np.isnan(x))
    np.testing.assert_array_equal(n[1], np.isinf(x))
    np.testing.assert_array_equal(n[2], np.isfinite(x))
    np.testing.assert_array_equal(n[3], np.signbit(x))
    np.testing.assert_array_equal(
        n[4], [32 - int(v).bit_length() for v in i.view(np.uint32)])
    np.testing.assert_array_equal(
        n[5], [bin(int(v)).count("1") for v in w.view(np.uint64)])
    products = [int(a) * int(b) for a, b in
                zip(i, (i.astype(np.int64) * 977).astype(np.int32))]
    np.testing.assert_array_equal(n[6], [p >> 32 for p in products])
    np.testing.assert_array_equal(n[7], np.abs(i))
    np.testing.assert_array_equal(n[8], x.view(np.int32))

    def saturated(values, low, high):
        return np.where(np.isnan(values), 0, np.clip(
            np.nan_to_num(values, nan=0, posinf=high, neginf=low), low, high))
    scaled = (x * np.float32(1e9)).astype(np.float64)
    np.testing.assert_array_equal(
        n[9], saturated(np.rint(scaled), -2**31, 2**31 - 1))
    np.testing.assert_array_equal(
        n[10], saturated(np.floor(x.astype(np.float64)), -2**31, 2**31 - 1))
    np.testing.assert_array_equal(
        n[11].view(np.uint32), saturated(np.ceil(scaled), 0, 2**32 - 1))
    np.testing.assert_array_equal(
        n[12], saturated(np.trunc(d), -2**31, 2**31 - 1))
    np.testing.assert_array_equal(n[13], np.isfinite(d))
    w_out = l_out.reshape(6, N)
    big = (x * np.float32(1e12)).astype(np.float64)
    expected = [0 if v != v else min(max(int(np.rint(v)) if abs(v) < 2**64
                                         else int(np.sign(v)) * 2**64,
                                         -2**63), 2**63 - 1) for v in big]
    np.testing.assert_array_equal(w_out[0], expected)
    away = [0 if v != v else min(max(int(math.copysign(math.floor(
        abs(v) + 0.5), v)) if abs(v) < 2**64 else int(np.sign(v)) * 2**64,
        -2**63), 2**63 - 1) for v in x.astype(np.float64)]
    np.testing.assert_array_equal(w_out[1], away)
    nearest = [0 if v != v else min(max(int(np.rint(v)) if abs(v) < 2**64
                                        else int(np.sign(v)) * 2**64,
                                        -2**63), 2**63 - 1) for v in d]
    np.testing.assert_array_equal(w_out[2], nearest)
    np.testing.assert_array_equal(w_out[3], d.view(np.int64))
    np.testing.assert_array_equal(
        w_out[4], [(int(a) * int(a)) >> 64 for a in w])
    unsigned = [0 if v != v or v < 0 else min(int(v) if v < 2**64
                                              else 2**64 - 1, 2**64 - 1)
                for v in d * 1e18]
    np.testing.assert_array_equal(w_out[5], signed_bits(unsigned, 64))
    e = d_out.reshape(3, N)
    np.testing.assert_array_equal(e[0], w.view(np.float64))
    np.testing.assert_array_equal(e[1], w.astype(np.float64))
    np.testing.assert_allclose(e[2], d ** 3, rtol=1e-15, equal_nan=True)


#: The C math library, which the host target calls for the functions
#: MLIR's math dialect lacks (libdevice.EXTERNS).
LIBM = ctypes.CDLL(ctypes.util.find_library("m"))
C_TYPES = {np.float32: ctypes.c_float, np.float64: ctypes.c_double}


def c_math(symbol: str, result, *columns) -> np.ndarray:
    """``symbol`` of the C math library on each element of ``columns``."""
    function = getattr(LIBM, symbol)
    function.argtypes = [ctypes.c_int if c.dtype == np.int32 else
                         C_TYPES[c.dtype.type] for c in columns]
    function.restype = ctypes.c_int if result == np.int32 else \
        C_TYPES[result]
    return np.array([function(*(v.item() for v in row))
                     for row in zip(*columns)], result)


@kiln.jit
def extern_kernel(x_ptr, y_ptr, n_ptr, out_ptr, ints_ptr, N: kl.constexpr):
    i = kl.arange(0, N)
    x = kl.load(x_ptr + i)
    y = kl.load(y_ptr + i)
    n = kl.load(n_ptr + i)
    for f in kl.static_range(7):
        unary = (libdevice.lgamma, libdevice.tgamma, libdevice.j0,
                 libdevice.j1, libdevice.y0, libdevice.y1, libdevice.logb)[f]
        kl.store(out_ptr + f * N + i, unary(x))
    for f in kl.static_range(4):
        binary = (libdevice.hypot, libdevice.remainder, libdevice.fdim,
                  libdevice.nextafter)[f]
        kl.store(out_ptr + (7 + f) * N + i, binary(x, y))
    kl.store(out_ptr + 11 * N + i, libdevice.jn(n, x))
    kl.store(out_ptr + 12 * N + i, libdevice.yn(n, x))
    kl.store(out_ptr + 13 * N + i, libdevice.ldexp(x, n))
    kl.store(out_ptr + 14 * N + i, libdevice.scalbn(x, n))
    kl.store(ints_ptr + i, libdevice.ilogb(x))


@BOTH
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_functions_of_the_c_math_library(dtype, interpret):
    """What MLIR's math dialect lacks: on the GPU libdevice's __nv_*
    function (as Triton calls it), on the host the C library's of the
    same name, bit for bit."""
    x = RNG.uniform(0.1, 9, N).astype(dtype)
    y = RNG.uniform(-9, 9, N).astype(dtype)
    n = RNG.integers(-3, 6, N).astype(np.int32)
    out = np.zeros((15, N), dtype)
    ints = np.zeros(N, np.int32)
    kiln.jit(extern_kernel.fn, interpret=interpret)[(1,)](
        x, y, n, out, ints, N=N)
    f = "f" if dtype == np.float32 else ""
    unary = ["lgamma", "tgamma", "j0", "j1", "y0", "y1", "logb"]
    binary = ["hypot", "remainder", "fdim", "nextafter"]
    for row, name in enumerate(unary):
        np.testing.assert_array_equal(out[row], c_math(name + f, dtype, x),
                                      err_msg=name)
    for row, name in enumerate(binary, len(unary)):
        np.testing.assert_array_equal(out[row],
                                      c_math(name + f, dtype, x, y),
                                      err_msg=name)
    np.testing.assert_array_equal(out[11], c_math("jn" + f, dtype, n, x))
    np.testing.assert_array_equal(out[12], c_math("yn" + f, dtype, n, x))
    np.testing.assert_array_equal(out[13], np.ldexp(x, n))
    np.testing.assert_array_equal(out[14], np.ldexp(x, n))
    np.testing.assert_array_equal(ints, np.frexp(x)[1] - 1)
    # Against Python's own where it has them.
    np.testing.assert_allclose(out[0], [math.lgamma(v) for v in x],
                               rtol=8 * np.finfo(dtype).eps, atol=1e-6)
    np.testing.assert_allclose(out[7], np.hypot(x, y),
                               rtol=2 * np.finfo(dtype).eps)


@kiln.jit
def gpu_only_kernel(x_ptr, out_ptr):
    kl.store(out_ptr, libdevice.erfinv(kl.load(x_ptr)))


@BOTH
def test_a_function_only_libdevice_has_runs_on_the_gpu_only(interpret):
    x = np.full(1, 0.5, np.float32)
    with pytest.raises(kiln.KilnError, match="erfinv.* GPU target only") \
            as raised:
        kiln.jit(gpu_only_kernel.fn, interpret=interpret)[(1,)](x, x)
    if not interpret:
        assert raised.value.line == gpu_only_kernel.fn.__code__ \
            .co_firstlineno + 2
    ptx = gpu_only_kernel.asm(x, x, chip="sm_90a")["ptx"]
    assert "__nv_erfinvf" not in ptx  # libdevice's, linked and inlined


def test_overloads_are_tritons():
    """Each function's argument and result types against the overload
    table in the triton wheel's libdevice.py, and every name of Triton's
    either here or in MISSING."""
    source = pytest.importorskip("triton.language.extra.cuda.libdevice")
    tree = ast.parse(Path(source.__file__).read_text())
    names = {"fp32": "f32", "fp64": "f64", "int32": "i32", "int64": "i64",
             "uint32": "ui32", "uint64": "ui64"}
    triton = {}
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        table = next(n for n in ast.walk(node) if isinstance(n, ast.Dict))
        triton[node.name] = {
            tuple(names[e.args[0].value] for e in key.elts):
                names[value.elts[1].args[0].value]
            for key, value in zip(table.keys, table.values)}
    assert set(triton) == set(libdevice.FUNCTIONS) | set(libdevice.MISSING)
    assert not set(libdevice.FUNCTIONS) & set(libdevice.MISSING)
    for name, function in libdevice.FUNCTIONS.items():
        assert function.overloads == triton[name], name


@kiln.jit
def wrong_type_kernel(x_ptr, out_ptr):
    kl.store(out_ptr, libdevice.tanh(kl.load(x_ptr)))


@kiln.jit
def missing_kernel(x_ptr, out_ptr):
    kl.store(out_ptr, tl.extra.cuda.libdevice.brev(kl.load(x_ptr)))


@BOTH
def test_types_must_match_an_overload(interpret):
    """As in Triton, float16 is not converted: tanh takes fp32 or fp64."""
    x = np.ones(1, np.float16)
    with pytest.raises(kiln.KilnError, match=r"libdevice.tanh takes \(fp32\) "
                       r"or \(fp64\), not \(fp16\)"):
        kiln.jit(wrong_type_kernel.fn, interpret=interpret)[(1,)](x, x)


@BOTH
def test_a_missing_function_says_why(interpret):
    x = np.ones(1, np.float32)
    with pytest.raises(kiln.KilnError, match="libdevice.brev is not "
                       "supported by Kiln yet: MLIR's math dialect has no op"):
        kiln.jit(missing_kernel.fn, interpret=interpret)[(1,)](x, x)
    assert not hasattr(libdevice, "brev")


def test_import_paths():
    from kiln.language.extra.cuda import libdevice as by_kiln_path
    assert by_kiln_path is libdevice is triton_style
    assert kl.extra.cuda.libdevice is tl.extra.libdevice is libdevice
    with pytest.raises(kiln.KilnError, match="inside a @kiln.jit"):
        libdevice.exp(1.0)


@kiln.jit
def gpu_kernel(x_ptr, d_ptr, i_ptr, out_ptr, d_out, i_out,
               N: kl.constexpr):
    r = kl.arange(0, N)
    x = kl.load(x_ptr + r)
    d = kl.load(d_ptr + r)
    i = kl.load(i_ptr + r)
    y = libdevice.tanh(x) + libdevice.erfc(x) + libdevice.cbrt(x)
    y += libdevice.pow(x, 2) + libdevice.fast_expf(x) + libdevice.atanh(x)
    y += libdevice.fmod(x, 3.0) + libdevice.exp10(x) + libdevice.rsqrt(x)
    # Calls of what MLIR's math dialect lacks (tile.extern_elementwise).
    y += libdevice.lgamma(x) + libdevice.jn(i, x) + libdevice.hypot(x, x)
    kl.store(out_ptr + r, y)
    kl.store(d_out + r, libdevice.log1p(d) + libdevice.acosh(d))
    kl.store(i_out + r, libdevice.float2int_rn(x) + libdevice.popc(i) +
             libdevice.mulhi(i, i) + libdevice.isnan(d))


def test_gpu_compile_assembles(tmp_path):
    """The math ops and the calls lower to libdevice's __nv_* functions
    on sm_90a, and ptxas assembles the result."""
    ptxas = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    if not Path(ptxas).exists():
        pytest.skip("no ptxas (PATH, /usr/local/cuda)")
    x = np.zeros(128, np.float32)
    d = np.zeros(128, np.float64)
    i = np.zeros(128, np.int32)
    ptx = gpu_kernel.asm(x, d, i, x, d, i, chip="sm_90a", N=128)["ptx"]
    assert "__nv_" not in ptx  # linked and inlined
    assert "ex2.approx" in ptx  # fast_expf
    source = tmp_path / "libdevice.ptx"
    source.write_text(ptx)
    result = subprocess.run([ptxas, "-arch=sm_90a", "-o", "/dev/null",
                             str(source)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


@kiln.jit
def unsigned_kernel(u_ptr, w_ptr, f_out, d_out, u_out, w_out,
                    N: kl.constexpr):
    r = kl.arange(0, N)
    u = kl.load(u_ptr + r)
    w = kl.load(w_ptr + r)
    kl.store(f_out + r, libdevice.uint2float_rn(u))
    kl.store(f_out + N + r, libdevice.ull2float_rn(w))
    kl.store(f_out + 2 * N + r, libdevice.uint_as_float(u))
    kl.store(d_out + r, libdevice.uint2double_rn(u))
    kl.store(d_out + N + r, libdevice.ull2double_rn(w))
    kl.store(u_out + r, libdevice.mulhi(u, u))
    kl.store(w_out + r, libdevice.mulhi(w, w))


@BOTH
def test_unsigned_overloads(interpret):
    """The unsigned conversions and high products read the top bit as a
    value bit."""
    n = 32
    rng = np.random.default_rng(7)
    u = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    w = rng.integers(0, 2**64 - 1, n, dtype=np.uint64, endpoint=True)
    f, d = np.zeros(3 * n, np.float32), np.zeros(2 * n, np.float64)
    high_u, high_w = np.zeros(n, np.uint32), np.zeros(n, np.uint64)
    kiln.jit(unsigned_kernel.fn, interpret=interpret)[(1,)](
        u, w, f, d, high_u, high_w, N=n)
    np.testing.assert_array_equal(f[:n], u.astype(np.float32))
    np.testing.assert_array_equal(f[n:2 * n], w.astype(np.float32))
    np.testing.assert_array_equal(f[2 * n:], u.view(np.float32))
    np.testing.assert_array_equal(d[:n], u.astype(np.float64))
    np.testing.assert_array_equal(d[n:], w.astype(np.float64))
    assert high_u.tolist() == [(int(a) * int(a)) >> 32 for a in u]
    assert high_w.tolist() == [(int(a) * int(a)) >> 64 for a in w]
