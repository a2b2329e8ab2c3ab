"""The language's typing rules, in one place for the compiler
(``kiln.frontend.ops``) and the interpreter (``interpreter.py``), so the two
cannot disagree. They are Triton's (``triton.language.semantic``): a
kernel ported from Triton computes in the same types. Element types are
named by their MLIR spelling ("f16", "bf16", "i32", "i1", ...); an
unsigned type by MLIR's unsigned spelling ("ui8" ... "ui64"), which the
IR itself writes signless (``signless``): the signedness lives in the
front end, which picks the unsigned ops (``divui``, ``cmpi ult``, ...).
"""

from __future__ import annotations

import enum
import math
import os
import re
from typing import Any

#: The 8-bit floats (Triton's float8e4nv, float8e5, float8e4b8 and
#: float8e5b16): storage and conversions; arithmetic computes in f32.
FLOAT8 = ("f8E4M3FN", "f8E5M2", "f8E4M3FNUZ", "f8E5M2FNUZ")
_FLOATS = FLOAT8 + ("f16", "bf16", "f32", "f64")
_INT_BITS = {"i1": 1, "i8": 8, "i16": 16, "i32": 32, "i64": 64,
             "ui8": 8, "ui16": 16, "ui32": 32, "ui64": 64}


def is_float8(elem: str) -> bool:
    return elem in FLOAT8


def is_unsigned(elem: str) -> bool:
    """Whether integers of ``elem`` compare, divide, shift and extend as
    unsigned: the unsigned types and, as in Triton, booleans."""
    return elem == "i1" or elem.startswith("ui")


#: An unsigned integer type in IR text, where a type may stand (first, or
#: after "<", a shape's "x", a space, "," or "(").
_UNSIGNED = re.compile(r"(?:(?<=[<x\s,(])|^)ui(\d+)\b")
#: A quoted string of IR text, which is left as it is.
_QUOTED = re.compile(r'("(?:[^"\\]|\\.)*")')


def signless(ir: str) -> str:
    """IR text (a type, or whole functions) with each unsigned integer
    type written as the signless type of its width, which the IR computes
    on; quoted strings (names, locations) are left as they are."""
    parts = _QUOTED.split(ir)
    parts[::2] = [_UNSIGNED.sub(r"i\1", part) for part in parts[::2]]
    return "".join(parts)


def _kind(elem: str) -> int:
    """bool < int < float, the order in which a Python number's kind
    decides whether it takes part in promotion."""
    if elem == "i1":
        return 0
    return 2 if elem in _FLOATS else 1


def python_number_type(value: Any) -> str:
    """The element type of a Python number (Triton's ``to_tensor_type``):
    booleans i1; integers i32, ui32 in [2**31, 2**32), i64, ui64 in
    [2**63, 2**64); floats f32, f64 where the magnitude is outside f32's
    normal range (1e-50 and 1e39 are f64, 0, infinities and NaN f32). A
    number assigned to a name is a scalar tensor of this type. Raises
    ValueError for an integer no type holds."""
    if isinstance(value, bool):
        return "i1"
    if isinstance(value, int):
        if -2**31 <= value < 2**31:
            return "i32"
        if 2**31 <= value < 2**32:
            return "ui32"
        if -2**63 <= value < 2**63:
            return "i64"
        if 2**63 <= value < 2**64:
            return "ui64"
        raise ValueError(f"{value} fits no integer type")
    magnitude = abs(value)
    if magnitude in (0.0, math.inf) or value != value or \
            2**-126 <= magnitude <= (2 - 2**-23) * 2**127:
        return "f32"
    return "f64"


def integer_constant(value: int, elem: str) -> int:
    """``value`` as a constant of the integer type ``elem``: the signed
    value of its bits, as the signless IR spells it. It must fit, and a
    negative number does not meet an unsigned type (Triton refuses it);
    ValueError says why."""
    bits = _INT_BITS[elem]
    if value < 0 and is_unsigned(elem) and elem != "i1":
        raise ValueError(f"the negative number {value} meets an unsigned "
                         f"{name(elem)} (Triton refuses it too); cast one "
                         "of them")
    low = -(1 << (bits - 1))
    high = (1 << bits) if is_unsigned(elem) else -low
    if not low <= value < high:
        raise ValueError(f"{value} does not fit in {name(elem)}")
    return value - (1 << bits) if value >= -low else value


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
    if is_float8(a) and is_float8(b):  # two 8-bit formats meet in f16
        return a if a == b else "f16"
    if is_float8(a) or is_float8(b):
        raise ValueError(f"{name(a)} and {name(b)} have no common type "
                         "(Triton refuses them too); convert one with .to()")
    return integer_promotion(a, b, div_or_mod)


