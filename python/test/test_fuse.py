"""``@kiln.fuse``: numpy functions traced into array-level IR, fused by
kiln-fuse and kiln-tile and run on the host target, against numpy in
float64."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import kiln
from kiln.fuse import SUPPORTED_UFUNCS, FusedFunction

from fuse_helpers import (kernel_count as _kernels, marked_line, plan_of,
                          raises_at)
from test_jit import DLPackOnly

HERE = str(Path(__file__).resolve())


def _line(marker: str) -> int:
    return marked_line(HERE, marker)


def _tolerance(dtype: np.dtype) -> float:
    return {np.dtype(np.float16): 2e-3, np.dtype(np.float32): 2e-5}.get(
        dtype, 1e-12)


def _check(fused, *args, tolerance: float | None = None) -> None:
    """``fused(*args)`` against the same function run by numpy in float64
    (float16 and float32 inputs widened), with numpy's result types."""
    got = fused(*args)
    eager = fused.fn(*args)  # numpy's result types and shapes
    want = fused.fn(*[a.astype(np.float64) if a.dtype.kind == "f" else a
                      for a in args])
    single = not isinstance(got, tuple)
    got, eager, want = ([got], [eager], [want]) if single else (got, eager,
                                                                 want)
    assert len(got) == len(want)
    for g, e, w in zip(got, eager, want):
        assert g.dtype == e.dtype and g.shape == e.shape
        tol = tolerance or _tolerance(g.dtype)
        np.testing.assert_allclose(g.astype(np.float64), w, rtol=tol,
                                   atol=tol)


# The programs of test_array_programs.py, written in numpy.

@kiln.fuse
def coscos(x):
    return np.cos(np.cos(x))


@kiln.fuse
def gelu(x):
    return 0.5 * x * (1 + np.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))


@kiln.fuse
def affine_relu(x, a, b):
    return np.maximum(a * x + b, 0)


@kiln.fuse
def diamond(x):
    return np.sin(x) + np.cos(x)


@kiln.fuse
def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@kiln.fuse
def layer_norm(x, w, b):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-5) * w + b


@kiln.fuse
def mlp(x, w, b):
    s = x.astype(np.float16) @ w + b
    return (0.5 * s * (1 + np.tanh(0.7978845608 * (s + 0.044715 * s ** 3)))
            ).astype(np.float16)


@kiln.fuse
def two_outputs(x):
    h = np.tanh(x * 2 + 1)
    return np.sin(h), h * h


@kiln.fuse
def siblings(a, d):
    return a // d, a % d, np.fmod(a, d) * a.T


@kiln.fuse
def dependent_siblings(x):
    # y is written once (three ops, two users); y + 1 and x + y.T read it
    # and join, but not y's own kernel, whose result x + y.T reads.
    y = np.exp(x) * np.sin(x) * np.cos(x)
    return y + 1, x + y.T


RNG = np.random.default_rng(0)


