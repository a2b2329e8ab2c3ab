"""The core of the language's semantics in IR: numbers made values, casts,
promotion and broadcasting (by ``kiln.semantics``' rules), and the
operators. Each family of the language's functions (the other modules of
this package) builds on it."""

from __future__ import annotations

import ast
import contextlib
from typing import Any, Callable, ContextManager

from kiln import float8, semantics
from kiln import language as kl
from kiln.frontend.ir import (Type, Value, bit_width, float_literal,
                              pointer_type)
from kiln.frontend.values import is_literal, literal, plain


#: The most bits a compile-time integer may take: 2**2**40 would take
#: minutes to fold.
MAX_CONSTANT_BITS = 4096


def _bounded_power(a: Any, b: Any) -> Any:
    if isinstance(a, int) and isinstance(b, int) and b > 0 and abs(a) > 1 \
            and b * abs(a).bit_length() > MAX_CONSTANT_BITS:
        raise OverflowError(f"{a} ** {b} takes more than "
                            f"{MAX_CONSTANT_BITS} bits")
    return a ** b


def _bounded_shift(a: Any, b: Any) -> Any:
    if isinstance(a, int) and isinstance(b, int) and a and \
            b + a.bit_length() > MAX_CONSTANT_BITS:
        raise OverflowError(f"{a} << {b} takes more than "
                            f"{MAX_CONSTANT_BITS} bits")
    return a << b


_PYTHON_BINARY = {
    ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b, ast.Div: lambda a, b: a / b,
    ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b,
    ast.Pow: _bounded_power, ast.LShift: _bounded_shift,
    ast.RShift: lambda a, b: a >> b, ast.BitAnd: lambda a, b: a & b,
    ast.BitOr: lambda a, b: a | b, ast.BitXor: lambda a, b: a ^ b,
}


#: The fastmath flags that mark float32 division as rounded (see
#: CodeGenerator.divide; kiln-approximate-math-to-nvvm lowers them).
_DIVISION_FLAGS = {"full": " fastmath<arcp>", "approx": " fastmath<afn>",
                   "ieee": ""}


