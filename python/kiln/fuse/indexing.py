"""Indexing: basic indexing as ``tensor.extract_slice``, and indexing by
integer arrays (``np.take``, ``np.take_along_axis``) as gathers."""

from __future__ import annotations

from typing import Any

import numpy as np

from kiln.fuse.ir_types import _BOOL, _I64, _ir_shape, _is_scalar, _tensor_type
from kiln.fuse.location import _error, _index_error, _loc, _where
from kiln.fuse.shapes import _normalize_axes, _reshape
from kiln.fuse.trace import (TracedValue, _Body, _no_extra, _no_out, _operand,
                             _the_trace, _view)
from kiln.fuse.ufuncs import _broadcast


def _index(x: TracedValue, key: Any) -> TracedValue:
    """``x[key]`` (``TracedArray.__getitem__``): basic indexing as a
    ``tensor.extract_slice`` (a view where it selects everything), index
    arrays as a gather."""
    items = key if isinstance(key, tuple) else (key,)
    # A 0-d integer array indexes as its integer, as in numpy.
    items = tuple(item.item() if isinstance(item, np.ndarray) and
                  item.ndim == 0 and item.dtype.kind in "iu" else item
                  for item in items)
    if sum(item is Ellipsis for item in items) > 1:
        raise _error("an index with two ellipses")
    consumed = sum(item is not None and item is not Ellipsis
                   for item in items)
    if consumed > x.ndim:
        raise _error(f"too many indices for a {x.ndim}-d array")
    expanded: list[Any] = []
    for item in items:
        if item is Ellipsis:
            expanded += [slice(None)] * (x.ndim - consumed)
        else:
            expanded.append(item)
    expanded += [slice(None)] * (x.ndim - sum(
        i is not None for i in expanded))
    if any(_is_index_array(item) for item in expanded):
        # Index arrays (and integers) are next to each other where
        # nothing, not even an ellipsis of no axes, stands between.
        advanced = [i for i, item in enumerate(items)
                    if item is not None and item is not Ellipsis
                    and not isinstance(item, slice)]
        adjacent = advanced == list(range(advanced[0],
                                          advanced[-1] + 1))
        return _index_by_arrays(x, expanded, key, adjacent)
    shape: list[int] = []
    # Offset, size and stride along each axis of the IR tensor (the
    # axes of size > 1).
    offsets: list[int] = []
    sizes: list[int] = []
    strides: list[int] = []
    axis = 0
    for item in expanded:
        if item is None:
            shape.append(1)
            continue
        size = x.shape[axis]
        if isinstance(item, slice):
            try:
                start, stop, step = item.indices(size)
            except (TypeError, ValueError) as exc:
                raise _error(f"indexing a traced array with "
                             f"[{_key_text(key)}]: {exc}") from None
            length = len(range(start, stop, step))
            if length == 0:
                raise _error(
                    f"indexing a traced array with [{_key_text(key)}] "
                    f"selects no element along axis {axis} (of size "
                    f"{size}); kiln.fuse arrays have at least one")
            shape.append(length)
        elif isinstance(item, (int, np.integer)) and \
                not isinstance(item, (bool, np.bool_)):
            if not -size <= item < size:
                raise _index_error(f"index {item} is out of bounds for "
                                   f"axis {axis} with size {size}")
            start, length, step = int(item) % size, 1, 1
        else:
            raise _error(
                f"indexing a traced array with [{_key_text(key)}]: "
                "kiln.fuse indexes with integers, slices, None, an "
                "ellipsis and integer arrays")
        if size != 1:
            offsets.append(start)
            sizes.append(length)
            strides.append(step if length > 1 else 1)
        axis += 1
    whole = all(o == 0 and s == n and t == 1 for o, s, t, n in zip(
        offsets, sizes, strides, [n for n in x.shape if n != 1]))
    origin = x._view_of(lambda a: a[key])
    if whole:
        view = _view(x, tuple(shape))
        view._origin = origin
        return view
    loc = _loc(_where())
    name = x._trace.fresh()
    result_type = _tensor_type(_ir_shape(tuple(shape)), x.dtype)
    x._trace.emit(
        f"{name} = tensor.extract_slice {x._value}"
        f"[{', '.join(map(str, offsets))}] "
        f"[{', '.join(map(str, sizes))}] "
        f"[{', '.join(map(str, strides))}] : {x._tensor_type} to "
        f"{result_type} {loc}")
    return x._trace.array(name, tuple(shape), x.dtype, origin=origin)