def _normal(*shape, dtype=np.float32, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(dtype)


PROGRAMS = {
    # name: (function, arguments, kernels of its plan)
    "coscos_1d": (coscos, [_normal(3000)], 1),
    "coscos_2d": (coscos, [_normal(37, 129)], 1),
    "gelu": (gelu, [_normal(1000, 77)], 1),
    "affine_relu": (affine_relu, [_normal(33, 70), _normal(70), _normal(70)],
                    1),
    "diamond": (diamond, [_normal(513)], 1),
    "softmax": (softmax, [_normal(37, 1000, scale=4)], 1),
    "layer_norm": (layer_norm, [_normal(29, 777), _normal(777),
                                _normal(777)], 1),
    "mlp": (mlp, [_normal(100, 200), _normal(200, 150, dtype=np.float16,
                                             scale=1 / 8),
                  _normal(150)], 1),
    "two_outputs": (two_outputs, [_normal(45, 61)], 1),
    # Elementwise kernels over one space that read one value join.
    "siblings": (siblings, [_normal(30, 30), _normal(30, 30) + 3], 1),
    "dependent_siblings": (dependent_siblings, [_normal(20, 20)], 2),
}


@pytest.mark.parametrize("name", PROGRAMS)
def test_program_against_numpy(name):
    fused, args, _ = PROGRAMS[name]
    _check(fused, *args)


@pytest.mark.parametrize("name", PROGRAMS)
def test_program_kernel_count(name):
    fused, args, kernels = PROGRAMS[name]
    assert _kernels(fused, *args) == kernels


def test_mlp_is_one_matmul_kernel():
    """The cast, the matmul (f16 operands, f32 accumulator, f16 result as
    numpy rounds it), the bias, the GELU and the cast are one kernel whose
    K loop is a tile.dot."""
    fused, args, _ = PROGRAMS["mlp"]
    text = fused.ir(*args)
    assert "linalg.matmul" in text and "tensor<100x150xf32>" in text
    lowered = plan_of(fused, *args)
    assert lowered.count("tile.dot") == 1
    assert "linalg.matmul" not in lowered


def test_exported():
    assert "fuse" in kiln.__all__
    assert isinstance(coscos, FusedFunction) and coscos.__name__ == "coscos"


def test_arrays_offering_only_dlpack():
    """A CPU array of another library (here numpy behind DLPack alone) is
    read in place as a numpy view; the result is numpy's."""
    x, w = _normal(20, 30), _normal(30)
    fused = kiln.fuse(lambda x, w: np.tanh(x * w).sum(axis=1))
    got = fused(DLPackOnly(x), DLPackOnly(w))
    np.testing.assert_allclose(got, np.tanh(x * w).sum(axis=1), rtol=1e-5,
                               atol=1e-5)


def test_threads():
    fused = kiln.fuse(threads=3)(softmax.fn)
    _check(fused, _normal(37, 1000, scale=4))


def test_traced_ir_has_python_locations():
    x = _normal(4, 8)
    text = layer_norm.ir(x, _normal(8), _normal(8))
    line = _line("    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)")
    assert f'loc("{HERE}":{line}:' in text
    assert "linalg.fill" in text and '"reduction"' in text


# Shapes: broadcasts, axes of size 1, transposes, reductions.

@pytest.mark.parametrize("fn,args", [
    (lambda x, c: x * c + c, [_normal(30, 77), _normal(30, 1)]),
    (lambda a, b: a[:, None] * b[None, :], [_normal(7), _normal(9)]),
    (lambda x: x - x.mean(-1)[:, None], [_normal(30, 77)]),
    (lambda x: np.exp(x).T + 1, [_normal(30, 77)]),
    (lambda t: np.exp(np.transpose(t, (2, 0, 1))) + 1, [_normal(3, 5, 7)]),
    (lambda x: (x.sum(axis=1), x.max(-1), np.min(x, axis=-1, keepdims=True)),
     [_normal(30, 77)]),
    (lambda c: c.sum(axis=0), [_normal(30, 1)]),
    (lambda v: v / v.sum(), [_normal(50)]),
    (lambda x: np.add.reduce(x, axis=-1), [_normal(6, 9)]),
    (lambda x: (x.var(-1), np.std(x, axis=-1, keepdims=True)),
     [_normal(30, 77)]),
    (lambda s: s * 2, [np.array(3.0, np.float32)]),
    (lambda s: s * 2, [np.array([3.0], np.float32)]),
    (lambda x, w: x @ w, [_normal(30, 77), _normal(77, 20)]),
    (lambda x, w: np.dot(x, w) * 2, [_normal(30, 77), _normal(77, 20)]),
], ids=["column", "outer", "newaxis", "transpose", "transpose3d",
        "reductions", "column_sum", "vector_sum", "ufunc_reduce", "var_std",
        "0d", "size1", "matmul", "dot"])
def test_shapes(fn, args):
    _check(kiln.fuse(fn), *args, tolerance=1e-4)


# Types and the operations numpy offers.

@pytest.mark.parametrize("fn,args", [
    (lambda x: np.where(x > 0, x, 0.1 * x), [_normal(20, 9)]),
    (lambda x: np.where(x > 0, 1.0, -1.0), [_normal(20, 9)]),
    (lambda x: np.clip(x, -0.5, 0.5), [_normal(20, 9)]),
    (lambda x, v: (x < v, x >= 0, x == x, x != 0.5),
     [_normal(20, 9), _normal(9)]),
    (lambda x: (x * 3).astype(np.float16) + np.float16(1), [_normal(20, 9)]),
    (lambda x: np.tanh(x.astype(np.float16) * 2), [_normal(20, 9)]),
    (lambda i: i.mean(-1), [RNG.integers(-5, 5, (7, 9), dtype=np.int32)]),
    (lambda x: (x > 0).sum(-1), [_normal(20, 9)]),
    (lambda i: np.maximum(i * 3 - 7, -i) ** 2,
     [RNG.integers(-5, 5, (7, 9), dtype=np.int32)]),
    (lambda x: (x ** 2, x ** 3, x ** -1, np.abs(x) ** 0.5,
                np.abs(x) ** 1.7, 2.0 ** x), [_normal(20, 9)]),
    (lambda x: 0.5 * x * (1 + kiln.fuse.erf(x * 0.7071067811865476)),
     [_normal(20, 9)]),
    (lambda x: np.exp(x.astype(np.float64)).sum(-1), [_normal(20, 9)]),
    (lambda x: np.float32(2) * x + np.float64(1), [_normal(20, 9)]),
    (lambda x: x + 1, [_normal(20, 18)[:, ::2]]),
    (lambda x: ((x > 0).max(-1), (x > 0).min(-1),
                np.maximum.reduce(x, axis=-1, keepdims=True)),
     [_normal(20, 9)]),
    (lambda i: (i.max(-1), i.min(-1), i.sum(-1), i.astype(np.float16) / 3),
     [RNG.integers(-100, 100, (20, 9), dtype=np.int8)]),
], ids=["where", "where_scalars", "clip", "comparisons", "to_f16",
        "f16_math", "int_mean", "bool_sum", "int_ops", "powers", "erf",
        "f64", "numpy_scalars", "strided", "bool_reductions",
        "int8_reductions"])
def test_operations(fn, args):
    _check(kiln.fuse(fn), *args)


def _ufunc_arguments(ufunc: np.ufunc) -> list[np.ndarray]:
    low = 1.1 if ufunc is np.arccosh else 0.1  # inside every domain
    return [(RNG.random((13, 7)) * 0.8 + low).astype(np.float32)
            for _ in range(ufunc.nin)]


@pytest.mark.parametrize("name", [  # numpy has no bitwise ops on floats
    n for n in SUPPORTED_UFUNCS
    if n != "matmul" and not n.startswith(("bitwise", "invert"))])
def test_every_ufunc_on_float32(name):
    ufunc = getattr(np, name)
    args = _ufunc_arguments(ufunc)
    fused = kiln.fuse(lambda *a: ufunc(*a))
    got, want = fused(*args), ufunc(*args)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def _all_pairs(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return np.repeat(values, len(values)), np.tile(values, len(values))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_floor_division_and_remainders_of_floats_as_numpy(dtype):
    """Every pair of the edge values, as numpy gives them: signed zeros,
    NaN and infinities, division by 0 included (a NaN's sign bit is the
    machine's, not numpy's)."""
    a, d = _all_pairs(np.array(
        [0, -0.0, 1, -1, 3, -3, 7.5, -7.5, 0.1, -2.5, 1e-3, 3e4, np.inf,
         -np.inf, np.nan], dtype=dtype))
    fused = kiln.fuse(lambda a, d: (a // d, a % d, np.fmod(a, d),
                                    np.floor_divide(a, 2)))
    with np.errstate(all="ignore"):
        want = fused.fn(a, d)
    for got, expected in zip(fused(a, d), want):
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)
        number = ~np.isnan(expected)
        np.testing.assert_array_equal(np.signbit(got[number]),
                                      np.signbit(expected[number]))


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64])
def test_floor_division_and_remainders_of_integers_as_numpy(dtype):
    """Rounded down, the remainder of the divisor's sign (fmod: of the
    dividend's), 0 for a division by 0, and the wrapping of min // -1."""
    info = np.iinfo(dtype)
    a, d = _all_pairs(np.array([0, 1, -1, 2, -2, 3, -3, 7, -7, info.min,
                                info.min + 1, info.max], dtype=dtype))
    fused = kiln.fuse(lambda a, d: (a // d, a % d, np.fmod(a, d), a % 3,
                                    -7 // d))
    with np.errstate(all="ignore"):
        want = fused.fn(a, d)
    for got, expected in zip(fused(a, d), want):
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)


# Traces and compilations are cached per signature.

def test_one_trace_per_signature():
    traces = []

    @kiln.fuse
    def scaled(x):
        traces.append(x.shape)
        return x * 2

    x = _normal(5, 6)
    scaled.ir(x)
    np.testing.assert_array_equal(scaled(x), x * 2)
    np.testing.assert_array_equal(scaled(x + 1), (x + 1) * 2)
    assert traces == [(5, 6)]
    scaled(_normal(6, 5))
    scaled(x.astype(np.float64))
    scaled(_normal(6, 5))
    assert traces == [(5, 6), (6, 5), (5, 6)]


def test_returns_arguments_and_duplicates():
    x = _normal(5, 6)
    copy, same = kiln.fuse(lambda x: (x, x[None]))(x)
    np.testing.assert_array_equal(copy, x)
    np.testing.assert_array_equal(same, x[None])
    y, z = kiln.fuse(lambda x: (lambda e: (e, e))(np.exp(x)))(x)
    np.testing.assert_allclose(y, np.exp(x), rtol=1e-6)
    assert z is y  # as numpy returns the same array twice


def test_fused_function_called_while_tracing_is_inlined():
    @kiln.fuse
    def outer(x, *, scale):
        return gelu(x) * scale

    x = _normal(8, 9)
    assert "func.func @outer" in outer.ir(x, scale=x)
    assert "call" not in outer.ir(x, scale=x)
    np.testing.assert_allclose(outer(x, scale=x),
                               gelu.fn(x.astype(np.float64)) * x, rtol=1e-5,
                               atol=1e-6)


def test_default_arguments_are_constants():
    @kiln.fuse
    def shifted(x, eps=0.25):
        return x + eps

    x = _normal(3, 4)
    np.testing.assert_array_equal(shifted(x), x + np.float32(0.25))


# Errors: the operation and the line of the user's code.

def _raises(fn, *args, match: str, line: str):
    return raises_at(HERE, fn, *args, match=match, line=line)


def test_unsupported_numpy_function():
    @kiln.fuse
    def running(x):
        return np.cumsum(x, axis=-1)  # marker: cumsum

    _raises(running, _normal(3, 4), match="np.cumsum is not supported",
            line="# marker: cumsum")


def test_unsupported_ufunc_and_method():
    @kiln.fuse
    def step(x):
        return np.heaviside(x, 0.5)  # marker: heaviside

    _raises(step, _normal(3, 4), match="np.heaviside is not supported",
            line="# marker: heaviside")

    @kiln.fuse
    def sort(x):
        return x.sort(-1)  # marker: sort method

    _raises(sort, _normal(3, 4), match="ndarray.sort is not supported",
            line="# marker: sort method")


REDUCTIONS = {
    # name: (function, argument)
    "sum over everything": (lambda x: x.sum(), _normal(4, 3, 50)),
    "sum over axis 0": (lambda x: x.sum(axis=0), _normal(4, 3, 50)),
    "sum over a middle axis": (lambda x: np.sum(x, axis=1), _normal(4, 3, 50)),
    "sum over axes 0 and 2": (lambda x: x.sum((0, 2)), _normal(4, 3, 50)),
    "sum over the last two, kept": (
        lambda x: x.sum((1, 2), keepdims=True), _normal(4, 3, 50)),
    "mean over axis 0": (lambda x: x.mean(0), _normal(64, 100)),
    "max over axes 0 and 1": (lambda x: x.max((0, 1)), _normal(4, 3, 50)),
    "var over axis 0": (lambda x: x.var(0), _normal(64, 100, scale=3)),
    "std over axes 0 and 2": (lambda x: x.std((0, 2)), _normal(4, 3, 50)),
    "softmax over axis 0": (
        lambda x: (lambda e: e / e.sum(0, keepdims=True))(
            np.exp(x - x.max(0, keepdims=True))), _normal(5, 40, scale=4)),
    "prod": (lambda x: (x * 0.1 + 1).prod(-1), _normal(4, 3, 50)),
    "prod over axis 0 of integers": (
        lambda i: i.prod(0),
        RNG.integers(-5, 5, (6, 7)).astype(np.int32)),
    "integer sum over everything": (
        lambda i: np.sum(i), RNG.integers(-5, 5, (6, 7)).astype(np.int32)),
    "any over axis 0": (lambda x: (x > 2).any(0), _normal(4, 3, 50)),
    "all over the last axis": (lambda x: np.all(x > -2, axis=-1),
                               _normal(4, 3, 50)),
    "all of integers": (lambda i: np.all(i),
                        RNG.integers(1, 5, (6, 7)).astype(np.int32)),
    "rows scaled to unit norm": (
        lambda x: x / np.linalg.norm(x, axis=-1, keepdims=True),
        _normal(4, 3, 50)),
    "Frobenius norm": (lambda x: np.linalg.norm(x), _normal(30, 40)),
    # Blocks of 32 rows (the second masked), the axis walked in chunks.
    "sum over axis 0 of a tall array": (lambda x: x.sum(0),
                                        _normal(3000, 37)),
    "var over axis 0 of a tall array": (lambda x: x.var(0),
                                        _normal(2000, 70, scale=3) + 50),
    "mean over the middle axis of a tall array": (
        lambda x: x.mean(1), _normal(3, 500, 40)),
    "norm of integers over axis 1": (
        lambda i: np.linalg.norm(i, axis=1),
        RNG.integers(-5, 5, (6, 7)).astype(np.int32)),
}


@pytest.mark.parametrize("name", REDUCTIONS)
def test_reductions_over_any_axes(name):
    """Reductions over any axes, against numpy: reduced axes that end the
    array are one axis (a reshape), another is read with the remaining
    axes as rows; numpy's result types (int64 for integer sums and
    products, bool for any and all)."""
    fn, x = REDUCTIONS[name]
    _check(kiln.fuse(fn), x, tolerance=1e-4)


def _tile_kernel(fused: FusedFunction, *args) -> str:
    """The text of the one tile kernel of the plan for these arguments."""
    text = plan_of(fused, *args)
    kernel = text[re.search(r"func\.func @\w+_tile\(", text).start():]
    return kernel[:kernel.index("\n  }\n")]


@pytest.mark.parametrize("axis, shape, load, reduce", [
    (0, (300, 70), "tensor<32x32xf32>", ("1", "tensor<32xf32>")),
    (1, (300, 70), "tensor<8x128xf32>", ("1", "tensor<8xf32>")),
    (1, (30, 1000), "tensor<1024xf32>", ("0", "f32"))])
def test_the_rows_a_program_takes(axis, shape, load, reduce):
    """Summing x's columns, a program takes 32 of them, which lie next to
    each other in memory, and reads [32 x 32] tiles of them down the
    array, reducing each tile's rows (the loop carries the tile's sums);
    summing rows of 70, it takes 8 (a tile of 1024 elements); rows of 1000
    fill a tile: one a program. Each gives numpy's sums."""
    x = _normal(*shape)
    fused = kiln.fuse(lambda x: x.sum(axis))
    _check(fused, x, tolerance=1e-4)
    kernel = _tile_kernel(fused, x)
    assert re.findall(r"tile\.load .* -> (tensor<\w+>)", kernel) == [load]
    assert re.findall(r"tile\.reduce .* axis (\d) : tensor<\w+> -> "
                      r"([\w<>]+)", kernel) == [reduce]


def _ties_and_nans(shape):
    x = RNG.integers(-3, 4, shape).astype(np.float32)
    x.flat[7] = np.nan
    return x


ARG_REDUCTIONS = {
    # name: (function, argument)
    "argmax over the last axis": (lambda x: x.argmax(-1),
                                  _ties_and_nans((4, 3, 50))),
    "argmax over axis 0": (lambda x: np.argmax(x, axis=0),
                           _ties_and_nans((4, 3, 50))),
    "argmin over a middle axis": (lambda x: x.argmin(1),
                                  _ties_and_nans((4, 3, 50))),
    "argmax of the flattened array": (lambda x: x.argmax(),
                                      _ties_and_nans((4, 3, 50))),
    "argmax kept": (lambda x: np.argmax(x, axis=1, keepdims=True),
                    _ties_and_nans((4, 3, 50))),
    "argmin of integers": (lambda i: i.argmin(0),
                           RNG.integers(-5, 5, (6, 7)).astype(np.int32)),
    "argmax of booleans": (lambda x: (x > 1).argmax(-1),
                           _ties_and_nans((4, 50))),
    "argmin of float16": (lambda h: h.argmin(-1),
                          _ties_and_nans((4, 50)).astype(np.float16)),
    "argmax over an axis of size 1": (lambda x: x.argmax(1),
                                      _normal(4, 1, 50)),
    "argmax over rows walked in chunks": (lambda x: x.argmax(-1),
                                          _ties_and_nans((3, 20000))),
    "argmin over axis 0 of a tall array": (lambda x: x.argmin(0),
                                           _ties_and_nans((1500, 45))),
    "argmax and the max together": (
        lambda x: (x.argmax(-1), x.max(-1)), _normal(5, 300)),
}


@pytest.mark.parametrize("name", ARG_REDUCTIONS)
def test_argmax_and_argmin_as_numpy(name):
    """The first extreme's index, int64; a NaN counts as the extreme."""
    fn, x = ARG_REDUCTIONS[name]
    fused = kiln.fuse(fn)
    got, want = fused(x), fn(x)
    for g, w in zip(got if isinstance(got, tuple) else (got,),
                    want if isinstance(want, tuple) else (want,)):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)


