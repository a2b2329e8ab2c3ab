"""Printing and assertions, at compile time and while the kernel runs."""

from __future__ import annotations

import ast

from kiln import semantics
from kiln import language as kl
from kiln.frontend.ir import Type, Value, string_literal
from kiln.frontend.ops.core import CoreOps


class DebugOps(CoreOps):

    def builtin_expect_zero(self, x, mask):
        x = self.materialize(x, None)
        self.builtin_device_assert(
            self.compare(ast.Eq(), x, 0), "kl.expect_zero: a value "
            "expected to be zero is not", mask)
        return x

    def builtin_static_print(self, *values, sep=" ", end="\n", file=None,
                             flush=False):
        print(*(f"{semantics.name(v.type.elem)}{list(v.type.shape)}"
                if isinstance(v, Value)
                else v for v in values), sep=sep, end=end, file=file,
              flush=flush)

    def builtin_static_assert(self, condition, message=""):
        if isinstance(condition, Value):
            raise self.error("kl.static_assert needs a constant condition")
        if not condition:
            raise self.error(f"static assertion failed: {message}"
                             if message else "static assertion failed")

    def builtin_device_print(self, prefix, *args, hex=False):
        if hex:
            raise self.error("kl.device_print(hex=True) is not supported by "
                             "Kiln yet")
        if not isinstance(prefix, str):
            raise self.error("kl.device_print takes a constant string prefix "
                             "first")
        values = [self.materialize(a, None) for a in args]
        for i, value in enumerate(values):
            if value.type.is_pointer:
                raise self.error(f"kl.device_print prints integers and "
                                 f"floats, but argument {i + 1} is "
                                 f"{value.type.ir()}")
            if value.type.elem == "ui64":
                raise self.error("kl.device_print of uint64 is not "
                                 "supported by Kiln yet (tile.print takes "
                                 "integers as signed); print it as int64")
        # tile.print takes integers as signed: narrower unsigned ones
        # print through int64, exactly.
        values = [self.cast(v, kl.int64) if v.type.is_unsigned and
                  v.type.elem != "i1" else v for v in values]
        shape = self.broadcast_shape(*(v.type.shape for v in values)) \
            if values else ()
        values = [self.broadcast_to(v, shape) for v in values]
        operands = ""
        if values:
            operands = (f", {', '.join(v.name for v in values)} : "
                        f"{', '.join(v.type.ir() for v in values)}")
        self.ir.emit(f"tile.print {string_literal(prefix)}{operands} "
                     f"{self.site.loc()}")

    def builtin_device_assert(self, condition, message="", mask=None):
        if not isinstance(message, str):
            raise self.error("kl.device_assert takes a constant string "
                             "message")
        condition = self.materialize(condition, Type((), "i1"))
        if condition.type.elem != "i1":
            raise self.error("kl.device_assert needs a boolean condition, "
                             f"not {condition.type.ir()}")
        if mask is not None:  # checked only where the mask holds
            condition = self.binary(ast.BitOr(), condition, self.compare(
                ast.Eq(), self.materialize(mask, Type((), "i1")), False))
        if not self.site.debug:
            return
        if not message:
            call = self.site.node
            message = ast.get_source_segment(
                self.site.source_text,
                call.args[0]) if isinstance(call, ast.Call) and call.args \
                else "device_assert"
        self.ir.emit(f"tile.assert {condition.name}, "
                     f"{string_literal(message)} : "
                     f"{condition.type.ir()} {self.site.loc()}")