def _key_text(key) -> str:
    items = key if isinstance(key, tuple) else (key,)

    def one(item):
        if isinstance(item, slice):
            parts = ["" if p is None else str(p)
                     for p in (item.start, item.stop, item.step)]
            return ":".join(parts[:2] if item.step is None else parts)
        if item is Ellipsis:
            return "..."
        if isinstance(item, TracedValue):
            return "<traced array>"
        return repr(item)
    return ", ".join(map(one, items))


_TAKE_MODES = ("raise", "wrap", "clip")


def _is_index_array(item: Any) -> bool:
    """Whether a key item indexes by values: an array, or a list."""
    return isinstance(item, (TracedValue, np.ndarray, list, tuple))


def _index_array(item: Any, what: str) -> TracedValue:
    """``item`` as an integer index array of the trace."""
    if isinstance(item, (list, tuple)):
        item = np.asarray(item)
    if getattr(item, "dtype", None) == _BOOL:
        raise _error(f"{what} by a boolean array: it selects elements by "
                     "value, which makes a shape known only when the "
                     "function runs; kiln.fuse's shapes are known when it "
                     "traces (use np.where)")
    item = _operand(item, what)
    if item.dtype.kind != "i":
        raise _error(f"{what}: an index array holds integers, not "
                     f"{item.dtype}")
    return item


def _check_index(a: TracedValue, size: int, axis: int, what: str) -> None:
    """Makes sure the values of ``a`` index an axis of ``size`` as numpy's
    ``mode='raise'`` does: each in [-size, size). An argmax's are by
    construction; an argument's are checked before each call."""
    if a._bound is not None and a._bound <= size:
        return
    if a._origin is not None:
        position, view = a._origin
        a._trace.index_checks.append((position, view, size, axis, _where()))
        return
    raise _error(
        f"{what}: this index array is computed in the function, so its "
        f"values cannot be checked against axis {axis} (of size {size}) as "
        "numpy checks them; kiln.fuse indexes by an argument or a view of "
        "one (checked before each call) or an argmax or argmin, or, with "
        "np.take's "
        "mode='wrap' or 'clip', by any integer array")


