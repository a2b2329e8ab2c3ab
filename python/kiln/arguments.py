"""Packing a launch's arguments for the C API, shared by the host and GPU
targets: scalars by value, arrays by the address each target takes."""

from __future__ import annotations

import ctypes
from typing import Any, Callable, Sequence

import numpy as np

from kiln import language as kl
from kiln import semantics
from kiln.errors import KilnError
from kiln.frontend.ir import parse_type

#: numpy dtype of each scalar type a pointer may point to.
POINTEE_DTYPES = {d.ir: d.numpy for d in kl.DTYPES}


def holds(pointee: str, dtype: np.dtype) -> bool:
    """Whether an array of ``dtype`` may be passed for a pointer to the
    IR's ``pointee``: its type, or the unsigned type of its width (the
    IR is signless; the kernel's front end knew which it read)."""
    try:
        return semantics.signless(kl.from_numpy(dtype).ir) == pointee
    except KilnError:
        return False

#: ctypes type that carries a scalar argument of each type (f16 and bf16
#: as their bits).
SCALAR_CTYPES = {
    "i1": ctypes.c_bool, "i8": ctypes.c_int8, "i16": ctypes.c_int16,
    "i32": ctypes.c_int32, "i64": ctypes.c_int64, "f16": ctypes.c_uint16,
    "bf16": ctypes.c_uint16, "f32": ctypes.c_float, "f64": ctypes.c_double,
}

def scalar_value(where: str, type_text: str, value: Any) -> int | float:
    """The number that passes ``value`` as a scalar argument of type
    ``type_text`` (an f16's bits), checked to fit (``where`` names it in
    errors)."""
    if type_text not in SCALAR_CTYPES:
        raise KilnError(f"{where}: arguments of this type cannot be passed "
                        "yet")
    if isinstance(value, np.ndarray) or hasattr(
            value, "__cuda_array_interface__"):
        raise KilnError(f"{where} must be a scalar, not an array")
    if not isinstance(value, (bool, int, float, np.number, np.bool_)):
        raise KilnError(f"{where} must be a number, not "
                        f"{type(value).__name__}")
    if type_text in ("f16", "bf16"):
        return int(np.array(value, dtype=POINTEE_DTYPES[type_text])
                   .view(np.uint16))
    if type_text.startswith("f"):
        return float(value)
    bits = int(type_text[1:])
    if isinstance(value, (float, np.floating)) and not np.isfinite(value):
        raise KilnError(f"{where}: {value!r} does not fit in {type_text}")
    number = int(value)
    low, high = (0, 1) if bits == 1 else (-(1 << (bits - 1)),
                                          (1 << (bits - 1)) - 1)
    if number != value or not low <= number <= high:
        raise KilnError(f"{where}: {value!r} does not fit in {type_text}")
    return number


def pack_scalar(where: str, type_text: str, value: Any) -> ctypes._SimpleCData:
    """The ctypes value that passes the number ``value`` as a scalar
    argument of type ``type_text`` (see scalar_value)."""
    return SCALAR_CTYPES[type_text](scalar_value(where, type_text, value))


#: The largest grid size: launchers take sizes as i32 (the GPU's own limits
#: on y and z, 65535, are the driver's to report).
MAX_GRID = 2**31 - 1


def grid_sizes(grid: Any) -> tuple:
    """A launch's grid as a tuple of sizes: one size (a Python or numpy
    integer) or a sequence of them (checked by check_grid)."""
    return (grid,) if isinstance(grid, (int, np.integer)) else tuple(grid)


def check_grid(grid: Sequence[Any]) -> None:
    """Raises ``KilnError`` unless ``grid`` is 1 to 3 integers from 0 to
    MAX_GRID."""
    if not 1 <= len(grid) <= 3 or not all(
            isinstance(g, (int, np.integer)) and not isinstance(g, bool)
            and 0 <= g <= MAX_GRID for g in grid):
        raise KilnError(f"grid must be 1 to 3 integer sizes from 0 to "
                        f"2**31 - 1, not {tuple(grid)!r}")


def pack_launch(kernel: str, grid: Sequence[int], args: Sequence[Any],
                types: list[str],
                pack_pointer: Callable[[str, str, Any], ctypes._SimpleCData]
                ) -> tuple[Any, Any, list]:
    """Checks ``grid`` and the argument count of a launch of ``kernel``
    (argument types ``types``) and packs ``args``: scalars by value, pointers
    by ``pack_pointer(where, pointee, value)``. Returns the C array of
    argument pointers, the C grid, and the packed values, which must
    outlive the launch."""
    check_grid(grid)
    if len(args) != len(types):
        raise KilnError(f"'{kernel}' takes {len(types)} arguments "
                        f"({', '.join(types)}), but {len(args)} were given")
    values = []
    for i, (type_text, value) in enumerate(zip(types, args)):
        where = f"argument {i} of '{kernel}' ({type_text})"
        type_ = parse_type(type_text)
        values.append(pack_pointer(where, type_.pointee, value)
                      if type_.is_pointer else
                      pack_scalar(where, type_text, value))
    pointers = (ctypes.c_void_p * len(values))(
        *[ctypes.cast(ctypes.pointer(v), ctypes.c_void_p) for v in values])
    sizes = (ctypes.c_uint * 3)(*(list(map(int, grid)) + [1, 1])[:3])
    return pointers, sizes, values