def test_argmax_takes_one_axis():
    @kiln.fuse
    def two_axes(x):
        return x.argmax(axis=(0, 1))  # marker: axes

    _raises(two_axes, _normal(3, 4), match=r"argmax takes one axis, not "
                                           r"\[0, 1\]", line="# marker: axes")


def test_norms_other_than_the_default_are_refused():
    @kiln.fuse
    def manhattan(x):
        return np.linalg.norm(x, ord=1, axis=-1)  # marker: ord

    _raises(manhattan, _normal(3, 4),
            match="np.linalg.norm with ord=1 is not supported",
            line="# marker: ord")


def test_a_full_reduction_is_one_kernel():
    x = _normal(4, 3, 50)
    assert _kernels(kiln.fuse(lambda x: x.sum()), x) == 1
    assert _kernels(kiln.fuse(lambda x: x.sum((1, 2))), x) == 1
    assert _kernels(kiln.fuse(lambda x: x.sum((0, 2))), x) == 2


def test_python_control_flow_on_a_traced_value():
    @kiln.fuse
    def branchy(x):
        if x > 0:  # marker: if
            return x
        return -x

    _raises(branchy, _normal(3, 4), match="truth value of a traced array",
            line="# marker: if")


def test_numpy_constant_array():
    ones = np.ones(4, np.float32)

    @kiln.fuse
    def plus(x):
        return x + ones  # marker: constant

    _raises(plus, _normal(3, 4), match="numpy array constant of shape",
            line="# marker: constant")