def arange_problem(start: int, end: int) -> str | None:
    """Why ``arange(start, end)`` is refused, as Triton refuses it, or
    None: tiles have power-of-two sizes (the GPU's layouts and reductions
    need them), so the range must be one."""
    if end <= start:
        return f"kl.arange({start}, {end}) is empty"
    if start < 0 or end >= 2**31:
        return (f"kl.arange({start}, {end}): its values are int32 from 0, "
                f"so start >= 0 and end < 2**31, as in Triton (add an "
                f"offset to the range instead)")
    size = end - start
    if size & (size - 1):
        return (f"kl.arange({start}, {end}) has {size} elements; its range "
                f"must be a power of two, as in Triton (take the next one, "
                f"{1 << size.bit_length()}, and mask the rest)")
    return None


def tile_shape_problem(what: str, shape: Any) -> str | None:
    """Why ``what`` (``kl.zeros``, ``kl.reshape``...) refuses to make a
    tile of ``shape``, as Triton's block types refuse it, or None: every
    dimension a power of two."""
    shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    if all(isinstance(d, int) and d > 0 and not d & (d - 1) for d in shape):
        return None
    return (f"{what}: a tile's dimensions are powers of two, as in Triton, "
            f"not {list(shape)}")


def default_transpose(rank: int) -> tuple[int, ...] | None:
    """The permutation of ``kl.trans`` without one, as Triton's: the last
    two dimensions swapped (a batched 2-D transpose); None below rank 2.

    >>> default_transpose(2), default_transpose(3), default_transpose(1)
    ((1, 0), (0, 2, 1), None)
    """
    if rank < 2:
        return None
    return tuple(range(rank - 2)) + (rank - 1, rank - 2)


def integer_promotion(a: str, b: str, div_or_mod: bool = False) -> str:
    """The type two integer types meet in, by C's usual arithmetic
    conversions as Triton applies them: the wider of one signedness; of
    mixed signedness the unsigned one unless the signed one is wider
    (booleans count as unsigned). Raises ValueError for ``/``, ``//`` or
    ``%`` of mixed signedness, which Triton refuses."""
    if div_or_mod and is_unsigned(a) != is_unsigned(b):
        raise ValueError(
            f"/, // and % of {name(a)} and {name(b)} mix signedness, "
            "which gives no useful answer (Triton refuses it too); cast "
            "them to one signedness")
    if is_unsigned(a) == is_unsigned(b):
        return a if _INT_BITS[a] > _INT_BITS[b] else b
    unsigned, signed = (a, b) if is_unsigned(a) else (b, a)
    return unsigned if _INT_BITS[unsigned] >= _INT_BITS[signed] else signed


def name(elem: str) -> str:
    """The language's name of ``elem`` (``int32``, ``uint8``,
    ``float16``...), for messages."""
    names = {"i1": "int1", "f16": "float16", "bf16": "bfloat16",
             "f32": "float32", "f64": "float64", "f8E4M3FN": "float8e4nv",
             "f8E5M2": "float8e5", "f8E4M3FNUZ": "float8e4b8",
             "f8E5M2FNUZ": "float8e5b16"}
    if elem in names:
        return names[elem]
    return f"{'uint' if elem.startswith('ui') else 'int'}{_INT_BITS[elem]}" \
        if elem in _INT_BITS else elem


def true_division_type(a: str, a_is_number: bool, b: str,
                       b_is_number: bool) -> str:
    """The type ``a / b`` computes in and returns: integers divide in
    f32, as do f16 and bf16."""
    elem = computation_type(a, a_is_number, b, b_is_number, True)
    return elem if elem in _FLOATS else "f32"


def extremum_reduction_type(elem: str) -> str:
    """The type ``max`` and ``min`` reduce in and return: floats narrower
    than 32 bits in f32, integers (and booleans) narrower in i32."""
    if elem in ("f16", "bf16") or is_float8(elem):
        return "f32"
    if elem in ("i1", "i8", "i16", "ui8", "ui16"):
        return "i32"
    return elem


def sum_type(elem: str) -> str:
    """The type ``sum`` and ``cumsum`` accumulate in by default (Triton's
    ``_pick_sum_dtype``): integers narrower than 32 bits in the 32-bit
    type of their signedness (booleans in ui32), others in their own."""
    if elem in ("i1", "ui8", "ui16"):
        return "ui32"
    if elem in ("i8", "i16"):
        return "i32"
    return elem


class PropagateNan(enum.Enum):
    """How ``maximum``, ``minimum`` and ``clamp`` treat a NaN (Triton's
    ``tl.PropagateNan``): with NONE, the default, a NaN operand gives way
    to the other operand (IEEE maxNum); with ALL, a NaN wins."""

    NONE = 0x00000000
    ALL = 0xFFFF


def is_xorsign_clamp(low: Any, high: Any, elem: str,
                     propagate_nan: PropagateNan) -> bool:
    """Whether ``clamp(x, low, high)`` of ``elem`` is the pattern Triton's
    GPU code computes with PTX's ``min.xorsign.abs`` (constant bounds
    ``-C`` and ``C``, float32 or float16, NaNs not propagated): a NaN
    ``x`` then gives ``C`` with the NaN's sign, not ``-C``."""
    return (propagate_nan is PropagateNan.NONE and elem in ("f32", "f16")
            and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                    for v in (low, high))
            and high > 0 and low == -high)


