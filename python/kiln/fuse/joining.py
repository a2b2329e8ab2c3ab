"""Joining arrays: ``np.concatenate`` and ``np.stack``."""

from __future__ import annotations

from typing import Any

import numpy as np

from kiln.fuse.ir_types import _BOOL, _I64, _element_type, _ir_shape
from kiln.fuse.location import _error, _loc, _where
from kiln.fuse.shapes import _expand_dims, _normalize_axes, _reshape
from kiln.fuse.trace import TracedValue, _Body, _no_out, _operand, _the_trace
from kiln.fuse.ufuncs import _astype


def _concatenate(arrays: Any, axis: Any = 0, out: Any = None, *,
                 dtype: Any = None, casting: str = "same_kind"
                 ) -> TracedValue:
    """``np.concatenate``: one generic over the result that, along
    ``axis``, takes each element from the array whose span holds it. It
    extracts from every array at the index clamped into that array (valid
    IR; the lanes of the arrays not chosen read an element next to their
    own, from cache) and selects by the span; the arrays are the kernel's
    inputs, read in place."""
    _no_out(out, "concatenate")
    if not isinstance(arrays, (list, tuple)) or not arrays:
        raise _error("concatenate takes a non-empty sequence of arrays")
    pieces = [_operand(a, "concatenate") for a in arrays]
    if not all(isinstance(p, TracedValue) for p in pieces):
        raise _error("concatenate of a scalar: numpy needs arrays of at "
                     "least one axis")
    _the_trace(pieces)
    if axis is None:
        pieces = [_reshape(p, (p.size,)) for p in pieces]
        axis = 0
    ndim = pieces[0].ndim
    if ndim == 0 or any(p.ndim != ndim for p in pieces):
        raise _error("concatenate: the arrays must have the same number of "
                     "axes, at least one, not "
                     f"{', '.join(str(p.ndim) for p in pieces)}")
    (axis,) = _normalize_axes(axis, ndim, "concatenate")
    for p in pieces:
        if any(a != b for k, (a, b) in enumerate(zip(p.shape,
                                                     pieces[0].shape))
               if k != axis):
            raise _error(
                "concatenate: the arrays' shapes must agree except along "
                f"axis {axis}: "
                f"{', '.join(str(list(q.shape)) for q in pieces)}")
    result_type = np.dtype(dtype) if dtype is not None else \
        np.result_type(*[p.dtype for p in pieces])
    pieces = [_astype(p, result_type) for p in pieces]
    if len(pieces) == 1:
        return pieces[0]
    shape = list(pieces[0].shape)
    shape[axis] = sum(p.shape[axis] for p in pieces)
    shape = tuple(shape)
    loc = _loc(_where())
    trace = pieces[0]._trace
    space = _ir_shape(shape)
    space_axes = [i for i, d in enumerate(shape) if d != 1]
    init = trace.empty(space, result_type, loc)
    dims = ", ".join(f"d{i}" for i in range(len(space)))
    element = _element_type(result_type)

    def body(b: _Body, values: list) -> tuple[str, np.dtype]:
        def index(text: str) -> str:
            return b.op(text, _I64)[0]

        def constant(value: int) -> str:
            return index(f"arith.constant {value} : index")

        position = {k: index(f"linalg.index {space_axes.index(k)} : index")
                    for k in space_axes}
        along = position[axis]  # two pieces or more: longer than 1
        chosen = None
        end = shape[axis]
        for p in reversed(pieces):
            start = end - p.shape[axis]
            indices = []
            for k, size in enumerate(p.shape):
                if size != 1 and k != axis:
                    indices.append(position[k])
                elif size != 1:  # along - start, clamped into [0, size)
                    at = index(f"arith.subi {along}, {constant(start)} : "
                               "index")
                    at = index(f"arith.maxsi {at}, {constant(0)} : index")
                    indices.append(index(f"arith.minsi {at}, "
                                         f"{constant(size - 1)} : index"))
            value = b.op(f"tensor.extract {p._value}"
                         f"[{', '.join(indices or [constant(0)])}] : "
                         f"{p._tensor_type}", result_type)[0]
            if chosen is not None:
                # Elements before this piece's end are its own.
                before = b.op(f"arith.cmpi ult, {along}, {constant(end)} : "
                              "index", _BOOL)[0]
                value = b.op(f"arith.select {before}, {value}, {chosen} : "
                             f"{element}", result_type)[0]
            chosen, end = value, start
        return chosen, result_type

    name = trace.generic([], space, False, (init, dims, result_type), body,
                         loc)
    return trace.array(name, shape, result_type)


def _stack(arrays: Any, axis: int = 0, out: Any = None, *,
           dtype: Any = None, casting: str = "same_kind") -> TracedValue:
    """``np.stack``: the arrays, each given a new axis, concatenated."""
    _no_out(out, "stack")
    if not isinstance(arrays, (list, tuple)) or not arrays:
        raise _error("stack takes a non-empty sequence of arrays")
    pieces = [_operand(a, "stack") for a in arrays]
    if not all(isinstance(p, TracedValue) for p in pieces):
        raise _error("stack of a scalar is not supported by kiln.fuse")
    if any(p.shape != pieces[0].shape for p in pieces):
        raise _error("stack: the arrays must have one shape, not "
                     f"{', '.join(str(list(p.shape)) for p in pieces)}")
    (axis,) = _normalize_axes(axis, pieces[0].ndim + 1, "stack")
    return _concatenate([_expand_dims(p, axis) for p in pieces], axis,
                        dtype=dtype)