def test_arguments_must_be_numpy_arrays():
    """The error points at the call."""
    with pytest.raises(kiln.KilnError, match="argument 'x' is a list, not "
                                             "a numpy array") as info:
        coscos([1.0, 2.0])  # marker: list argument
    assert (info.value.filename, info.value.line) == (
        HERE, _line("# marker: list argument"))
    with pytest.raises(kiln.KilnError, match="argument 'x' is a float"):
        coscos(2.0)


class _DeviceArray:
    """What kiln.fuse sees of a PyTorch CUDA tensor or a CuPy array."""

    __cuda_array_interface__ = {"shape": (4,), "typestr": "<f4",
                                "data": (0, False), "version": 3}


def test_device_arrays_mixed_with_host_arrays_are_refused():
    with pytest.raises(kiln.KilnError, match="argument 'y' is on GPU 0 "
                                             "while 'x' is in host memory"
                       ) as info:
        kiln.fuse(lambda x, y: x + y)(_normal(4), _DeviceArray())  # mixed
    assert (info.value.filename, info.value.line) == (HERE, _line("# mixed"))


def test_function_must_return_traced_arrays():
    @kiln.fuse
    def constant(x):
        return 3

    with pytest.raises(kiln.KilnError, match="must return an array "
                                             "computed from its arguments"):
        constant(_normal(3))


