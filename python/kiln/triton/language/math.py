"""``triton.language.math`` over Kiln: the math functions Kiln has, as the
same objects as ``kiln.language``'s (``tl.math.exp is tl.exp``)."""

from __future__ import annotations

from kiln.language import (abs, ceil, cos, div_rn, erf, exp, exp2, fdiv,
                           floor, fma, log, log2, rsqrt, sin, sqrt, sqrt_rn,
                           umulhi)
from kiln.errors import lookup_error

#: The names of Triton 3's ``triton.language.math``.
TRITON_NAMES = frozenset({
    "abs", "ceil", "cos", "div_rn", "erf", "exp", "exp2", "fdiv", "floor",
    "fma", "log", "log2", "rsqrt", "sin", "sqrt", "sqrt_rn", "umulhi"})

__all__ = sorted(TRITON_NAMES)


def __getattr__(name: str):
    raise lookup_error(__name__, "tl.math", name, TRITON_NAMES)
