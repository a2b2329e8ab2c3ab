"""``@kiln.fuse`` with basic indexing: integers, slices of any step, None
and an ellipsis. A slice is a view: the kernels that read it take its
source and read it at the slice's offsets and strides (kiln-fuse keeps
the tensor.extract_slice in the kernel), so ``x[1:] - x[:-1]`` is one
kernel reading x. Each program runs against numpy in float64."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import kiln

from fuse_helpers import kernel_count, plan_of, raises_at

HERE = str(Path(__file__).resolve())
RNG = np.random.default_rng(7)


def _normal(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


@kiln.fuse
def difference(x):
    return x[1:] - x[:-1]


@kiln.fuse
def every_other_column(x):
    return x[:, ::2] * 2


@kiln.fuse
def reversed_strided(x):
    return x[::-1, ::-3] + 1


@kiln.fuse
def row_and_element(x):
    return x[3] * x[-1] + x[2, 5]


@kiln.fuse
def swiglu(x):
    h = x.shape[-1] // 2
    a, b = x[..., :h], x[..., h:]
    return a / (1 + np.exp(-a)) * b


@kiln.fuse
def rotary(x, cos, sin):
    even, odd = x[..., ::2], x[..., 1::2]
    return even * cos - odd * sin, even * sin + odd * cos


@kiln.fuse
def tail_sum(x):
    return x[:, 1:].sum(axis=-1)


@kiln.fuse
def tail_softmax(x):
    t = x[:, 2:]
    e = np.exp(t - t.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@kiln.fuse
def odd_rows_column_sum(x):
    return x[1::2].sum(axis=0)


@kiln.fuse
def reversed_argmax(x):
    return x[:, ::-1].argmax(axis=-1)


@kiln.fuse
def sliced_layer_norm(x, w):
    t = x[:, :-3]
    mean = t.mean(axis=-1, keepdims=True)
    var = t.var(axis=-1, keepdims=True)
    return (t - mean) / np.sqrt(var + 1e-5) * w[1:]


@kiln.fuse
def returned_slice(x):
    return x[2:5]


@kiln.fuse
def sliced_matmul(x, w):
    return x[:, :8] @ w


@kiln.fuse
def slice_of_computed(x):
    return (x * 2)[1:] + 1


@kiln.fuse
def slice_of_broadcast(x, b):
    return np.tanh(x + b)[::-2, 1::3]


@kiln.fuse
def element_of_computed(x, w):
    return np.exp(x * w)[3, -2] + x[0]


@kiln.fuse
def shifted_difference(x):
    y = np.sin(x) * np.cos(x) * 3
    return y[1:] - y[:-1], y


@kiln.fuse
def slice_of_sums(x):
    return x.sum(axis=-1)[::2] * 2


@kiln.fuse
def new_axes(x):
    return x[None, 1:, None, 3] * 3


@kiln.fuse
def slice_of_slice(x):
    return x[1:][::2] - x[:-1][1::2]


@kiln.fuse
def reshaped_slice(x):
    return x[:, :4].reshape(-1) + 1


PROGRAMS = {
    # name: (function, arguments, kernels of its plan)
    "difference": (difference, [_normal(9, 33)], 1),
    "every_other_column": (every_other_column, [_normal(5, 17)], 1),
    "reversed_strided": (reversed_strided, [_normal(6, 20)], 1),
    "row_and_element": (row_and_element, [_normal(7, 9)], 1),
    "swiglu": (swiglu, [_normal(3, 5, 64)], 1),
    # Two results over one space that read the same inputs are one
    # kernel, which reads each input once.
    "rotary": (rotary, [_normal(4, 6, 32), _normal(6, 16), _normal(6, 16)],
               1),
    "tail_sum": (tail_sum, [_normal(11, 300)], 1),
    "tail_softmax": (tail_softmax, [_normal(13, 2050)], 1),
    "odd_rows_column_sum": (odd_rows_column_sum, [_normal(61, 70)], 1),
    "reversed_argmax": (reversed_argmax, [_normal(8, 129)], 1),
    "sliced_layer_norm": (sliced_layer_norm, [_normal(5, 40), _normal(38)],
                          1),
    "returned_slice": (returned_slice, [_normal(8, 3)], 1),
    # What reads a buffer, as a matmul does, reads a copy of the slice.
    "sliced_matmul": (sliced_matmul, [_normal(20, 12), _normal(8, 6)], 2),
    # A slice of an elementwise result is computed from slices of its
    # inputs, where it is read.
    "slice_of_computed": (slice_of_computed, [_normal(6, 5)], 1),
    "slice_of_broadcast": (slice_of_broadcast, [_normal(9, 10), _normal(10)],
                           1),
    "element_of_computed": (element_of_computed, [_normal(5, 6),
                                                  _normal(6)], 1),
    # y (three ops) is written once for its return; the difference reads
    # it back.
    "shifted_difference": (shifted_difference, [_normal(7, 8)], 2),
    # A reduction's result is written first; the next kernel reads a
    # slice of it.
    "slice_of_sums": (slice_of_sums, [_normal(9, 70)], 2),
    "new_axes": (new_axes, [_normal(5, 4)], 1),
    "slice_of_slice": (slice_of_slice, [_normal(9, 4)], 1),
    "reshaped_slice": (reshaped_slice, [_normal(6, 7)], 2),
}


@pytest.mark.parametrize("name", PROGRAMS)
def test_program_against_numpy(name):
    fused, args, _ = PROGRAMS[name]
    got = fused(*args)
    eager = fused.fn(*args)
    want = fused.fn(*[a.astype(np.float64) for a in args])
    if not isinstance(got, tuple):
        got, eager, want = (got,), (eager,), (want,)
    for g, e, w in zip(got, eager, want):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_allclose(g.astype(np.float64), w, rtol=2e-5,
                                   atol=2e-5)


@pytest.mark.parametrize("name", PROGRAMS)
def test_program_kernel_count(name):
    fused, args, kernels = PROGRAMS[name]
    assert kernel_count(fused, *args) == kernels


def test_slices_are_views_in_the_traced_ir():
    """The trace records tensor.extract_slice; the kernel takes x itself
    and keeps both slices of it."""
    x = _normal(9, 33)
    ir = difference.ir(x)
    assert ir.count("tensor.extract_slice") == 2
    assert "[1, 0] [8, 33] [1, 1]" in ir and "[0, 0] [8, 33] [1, 1]" in ir
    plan = plan_of(difference, x)
    assert re.search(r"func.func @difference_kernel0_tile\(%arg0: "
                     r"!tile.ptr<f32>, %arg1: !tile.ptr<f32>\)", plan)


def test_returned_slice_is_a_new_array():
    x = _normal(8, 3)
    y = returned_slice(x)
    np.testing.assert_array_equal(y, x[2:5])
    assert not np.shares_memory(y, x)


@pytest.mark.parametrize("dtype", [np.float16, np.int32, np.int64, np.bool_])
def test_slices_of_every_dtype(dtype):
    x = (RNG.standard_normal((10, 12)) * 10).astype(dtype)

    @kiln.fuse
    def shuffle(x):
        return x[::-3, 1::5]

    np.testing.assert_array_equal(shuffle(x), x[::-3, 1::5])


def _random_key(shape: tuple[int, ...], rng) -> tuple:
    """A basic index of an array of ``shape`` that selects at least one
    element: per axis an integer, a slice (any step, either sign, any
    bounds) or all of it, with None inserted now and then and sometimes an
    ellipsis for the last axes."""
    key: list = []
    for n in shape:
        kind = rng.integers(4)
        if kind == 0:
            key.append(int(rng.integers(-n, n)))
        elif kind == 1:
            key.append(slice(None))
        else:
            while True:
                step = int(rng.choice([-3, -2, -1, 1, 2, 3]))
                start = rng.choice([None, int(rng.integers(-n - 2, n + 2))])
                stop = rng.choice([None, int(rng.integers(-n - 2, n + 2))])
                item = slice(start, stop, step)
                if len(range(*item.indices(n))):
                    break
            key.append(item)
        if rng.integers(5) == 0:
            key.append(None)
    if rng.integers(3) == 0 and len(shape) > 1:
        drop = int(rng.integers(1, len(shape)))
        kept = [k for k in key if k is not None]
        key = kept[:len(shape) - drop] + [Ellipsis]
    return tuple(key)


@pytest.mark.parametrize("seed", range(24))
def test_random_keys_against_numpy(seed):
    """Random basic indices of a 3-d array, each read by an elementwise
    kernel and by a reduction over the last axis of what it selects."""
    rng = np.random.default_rng(seed)
    shape = tuple(int(n) for n in rng.integers(1, 9, size=3))
    x = (rng.standard_normal(shape) * 4).astype(np.float32)
    key = _random_key(shape, rng)

    @kiln.fuse
    def elementwise(x):
        return x[key] * 2 + 1

    @kiln.fuse
    def reduced(x):
        return x[key].sum(axis=-1)

    np.testing.assert_allclose(elementwise(x), x[key] * 2 + 1, rtol=1e-6,
                               err_msg=f"x{shape}[{key}]")
    want = x[key].astype(np.float64).sum(axis=-1)
    if np.ndim(want) == 0 or x[key].ndim == 0:
        return
    np.testing.assert_allclose(reduced(x), want, rtol=1e-5, atol=1e-5,
                               err_msg=f"x{shape}[{key}].sum(-1)")


def _raises(fn, *args, match: str, line: str):
    raises_at(HERE, fn, *args, match=match, line=line)


def test_empty_slice():
    @kiln.fuse
    def empty(x):
        return x[3:3] + 1  # marker: empty

    _raises(empty, _normal(5, 4), match=r"\[3:3\] selects no element along "
                                        r"axis 0 \(of size 5\)",
            line="# marker: empty")


def test_index_out_of_bounds():
    @kiln.fuse
    def past(x):
        return x[:, 4]  # marker: past

    _raises(past, _normal(5, 4), match="index 4 is out of bounds for axis 1 "
                                       "with size 4",
            line="# marker: past")


def test_step_zero():
    @kiln.fuse
    def zero(x):
        return x[::0]  # marker: step

    _raises(zero, _normal(5, 4), match="slice step cannot be zero",
            line="# marker: step")


def test_too_many_indices():
    @kiln.fuse
    def deep(x):
        return x[1, 2, 3]  # marker: deep

    _raises(deep, _normal(5, 4), match="too many indices for a 2-d array",
            line="# marker: deep")
