"""The numpy functions a traced array answers (``__array_function__``)."""

from __future__ import annotations

from typing import Callable

import numpy as np

from kiln.fuse.indexing import _take, _take_along_axis
from kiln.fuse.ir_types import _BOOL, _element_type
from kiln.fuse.joining import _concatenate, _stack
from kiln.fuse.location import _error
from kiln.fuse.matmul import _einsum, _matmul
from kiln.fuse.reductions import (_all, _any, _argmax, _argmin, _max, _mean,
                                  _min, _norm, _prod, _std, _sum, _var)
from kiln.fuse.shapes import (_broadcast_to, _expand_dims, _moveaxis, _reshape,
                              _squeeze, _swapaxes, _transpose)
from kiln.fuse.trace import TracedValue, _Body, _no_extra, _no_out, _operand
from kiln.fuse.ufuncs import _apply_ufunc, _astype, _elementwise


def _where_function(condition, x=None, y=None):
    if x is None or y is None:
        raise _error("np.where with one argument (the indices of nonzero "
                     "elements depend on the data)")
    operands = [_operand(v, "np.where") for v in (condition, x, y)]
    dummies = [np.zeros(0, v.dtype) if isinstance(v, TracedValue) else v
               for v in operands[1:]]
    result = np.where(np.zeros(0, bool), *dummies).dtype
    _element_type(result)

    def body(b: _Body, values: list) -> tuple[str, np.dtype]:
        truth = b.cast(values[0], _BOOL) if isinstance(values[0], tuple) \
            else b.constant(bool(values[0]), _BOOL)
        picks = [b.cast(v, result) if isinstance(v, tuple)
                 else b.constant(v, result) for v in values[1:]]
        return b.op(f"arith.select {truth[0]}, {picks[0][0]}, {picks[1][0]} "
                    f": {_element_type(result)}", result)

    return _elementwise(operands, result, "np.where", body)


def _clip(a, a_min=None, a_max=None, out=None, **kwargs):
    _no_out(out, "clip")
    a_min = kwargs.pop("min", a_min)
    a_max = kwargs.pop("max", a_max)
    _no_extra(kwargs, "clip")
    if a_min is not None:
        a = _apply_ufunc(np.maximum, (a, a_min))
    if a_max is not None:
        a = _apply_ufunc(np.minimum, (a, a_max))
    return a


def _dot(a, b, out=None):
    _no_out(out, "dot")
    return _matmul(a, b)


def _transpose_function(a, axes=None):
    return _transpose(a, axes)


def _reshape_function(a, shape=None, order="C", **kwargs):
    shape = kwargs.pop("newshape", shape)
    _no_extra(kwargs, "reshape")
    return _reshape(a, shape, order)


def _astype_function(x, dtype, /, *, copy=True, **kwargs):
    _no_extra(kwargs, "astype")
    return _astype(x, dtype)


_FUNCTIONS: dict[Callable, Callable] = {
    np.sum: _sum, np.max: _max, np.min: _min, np.mean: _mean, np.var: _var,
    np.prod: _prod, np.any: _any, np.all: _all, np.linalg.norm: _norm,
    np.argmax: _argmax, np.argmin: _argmin, np.take: _take,
    np.take_along_axis: _take_along_axis, np.concatenate: _concatenate,
    np.stack: _stack,
    np.std: _std, np.where: _where_function, np.clip: _clip, np.dot: _dot,
    np.transpose: _transpose_function, np.reshape: _reshape_function,
    np.squeeze: _squeeze, np.expand_dims: _expand_dims, np.einsum: _einsum,
    np.broadcast_to: lambda array, shape, subok=False: _broadcast_to(
        array, shape),
    np.swapaxes: lambda a, axis1, axis2: _swapaxes(a, axis1, axis2),
    np.moveaxis: lambda a, source, destination: _moveaxis(a, source,
                                                         destination),
}
for _name, _handler in [("amax", _max), ("amin", _min),
                        ("astype", _astype_function)]:
    if hasattr(np, _name):
        _FUNCTIONS[getattr(np, _name)] = _handler