@pytest.mark.parametrize("columns", [16385, 20000])
def test_rows_longer_than_max_row_are_walked_in_chunks(columns):
    """Rows of more than max-row (16384) elements: a softmax and a layer
    norm are still one kernel each, which walks its row in chunks."""
    x = _normal(3, columns, scale=4)
    _check(softmax, x)
    assert _kernels(softmax, x) == 1
    w, b = _normal(columns), _normal(columns)
    _check(layer_norm, x, w, b, tolerance=1e-4)
    assert _kernels(layer_norm, x, w, b) == 1


# Programs kiln-fuse and kiln-tile once refused.

def test_matmul_with_transposed_operand():
    """x @ w.T: the transpose is read in place by the matmul kernel."""
    x, w = _normal(30, 20), _normal(45, 20)
    _check(kiln.fuse(lambda x: x @ x.T), x, tolerance=1e-4)
    _check(kiln.fuse(lambda x, w: np.maximum(x @ w.T, 0)), x, w,
           tolerance=1e-4)


@pytest.mark.parametrize("shape", [(2, 3, 48), (2, 3, 4, 20), (1, 5, 1, 7)])
def test_rows_over_several_axes(shape):
    """A [batch, sequence, hidden] layer norm or softmax is one kernel over
    batch * sequence rows."""
    x = _normal(*shape, scale=3)
    w, b = _normal(shape[-1]), _normal(shape[-1])
    _check(layer_norm, x, w, b, tolerance=1e-4)
    assert _kernels(layer_norm, x, w, b) == 1
    _check(softmax, x)
    assert _kernels(softmax, x) == 1


def test_inputs_broadcast_over_some_rows_axes():
    """A positional table broadcast over the batch and a scale per batch
    are read at the row's coordinates, in the one kernel."""
    @kiln.fuse
    def embed_softmax(x, position, scale):
        s = (x + position) * scale
        e = np.exp(s - s.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)

    x, position, scale = _normal(4, 6, 40), _normal(6, 40), _normal(4, 1, 1)
    _check(embed_softmax, x, position, scale)
    assert _kernels(embed_softmax, x, position, scale) == 1

    # docs/array-programs.md's example.
    @kiln.fuse
    def embed_softmax_of_the_docs(x, position):
        s = x + position
        e = np.exp(s - s.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)

    _check(embed_softmax_of_the_docs, x, position)
    assert _kernels(embed_softmax_of_the_docs, x, position) == 1


def test_a_row_sum_of_products_joins_other_row_reductions():
    """sum(x * w) over a row is a contraction, but a row kernel's: it and
    the row max are one kernel."""
    @kiln.fuse
    def scaled(x, w):
        return x * (x * w).sum(axis=-1, keepdims=True) / x.max(
            axis=-1, keepdims=True)

    x, w = _normal(8, 32), _normal(32)
    _check(scaled, x, w, tolerance=1e-4)
    assert _kernels(scaled, x, w) == 1


@pytest.mark.parametrize("shape", [(2, 3, 20), (2, 1, 3, 20), (1, 5, 20),
                                   (4, 5, 3, 20)])
def test_a_linear_layer_over_rows_of_several_axes(shape):
    """x @ w + b with x [..., k]: the axes before the last are the rows, one
    matmul kernel with its epilogue; the reshapes are free."""
    @kiln.fuse
    def linear(x, w, b):
        return np.maximum(x @ w + b, 0)

    x, w, b = _normal(*shape), _normal(20, 30), _normal(30)
    _check(linear, x, w, b, tolerance=1e-4)
    assert _kernels(linear, x, w, b) == 1


