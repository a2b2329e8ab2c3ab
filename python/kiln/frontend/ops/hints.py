"""What a kernel states to the compiler: ``multiple_of``, ``max_contiguous``,
``max_constancy``, ``assume``."""

from __future__ import annotations


from kiln import language as kl
from kiln.frontend.ir import Value
from kiln.frontend.ops.core import CoreOps


class HintOps(CoreOps):

    def assume(self, x, values, fact: str, hint: str) -> Value:
        """``x`` with ``fact`` (divisibility, contiguity or constancy)
        stated per dimension, as Triton's hints state it: one value for
        each dimension (a scalar has one)."""
        if not isinstance(x, Value):
            raise self.error(f"kl.{hint} takes a value of the kernel")
        if problem := kl.hint_problem(hint, len(x.type.shape), values):
            raise self.error(problem)
        if isinstance(values, kl.constexpr):
            values = values.value
        if not isinstance(values, (list, tuple)):
            values = [values]
        values = [v.value if isinstance(v, kl.constexpr) else v
                  for v in values]
        if not (x.type.is_pointer or x.type.is_int):
            return x  # accepted, as Triton does, and states nothing
        facts = ", ".join(map(str, values))
        assumed = self.op(f"tile.assume {x.name} {{{fact} = array<i64: "
                          f"{facts}>}} : {x.type.ir()}", x.type)
        # Triton states the fact on the value itself, so a hint whose
        # result is dropped (`tl.multiple_of(a_ptrs, [16, 16])` as a
        # statement, as tutorial 08 writes it) still holds: the names
        # holding the value hold the stated one from here on.
        for name, value in self.site.scope.items():
            if value is x or (isinstance(value, Value) and value == x):
                self.site.scope[name] = assumed
        return assumed

    def builtin_multiple_of(self, x, values):
        return self.assume(x, values, "divisibility", "multiple_of")

    def builtin_max_contiguous(self, x, values):
        return self.assume(x, values, "contiguity", "max_contiguous")

    def builtin_max_constancy(self, x, values):
        return self.assume(x, values, "constancy", "max_constancy")

    def builtin_assume(self, condition):
        if not isinstance(condition, Value) and not condition:
            raise self.error("kl.assume of a condition that is false")
