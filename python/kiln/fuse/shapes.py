"""Shapes: transposes, reshapes, axes of size 1 added or dropped, and
broadcasts."""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from kiln.fuse.ir_types import _ir_shape, _tensor_type
from kiln.fuse.location import _error, _loc, _where
from kiln.fuse.trace import TracedValue, _Trace, _operand, _view
from kiln.fuse.ufuncs import _broadcast, _elementwise


def _normalize_axes(axis: Any, ndim: int, what: str) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    normalized = []
    for a in axes:
        if not isinstance(a, (int, np.integer)) or not -ndim <= a < ndim:
            raise _error(f"{what}: axis {a!r} is out of bounds for a "
                         f"{ndim}-d array")
        normalized.append(int(a) % ndim)
    return tuple(normalized)


def _transpose(x: TracedValue, axes: Sequence[int] | None = None
               ) -> TracedValue:
    x = _operand(x, "transpose")
    axes = tuple(reversed(range(x.ndim))) if axes is None else \
        _normalize_axes(tuple(axes), x.ndim, "transpose")
    if sorted(axes) != list(range(x.ndim)):
        raise _error(f"transpose: {list(axes)} is not a permutation of the "
                     f"{x.ndim} axes")
    shape = tuple(x.shape[a] for a in axes)
    moved = [a for a in axes if x.shape[a] != 1]  # x's axes, in new order
    if moved == sorted(moved):
        return _view(x, shape)
    # x's axes larger than 1, in its order, each read at the iteration
    # dimension of its place in the result.
    results = ", ".join(f"d{moved.index(a)}" for a in sorted(moved))
    loc = _loc(_where())
    space = _ir_shape(shape)
    init = x._trace.empty(space, x.dtype, loc)
    dims = ", ".join(f"d{i}" for i in range(len(space)))
    name = x._trace.generic([(x, results)], space, False,
                            (init, dims, x.dtype), lambda b, v: v[0], loc)
    return x._trace.array(name, shape, x.dtype, x._bound,
                          x._view_of(lambda a: a.transpose(axes)))


def _swapaxes(x: Any, axis1: int, axis2: int) -> TracedValue:
    x = _operand(x, "swapaxes")
    axes = list(range(x.ndim))
    first, second = _normalize_axes((axis1, axis2), x.ndim, "swapaxes")
    axes[first], axes[second] = second, first
    return _transpose(x, axes)


def _moveaxis(x: Any, source: Any, destination: Any) -> TracedValue:
    x = _operand(x, "moveaxis")
    source = _normalize_axes(source, x.ndim, "moveaxis")
    destination = _normalize_axes(destination, x.ndim, "moveaxis")
    if len(source) != len(destination):
        raise _error("moveaxis: source and destination differ in length")
    order = [a for a in range(x.ndim) if a not in source]
    for axis, place in sorted(zip(destination, source)):
        order.insert(axis, place)
    return _transpose(x, order)


def _reshape(x: TracedValue, shape: Any, order: str = "C") -> TracedValue:
    x = _operand(x, "reshape")
    shape = (shape,) if isinstance(shape, (int, np.integer)) else \
        tuple(int(d) for d in shape)
    if shape.count(-1) == 1:
        known = math.prod(d for d in shape if d != -1)
        shape = tuple(x.size // known if d == -1 else d for d in shape)
    if math.prod(shape) != x.size or order != "C":
        raise _error(f"cannot reshape an array of shape {list(x.shape)} "
                     f"into {list(shape)}")
    source, target = _ir_shape(x.shape), _ir_shape(shape)
    if source == target:
        return _view(x, shape)
    # A row-major reshape moves no element: a collapse of runs of
    # consecutive axes, an expansion of them, or a collapse to one axis and
    # an expansion (kiln-fuse moves them out of the way, and launch plans
    # hold them as the same buffer).
    trace, loc = x._trace, _loc(_where())
    value = x._value
    groups = _groups(source, target)
    if groups is not None:
        value = _reshape_op(trace, "collapse_shape", value, source, target,
                            groups, x.dtype, loc)
        return trace.array(value, shape, x.dtype, x._bound,
                           x._view_of(lambda a: a.reshape(shape)))
    if _groups(target, source) is None and len(source) > 1:
        value = _reshape_op(trace, "collapse_shape", value, source,
                            (x.size,), [list(range(len(source)))], x.dtype,
                            loc)
        source = (x.size,)
    value = _reshape_op(trace, "expand_shape", value, source, target,
                        _groups(target, source), x.dtype, loc)
    return trace.array(value, shape, x.dtype, x._bound,
                       x._view_of(lambda a: a.reshape(shape)))


def _groups(fine: tuple[int, ...], coarse: tuple[int, ...]
            ) -> list[list[int]] | None:
    """The runs of consecutive axes of ``fine`` whose sizes multiply to
    each axis of ``coarse``, or None when there are none."""
    if len(fine) < len(coarse):
        return None
    groups, axis = [], 0
    for size in coarse:
        group, product = [], 1
        while axis < len(fine) and (not group or product < size):
            group.append(axis)
            product *= fine[axis]
            axis += 1
        if product != size:
            return None
        groups.append(group)
    return groups if axis == len(fine) else None


def _reshape_op(trace: _Trace, op: str, value: str, source: tuple[int, ...],
                target: tuple[int, ...], groups: list[list[int]],
                dtype: np.dtype, loc: str) -> str:
    """A ``tensor.collapse_shape`` or ``tensor.expand_shape`` of ``value``
    (``groups`` are the fine side's axes for each coarse axis)."""
    name = trace.fresh()
    reassociation = "[" + ", ".join(
        "[" + ", ".join(map(str, g)) + "]" for g in groups) + "]"
    output = (f" output_shape [{', '.join(map(str, target))}]"
              if op == "expand_shape" else "")
    trace.emit(f"{name} = tensor.{op} {value} {reassociation}{output} : "
               f"{_tensor_type(source, dtype)} into "
               f"{_tensor_type(target, dtype)} {loc}")
    return name


def _squeeze(x: TracedValue, axis: Any = None) -> TracedValue:
    x = _operand(x, "squeeze")
    axes = [i for i, d in enumerate(x.shape) if d == 1] if axis is None \
        else _normalize_axes(axis, x.ndim, "squeeze")
    if any(x.shape[a] != 1 for a in axes):
        raise _error("squeeze: cannot select an axis whose size is not 1")
    return _view(x, tuple(d for i, d in enumerate(x.shape) if i not in axes))


def _expand_dims(x: TracedValue, axis: Any) -> TracedValue:
    x = _operand(x, "expand_dims")
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    ndim = x.ndim + len(axes)
    axes = _normalize_axes(axes, ndim, "expand_dims")
    dims = iter(x.shape)
    return _view(x, tuple(1 if i in axes else next(dims)
                          for i in range(ndim)))


def _broadcast_to(x: Any, shape: Any) -> TracedValue:
    """``x`` repeated along the axes where ``shape`` is larger: a generic
    that reads it through a projection (nothing where it is as large)."""
    x = _operand(x, "broadcast_to")
    shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    if not isinstance(x, TracedValue):
        raise _error("broadcast_to of a scalar is not supported by kiln.fuse")
    if _broadcast([x.shape, shape], "broadcast_to") != shape:
        raise _error(f"broadcast_to: shape {list(x.shape)} does not "
                     f"broadcast to {list(shape)}")
    if _ir_shape(x.shape) == _ir_shape(shape):
        return _view(x, shape)
    return _elementwise([x], x.dtype, "broadcast_to",
                        lambda b, values: values[0], shape)