def test_a_layer_norm_then_a_linear_layer():
    """[batch, sequence, hidden]: the norm is a row kernel, the product
    with its bias a matmul kernel, each over batch * sequence rows."""
    @kiln.fuse
    def block(x, g, c, w, b):
        return layer_norm.fn(x, g, c) @ w + b

    args = (_normal(2, 3, 20), _normal(20), _normal(20), _normal(20, 30),
            _normal(30))
    _check(block, *args, tolerance=1e-4)
    assert _kernels(block, *args) == 2


@kiln.fuse
def attention(q, k, v):
    s = q @ k.transpose(0, 2, 1) / np.float32(np.sqrt(q.shape[-1]))
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    return (p / p.sum(axis=-1, keepdims=True)) @ v


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_attention_is_batched_matmuls(dtype):
    """softmax(q k^T / sqrt(d)) v per batch: the scores (k read transposed
    in place, the scale their epilogue), the softmax over them, and the
    weighted sum: three kernels, two of them batched matmuls (float64 on
    the FMA product)."""
    q, k, v = (_normal(4, 50, 16, dtype=dtype), _normal(4, 70, 16,
                                                        dtype=dtype),
               _normal(4, 70, 24, dtype=dtype))
    _check(attention, q, k, v, tolerance=1e-4)
    assert _kernels(attention, q, k, v) == 3
    assert attention.ir(q, k, v).count("linalg.batch_matmul") == 2


@pytest.mark.parametrize("a,b", [((2, 3, 33, 20), (2, 3, 20, 40)),
                                 ((1, 30, 20), (1, 20, 10)),
                                 ((5, 1, 30, 20), (5, 1, 20, 10))])
def test_stacks_of_matrices(a, b):
    """Batch axes of any number (made one), a batch of one (a plain
    matmul), axes of size 1 among them; f16 operands with an epilogue."""
    @kiln.fuse
    def relu_product(a, b):
        return np.maximum(a @ b + 1, 0).astype(np.float16)

    x, y = _normal(*a, dtype=np.float16), _normal(*b, dtype=np.float16)
    _check(relu_product, x, y, tolerance=2e-2)
    assert _kernels(relu_product, x, y) == 1


def test_a_batch_read_out_of_order_is_copied_first():
    """A batched matmul's program reads its batch by a stride; an operand
    whose batch is not its first axis (x.transpose(1, 0, 2)) is copied
    first, by a kernel of its own."""
    @kiln.fuse
    def product(x, y):
        return x.transpose(1, 0, 2) @ y

    x, y = _normal(16, 2, 8), _normal(2, 8, 5)
    _check(product, x, y, tolerance=1e-4)
    assert _kernels(product, x, y) == 2


def test_a_product_scaled_by_one_element():
    """An epilogue (and a prologue) reading an array of one element: the
    matmul kernel loads it once and broadcasts it over its block (found by
    the random programs: it was refused by name)."""
    @kiln.fuse
    def scaled(x, w, s):
        return (x * s) @ w * s

    x, w, s = _normal(30, 20), _normal(20, 10), _normal(1)
    _check(scaled, x, w, s, tolerance=1e-4)
    assert _kernels(scaled, x, w, s) == 1
    _check(scaled, _normal(3, 30, 20), _normal(3, 20, 10), _normal(1, 1, 1),
           tolerance=1e-4)
    # A scalar per batch (found in review: an index past the map's end).
    _check(scaled, _normal(3, 30, 20), _normal(3, 20, 10), _normal(3, 1, 1),
           tolerance=1e-4)


@pytest.mark.parametrize("a,b", [((2, 5, 7), (1, 1, 7, 3)),
                                 ((5, 7), (1, 7, 3))])
def test_a_batch_of_one_keeps_numpy_axes(a, b):
    """b's leading axes of size 1 broadcast as numpy's do: the result keeps
    them (found in review)."""
    _check(kiln.fuse(lambda x, y: x @ y), _normal(*a), _normal(*b),
           tolerance=1e-4)


def test_divmod():
    _check(kiln.fuse(lambda x: divmod(x, 3)), _normal(6, 7) * 10)
    _check(kiln.fuse(lambda x: divmod(7, x)), _normal(6, 7) + 4)


def test_values_over_rows_beside_values_over_rows_and_columns():
    """A kernel of elementwise generics over the rows and over [rows,
    columns] (no reduction) is a row kernel (found in review: it was sent
    to the elementwise tiler, which refused it)."""
    @kiln.fuse
    def shifted(x, v):
        a = np.sin(v) * np.cos(v) * 2
        return x + a[:, None], a

    _check(shifted, _normal(30, 40), _normal(30))


