"""The language's typing rules, in one place for the compiler
(``codegen.py``) and the interpreter (``interpreter.py``), so the two
cannot disagree. They are Triton's (``triton.language.semantic``): a
kernel ported from Triton computes in the same types. Element types are
named by their MLIR spelling ("f16", "bf16", "i32", "i1", ...).
"""

from __future__ import annotations

import enum
import math
from typing import Any

_FLOATS = ("f16", "bf16", "f32", "f64")
_INT_BITS = {"i1": 1, "i8": 8, "i16": 16, "i32": 32, "i64": 64}


def _kind(elem: str) -> int:
    """bool < int < float, the order in which a Python number's kind
    decides whether it takes part in promotion."""
    if elem == "i1":
        return 0
    return 2 if elem in _FLOATS else 1


def python_number_type(value: Any) -> str:
    """The element type a Python number has when nothing else decides it:
    booleans i1, integers i32 (i64 where they do not fit), floats f32."""
    if isinstance(value, bool):
        return "i1"
    if isinstance(value, int):
        return "i32" if -2**31 <= value < 2**31 else "i64"
    return "f32"


def literal_type(value: Any) -> str:
    """The element type a Python number gets when a kernel assigns it to a
    name: Triton makes it a scalar tensor (``semantic.to_tensor``), so in
    arithmetic it is typed as a tile of this type, not as a number.
    Booleans are i1, integers i32 (i64 where they do not fit), floats f32
    (f64 where the magnitude is outside f32's normal range, as Triton
    decides). Raises ValueError where Triton's type would be unsigned,
    which Kiln lacks."""
    if isinstance(value, bool):
        return "i1"
    if isinstance(value, int):
        if -2**31 <= value < 2**31:
            return "i32"
        if -2**63 <= value < 2**63 and not 2**31 <= value < 2**32:
            return "i64"
        unsigned = "uint32" if 0 <= value < 2**32 else "uint64"
        if not 0 <= value < 2**64:
            raise ValueError(f"{value} fits no integer type")
        raise ValueError(f"an assigned {value} is a {unsigned} in Triton, "
                         "and Kiln has no unsigned types yet; write it as "
                         "the signed value of its bits, or cast it")
    magnitude = abs(value)
    if magnitude in (0.0, math.inf) or value != value or \
            2**-126 <= magnitude <= (2 - 2**-23) * 2**127:
        return "f32"
    return "f64"


def computation_type(a: str, a_is_number: bool, b: str, b_is_number: bool,
                     div_or_mod: bool = False) -> str:
    """The element type two operands of an arithmetic operator, a
    comparison, ``where`` or ``maximum`` meet in (Triton's
    ``computation_type_impl``). A Python number of a kind no higher than
    the tile's takes the tile's type; f16 beats bf16, and bf16 with
    anything but bf16 is f32; ``/`` and ``%`` on floats compute in f32
    (f64 where an operand is f64)."""
    if a_is_number != b_is_number:
        number, tile = (a, b) if a_is_number else (b, a)
        if _kind(number) <= _kind(tile):
            a = b = tile
    if "f64" in (a, b):
        return "f64"
    if div_or_mod and (a in _FLOATS or b in _FLOATS):
        return "f32"
    if "f32" in (a, b):
        return "f32"
    if "f16" in (a, b):
        return "f16"
    if a == b == "bf16":
        return "bf16"
    if "bf16" in (a, b):
        return "f32"
    # Both integers (Kiln's are signed): the wider.
    return a if _INT_BITS[a] > _INT_BITS[b] else b


def true_division_type(a: str, a_is_number: bool, b: str,
                       b_is_number: bool) -> str:
    """The type ``a / b`` computes in and returns: integers divide in
    f32, as do f16 and bf16."""
    elem = computation_type(a, a_is_number, b, b_is_number, True)
    return elem if elem in _FLOATS else "f32"


def extremum_reduction_type(elem: str) -> str:
    """The type ``max`` and ``min`` reduce in and return: floats narrower
    than 32 bits in f32, integers (and booleans) narrower in i32."""
    if elem in ("f16", "bf16"):
        return "f32"
    if elem in ("i1", "i8", "i16"):
        return "i32"
    return elem


class PropagateNan(enum.Enum):
    """How ``maximum``, ``minimum`` and ``clamp`` treat a NaN (Triton's
    ``tl.PropagateNan``): with NONE, the default, a NaN operand gives way
    to the other operand (IEEE maxNum); with ALL, a NaN wins."""

    NONE = 0x00000000
    ALL = 0xFFFF


def extremum_op(kind: str, elem: str, propagate_nan: PropagateNan) -> str:
    """The arith op of an elementwise ``kind`` ("max" or "min") on
    ``elem``: NaN-ignoring (``maxnumf``) or NaN-propagating
    (``maximumf``) on floats, unsigned on booleans (true > false), signed
    on other integers."""
    if elem in _FLOATS:
        return f"{kind}imumf" if propagate_nan is PropagateNan.ALL \
            else f"{kind}numf"
    return f"{kind}{'ui' if elem == 'i1' else 'si'}"