class CoreOps:
    """The language's operations on one kernel's values, written as IR by
    ``ir`` at the source position of ``site`` (the walker: its current node
    gives each op's location and each error's line)."""

    def __init__(self, site: Any, ir: Any) -> None:
        self.site, self.ir = site, ir

    def error(self, message: str, node: ast.AST | None = None):
        return self.site.error(message, node)

    def remark(self, message: str, node: ast.AST | None = None) -> None:
        self.site.remark(message, node)

    def op(self, text: str, type_: Type) -> Value:
        """Emits ``%v = text loc(...)`` at the current source position."""
        return self.ir.op(text, type_, self.site.loc())

    def into(self, lines: list[str] | None) -> ContextManager:
        """Writes into ``lines``, a region being built (see
        ``Builder.region``), or where the builder is where None."""
        return contextlib.nullcontext() if lines is None else \
            self.ir.region(lines)

    def assigned(self, value: Any) -> Any:
        """What a name holds after ``name = value``: Triton's rule, a
        Python number (or a constexpr one) becomes a scalar tensor, typed
        by ``semantics.python_number_type``; tuples element by element."""
        if isinstance(value, tuple) and type(value) is tuple:
            return tuple(self.assigned(v) for v in value)
        number = value.value if isinstance(value, kl.constexpr) else value
        if is_literal(number) or not isinstance(number, (bool, int, float)):
            return value
        try:
            return literal(number, semantics.python_number_type(number))
        except ValueError as exc:
            raise self.error(str(exc)) from None

    def unary(self, op: ast.unaryop, operand: Any) -> Any:
        """``op operand``: a value, or a Python one for a compile-time
        operand."""
        if is_literal(operand) and not isinstance(op, ast.Not):
            operand = self.materialize(operand, None)
        if not isinstance(operand, Value):
            return {ast.USub: lambda v: -v, ast.UAdd: lambda v: +v,
                    ast.Not: lambda v: not v,
                    ast.Invert: lambda v: ~v}[type(op)](operand)
        if isinstance(op, ast.UAdd):
            return operand
        if isinstance(op, ast.USub):
            if semantics.is_float8(operand.type.elem):
                return self.in_f32(operand.type.elem, lambda: self.op(
                    f"arith.negf {self.cast(operand, kl.float32).name} : "
                    f"{operand.type.with_elem('f32').ir()}",
                    operand.type.with_elem("f32")))
            if operand.type.is_float:
                return self.op(f"arith.negf {operand.name} : "
                               f"{operand.type.ir()}", operand.type)
            if operand.type.elem == "i1":
                # Triton negates in the operand's type: 0 - b modulo 2 is
                # b, a boolean still (not 0 - b in int32).
                return operand
            return self.binary(ast.Sub(), 0, operand)
        if isinstance(op, ast.Not):
            if operand.type.shape and operand.type.elem != "i1":
                raise self.error("'not' takes a scalar or a tile of "
                                 "booleans (as Triton); use ~ for an "
                                 "elementwise not of a tile")
            if operand.type.is_pointer:
                raise self.error("'not' needs numbers or booleans")
            return self.compare_zero(operand, "eq")
        if isinstance(op, ast.Invert):
            if not operand.type.is_int:
                raise self.error("~ needs integers or booleans")
            elem = operand.type.elem
            ones = True if elem == "i1" else \
                (1 << bit_width(elem)) - 1 if operand.type.is_unsigned else -1
            return self.binary(ast.BitXor(), operand, ones)
        raise self.error("unsupported unary operator")

    @staticmethod
    def shifts_arithmetically(a: Any, b: Any) -> bool:
        """Whether ``a >> b`` keeps the sign, as Triton picks its shift: by
        the signedness of the tile it is a method of (``a``, or ``b`` where
        ``a`` is a Python number), before the two meet (an int32 shifted
        by a uint32 is arithmetic on the uint32 they meet in)."""
        tile = a if isinstance(a, Value) or is_literal(a) else b
        return not semantics.is_unsigned(
            tile.type.elem if isinstance(tile, Value) else tile.elem)

    def shift_past_width(self, op: ast.operator, a: Value, amount: int,
                         arithmetic: bool) -> Value:
        """A shift by a constant of the width or more, or below 0, as the
        GPU's shl and shr compute it (they clamp the amount, read unsigned,
        to the width), where Triton leaves it undefined: 0, or the sign for
        an ``arithmetic`` >>. With a remark at the user's line."""
        width = bit_width(a.type.elem)
        self.remark(f"shifting {a.type.elem} by {amount} (outside [0, "
                    f"{width})) gives 0, or the sign for >> of signed "
                    f"integers, as the GPU's shift instructions do; Triton "
                    f"leaves it undefined")

        def constant(value: int) -> Value:
            return self.broadcast_to(
                self.materialize(value, Type((), a.type.elem)), a.type.shape)
        if isinstance(op, ast.RShift) and arithmetic:
            return self.op(f"arith.shrsi {a.name}, "
                           f"{constant(width - 1).name} : {a.type.ir()}",
                           a.type)
        return constant(0)

    def compare_zero(self, value: Value, predicate: str) -> Value:
        """`value == 0` (predicate "eq") or `value != 0` ("ne")."""
        zero = self.broadcast_to(
            self.materialize(0.0 if value.type.is_float else
                             (False if value.type.elem == "i1" else 0),
                             value.type.with_shape(())),
            value.type.shape)
        kind = ("arith.cmpf " + ("oeq" if predicate == "eq" else "une")
                if value.type.is_float else f"arith.cmpi {predicate}")
        return self.op(f"{kind}, {value.name}, {zero.name} : "
                       f"{value.type.ir()}", value.type.with_elem("i1"))

    def compare(self, comparison: ast.cmpop, left: Any, right: Any) -> Any:
        """``left <comparison> right``: a boolean value, or a Python one
        for two compile-time operands."""
        op = type(comparison)
        # Assigned literals compare as tensors (in IR) where a float takes
        # part, whose comparison depends on its f32 rounding.
        folds = not any(is_literal(v) for v in (left, right)) or not any(
            isinstance(v, float) for v in (left, right))
        if not isinstance(left, Value) and not isinstance(right, Value) \
                and folds:
            return {ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b,
                    ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b,
                    ast.Eq: lambda a, b: a == b,
                    ast.NotEq: lambda a, b: a != b,
                    ast.Is: lambda a, b: a is b,
                    ast.IsNot: lambda a, b: a is not b,
                    ast.In: lambda a, b: a in b,
                    ast.NotIn: lambda a, b: a not in b}[op](left, right)
        if op in (ast.In, ast.NotIn):
            raise self.error("`in` takes compile-time values (constexprs "
                             "and tuples of them), as Python evaluates it")
        if op in (ast.Is, ast.IsNot) and (left is None or right is None):
            return op is ast.IsNot  # a value is not None (`b_ptr is None`)
        if any(isinstance(v, Value) and v.type.is_pointer
               for v in (left, right)):
            raise self.error("comparisons are not defined on pointers (as "
                             "in Triton); compare their offsets")
        left, right = self.unify(left, right)
        if semantics.is_float8(left.type.elem):  # exactly, in f32
            left, right = (self.cast(v, kl.float32) for v in (left, right))
        if left.type.is_float:
            predicate = {ast.Lt: "olt", ast.LtE: "ole", ast.Gt: "ogt",
                         ast.GtE: "oge", ast.Eq: "oeq", ast.NotEq: "une"}
            dialect = "arith.cmpf"
        else:
            # Booleans compare unsigned (true > false), as in Python.
            sign = "u" if left.type.is_unsigned else "s"
            predicate = {ast.Lt: f"{sign}lt", ast.LtE: f"{sign}le",
                         ast.Gt: f"{sign}gt", ast.GtE: f"{sign}ge",
                         ast.Eq: "eq", ast.NotEq: "ne"}
            dialect = "arith.cmpi"
        if op not in predicate:
            raise self.error("unsupported comparison")
        return self.op(f"{dialect} {predicate[op]}, {left.name}, {right.name}"
                       f" : {left.type.ir()}", left.type.with_elem("i1"))

    def dtype_of(self, value: Any) -> kl.dtype:
        if value is kl.void:
            raise self.error("kl.void is the type of nothing, not an "
                             "element type")
        if isinstance(value, kl.dtype):
            return value
        raise self.error(f"expected a kl dtype, not {value!r}")

    def materialize(self, value: Any, like: Type | None,
                    lines: list[str] | None = None) -> Value:
        """``value`` as an IR value: Python numbers become constants of
        `like`'s element type (i32 / f32 / i1 by default). An assigned
        literal is a constant of its own type, converted to `like`'s as
        Triton converts a tensor."""
        if isinstance(value, Value):
            return value
        if isinstance(value, kl.constexpr):
            value = value.value
        if is_literal(value):
            constant = self.materialize(plain(value), Type((), value.elem),
                                        lines)
            if like is None or like.elem == value.elem or \
                    like.is_pointer or like.is_block_pointer:
                return constant
            with self.into(lines):
                return self.cast(constant, kl.BY_IR[like.elem])
        if isinstance(value, bool):
            elem = "i1"
        elif isinstance(value, int):
            # An int meets a boolean as an int, as in Python.
            elem = (like.elem if like and like.is_int and like.elem != "i1"
                    else self.number_type(value))
            if like and like.is_float:
                elem = like.elem
        elif isinstance(value, float):
            elem = like.elem if like and like.is_float else \
                semantics.python_number_type(value)
        else:
            raise self.error(f"{value!r} cannot be used as a value")
        if semantics.is_float8(elem):
            return self.float8_constant(value, elem, lines)
        if elem == "i1":
            text = "true" if value else "false"
        elif elem.startswith(("f", "bf")):
            text = float_literal(value, elem)
        else:
            text = str(self.integer_bits(int(value), elem))
        # MLIR spells i1 constants `true`/`false`, without a type.
        literal = text if elem == "i1" else f"{text} : {elem}"
        with self.into(lines):
            return self.op(f"arith.constant {literal}", Type((), elem))

    def float8_constant(self, value: float, elem: str,
                        lines: list[str] | None) -> Value:
        """An 8-bit float constant, written as its bits (rounded as the
        compiled conversion rounds, kiln/float8.py): no fold of a truncf
        on it can round otherwise."""
        code = float8.bits(value, kl.BY_IR[elem].numpy)
        with self.into(lines):
            byte = self.op(f"arith.constant {code - 256 * (code > 127)} : "
                           "i8", Type((), "i8"))
            return self.op(f"arith.bitcast {byte.name} : i8 to {elem}",
                           Type((), elem))

    def number_type(self, value: int) -> str:
        """A Python integer's own type (semantics.python_number_type)."""
        try:
            return semantics.python_number_type(value)
        except ValueError as exc:
            raise self.error(str(exc)) from None

    def integer_bits(self, value: int, elem: str) -> int:
        """``value`` as an integer constant of ``elem``
        (semantics.integer_constant), or an error at the line."""
        try:
            return semantics.integer_constant(value, elem)
        except ValueError as exc:
            raise self.error(str(exc)) from None

    def method_to(self, value: Value, dtype=None, fp_downcast_rounding=None,
                  bitcast=False, **unknown) -> Value:
        """``x.to(dtype, fp_downcast_rounding=None, bitcast=False)``."""
        if unknown:
            raise self.error(f".to() got an unexpected keyword "
                             f"'{next(iter(unknown))}'")
        if fp_downcast_rounding not in (None, "rtne", "rtz"):
            raise self.error(f".to(): fp_downcast_rounding "
                             f"{fp_downcast_rounding!r} is not 'rtne' or "
                             "'rtz'")
        if isinstance(dtype, kl.constexpr):
            dtype = dtype.value
        if isinstance(dtype, kl.pointer_type) or value.type.is_pointer:
            return self.pointer_cast(value, dtype)
        target = self.dtype_of(dtype)
        if fp_downcast_rounding is not None and not (
                value.type.is_float and target.is_float and
                target.bits < bit_width(value.type.elem)):
            raise self.error(f".to(): fp_downcast_rounding applies to "
                             f"conversions to a narrower float, not "
                             f"{value.type.elem} to {target.ir} (as in "
                             "Triton)")
        if fp_downcast_rounding == "rtz":
            return self.truncated_toward_zero(value, target)
        if not bitcast:
            return self.cast(value, target)
        # The same bits, read as another type of the same width.
        if value.type.is_pointer or bit_width(value.type.elem) != target.bits:
            raise self.error(f".to(bitcast=True) reinterprets bits, so "
                             f"{value.type.elem} and {target.ir} must have "
                             "the same width")
        if value.type.elem == target.ir:
            return value
        type_ = value.type.with_elem(target.ir)
        if value.type.is_int and type_.is_int:
            return Value(value.name, type_)  # signedness is the front end's
        return self.op(f"arith.bitcast {value.name} : {value.type.ir()} to "
                       f"{type_.ir()}", type_)

    def truncated_toward_zero(self, value: Value, target: kl.dtype) -> Value:
        """``value`` (a float) to the narrower float ``target``, rounded
        toward zero: rounded to nearest, then one step toward zero where
        that went past the value (a step of the bits, which are sign and
        magnitude; a NaN or an exact result stays)."""
        nearest = self.cast(value, target)
        beyond = self.compare(
            ast.Gt(), self.builtin_abs(self.cast(nearest, kl.BY_IR[
                value.type.elem])), self.builtin_abs(value))
        bits = kl.BY_IR[f"i{target.bits}"]
        stepped = self.binary(ast.Sub(), self.method_to(
            nearest, bits, bitcast=True), self.cast(beyond, bits))
        return self.method_to(stepped, target, bitcast=True)

    def pointer_cast(self, value: Value, dtype: Any) -> Value:
        """``.to()`` from or to a pointer, as Triton allows: int64
        addresses to pointers, pointers to int64 or uint64 addresses (or
        to whether they are null), and pointers to pointers of another
        element type."""
        if isinstance(dtype, kl.pointer_type):
            type_ = value.type.with_elem(pointer_type(dtype.element_ty.ir))
            if value.type.is_pointer:
                op = "tile.ptr_cast"
            elif value.type.elem == "i64":
                op = "tile.int_to_ptr"
            else:
                raise self.error(f"only int64 addresses convert to "
                                 f"pointers, not {value.type.elem}")
        elif dtype in (kl.int64, kl.uint64):
            type_, op = value.type.with_elem(dtype.ir), "tile.ptr_to_int"
        elif dtype is kl.int1:  # not null, as Triton's
            return self.compare_zero(self.pointer_cast(value, kl.int64),
                                     "ne")
        else:
            raise self.error(f"a pointer converts to int64, uint64, int1 or "
                             f"another pointer type, not {dtype!r}")
        if type_ == value.type:
            return value
        return self.op(f"{op} {value.name} : {value.type.ir()} -> "
                       f"{type_.ir()}", type_)

    def cast(self, value: Value, dtype: kl.dtype) -> Value:
        source, target = value.type.elem, dtype.ir
        if source == target:
            return value
        type_ = value.type.with_elem(target)
        if target == "i1":
            # A boolean is "not zero", not the lowest bit.
            return self.compare_zero(value, "ne")
        ir = f"{value.name} : {value.type.ir()} to {type_.ir()}"
        src_float, dst_float = value.type.is_float, dtype.is_float
        if src_float != dst_float and (semantics.is_float8(source) or
                                       semantics.is_float8(target)):
            # Integers and 8-bit floats convert through f32 (exact).
            return self.cast(self.cast(value, kl.float32), dtype)
        if src_float and dst_float and kl.BY_IR[source].bits == dtype.bits:
            # f16 <-> bf16: exactly to f32, then rounded once.
            return self.cast(self.cast(value, kl.float32), dtype)
        if src_float and dst_float:
            kind = ("arith.extf" if kl.BY_IR[source].bits < dtype.bits
                    else "arith.truncf")
        elif src_float:
            kind = "arith.fptoui" if type_.is_unsigned else "arith.fptosi"
        elif dst_float:
            kind = "arith.uitofp" if value.type.is_unsigned \
                else "arith.sitofp"
        elif kl.BY_IR[source].bits == dtype.bits:
            return Value(value.name, type_)  # the same bits, retyped
        elif kl.BY_IR[source].bits < dtype.bits:
            kind = "arith.extui" if value.type.is_unsigned else "arith.extsi"
        else:
            kind = "arith.trunci"
        return self.op(f"{kind} {ir}", type_)

    @staticmethod
    def operand_type(value: Any) -> str:
        """The element type of an operand: a value's, an assigned
        literal's, or a Python number's (or constexpr's)."""
        if isinstance(value, Value):
            return value.type.elem
        if isinstance(value, kl.constexpr):
            value = value.value
        if is_literal(value):
            return value.elem
        return semantics.python_number_type(value)

    def broadcast_to(self, value: Value, shape: tuple[int, ...]) -> Value:
        if value.type.shape == shape:
            return value
        if not value.type.shape:
            type_ = value.type.with_shape(shape)
            return self.op(f"tile.splat {value.name} : {value.type.ir()} -> "
                           f"{type_.ir()}", type_)
        while len(value.type.shape) < len(shape):
            value = self.expand_dims(value, 0)
        for have, want in zip(value.type.shape, shape):
            if have != want and have != 1:
                raise self.error(f"cannot broadcast shape "
                                 f"{list(value.type.shape)} to {list(shape)}")
        type_ = value.type.with_shape(shape)
        return self.op(f"tile.broadcast {value.name} : {value.type.ir()} -> "
                       f"{type_.ir()}", type_)

    def broadcast_shape(self, *shapes: tuple[int, ...]) -> tuple[int, ...]:
        rank = max(len(s) for s in shapes)
        result = []
        for dims in zip(*[(1,) * (rank - len(s)) + s for s in shapes]):
            sizes = {d for d in dims if d != 1}
            if len(sizes) > 1:
                raise self.error("shapes " + ", ".join(
                    str(list(s)) for s in shapes) + " do not broadcast")
            result.append(sizes.pop() if sizes else 1)
        return tuple(result)

    def unify(self, a: Any, b: Any, division: bool = False
              ) -> tuple[Value, Value]:
        """Both operands as values of one type, the language's computation
        type (semantics.computation_type; ``division`` for ``/`` and
        ``%``), shapes broadcast."""
        a_number, b_number = (not isinstance(v, Value) and not is_literal(v)
                              for v in (a, b))
        if any(isinstance(v, Value) and (v.type.is_pointer or
                                         v.type.is_block_pointer)
               for v in (a, b)):
            # Pointers meet only pointers of their own type (kl.where).
            if a_number or b_number or a.type.elem != b.type.elem:
                raise self.error(
                    "pointers meet only pointers of the same type, not "
                    f"{getattr(a, 'type', a)!s} and {getattr(b, 'type', b)!s}")
            shape = self.broadcast_shape(a.type.shape, b.type.shape)
            return self.broadcast_to(a, shape), self.broadcast_to(b, shape)
        try:
            elem = semantics.computation_type(
                self.operand_type(a), a_number, self.operand_type(b),
                b_number, division)
        except ValueError as exc:
            raise self.error(str(exc)) from None
        a, b = (self.materialize(v, Type((), elem)) for v in (a, b))
        a, b = self.cast(a, kl.BY_IR[elem]), self.cast(b, kl.BY_IR[elem])
        shape = self.broadcast_shape(a.type.shape, b.type.shape)
        return self.broadcast_to(a, shape), self.broadcast_to(b, shape)

    def binary(self, op: ast.operator, a: Any, b: Any) -> Any:
        if not isinstance(a, Value) and not isinstance(b, Value) and not (
                is_literal(a) or is_literal(b)):
            try:
                return _PYTHON_BINARY[type(op)](a, b)
            except (ArithmeticError, TypeError) as exc:
                raise self.error(f"{exc} (in arithmetic on compile-time "
                                 "values)") from None
        if isinstance(op, ast.Add) and (
                (isinstance(a, Value) and a.type.is_pointer)
                or (isinstance(b, Value) and b.type.is_pointer)):
            pointer, offset = (a, b) if isinstance(a, Value) and \
                a.type.is_pointer else (b, a)
            return self.addptr(pointer, offset)
        if isinstance(op, ast.Sub) and isinstance(a, Value) and \
                a.type.is_pointer:
            # As Triton's: the offset negated in its own type, where it
            # wraps (`p - u` of a uint8 u is p + (256 - u)), then extended.
            return self.addptr(a, self.binary(
                ast.Sub(), 0, self.materialize(b, None)))
        if any(isinstance(v, Value) and (v.type.is_pointer or
                                         v.type.is_block_pointer)
               for v in (a, b)):
            raise self.error(f"operator {type(op).__name__} is not defined "
                             "on pointers (a pointer takes + and - of "
                             "integer offsets)")
        amount = int(b) if isinstance(op, (ast.LShift, ast.RShift)) and \
            isinstance(b, int) else None
        arithmetic = isinstance(op, ast.RShift) and \
            self.shifts_arithmetically(a, b)
        a, b = self.unify(a, b, division=isinstance(
            op, (ast.Div, ast.FloorDiv, ast.Mod)))
        if amount is not None and a.type.is_int and \
                not 0 <= amount < bit_width(a.type.elem):
            return self.shift_past_width(op, a, amount, arithmetic)
        if semantics.is_float8(a.type.elem):
            return self.in_f32(a.type.elem, lambda: self.binary(
                op, self.cast(a, kl.float32), self.cast(b, kl.float32)))
        if isinstance(op, ast.Div) and not a.type.is_float:
            a, b = self.cast(a, kl.float32), self.cast(b, kl.float32)
        float_ops = {ast.Add: "arith.addf", ast.Sub: "arith.subf",
                     ast.Mult: "arith.mulf", ast.Div: "arith.divf",
                     ast.Mod: "arith.remf"}
        int_ops = {ast.Add: "arith.addi", ast.Sub: "arith.subi",
                   ast.Mult: "arith.muli", ast.FloorDiv: "arith.divsi",
                   ast.Mod: "arith.remsi", ast.BitAnd: "arith.andi",
                   ast.BitOr: "arith.ori", ast.BitXor: "arith.xori",
                   ast.LShift: "arith.shli", ast.RShift: "arith.shrsi"}
        table = float_ops if a.type.is_float else int_ops
        if type(op) not in table:
            raise self.error(f"operator {type(op).__name__} is not defined "
                             f"on {a.type.elem}")
        if table is int_ops and isinstance(op, (ast.FloorDiv, ast.Mod)):
            return self.integer_division(op, a, b)
        if isinstance(op, ast.RShift) and not arithmetic:
            return self.op(f"arith.shrui {a.name}, {b.name} : "
                           f"{a.type.ir()}", a.type)
        if isinstance(op, ast.Div):
            return self.divide(a, b, "full")
        if isinstance(op, ast.Mod) and a.type.elem in ("f32", "f64"):
            # Triton's float32 and float64 %: x - trunc(x / y) * y on the
            # GPU (LLVM's frem there), exact on the host, as Triton's
            # interpreter.
            return self.op(f"arith.remf {a.name}, {b.name} fastmath<afn> : "
                           f"{a.type.ir()}", a.type)
        return self.op(f"{table[type(op)]} {a.name}, {b.name} : "
                       f"{a.type.ir()}", a.type)

    def divide(self, a: Value, b: Value, rounding: str) -> Value:
        """``a / b`` on floats of one type, rounded as Triton rounds float32
        division on the GPU: "full" (``/``, ``fdiv``: PTX div.full.f32, 2
        ulp), "approx" (``fdiv(approx=True)``: div.approx.f32) or "ieee"
        (``div_rn``: correctly rounded). The host rounds every one
        correctly, as Triton's interpreter does."""
        flags = _DIVISION_FLAGS[rounding] if a.type.elem == "f32" else ""
        return self.op(f"arith.divf {a.name}, {b.name}{flags} : "
                       f"{a.type.ir()}", a.type)

    def in_f32(self, elem: str, compute: Callable[[], Value]) -> Value:
        """``compute()``, an operation on 8-bit floats of ``elem`` done in
        f32 (exact), rounded back to ``elem`` once."""
        return self.cast(compute(), kl.BY_IR[elem])

    def integer_division(self, op: ast.operator, a: Value, b: Value
                         ) -> Value:
        """``a // b`` or ``a % b`` toward zero, as Triton computes them (C's
        rule, not Python's floor). x // 0 and x % 0 are 0, and the lowest
        value // -1 wraps to itself: each target makes the plain op total
        (tile-total-division) after the analyses that read it."""
        if a.type.elem == "i1":  # booleans divide as ints, as in Python
            a, b = self.cast(a, kl.int32), self.cast(b, kl.int32)
        kind = ("div" if isinstance(op, ast.FloorDiv) else "rem") + \
            ("ui" if a.type.is_unsigned else "si")
        return self.op(f"arith.{kind} {a.name}, {b.name} : {a.type.ir()}",
                       a.type)

    def addptr(self, pointer: Value, offset: Any) -> Value:
        if not isinstance(offset, Value):
            # A number in its own type, as Triton's: 2**32 an int64.
            offset = self.materialize(offset, None)
        if not offset.type.is_int:
            raise self.error("pointer offsets must be integers")
        if offset.type.is_unsigned and bit_width(offset.type.elem) < 64:
            # tile.addptr reads its offset as signed: an unsigned one is
            # zero-extended first, as Triton does.
            offset = self.cast(offset, kl.int64)
        shape = self.broadcast_shape(pointer.type.shape, offset.type.shape)
        pointer = self.broadcast_to(pointer, shape)
        offset = self.broadcast_to(offset, shape)
        return self.op(f"tile.addptr {pointer.name}, {offset.name} : "
                       f"{pointer.type.ir()}, {offset.type.ir()}",
                       pointer.type)

    def expand_dims(self, value: Value, axis: int) -> Value:
        shape = list(value.type.shape)
        if not shape:  # a scalar becomes a tile of one, as in Triton
            return self.broadcast_to(value, (1,))
        shape.insert(axis, 1)
        type_ = value.type.with_shape(tuple(shape))
        return self.op(f"tile.expand_dims {value.name} axis {axis} : "
                       f"{value.type.ir()} -> {type_.ir()}", type_)

    def trans(self, value: Value, dims: tuple = ()) -> Value:
        """``value`` with its dimensions permuted by ``dims`` (the last
        two swapped when empty)."""
        rank = len(value.type.shape)
        if not dims:
            dims = semantics.default_transpose(rank)
            if dims is None:
                raise self.error(f"kl.trans of a tile of rank {rank} needs "
                                 "two dimensions or more")
        if sorted(dims) != list(range(rank)):
            raise self.error(f"{list(dims)} is not a permutation of the "
                             f"{rank} dimensions of a tile")
        type_ = value.type.with_shape(tuple(value.type.shape[d]
                                            for d in dims))
        return self.op(f"tile.trans {value.name} "
                       f"[{', '.join(map(str, dims))}] : {value.type.ir()} "
                       f"-> {type_.ir()}", type_)

    def check_tile_shape(self, what: str, shape: Any) -> None:
        """Refuses a tile ``what`` makes of ``shape`` unless its every
        dimension is a power of two (semantics.tile_shape_problem)."""
        if shape != () and (problem := semantics.tile_shape_problem(
                what, shape)):
            raise self.error(problem)

    def constant_tile(self, shape: Any, value: Any, dtype: kl.dtype) -> Value:
        shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
        if any(not isinstance(d, int) or d <= 0 for d in shape):
            raise self.error(f"tile shapes are positive constants, not "
                             f"{shape}")
        if isinstance(value, Value):
            return self.broadcast_to(self.cast(value, dtype), shape)
        if not shape or semantics.is_float8(dtype.ir):
            # A scalar (tl.full((), v, dtype)), or an fp8 one's bits.
            return self.broadcast_to(self.cast(self.materialize(
                value, Type((), dtype.ir)), dtype), shape)
        text = (float_literal(value, dtype.ir) if dtype.is_float else
                ("true" if value else "false") if dtype.ir == "i1" else
                str(self.integer_bits(int(value), dtype.ir)))
        type_ = Type(shape, dtype.ir)
        return self.op(f"arith.constant dense<{text}> : {type_.ir()}", type_)

    def constant_dims(self, value: Any, what: str) -> tuple[int, ...]:
        """``value``, a tuple of constant non-negative ints (a constexpr
        tuple included)."""
        if isinstance(value, kl.constexpr):
            value = value.value
        value = tuple(value) if isinstance(value, (tuple, list)) else (value,)
        value = tuple(v.value if isinstance(v, kl.constexpr) else v
                      for v in value)
        if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0
                   for v in value):
            raise self.error(f"{what} must be constant non-negative ints, "
                             f"not {value}")
        return value

    def scalars(self, values: Any, elem: str, what: str) -> list[Value]:
        """Each of ``values`` as a scalar ``elem`` integer."""
        values = tuple(values) if isinstance(values, (tuple, list)) \
            else (values,)
        result = []
        for value in values:
            value = self.materialize(value, Type((), elem))
            if value.type.shape or not value.type.is_int:
                raise self.error(f"{what} must be integer scalars, not "
                                 f"{value.type.ir()}")
            result.append(self.cast(value, kl.BY_IR[elem]))
        return result

    def minmax(self, x, y, kind: str,
               propagate_nan: Any = semantics.PropagateNan.NONE) -> Value:
        if isinstance(propagate_nan, kl.constexpr):
            propagate_nan = propagate_nan.value
        if not isinstance(propagate_nan, semantics.PropagateNan):
            raise self.error(f"propagate_nan is kl.PropagateNan.NONE or "
                             f"kl.PropagateNan.ALL, not {propagate_nan!r}")
        x, y = self.unify(x, y)
        if semantics.is_float8(x.type.elem):
            return self.in_f32(x.type.elem, lambda: self.minmax(
                self.cast(x, kl.float32), self.cast(y, kl.float32), kind,
                propagate_nan))
        op = semantics.extremum_op(kind, x.type.elem, propagate_nan)
        return self.op(f"arith.{op} {x.name}, {y.name} : {x.type.ir()}",
                       x.type)

    def normalized_axis(self, axis: Any, rank: int) -> int:
        """``axis`` of a tile of ``rank`` dimensions, counted from the end
        where negative."""
        if isinstance(axis, kl.constexpr):
            axis = axis.value
        if not isinstance(axis, int) or isinstance(axis, bool) or \
                not -rank <= axis < rank:
            raise self.error(f"axis {axis!r} is out of range for a tile of "
                             f"{rank} dimensions")
        return axis % rank

    def widened(self, x: Any) -> Value:
        """`x` in the type sums and prefix sums accumulate in by default
        (semantics.sum_type: narrow integers in the 32-bit type of their
        signedness; a sum of booleans counts them, in uint32)."""
        x = self.materialize(x, None)
        return self.cast(x, kl.BY_IR[semantics.sum_type(x.type.elem)])

    def half_in_f32(self, x: Value, compute: Callable[[Value], Value]
                    ) -> Value:
        """``compute(x)``, for f16, bf16 and 8-bit floats in f32 and
        rounded back once (a sum's running value would round at every
        step)."""
        if x.type.elem not in ("f16", "bf16", *semantics.FLOAT8):
            return compute(x)
        return self.cast(compute(self.cast(x, kl.float32)),
                         kl.BY_IR[x.type.elem])

    def like(self, x: Any, what: str) -> Value:
        """The tile (or scalar) of numbers whose shape and type ``what``
        takes."""
        x = self.materialize(x, None)
        if x.type.elem not in kl.BY_IR:
            raise self.error(f"kl.{what} takes a tile of numbers, not "
                             f"{x.type.ir()}")
        return x