@pytest.mark.parametrize("spec,shapes,dtype,kernels", [
    # Matmuls, batched over the subscripts both sides keep.
    ("ij,jk->ik", [(30, 20), (20, 10)], np.float32, 1),
    ("ij,jk", [(30, 20), (20, 10)], np.float32, 1),
    ("bij,bjk->bik", [(3, 30, 20), (3, 20, 10)], np.float32, 1),
    ("bhqd,bhkd->bhqk", [(2, 3, 17, 8), (2, 3, 19, 8)], np.float32, 1),
    ("ij,kj->ik", [(30, 20), (10, 20)], np.float32, 1),
    ("bqd,kd->bqk", [(2, 17, 8), (19, 8)], np.float32, 1),
    ("abc,cd->abd", [(2, 3, 4), (4, 5)], np.float32, 1),
    ("ij,jk->ki", [(30, 20), (20, 10)], np.float64, 2),
    # Broadcast products summed: row kernels, elementwise kernels.
    ("ij,ij->i", [(30, 20), (30, 20)], np.float32, 1),
    ("ij,ij->", [(30, 20), (30, 20)], np.float32, 1),
    ("i,j->ij", [(7,), (9,)], np.float32, 1),
    ("ijk,ik->j", [(3, 4, 5), (3, 5)], np.float32, None),
    ("ij,jk->ik", [(30, 20), (20, 10)], np.int32, None),
    ("ab,b->a", [(6, 1), (5,)], np.float32, None),
    # An ellipsis for the leading axes, which broadcast; an axis of size 1
    # against a larger one (the broadcast product's).
    ("...ij,...jk->...ik", [(2, 3, 30, 20), (2, 3, 20, 10)], np.float32, 1),
    ("...ij,...jk", [(2, 3, 30, 20), (3, 20, 10)], np.float32, None),
    ("...ij,jk->...ik", [(5, 30, 20), (20, 10)], np.float32, 1),
    ("...i,...i->...", [(3, 7), (1, 7)], np.float32, None),
    ("bij,bjk->bik", [(1, 30, 20), (4, 20, 10)], np.float32, None),
    # One array: transposes and sums.
    ("i...->...i", [(4, 3, 2)], np.float32, 1),
    ("ij->ji", [(7, 9)], np.float32, 1),
    ("ij->i", [(7, 9)], np.int8, 1),
    ("ijk->kij", [(3, 4, 5)], np.float16, 1),
])
def test_einsum_against_numpy(spec, shapes, dtype, kernels):
    """np.einsum of one or two arrays, with numpy's result type: a product
    summed on both sides is a (batched) matmul kernel, k's transpose read
    in place in 'bhqd,bhkd->bhqk'."""
    fused = kiln.fuse(lambda *arrays: np.einsum(spec, *arrays))
    args = [(RNG.standard_normal(shape) * 3).astype(dtype)
            for shape in shapes]
    _check(fused, *args, tolerance=1e-4 if dtype != np.float16 else None)
    if kernels is not None:
        assert _kernels(fused, *args) == kernels


@pytest.mark.parametrize("call,message", [
    (lambda x: np.einsum("...ijk->i", x), r"subscripts '\.\.\.ijk' for an"),
    (lambda x: np.einsum("ii->i", x), "repeats a subscript"),
    (lambda x: np.einsum("ij,jk,kl->il", x, x, x), "one or two arrays"),
    (lambda x: np.einsum("ijk->i", x), "subscripts 'ijk' for an array"),
    (lambda x: np.einsum("ij->ik", x), "output subscripts 'ik'"),
])
def test_einsum_kiln_fuse_does_not_do(call, message):
    with pytest.raises(kiln.KilnError, match=message):
        kiln.fuse(call)(_normal(4, 4))


def test_float64_matmul():
    """float64 operands multiply in float64 (tile.dot of f64: the FMA
    product on a GPU)."""
    x, w = _normal(30, 20, dtype=np.float64), _normal(20, 10,
                                                      dtype=np.float64)
    _check(kiln.fuse(lambda x, w: x @ w), x, w, tolerance=1e-12)


@pytest.mark.parametrize("a,b,kernels", [
    ((1, 30, 20), (4, 20, 10), 1), ((30, 20), (4, 20, 10), 1),
    # Broadcast over several batch axes, which the kernel then takes as
    # one: each operand is broadcast by a kernel of its own first.
    ((2, 1, 30, 20), (1, 3, 20, 10), 3),
])
def test_batches_broadcast(a, b, kernels):
    """Batch axes broadcast as numpy's: the operand that lacks them is
    broadcast by a prologue the matmul kernel reads in place (each batch
    reads the same matrix)."""
    fused = kiln.fuse(lambda x, y: x @ y)
    x, y = _normal(*a), _normal(*b)
    _check(fused, x, y, tolerance=1e-4)
    assert _kernels(fused, x, y) == kernels


def test_swapaxes_moveaxis_broadcast_to():
    _check(kiln.fuse(lambda q, k: q @ k.swapaxes(-1, -2)), _normal(3, 30, 20),
           _normal(3, 10, 20), tolerance=1e-4)
    _check(kiln.fuse(lambda q, k: q @ np.swapaxes(k, 1, 2)),
           _normal(3, 30, 20), _normal(3, 10, 20), tolerance=1e-4)
    _check(kiln.fuse(lambda x: np.moveaxis(x, [0, 1], [-1, -2]) + 1),
           _normal(3, 4, 5))
    _check(kiln.fuse(lambda x: np.broadcast_to(x, (4, 3, 5)) * 2),
           _normal(3, 5))
    with pytest.raises(kiln.KilnError, match="do not broadcast together"):
        kiln.fuse(lambda x: np.broadcast_to(x, (4, 5)))(_normal(3, 5))


@pytest.mark.parametrize("a,b,message", [
    ((4, 3, 5), (3, 5, 6), "do not broadcast together"),
    ((4, 3, 5), (4, 5, 1), "matrices whose axes are larger than 1"),
    ((1, 1, 5), (5, 6), "more than one row"),
    ((4, 1), (1, 6), "more than one column"),
])
def test_matmuls_kiln_fuse_does_not_do(a, b, message):
    with pytest.raises(kiln.KilnError, match=message):
        kiln.fuse(lambda x, y: x @ y)(_normal(*a), _normal(*b))


@pytest.mark.parametrize("fn,arg,kernels", [
    # An expansion of the input: the row kernel reads x as [2, 3, 4].
    (lambda x: np.exp(x.reshape(2, 3, 4)).sum(axis=-1), (6, 4), 1),
    # A collapse; an expansion from one axis; -1.
    (lambda x: x.reshape(24) * 2, (6, 4), 1),
    (lambda y: y.reshape(6, 4).sum(axis=-1), (24,), 1),
    (lambda x: x.reshape(-1, 2, 4).max(axis=-1), (6, 4), 1),
    # Neither: a collapse to one axis, then an expansion.
    (lambda x: x.reshape(4, 6).max(axis=-1), (6, 4), 1),
    # A computed value reshaped out, or between two kernels.
    (lambda x: (x * 2).reshape(2, 12), (6, 4), 1),
    (lambda x: np.exp(x).reshape(3, 8).sum(axis=-1), (6, 4), 2),
])
def test_reshapes_move_no_element(fn, arg, kernels):
    fused = kiln.fuse(fn)
    x = _normal(*arg)
    _check(fused, x)
    assert _kernels(fused, x) == kernels


