"""The program's coordinates and new tiles: ``program_id``, ``num_programs``,
``arange``, ``zeros``, ``full`` and their ``_like`` forms."""

from __future__ import annotations

from typing import Any

from kiln import semantics
from kiln import language as kl
from kiln.frontend.ir import Type, Value
from kiln.frontend.ops.core import CoreOps


class CreationOps(CoreOps):

    def builtin_program_id(self, axis):
        return self.grid_query("program_id", axis)

    def builtin_num_programs(self, axis):
        return self.grid_query("num_programs", axis)

    def grid_query(self, op: str, axis: Any) -> Value:
        if axis not in (0, 1, 2):
            raise self.error(f"axis must be 0, 1 or 2, not {axis!r}")
        return self.op(f"tile.{op} {'xyz'[axis]}", Type((), "i32"))

    def builtin_arange(self, start, end):
        if not all(isinstance(v, int) for v in (start, end)):
            raise self.error("kl.arange needs constant bounds (use "
                             "kl.constexpr parameters)")
        problem = semantics.arange_problem(start, end)
        if problem:
            raise self.error(problem)
        type_ = Type((end - start,), "i32")
        return self.op(f"tile.range {start} to {end} : {type_.ir()}", type_)

    def builtin_zeros(self, shape, dtype):
        self.check_tile_shape("kl.zeros", shape)
        return self.constant_tile(shape, 0, self.dtype_of(dtype))

    def builtin_full(self, shape, value, dtype):
        self.check_tile_shape("kl.full", shape)
        return self.constant_tile(shape, value, self.dtype_of(dtype))

    def builtin_zeros_like(self, x):
        x = self.like(x, "zeros_like")
        return self.constant_tile(x.type.shape, 0, kl.BY_IR[x.type.elem])

    def builtin_full_like(self, x, value):
        x = self.like(x, "full_like")
        return self.constant_tile(x.type.shape, value, kl.BY_IR[x.type.elem])

    def builtin_to_tensor(self, x):
        return self.materialize(x, None)