def _gather(x: TracedValue, sources: list[tuple], shape: tuple[int, ...],
            arrays: list[tuple[TracedValue, list[int | None]]]
            ) -> TracedValue:
    """A generic over ``shape`` whose body extracts elements of ``x``
    (captured from above, as torch-mlir's gathers do): along axis j of x,
    at ``sources[j]``, which is ``("slice", result axis, start, step)``
    (start + step * that axis's index), ``("int", i)``, or
    ``("array", k, mode)``, the value of ``arrays[k]`` wrapped as
    ``np.take``'s ``mode`` says. ``arrays`` pairs each index array with
    the result axis each of its axes is read along."""
    loc = _loc(_where())
    trace = x._trace
    space = _ir_shape(shape)
    space_axes = [i for i, d in enumerate(shape) if d != 1]
    # An index array of an axis of one element picks element 0 whatever
    # it holds (its values are checked): it is no input of the generic.
    used = sorted({source[1] for j, source in enumerate(sources)
                   if source[0] == "array" and x.shape[j] != 1})
    sources = [(s[0], used.index(s[1]), s[2]) if s[0] == "array"
               and s[1] in used else s for s in sources]
    arrays = [arrays[k] for k in used]

    def dim(axis: int) -> str:
        return f"d{space_axes.index(axis)}" if axis in space_axes else ""

    inputs = [(a, ", ".join(dim(r) for r, n in zip(axes, a.shape) if n != 1)
               or "0") for a, axes in arrays]
    init = trace.empty(space, x.dtype, loc)
    dims = ", ".join(f"d{i}" for i in range(len(space)))

    def body(b: _Body, values: list) -> tuple[str, np.dtype]:
        def index(text: str) -> str:
            return b.op(text, _I64)[0]

        def constant(value: int) -> str:
            return index(f"arith.constant {value} : index")

        indices = []
        for j, source in enumerate(sources):
            size = x.shape[j]
            if size == 1:  # the IR tensor has no such axis
                continue
            if source[0] == "int":
                indices.append(constant(source[1]))
            elif source[0] == "slice":
                _, axis, start, step = source
                if not dim(axis):
                    indices.append(constant(start))
                    continue
                position = index(f"linalg.index {dim(axis)[1:]} : index")
                if step != 1:
                    position = index(f"arith.muli {position}, "
                                     f"{constant(step)} : index")
                if start != 0:
                    position = index(f"arith.addi {position}, "
                                     f"{constant(start)} : index")
                indices.append(position)
            else:
                _, k, mode = source
                value = b.cast(values[k], _I64)
                indices.append(index(
                    f"arith.index_cast {_wrap(b, value, size, mode)[0]} : "
                    "i64 to index"))
        if not indices:  # x holds one element
            indices.append(constant(0))
        return b.op(f"tensor.extract {x._value}[{', '.join(indices)}] : "
                    f"{x._tensor_type}", x.dtype)

    name = trace.generic(inputs, space, False, (init, dims, x.dtype), body,
                         loc)
    return trace.array(name, shape, x.dtype)


def _wrap(b: _Body, value: tuple[str, np.dtype], size: int, mode: str
          ) -> tuple[str, np.dtype]:
    """An int64 index into an axis of ``size`` as ``np.take``'s ``mode``
    makes it: negative ones counted from the end (``raise``, whose values
    were checked), taken modulo ``size`` (``wrap``) or clipped to
    [0, size) (``clip``)."""
    zero, n = b.constant(0, _I64), b.constant(size, _I64)
    if mode == "clip":
        last = b.constant(size - 1, _I64)
        return b.binary("arith.maxsi", b.binary("arith.minsi", value, last),
                        zero)
    if mode == "wrap":
        value = b.binary("arith.remsi", value, n)
    return b.select(b.compare("slt", value, zero),
                    b.binary("arith.addi", value, n), value)


def _index_by_arrays(x: TracedValue, expanded: list, key: Any,
                     adjacent: bool) -> TracedValue:
    """``x[key]`` where the key (``expanded``: an item per axis, and
    ``None``s) holds integer arrays: numpy's advanced indexing. The arrays
    and the integers broadcast together; their axes replace the axes they
    index where those are next to each other in the key (``adjacent``),
    and come first otherwise; slices index the other axes."""
    what = f"indexing a traced array with [{_key_text(key)}]"
    advanced = [i for i, item in enumerate(expanded)
                if item is not None and not isinstance(item, slice)]
    for i in advanced:
        if isinstance(expanded[i], (bool, np.bool_)):
            raise _error(f"{what}: a boolean beside index arrays (numpy's "
                         "axis of one or none) is not supported by "
                         "kiln.fuse")
    arrays = {i: _index_array(expanded[i], what) for i in advanced
              if _is_index_array(expanded[i])}
    _the_trace([x, *arrays.values()])
    block = _broadcast([a.shape for a in arrays.values()], what)
    # Each result axis: a slice's (its key item), a new axis, or an axis
    # of the broadcast index arrays.
    block_axes = [("block", k) for k in range(len(block))]
    result: list[tuple] = [] if adjacent else list(block_axes)
    for i, item in enumerate(expanded):
        if i not in advanced:
            result.append(("new",) if item is None else ("slice", i))
        elif adjacent and i == advanced[0]:
            result += block_axes
    lengths: dict[tuple, int] = {("new",): 1}
    lengths.update(zip(block_axes, block))
    sources: list[tuple] = []
    gathered: list[tuple[TracedValue, list[int | None]]] = []
    axis = 0
    for i, item in enumerate(expanded):
        if item is None:
            continue
        size = x.shape[axis]
        if isinstance(item, slice):
            start, stop, step = item.indices(size)
            lengths[("slice", i)] = len(range(start, stop, step))
            if lengths[("slice", i)] == 0:
                raise _error(f"{what} selects no element along axis {axis} "
                             f"(of size {size}); kiln.fuse arrays have at "
                             "least one")
            sources.append(("slice", result.index(("slice", i)), start,
                            step))
        elif i in arrays:
            a = arrays[i]
            _check_index(a, size, axis, what)
            first = len(block) - a.ndim
            gathered.append((a, [result.index(("block", first + j))
                                 for j in range(a.ndim)]))
            sources.append(("array", len(gathered) - 1, "raise"))
        else:
            if not -size <= item < size:
                raise _index_error(f"index {item} is out of bounds for "
                                   f"axis {axis} with size {size}")
            sources.append(("int", int(item) % size))
        axis += 1
    return _gather(x, sources, tuple(lengths[r] for r in result), gathered)


