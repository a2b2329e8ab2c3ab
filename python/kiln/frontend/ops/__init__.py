"""The language's functions as IR: ``LanguageOps.builtin_<name>`` is
``kl.<name>``, bound to Triton's parameters by the walker. One module per
family, each a layer over ``core`` (values, casts, promotion, operators)."""

from __future__ import annotations

import functools
from typing import Callable

from kiln.frontend.ops.creation import CreationOps
from kiln.frontend.ops.debug import DebugOps
from kiln.frontend.ops.dot import DotOps
from kiln.frontend.ops.elementwise import UNARY_MATH, ElementwiseOps
from kiln.frontend.ops.hints import HintOps
from kiln.frontend.ops.memory import ATOMIC_KINDS, MemoryOps
from kiln.frontend.ops.random import RandomOps
from kiln.frontend.ops.reduction import ReductionOps
from kiln.frontend.ops.shape import ShapeOps
from kiln.frontend.ops.sort import SortOps


class LanguageOps(CreationOps, MemoryOps, ElementwiseOps, ReductionOps,
                  ShapeOps, SortOps, DotOps, RandomOps, HintOps, DebugOps):
    """Every function of the language, on one kernel's values."""

    def builtin(self, name: str) -> Callable:
        """What ``kl.<name>`` does (its ``__kiln_builtin__`` name)."""
        if name in UNARY_MATH:
            return functools.partial(self.unary_math, UNARY_MATH[name])
        if name in ATOMIC_KINDS:
            return functools.partial(self.atomic, ATOMIC_KINDS[name])
        return getattr(self, f"builtin_{name}")