def extremum_op(kind: str, elem: str, propagate_nan: PropagateNan) -> str:
    """The arith op of an elementwise ``kind`` ("max" or "min") on
    ``elem``: NaN-ignoring (``maxnumf``) or NaN-propagating
    (``maximumf``) on floats, unsigned on unsigned integers and booleans
    (true > false), signed on the others."""
    if elem in _FLOATS:
        return f"{kind}imumf" if propagate_nan is PropagateNan.ALL \
            else f"{kind}numf"
    return f"{kind}{'ui' if is_unsigned(elem) else 'si'}"


def tuple_elements_mapped(function: Any, value: tuple) -> tuple:
    """A tuple argument with ``function`` applied to each element and its
    index, of the tuple's own type (a named tuple stays one, as Triton
    passes it)."""
    parts = [function(element, k) for k, element in enumerate(value)]
    return type(value)(*parts) if hasattr(type(value), "_fields") \
        else tuple(parts)


def dot_type(operand: str, out: str | None) -> str:
    """The element type of ``dot`` of ``operand`` tiles with no
    accumulator, ``out`` its ``out_dtype`` (None: not given), as Triton's
    ``semantic.dot`` types it: int32 of integers, float32 of float32 and
    bfloat16, float64 of float64, whatever ``out_dtype`` asks; float16 and
    8-bit floats take ``out_dtype``, float32 by default."""
    if _kind(operand) == 1:
        return "i32"
    if operand in ("f32", "bf16", "f64"):
        return "f64" if operand == "f64" else "f32"
    return out or "f32"


#: The input precisions of a float32 dot Kiln takes.
DOT_PRECISIONS = ("ieee", "tf32", "tf32x3")

#: ``dot_scaled``'s operand formats and the element type each is read as
#: (``e2m1``: two 4-bit floats packed in a uint8, the first in the low
#: bits), and the integer type the others may come bitcast as.
SCALED_FORMATS = {"e2m1": "ui8", "e4m3": "f8E4M3FN", "e5m2": "f8E5M2",
                  "bf16": "bf16", "fp16": "f16"}
SCALED_FORMAT_BITS = {"e4m3": "ui8", "e5m2": "ui8", "bf16": "ui16",
                      "fp16": "ui16"}
#: An e2m1 float of each 3-bit magnitude code.
E2M1_MAGNITUDES = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0)


def dot_scaled_compute_type(lhs_format: str, rhs_format: str) -> str:
    """What ``dot_scaled`` multiplies in, as Triton emulates microscaling
    where the tensor cores have none: float16 where an operand is fp16,
    else bfloat16."""
    return "f16" if "fp16" in (lhs_format, rhs_format) else "bf16"


def dot_precision(operand: str, input_precision: Any,
                  allow_tf32: Any) -> str | None:
    """The input precision of ``dot`` of ``operand`` tiles, as Triton's
    ``semantic.dot`` takes it: ``allow_tf32`` its older spelling, the name
    in any case, Triton's default where none is given (its
    TRITON_F32_DEFAULT where set, else "tf32"); None for operands other
    than float32, whose products it does not change. Raises ValueError
    naming what is wrong."""
    if allow_tf32 is not None:
        if input_precision is not None:
            raise ValueError("kl.dot takes input_precision or allow_tf32, "
                             "not both")
        input_precision = "tf32" if allow_tf32 else "ieee"
    if input_precision is None:
        input_precision = os.environ.get("TRITON_F32_DEFAULT", "") or "tf32"
        if input_precision.lower() not in DOT_PRECISIONS:
            raise ValueError(f"TRITON_F32_DEFAULT is 'ieee', 'tf32' or "
                             f"'tf32x3', not {input_precision!r}")
    if not isinstance(input_precision, str) or \
            input_precision.lower() not in DOT_PRECISIONS:
        raise ValueError(f"input_precision is 'ieee', 'tf32' or 'tf32x3', "
                         f"not {input_precision!r}")
    return input_precision.lower() if operand == "f32" else None


def dot_out_problem(operand: str, out: str | None) -> str | None:
    """Why ``dot`` of ``operand`` tiles refuses ``out_dtype`` ``out``, as
    Triton refuses it (bfloat16 for floats) or cannot compile it (a type
    other than float16 and float32 for float16 and 8-bit floats), or
    None."""
    if out is None or _kind(operand) == 1:
        return None
    if out == "bf16":
        return ("dot: out_dtype=bfloat16 is not supported, as in Triton; "
                "pass float32 (or float16) and cast the result with "
                ".to(bfloat16)")
    if operand not in ("f32", "bf16", "f64") and out not in ("f16", "f32"):
        return (f"dot: {name(operand)} tiles accumulate in float32 or "
                f"float16, not {name(out)}")
    return None
