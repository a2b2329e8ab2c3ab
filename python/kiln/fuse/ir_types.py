"""The MLIR types and constants of numpy dtypes, shapes and values."""

from __future__ import annotations

from typing import Any

import numpy as np

from kiln import language as kl
from kiln.frontend.ir import Type
from kiln.fuse.location import _error

#: The dtypes kiln.fuse computes on, spelled as the kernel language spells
#: them.
_ELEMENT_TYPES = {
    np.dtype(t): kl.from_numpy(np.dtype(t)).ir
    for t in (np.bool_, np.int8, np.int16, np.int32, np.int64, np.float16,
              np.float32, np.float64)}
_BOOL = np.dtype(np.bool_)
_I64 = np.dtype(np.int64)
_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)


def _element_type(dtype: np.dtype) -> str:
    found = _ELEMENT_TYPES.get(dtype)
    if found is None:
        raise _error(f"kiln.fuse computes on bool, int8 to int64 and "
                     f"float16 to float64 arrays, not {dtype}")
    return found


def _ir_shape(shape: tuple[int, ...]) -> tuple[int, ...]:
    """The shape of the tensor that holds an array of ``shape``: its axes
    of size 1 are dropped, so a broadcast is a projection in an indexing
    map (one axis of size 1 stays when there is nothing else)."""
    return tuple(d for d in shape if d != 1) or (1,)


def _tensor_type(shape: tuple[int, ...], dtype: np.dtype) -> str:
    return Type(tuple(shape), _element_type(dtype)).ir()


def _compute_type(dtype: np.dtype) -> np.dtype:
    """Where numpy computes ``dtype``'s arithmetic: float16 in float32."""
    return _F32 if dtype == _F16 else dtype


def _constant_text(value: Any, dtype: np.dtype) -> str:
    """``value`` converted to ``dtype`` as numpy converts it, as an MLIR
    attribute (floats by their bits, so nothing is rounded twice)."""
    try:
        scalar = np.array(value).astype(dtype)
    except (OverflowError, ValueError) as exc:
        raise _error(f"the constant {value!r} does not fit {dtype}: {exc}"
                     ) from None
    if dtype == _BOOL:
        return "true" if scalar else "false"
    if dtype.kind == "f":
        bits = scalar.view(f"u{dtype.itemsize}")
        return f"0x{int(bits):0{2 * dtype.itemsize}X}"
    return str(int(scalar))


def _constant_op(value: Any, dtype: np.dtype) -> str:
    """An ``arith.constant`` of ``value`` as a scalar of ``dtype``."""
    text = _constant_text(value, dtype)
    if dtype == _BOOL:  # true and false are typed already
        return f"arith.constant {text}"
    return f"arith.constant {text} : {_element_type(dtype)}"


def _is_scalar(value: Any) -> bool:
    return isinstance(value, (bool, int, float, np.generic)) or (
        isinstance(value, np.ndarray) and value.ndim == 0)


def _scalar_type(value: Any) -> Any:
    """What ``ufunc.resolve_dtypes`` takes for a scalar: Python ints and
    floats are weak (they take the array's type, NEP 50)."""
    if isinstance(value, (bool, np.bool_)):
        return _BOOL
    if isinstance(value, (np.generic, np.ndarray)):  # np.float64 is a float
        return value.dtype
    return type(value)
