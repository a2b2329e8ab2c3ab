"""The language's elementwise functions: casts, ``where``, ``minimum`` /
``maximum``, math (``math`` ops and libdevice), division and rounding."""

from __future__ import annotations

import ast
import math
from typing import Any

from kiln import semantics
from kiln import language as kl
from kiln.errors import KilnError
from kiln.extra import libdevice
from kiln.frontend.ir import (Type, Value, bit_width, results_head,
                              string_literal)
from kiln.frontend.ops.core import CoreOps


#: The math ops whose float32 form Triton approximates on the GPU (the
#: `afn` flag; kiln-approximate-math-to-nvvm and libdevice lower them).
_APPROXIMATE_MATH = ("math.exp", "math.sqrt")


# kl functions that are one `math` op on a float tile.
UNARY_MATH = {name: f"math.{name}" for name in (
    "exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos", "tanh",
    "erf", "floor", "ceil")}


class ElementwiseOps(CoreOps):

    def builtin_cast(self, x, dtype, fp_downcast_rounding=None,
                     bitcast=False):
        return self.method_to(self.materialize(x, None), dtype,
                              fp_downcast_rounding, bitcast)

    def builtin_where(self, condition, x, y):
        condition = self.materialize(condition, Type((), "i1"))
        if condition.type.elem != "i1":
            # As Triton, which deprecates it: the condition is `c != 0`.
            self.remark(f"kl.where with a condition of "
                        f"{kl.BY_IR[condition.type.elem].name}, not "
                        f"booleans, takes it as `!= 0` (Triton deprecates "
                        f"it)")
            condition = self.cast(condition, kl.int1)
        # Two Python numbers meet in one type, as Triton's (0.1 and 1e300:
        # float64).
        x, y = self.unify(x, y)
        shape = self.broadcast_shape(condition.type.shape, x.type.shape)
        condition = self.broadcast_to(condition, shape)
        x, y = self.broadcast_to(x, shape), self.broadcast_to(y, shape)
        types = (f"{condition.type.ir()}, {x.type.ir()}" if shape
                 else x.type.ir())
        return self.op(f"arith.select {condition.name}, {x.name}, {y.name} : "
                       f"{types}", x.type)

    def builtin_minimum(self, x, y, propagate_nan=semantics.PropagateNan.NONE):
        return self.minmax(x, y, "min", propagate_nan)

    def builtin_maximum(self, x, y, propagate_nan=semantics.PropagateNan.NONE):
        return self.minmax(x, y, "max", propagate_nan)

    def unary_math(self, op: str, x, exact: bool = False) -> Value:
        """``op`` on a float tile (integers in f32); float32 ``exp`` and
        ``sqrt`` approximate on the GPU as Triton's do, unless ``exact``
        (``sqrt_rn``)."""
        x = self.materialize(x, None)
        if semantics.is_float8(x.type.elem):
            return self.in_f32(x.type.elem, lambda: self.unary_math(
                op, self.cast(x, kl.float32), exact))
        if not x.type.is_float:
            x = self.cast(x, kl.float32)
        # Triton's float32 exp and sqrt approximate on the GPU.
        flags = " fastmath<afn>" if op in _APPROXIMATE_MATH and \
            x.type.elem == "f32" and not exact else ""
        return self.op(f"{op} {x.name}{flags} : {x.type.ir()}", x.type)

    def libdevice(self, name: str, args: list) -> Value:
        """``libdevice.<name>(*args)`` (kiln.extra.libdevice): the operands
        typed as Triton's ``extern_elementwise`` types them (a Python
        number is a scalar tensor), broadcast to one shape, and one of the
        function's overloads exactly."""
        values = [self.materialize(self.assigned(a), None) for a in args]
        if any(v.type.is_pointer or v.type.is_block_pointer for v in values):
            raise self.error(f"libdevice.{name} takes numbers, not pointers")
        shape = self.broadcast_shape(*(v.type.shape for v in values))
        values = [self.broadcast_to(v, shape) for v in values]
        try:
            result = libdevice.result_type(name, tuple(v.type.elem
                                                       for v in values))
        except KilnError as exc:
            raise self.error(str(exc)) from None
        kind, _, modifier = libdevice.FUNCTIONS[name].kind.partition(" ")
        x, type_ = values[0], values[0].type
        names = ", ".join(v.name for v in values)

        def constant(value: Any, elem: str) -> Value:
            return self.constant_tile(shape, value, kl.BY_IR[elem])

        def predicate(flag: Value) -> Value:
            return self.op(f"arith.extui {flag.name} : {flag.type.ir()} to "
                           f"{flag.type.with_elem('i32').ir()}",
                           flag.type.with_elem("i32"))

        if kind == "extern":
            call = libdevice.EXTERNS[name][tuple(v.type.elem for v in values)]
            host = f" host {string_literal(call.host_symbol)}" \
                if call.host_symbol else ""
            target = type_.with_elem(result)
            return self.op(
                f"tile.extern_elementwise {string_literal(call.gpu_symbol)}"
                f"{host} pure {names} : "
                f"({', '.join(v.type.ir() for v in values)}) -> "
                f"{target.ir()}", target)
        if kind.startswith(("math.", "arith.")):
            fastmath = " fastmath<afn>" if modifier == "afn" else ""
            return self.op(f"{kind} {names}{fastmath} : {type_.ir()}", type_)
        if kind == "pow" and values[1].type.elem == "i32":
            return self.op(f"math.fpowi {names} : {type_.ir()}, "
                           f"{values[1].type.ir()}", type_)
        if kind == "pow":
            return self.op(f"math.powf {names} : {type_.ir()}", type_)
        if kind == "exp10":
            ten = constant(10.0, type_.elem)
            fastmath = " fastmath<afn>" if modifier == "afn" else ""
            return self.op(f"math.powf {ten.name}, {x.name}{fastmath} : "
                           f"{type_.ir()}", type_)
        if kind == "abs":
            op = "math.absf" if type_.is_float else "math.absi"
            return self.op(f"{op} {x.name} : {type_.ir()}", type_)
        if kind == "reciprocal":
            one = constant(1.0, type_.elem)
            return self.op(f"arith.divf {one.name}, {x.name} : {type_.ir()}",
                           type_)
        if kind == "saturate":  # a NaN gives 0, as maxnum lets it
            low = self.op(f"arith.maxnumf {x.name}, "
                          f"{constant(0.0, type_.elem).name} : {type_.ir()}",
                          type_)
            return self.op(f"arith.minnumf {low.name}, "
                           f"{constant(1.0, type_.elem).name} : "
                           f"{type_.ir()}", type_)
        if kind == "predicate":
            # As comparisons: NaN is unordered with itself; |x| is inf, or
            # ordered and not inf.
            flags = type_.with_elem("i1")
            if modifier == "isnan":
                return predicate(self.op(f"arith.cmpf uno, {x.name}, "
                                         f"{x.name} : {type_.ir()}", flags))
            magnitude = self.op(f"math.absf {x.name} : {type_.ir()}", type_)
            infinity = constant(math.inf, type_.elem)
            compare = "oeq" if modifier == "isinf" else "one"
            return predicate(self.op(
                f"arith.cmpf {compare}, {magnitude.name}, {infinity.name} : "
                f"{type_.ir()}", flags))
        if kind == "signbit":
            bits = "i32" if type_.elem == "f32" else "i64"
            word = self.op(
                f"arith.bitcast {x.name} : {type_.ir()} to "
                f"{type_.with_elem(bits).ir()}", type_.with_elem(bits))
            return predicate(self.op(
                f"arith.cmpi slt, {word.name}, {constant(0, bits).name} : "
                f"{word.type.ir()}", type_.with_elem("i1")))
        if kind == "count":
            count = self.op(f"{modifier} {x.name} : {type_.ir()}", type_)
            return self.cast(count, kl.int32)
        if kind == "mulhi":
            return self.high_product(
                "arith.mului_extended" if type_.is_unsigned
                else "arith.mulsi_extended", *values)
        if kind == "to_int":
            return self.rounded_to_int(x, result, modifier)
        if kind == "int_to_float":
            return self.cast(x, kl.BY_IR[result])
        cast = {"truncf": "arith.truncf", "bitcast": "arith.bitcast"}[kind]
        target = type_.with_elem(result)
        return self.op(f"{cast} {x.name} : {type_.ir()} to {target.ir()}",
                       target)

    def rounded_to_int(self, x: Value, elem: str, mode: str) -> Value:
        """``x`` rounded (``mode``: rn to nearest even, rz toward zero, rd
        down, ru up, away: half away from zero; ``unsigned`` after it for
        an unsigned result, whose bits ``elem`` holds), saturated to the
        result's range and with NaN as 0, as PTX's cvt converts."""
        rounding, _, unsigned = mode.partition(" ")
        op = {"rn": "math.roundeven", "rd": "math.floor", "ru": "math.ceil",
              "away": "math.round", "rz": None}[rounding]
        if op is not None:
            x = self.op(f"{op} {x.name} : {x.type.ir()}", x.type)
        bits = bit_width(elem)
        low, high = (0, 2**bits - 1) if unsigned else (-2**(bits - 1),
                                                       2**(bits - 1) - 1)
        shape, target = x.type.shape, x.type.with_elem(elem)
        convert = "arith.fptoui" if unsigned else "arith.fptosi"
        value = self.op(f"{convert} {x.name} : {x.type.ir()} to "
                        f"{target.ir()}", target)
        flags = x.type.with_elem("i1")

        def float_constant(v: float) -> Value:
            return self.constant_tile(shape, v, kl.BY_IR[x.type.elem])

        def int_constant(v: int) -> Value:
            # The unsigned bound as the bits of the signed type.
            return self.constant_tile(shape, v - (2**bits if v >= 2**(
                bits - 1) else 0), kl.BY_IR[elem])

        for predicate, bound, replacement in (
                ("oge", float(high + 1), high), ("olt", float(low), low),
                ("uno", None, 0)):
            other = x if bound is None else float_constant(bound)
            flag = self.op(f"arith.cmpf {predicate}, {x.name}, {other.name} "
                           f": {x.type.ir()}", flags)
            value = self.op(f"arith.select {flag.name}, "
                            f"{int_constant(replacement).name}, "
                            f"{value.name} : {flags.ir()}, {target.ir()}"
                            if shape else
                            f"arith.select {flag.name}, "
                            f"{int_constant(replacement).name}, "
                            f"{value.name} : {target.ir()}", target)
        return value

    def builtin_sigmoid(self, x):
        x = self.materialize(x, None)
        if not x.type.is_float:
            x = self.cast(x, kl.float32)
        negative = self.op(f"arith.negf {x.name} : {x.type.ir()}", x.type)
        e = self.unary_math("math.exp", negative)
        return self.binary(ast.Div(), 1.0, self.binary(ast.Add(), 1.0, e))

    def builtin_abs(self, x):
        x = self.materialize(x, None)
        if x.type.is_unsigned:
            return x
        if semantics.is_float8(x.type.elem):
            return self.in_f32(x.type.elem, lambda: self.builtin_abs(
                self.cast(x, kl.float32)))
        op = "math.absf" if x.type.is_float else "math.absi"
        return self.op(f"{op} {x.name} : {x.type.ir()}", x.type)

    def builtin_fma(self, x, y, z):
        x, y = self.unify(x, y)
        x, z = self.unify(x, z)
        x, y = self.unify(x, y)
        if not x.type.is_float:
            raise self.error("kl.fma needs floats")
        if semantics.is_float8(x.type.elem):
            return self.in_f32(x.type.elem, lambda: self.builtin_fma(
                *(self.cast(v, kl.float32) for v in (x, y, z))))
        return self.op(f"math.fma {x.name}, {y.name}, {z.name} : "
                       f"{x.type.ir()}", x.type)

    def trip_count(self, lower: Value, upper: Value, step: Value) -> Value:
        """How many times ``range(lower, upper, step)`` runs, as Python
        counts (none for a step of 0, where Python raises), an i64 (an i32
        range's distance overflows i32)."""
        lower, upper, step = (self.cast(v, kl.int64)
                              for v in (lower, upper, step))
        up = self.compare(ast.Gt(), step, 0)
        distance = self.builtin_where(up, self.binary(ast.Sub(), upper, lower),
                                      self.binary(ast.Sub(), lower, upper))
        magnitude = self.builtin_maximum(
            self.builtin_where(up, step, self.binary(ast.Sub(), 0, step)), 1)
        trips = self.builtin_maximum(self.builtin_cdiv(distance, magnitude), 0)
        return self.builtin_where(self.compare(ast.Eq(), step, 0), 0, trips)

    def builtin_cdiv(self, x, y):
        if not isinstance(x, Value) and not isinstance(y, Value):
            # As Triton's @jit cdiv computes constexprs: in Python, whose
            # // floors (a run-time // truncates toward zero).
            if y == 0:
                raise self.error("kl.cdiv of compile-time values divides by "
                                 "zero")
            return (x + y - 1) // y
        return self.binary(ast.FloorDiv(), self.binary(
            ast.Sub(), self.binary(ast.Add(), x, y), 1), y)

    def logical(self, name: str, op: ast.operator, input, other) -> Value:
        a, b = (self.materialize(self.assigned(v), None)
                for v in (input, other))
        if a.type.elem != "i1" or b.type.elem != "i1":
            raise self.error(f"kl.{name} takes booleans, not {a.type.elem} "
                             f"and {b.type.elem}")
        return self.binary(op, a, b)

    def builtin_logical_and(self, input, other):
        return self.logical("logical_and", ast.BitAnd(), input, other)

    def builtin_logical_or(self, input, other):
        return self.logical("logical_or", ast.BitOr(), input, other)

    def builtin_clamp(self, x, min, max,
                      propagate_nan=semantics.PropagateNan.NONE):
        clamped = self.minmax(self.minmax(x, min, "max", propagate_nan), max,
                              "min", propagate_nan)
        low, high = (v.value if isinstance(v, kl.constexpr) else v
                     for v in (min, max))
        if isinstance(propagate_nan, kl.constexpr):
            propagate_nan = propagate_nan.value
        if not semantics.is_xorsign_clamp(low, high, clamped.type.elem,
                                          propagate_nan):
            return clamped
        # Triton's min.xorsign.abs: a NaN gives `high` with its sign.
        x = self.cast(self.materialize(x, clamped.type), kl.BY_IR[
            clamped.type.elem])
        x = self.broadcast_to(x, clamped.type.shape)
        bits = kl.BY_IR[f"i{bit_width(clamped.type.elem)}"]
        sign = self.binary(ast.BitAnd(), self.method_to(x, bits, bitcast=True),
                           -1 << (bit_width(clamped.type.elem) - 1))
        bound = self.method_to(self.materialize(high, clamped.type), bits,
                               bitcast=True)
        signed = self.method_to(self.binary(ast.BitOr(), bound, sign),
                                kl.BY_IR[clamped.type.elem], bitcast=True)
        return self.builtin_where(self.compare(ast.NotEq(), x, x), signed,
                                  clamped)

    def builtin_add(self, x, y, sanitize_overflow=True):
        return self.binary(ast.Add(), x, y)

    def builtin_sub(self, x, y, sanitize_overflow=True):
        return self.binary(ast.Sub(), x, y)

    def builtin_mul(self, x, y, sanitize_overflow=True):
        return self.binary(ast.Mult(), x, y)

    def builtin_fdiv(self, x, y, ieee_rounding=False, approx=False):
        if ieee_rounding and approx:
            raise self.error("kl.fdiv: approx and ieee_rounding cannot both "
                             "be True")
        if not isinstance(x, Value) and not isinstance(y, Value):
            x = self.materialize(x, None)
        a, b = self.unify(x, y, division=True)
        if not a.type.is_float:
            raise self.error("kl.fdiv divides floats, not "
                             f"{a.type.elem}")
        if approx and a.type.elem != "f32":
            raise self.error(f"kl.fdiv(approx=True) divides float32, not "
                             f"{a.type.elem}")
        return self.divide(a, b, "ieee" if ieee_rounding else
                           "approx" if approx else "full")

    def builtin_map_elementwise(self, scalar_fn, *args, pack=1):
        pack = pack.value if isinstance(pack, kl.constexpr) else pack
        if not isinstance(pack, int) or isinstance(pack, bool) or pack < 1:
            raise self.error(f"kl.map_elementwise: pack must be a constant "
                             f"int of at least 1, not {pack!r}")
        if not getattr(scalar_fn, "__kiln_jit__", False):
            raise self.error("kl.map_elementwise maps a @kiln.jit function, "
                             f"not {scalar_fn!r}")
        if not args:
            raise self.error("kl.map_elementwise maps over at least one "
                             "tile")
        values = [self.materialize(v, None) for v in args]
        shape = self.broadcast_shape(*(v.type.shape for v in values))
        values = [self.broadcast_to(v, shape) for v in values]
        name = self.ir.fresh()
        # Element j of the group from operand i is parameter i * pack + j.
        scalars = [Value(f"{name}_a{i * pack + j}", Type((), v.type.elem))
                   for i, v in enumerate(values) for j in range(pack)]
        with self.ir.region() as region:
            returned = self.site.inline(scalar_fn, scalars, {})
            single = not isinstance(returned, tuple)
            returned = [returned] if single else list(returned)
            if not returned or len(returned) % pack:
                raise self.error(f"kl.map_elementwise: {scalar_fn.__name__} "
                                 f"returns {len(returned)} values, not a "
                                 f"positive multiple of pack ({pack})")
            returned = [self.materialize(r, None) for r in returned]
            if any(r.type.shape for r in returned):
                raise self.error(f"kl.map_elementwise: {scalar_fn.__name__} "
                                 "returns tiles; it maps scalars to scalars")
            # pack elements of each result, result-major.
            elems = [r.type.elem for r in returned[::pack]]
            if any(r.type.elem != elems[k // pack]
                   for k, r in enumerate(returned)):
                raise self.error(f"kl.map_elementwise: the {pack} elements "
                                 f"of a result {scalar_fn.__name__} returns "
                                 "differ in type")
            self.ir.emit(f"tile.yield {', '.join(r.name for r in returned)}"
                         f" : {', '.join(r.type.elem for r in returned)}")
        results = [Type(shape, elem) for elem in elems]
        packed = f" pack = {pack}" if pack != 1 else ""
        self.ir.emit(
            f"{results_head(name, len(results))}tile.map_elementwise "
            f"{', '.join(v.name for v in values)}{packed} : "
            f"({', '.join(v.type.ir() for v in values)}) -> "
            f"({', '.join(r.ir() for r in results)}) {{")
        self.ir.emit("^bb0(" + ", ".join(f"{s.name}: {s.type.elem}"
                                         for s in scalars) + "):")
        self.ir.lines.extend(region)
        self.ir.emit(f"}} {self.site.loc()}")
        if len(results) == 1:
            return Value(name, results[0]) if single else \
                (Value(name, results[0]),)
        return tuple(Value(f"{name}#{i}", r) for i, r in enumerate(results))

    def builtin_inline_asm_elementwise(self, asm, constraints, args, dtype,
                                       is_pure, pack):
        asm, constraints, is_pure, pack = (
            v.value if isinstance(v, kl.constexpr) else v
            for v in (asm, constraints, is_pure, pack))
        for name, value, kind in (("asm", asm, str),
                                  ("constraints", constraints, str),
                                  ("is_pure", is_pure, bool),
                                  ("pack", pack, int)):
            if not isinstance(value, kind) or (kind is int and (
                    isinstance(value, bool) or value < 1)):
                raise self.error(f"kl.inline_asm_elementwise: {name} must be "
                                 f"a constant {kind.__name__}"
                                 f"{' of at least 1' if kind is int else ''}"
                                 f", not {value!r}")
        if not isinstance(args, (tuple, list)):
            args = (args,)
        values = [self.materialize(v, None) for v in args]
        if any(v.type.is_block_pointer for v in values):
            raise self.error("kl.inline_asm_elementwise takes tiles and "
                             "scalars, not block pointers")
        shape = self.broadcast_shape(*(v.type.shape for v in values)) \
            if values else ()
        values = [self.broadcast_to(v, shape) for v in values]
        single = not isinstance(dtype, (tuple, list))
        results = [Type(shape, self.dtype_of(d).ir)
                   for d in ([dtype] if single else dtype)]
        if not results:
            raise self.error("kl.inline_asm_elementwise returns at least one "
                             "value (a dummy one does)")
        name = self.ir.fresh()
        flags = (" pure" if is_pure else "") + \
            (f" pack = {pack}" if pack != 1 else "")
        self.ir.emit(
            f"{results_head(name, len(results))}tile.inline_asm_elementwise "
            f"{string_literal(asm)}, {string_literal(constraints)}{flags} "
            f"{', '.join(v.name for v in values)} : "
            f"({', '.join(v.type.ir() for v in values)}) -> "
            f"({', '.join(r.ir() for r in results)}) {self.site.loc()}")
        if len(results) == 1:
            return Value(name, results[0]) if single else \
                (Value(name, results[0]),)
        return tuple(Value(f"{name}#{i}", r) for i, r in enumerate(results))

    def float32_only(self, name: str, *values) -> list[Value]:
        values = [self.materialize(v, Type((), "f32")) for v in values]
        if any(v.type.elem != "f32" for v in values):
            raise self.error(f"kl.{name} takes float32, not "
                             f"{', '.join(v.type.elem for v in values)}")
        return values

    def builtin_div_rn(self, x, y):
        a, b = self.unify(*self.float32_only("div_rn", x, y))
        return self.divide(a, b, "ieee")

    def builtin_sqrt_rn(self, x):
        return self.unary_math("math.sqrt", *self.float32_only("sqrt_rn", x),
                               exact=True)

    def builtin_umulhi(self, x, y):
        if not isinstance(x, Value) and not isinstance(y, Value):
            x = self.materialize(x, None)
        x, y = self.unify(x, y)
        if x.type.elem not in ("i32", "i64", "ui32", "ui64"):
            raise self.error(f"kl.umulhi takes 32- or 64-bit integers, not "
                             f"{x.type.elem}")
        return self.high_product("arith.mului_extended", x, y)

    def high_product(self, op: str, x: Value, y: Value) -> Value:
        """The high half of ``x * y`` by ``op`` (``arith.mului_extended``
        or ``arith.mulsi_extended``)."""
        name = self.ir.fresh()
        self.ir.emit(f"{name}:2 = {op} {x.name}, {y.name} : {x.type.ir()} "
                     f"{self.site.loc()}")
        return Value(f"{name}#1", x.type)

    def builtin_swizzle2d(self, i, j, size_i, size_j, size_g):
        b = self.binary
        ij = b(ast.Add(), b(ast.Mult(), i, size_j), j)
        size_gj = b(ast.Mult(), size_g, size_j)
        off_i = b(ast.Mult(), b(ast.FloorDiv(), ij, size_gj), size_g)
        size_g = self.minmax(b(ast.Sub(), size_i, off_i), size_g, "min") \
            if isinstance(off_i, Value) or isinstance(size_i, Value) else \
            min(size_i - off_i, size_g)
        ij = b(ast.Mod(), ij, size_gj)
        return (b(ast.Add(), off_i, b(ast.Mod(), ij, size_g)),
                b(ast.FloorDiv(), ij, size_g))