def test_a_reshape_to_another_size_is_refused():
    with pytest.raises(kiln.KilnError, match=r"cannot reshape an array of "
                                             r"shape \[6, 4\] into \[5, 5\]"):
        kiln.fuse(lambda x: x.reshape(5, 5))(_normal(6, 4))


def test_a_transposed_product_is_a_kernel_of_its_own():
    """exp((x @ w).T): a matmul's program holds one block of the product,
    so the transposing exp reads it from memory in a second kernel."""
    x, w = _normal(30, 20), _normal(20, 45)

    @kiln.fuse
    def transposed(x, w):
        return np.exp((x @ w).T)

    _check(transposed, x, w, tolerance=1e-4)
    assert _kernels(transposed, x, w) == 2


def test_row_sums_scale_a_product():
    """The row sums are a row kernel and scale the product in the matmul's
    epilogue: a kernel does not both reduce rows and multiply."""
    x, w = _normal(30, 20), _normal(20, 45)

    @kiln.fuse
    def scaled(x, w):
        return x.sum(axis=-1, keepdims=True) * (x @ w)

    _check(scaled, x, w, tolerance=1e-4)
    assert _kernels(scaled, x, w) == 2


def test_logsumexp_of_a_vector():
    @kiln.fuse
    def logsumexp(v):
        m = v.max()
        return m + np.log(np.exp(v - m).sum())

    _check(logsumexp, _normal(300, scale=4))


def test_softmax_of_a_vector():
    """The same broadcast of one element into a reduction's input, but the
    exponentials have two users and are materialised: refused by no one."""
    _check(kiln.fuse(softmax.fn), _normal(300, scale=4))


def test_a_full_reduction_is_a_numpy_scalar_as_in_numpy():
    x = _normal(1000)
    total = kiln.fuse(lambda x: np.sum(x))(x)
    assert type(total) is type(np.sum(x)) and total.shape == ()
    np.testing.assert_allclose(total, np.sum(x.astype(np.float64)),
                               rtol=1e-5)


@pytest.mark.parametrize("columns", [300, 20000])
def test_row_statistics_of_one_input_are_one_kernel(columns):
    """Reductions over the rows of one array join however they are
    returned; rows of 20000 columns (walked in chunks) read x once for the
    max, the online sum of exponentials, the mean and the mean of squared
    deviations."""
    def statistics(x):
        m = x.max(-1)
        lse = np.log(np.exp(x - m[:, None]).sum(-1)) + m
        mean = x.mean(-1)
        var = ((x - mean[:, None]) ** 2).mean(-1)
        return m, lse, mean, x.sum(-1), var

    fused = kiln.fuse(statistics)
    x = _normal(5, columns, scale=3) + 100
    _check(fused, x, tolerance=1e-4)
    assert _kernels(fused, x) == 1
    text = plan_of(fused, x)
    kernel = text[text.index("func.func @statistics_kernel0_tile("):]
    kernel = kernel[:kernel.index("\n  }\n")]
    loops = 1 if columns > 16384 else 0
    assert kernel.count("scf.for") == loops
    assert len(re.findall(r"tile\.load .* -> tensor<", kernel)) == 1


def test_returning_reshapes_of_arguments():
    """A reshape of an argument is the argument's buffer: returned, it is
    copied (a plan's results come from kernels), also beside the argument
    itself and a computed value's reshape."""
    @kiln.fuse
    def shapes(x):
        return x.reshape(-1), x, x.reshape(2, 6), (x * 2).reshape(-1), \
            x[1:].reshape(-1)

    x = _normal(3, 4)
    want = (x.reshape(-1), x, x.reshape(2, 6), (x * 2).reshape(-1),
            x[1:].reshape(-1))
    for got, w in zip(shapes(x), want):
        np.testing.assert_array_equal(got, w)


@pytest.mark.parametrize("k", [2, 16, 33, 64])
def test_prologues_that_do_not_keep_zeros(k):
    """(y + 1) @ exp(z).T: both prologues make something other than 0 of
    the zeros a block loads past K; those are made zero again before the
    dot (a random program found the result off by K's padding)."""
    @kiln.fuse
    def shifted(y, z, a, c):
        return (y + 1) @ np.exp(z).T, np.sqrt(np.abs(y) + 1) @ (z * 2).T, \
            (y + a) @ (z.T + c)

    y, z = _normal(5, k), _normal(7, k)
    a, c = _normal(5, 1), _normal(1, 7)
    wide_y, wide_z = y.astype(np.float64), z.astype(np.float64)
    first, second, biased = shifted(y, z, a, c)
    # A bias broadcast along K loads real values past K: the padding is
    # not zero although the body (y + a) folds to 0 on zeros (a review
    # found this one wrong).
    np.testing.assert_allclose(biased, (wide_y + a) @ (wide_z.T + c),
                               rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(first, (wide_y + 1) @ np.exp(wide_z).T,
                               rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(second,
                               np.sqrt(np.abs(wide_y) + 1) @ (wide_z * 2).T,
                               rtol=1e-5, atol=1e-5)


def test_a_unicode_function_name_is_spelled_in_ascii():
    """Its kernels' names reach PTX, whose names are ASCII."""
    def añadir(x):
        return x + 1
    fused = kiln.fuse(añadir)
    x = np.arange(4, dtype=np.float32)
    assert "func.func @a_adir(" in fused.ir(x)
    np.testing.assert_array_equal(fused(x), x + 1)