def _take(a: Any, indices: Any, axis: Any = None, out: Any = None,
          mode: str = "raise") -> TracedValue:
    """``np.take``: the elements of ``a`` (flattened when ``axis`` is
    None) at ``indices`` along ``axis``, wrapped or clipped by ``mode``."""
    _no_out(out, "take")
    a = _operand(a, "take")
    if mode not in _TAKE_MODES:
        raise _error(f"take: mode must be one of {', '.join(_TAKE_MODES)}, "
                     f"not {mode!r}")
    if axis is None:
        a, axis = _reshape(a, (a.size,)), 0
    (axis,) = _normalize_axes(axis, a.ndim, "take")
    size = a.shape[axis]
    if _is_scalar(indices) and not isinstance(indices, TracedValue):
        i = int(indices)
        if mode == "wrap":
            i %= size
        elif mode == "clip":
            i = min(max(i, 0), size - 1)
        return a[(slice(None),) * axis + (i,)]
    indices = _index_array(indices, "take")
    _the_trace([a, indices])
    if mode == "raise":
        _check_index(indices, size, axis, "take")
    shape = a.shape[:axis] + indices.shape + a.shape[axis + 1:]
    after = indices.ndim - 1
    sources = [("slice", j if j < axis else j + after, 0, 1)
               if j != axis else ("array", 0, mode) for j in range(a.ndim)]
    return _gather(a, sources, shape,
                   [(indices, list(range(axis, axis + indices.ndim)))])


def _take_along_axis(arr: Any, indices: Any, axis: Any = -1, **kwargs
                     ) -> TracedValue:
    """``np.take_along_axis``: along ``axis``, the elements of ``arr`` at
    ``indices`` (of ``arr``'s rank; the other axes broadcast)."""
    _no_extra(kwargs, "take_along_axis")
    arr = _operand(arr, "take_along_axis")
    indices = _index_array(indices, "take_along_axis")
    if axis is None:
        arr, axis = _reshape(arr, (arr.size,)), 0
    if indices.ndim != arr.ndim:
        raise _error(f"take_along_axis: indices of {indices.ndim} axes for "
                     f"an array of {arr.ndim}; they must have as many")
    (axis,) = _normalize_axes(axis, arr.ndim, "take_along_axis")
    _the_trace([arr, indices])
    _check_index(indices, arr.shape[axis], axis, "take_along_axis")
    others = [d for j, d in enumerate(arr.shape) if j != axis]
    shape = list(_broadcast(
        [tuple(others), tuple(d for j, d in enumerate(indices.shape)
                              if j != axis)], "take_along_axis"))
    shape.insert(axis, indices.shape[axis])
    sources = [("slice", j, 0, 1) if j != axis else ("array", 0, "raise")
               for j in range(arr.ndim)]
    return _gather(arr, sources, tuple(shape),
                   [(indices, list(range(indices.ndim)))])
