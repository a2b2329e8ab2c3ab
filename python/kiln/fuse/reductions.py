"""Reductions: ``sum``, ``prod``, ``max``, ``min``, ``any``, ``all``,
``mean``, ``var``, ``std``, ``np.linalg.norm``, ``argmax`` and
``argmin``."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from kiln.fuse.ir_types import (_BOOL, _compute_type, _element_type, _ir_shape,
                                _tensor_type)
from kiln.fuse.location import _error, _loc, _where
from kiln.fuse.shapes import _normalize_axes, _reshape
from kiln.fuse.trace import (TracedValue, _Body, _no_extra, _no_out, _operand,
                             _view)
from kiln.fuse.ufuncs import _apply_ufunc, _astype


_NEUTRAL = {"sum": 0, "prod": 1, "max": -np.inf, "min": np.inf}
_COMBINE = {("sum", "f"): "arith.addf", ("sum", "i"): "arith.addi",
            ("prod", "f"): "arith.mulf", ("prod", "i"): "arith.muli",
            ("max", "f"): "arith.maximumf", ("max", "i"): "arith.maxsi",
            ("min", "f"): "arith.minimumf", ("min", "i"): "arith.minsi",
            ("max", "b"): "arith.ori", ("min", "b"): "arith.andi"}


def _reduce(x: TracedValue, kind: str, axis: Any, keepdims: bool,
            dtype: Any, what: str) -> TracedValue:
    """``kind`` (sum, max, min, prod) of ``x`` over ``axis``: generics that
    each reduce one axis of ``x``'s rows into a fill of the neutral
    element. Reduced axes that end the array are one axis (a row-major
    reshape); another is read with the remaining axes as its rows, its
    elements a stride apart (kiln-tile gives each program a block of
    those rows, which lie next to each other)."""
    x = _operand(x, what)
    axes = _normalize_axes(axis, x.ndim, what)
    shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape)
                  if keepdims or i not in axes)
    if kind in ("sum", "prod"):
        reference = np.sum if kind == "sum" else np.prod
        result = np.dtype(dtype) if dtype is not None else \
            reference(np.zeros(1, x.dtype)).dtype
    elif dtype is not None:
        raise _error(f"{what} with dtype= is not supported by kiln.fuse")
    else:
        result = x.dtype
    accumulator = _compute_type(result)
    combine = _COMBINE.get((kind, accumulator.kind))
    if combine is None:
        raise _error(f"{what} of {x.dtype} arrays is not supported by "
                     "kiln.fuse")
    # The axes of size 1 are not in the IR; the reduced ones that end the
    # array become one.
    sizes = [d for d in x.shape if d != 1]
    reduced = [k for k, i in enumerate(i for i, d in enumerate(x.shape)
                                       if d != 1)
               if i in axes]
    if not reduced:  # only axes of size 1
        return _view(_astype(x, result), shape)
    trailing = 0
    while trailing < len(reduced) and \
            reduced[-1 - trailing] == len(sizes) - 1 - trailing:
        trailing += 1
    if trailing > 1:
        merged = tuple(sizes[:len(sizes) - trailing]) + \
            (math.prod(sizes[len(sizes) - trailing:]),)
        x = _reshape(x, merged)
        sizes = list(merged)
        reduced = reduced[:len(reduced) - trailing] + [len(sizes) - 1]
    loc = _loc(_where())
    value = x
    for axis_index in reversed(reduced):
        value = _reduce_axis(value, kind, combine, axis_index, sizes,
                             accumulator, loc)
        del sizes[axis_index]
    return _astype(_view(value, shape), result)


def _reduce_axis(x: TracedValue, kind: str, combine: str, axis: int,
                 sizes: list[int], accumulator: np.dtype,
                 loc: str) -> TracedValue:
    """``x`` (of IR shape ``sizes``) reduced over its axis ``axis`` by
    ``combine``: a generic over [the other axes, then ``axis``], reading
    ``x`` through the permutation that puts ``axis`` last."""
    trace = x._trace
    rows = tuple(d for k, d in enumerate(sizes) if k != axis)
    space = (rows or (1,)) + (sizes[axis],)
    init = trace.fill(_NEUTRAL[kind] if accumulator.kind == "f" else
                      _integer_neutral(kind, accumulator),
                      space[:-1], accumulator, loc)

    def body(b: _Body, values: list) -> tuple[str, np.dtype]:
        element = b.cast(values[0], accumulator)
        return b.binary(combine, element, values[1])

    dims = [f"d{i}" for i in range(len(space))]
    # x's axis k is the space's row k (k before axis), k - 1 (after it),
    # or its last dimension.
    read = [dims[-1] if k == axis else dims[k if k < axis else k - 1]
            for k in range(len(sizes))]
    name = trace.generic([(x, ", ".join(read))], space, True,
                         (init, ", ".join(dims[:-1]), accumulator), body, loc)
    return trace.array(name, rows, accumulator)


_ARG_TAKE = {("max", "f"): "arith.cmpf ogt", ("min", "f"): "arith.cmpf olt",
             ("max", "i"): "arith.cmpi sgt", ("min", "i"): "arith.cmpi slt"}


def _arg_reduce(x: Any, kind: str, axis: Any, keepdims: bool,
                what: str) -> TracedValue:
    """The index of the first max (``kind`` max) or min along ``axis`` (of
    the flattened array for None), as np.argmax and np.argmin: a NaN is
    both. One generic with two results, the value and its index, which
    kiln-tile keeps together."""
    x = _operand(x, what)
    if axis is None:
        flat = _reshape(x, (x.size,))
        index = _arg_reduce(flat, kind, 0, False, what)
        return _view(index, (1,) * x.ndim if keepdims else ())
    if isinstance(axis, (tuple, list)):
        raise _error(f"{what} takes one axis, not {list(axis)}")
    (axis,) = _normalize_axes(axis, x.ndim, what)
    shape = tuple(1 if i == axis else d for i, d in enumerate(x.shape)
                  if keepdims or i != axis)
    loc = _loc(_where())
    trace = x._trace
    index_type = np.dtype(np.int64)
    if x.shape[axis] == 1:  # one candidate: index 0
        zeros = trace.fill(0, _ir_shape(shape), index_type, loc)
        return trace.array(zeros, shape, index_type, 1)
    if x.dtype == _BOOL:
        x = _astype(x, np.int8)
    compute = _compute_type(x.dtype)
    take = _ARG_TAKE[(kind, compute.kind)]
    sizes = [d for d in x.shape if d != 1]
    ir_axis = [i for i, d in enumerate(x.shape) if d != 1].index(axis)
    rows = tuple(d for k, d in enumerate(sizes) if k != ir_axis)
    space = (rows or (1,)) + (sizes[ir_axis],)
    dims = [f"d{i}" for i in range(len(space))]
    read = [dims[-1] if k == ir_axis else dims[k if k < ir_axis else k - 1]
            for k in range(len(sizes))]
    start = (-np.inf if kind == "max" else np.inf) if compute.kind == "f" \
        else _integer_neutral(kind, compute)
    values = trace.fill(start, space[:-1], compute, loc)
    indices = trace.fill(0, space[:-1], index_type, loc)
    # Scanning the axis in order, a column is kept when it beats the
    # running value, or is the first NaN.
    element, i64 = _element_type(compute), _element_type(index_type)
    a, v, i = trace.fresh(), trace.fresh(), trace.fresh()
    column, column64, better, keep, kept, kept_index = (
        trace.fresh() for _ in range(6))
    body = [f"{column} = linalg.index {len(space) - 1} : index",
            f"{column64} = arith.index_cast {column} : index to {i64}",
            f"{better} = {take}, {a}, {v} : {element}"]
    if compute.kind == "f":
        nan, running_nan, true, running_number, either = (
            trace.fresh() for _ in range(5))
        body += [f"{nan} = arith.cmpf uno, {a}, {a} : {element}",
                 f"{running_nan} = arith.cmpf uno, {v}, {v} : {element}",
                 f"{true} = arith.constant true",
                 f"{running_number} = arith.xori {running_nan}, {true} : i1",
                 f"{either} = arith.ori {better}, {nan} : i1",
                 f"{keep} = arith.andi {either}, {running_number} : i1"]
    else:
        keep = better
    body += [f"{kept} = arith.select {keep}, {a}, {v} : {element}",
             f"{kept_index} = arith.select {keep}, {column64}, {i} : {i64}"]
    wide = _astype(x, compute)
    space_dims = ", ".join(dims)
    row_map = f"affine_map<({space_dims}) -> ({', '.join(dims[:-1])})>"
    maps = (f"affine_map<({space_dims}) -> ({', '.join(read)})>, "
            f"{row_map}, {row_map}")
    iterators = ", ".join(['"parallel"'] * (len(space) - 1) + ['"reduction"'])
    value_type = _tensor_type(space[:-1], compute)
    index_tensor = _tensor_type(space[:-1], index_type)
    name = trace.fresh()
    trace.emit(f"{name}:2 = linalg.generic {{indexing_maps = [{maps}], "
               f"iterator_types = [{iterators}]}} ins({wide._value} : "
               f"{wide._tensor_type}) outs({values}, {indices} : "
               f"{value_type}, {index_tensor}) {{")
    trace.emit(f"^bb0({a}: {element}, {v}: {element}, {i}: {i64}):")
    for line in body:
        trace.emit(f"  {line} {loc}")
    trace.emit(f"  linalg.yield {kept}, {kept_index} : {element}, {i64} "
               f"{loc}")
    trace.emit(f"}} -> ({value_type}, {index_tensor}) {loc}")
    return trace.array(f"{name}#1", shape, index_type, x.shape[axis])


def _argmax(a, axis=None, out=None, *, keepdims=False):
    _no_out(out, "argmax")
    return _arg_reduce(a, "max", axis, keepdims, "argmax")


def _argmin(a, axis=None, out=None, *, keepdims=False):
    _no_out(out, "argmin")
    return _arg_reduce(a, "min", axis, keepdims, "argmin")


def _integer_neutral(kind: str, dtype: np.dtype) -> int:
    if kind in ("sum", "prod"):
        return _NEUTRAL[kind]
    if dtype == _BOOL:
        return kind == "min"
    info = np.iinfo(dtype)
    return info.min if kind == "max" else info.max


def _sum(a, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
    _no_out(out, "sum")
    _no_extra(kwargs, "sum")
    return _reduce(a, "sum", axis, keepdims, dtype, "sum")


def _max(a, axis=None, out=None, keepdims=False, **kwargs):
    _no_out(out, "max")
    _no_extra(kwargs, "max")
    return _reduce(a, "max", axis, keepdims, None, "max")


def _min(a, axis=None, out=None, keepdims=False, **kwargs):
    _no_out(out, "min")
    _no_extra(kwargs, "min")
    return _reduce(a, "min", axis, keepdims, None, "min")


def _prod(a, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
    _no_out(out, "prod")
    _no_extra(kwargs, "prod")
    return _reduce(a, "prod", axis, keepdims, dtype, "prod")


def _any(a, axis=None, out=None, keepdims=False, **kwargs):
    """Whether any element is true: the max of ``a != 0`` as booleans."""
    _no_out(out, "any")
    _no_extra(kwargs, "any")
    return _reduce(_astype(_operand(a, "any"), _BOOL), "max", axis, keepdims,
                   None, "any")


def _all(a, axis=None, out=None, keepdims=False, **kwargs):
    """Whether every element is true: the min of ``a != 0`` as booleans."""
    _no_out(out, "all")
    _no_extra(kwargs, "all")
    return _reduce(_astype(_operand(a, "all"), _BOOL), "min", axis, keepdims,
                   None, "all")


def _mean(a, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
    """The sum in numpy's mean type (float64 for integers), divided by the
    count."""
    _no_out(out, "mean")
    _no_extra(kwargs, "mean")
    a = _operand(a, "mean")
    result = np.dtype(dtype) if dtype is not None else \
        np.mean(np.zeros(1, a.dtype)).dtype
    count = math.prod(a.shape[i] for i in
                      _normalize_axes(axis, a.ndim, "mean"))
    total = _reduce(a, "sum", axis, keepdims, _compute_type(result), "mean")
    return _astype(_apply_ufunc(np.true_divide, (total, count)), result)


def _var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False,
         **kwargs):
    """The mean of the squared deviations from the mean, as numpy computes
    it (two reductions over the same rows)."""
    _no_out(out, "var")
    _no_extra(kwargs, "var")
    a = _operand(a, "var")
    result = np.dtype(dtype) if dtype is not None else \
        np.var(np.zeros(1, a.dtype)).dtype
    compute = _compute_type(result)
    wide = _astype(a, compute)
    deviation = wide - _mean(wide, axis, None, None, True)
    count = math.prod(a.shape[i] for i in
                      _normalize_axes(axis, a.ndim, "var"))
    total = _reduce(deviation * deviation, "sum", axis, keepdims, None, "var")
    return _astype(total / max(count - ddof, 0), result)


def _std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False,
         **kwargs):
    _no_out(out, "std")
    variance = _var(a, axis, dtype, None, ddof, keepdims, **kwargs)
    return _apply_ufunc(np.sqrt, (variance,))


def _norm(x, ord=None, axis=None, keepdims=False):
    """``np.linalg.norm`` for ``ord=None``: the square root of the sum of
    squares (the 2-norm of vectors, the Frobenius norm of matrices), in
    numpy's result type (float64 for integers)."""
    if ord is not None:
        raise _error(f"np.linalg.norm with ord={ord!r} is not supported by "
                     "kiln.fuse (only the default, the square root of the "
                     "sum of squares)")
    x = _operand(x, "np.linalg.norm")
    result = np.linalg.norm(np.zeros(1, x.dtype)).dtype
    wide = _astype(x, _compute_type(result))
    total = _reduce(wide * wide, "sum", axis, keepdims, None,
                    "np.linalg.norm")
    return _astype(_apply_ufunc(np.sqrt, (total,)), result)
