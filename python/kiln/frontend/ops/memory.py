"""Loads, stores and atomics through pointers, block pointers and tensor
descriptors, and the barrier."""

from __future__ import annotations

import ast
import math
from typing import Any

from kiln import semantics
from kiln import language as kl
from kiln.frontend.ir import Type, Value, bit_width
from kiln.frontend.values import TensorDescriptor
from kiln.frontend.ops.core import CoreOps


#: The read-modify-write atomics, ``kl.atomic_<kind>`` (``MemoryOps.atomic``).
ATOMIC_KINDS = {f"atomic_{kind}": kind
                for kind in ("add", "max", "min", "xchg", "and", "or", "xor")}


class MemoryOps(CoreOps):

    def check_pointer(self, pointer: Any, what: str) -> Value:
        if not isinstance(pointer, Value) or not pointer.type.is_pointer:
            ir = getattr(getattr(pointer, "type", None), "ir", None)
            raise self.error(f"{what} needs pointers, not "
                             f"{ir() if ir else pointer}")
        return pointer

    def mask_for(self, mask: Any, shape: tuple[int, ...]) -> Value | None:
        if mask is None:
            return None
        mask = self.materialize(mask, Type((), "i1"))
        if mask.type.elem != "i1":
            raise self.error(f"a mask must be boolean, not {mask.type.elem}")
        shape = self.broadcast_shape(shape, mask.type.shape)
        return self.broadcast_to(mask, shape)

    def check_block_pointer(self, value: Any, what: str) -> Value:
        if not isinstance(value, Value) or not value.type.is_block_pointer:
            raise self.error(f"{what} needs a block pointer "
                             "(kl.make_block_ptr)")
        return value

    def builtin_make_block_ptr(self, base, shape, strides, offsets,
                               block_shape, order):
        base = self.check_pointer(base, "kl.make_block_ptr")
        if base.type.shape:
            raise self.error("kl.make_block_ptr takes the tensor's base as "
                             f"one pointer, not a tile {base.type.ir()}")
        if base.type.pointee == "i1":  # Triton's: booleans are read as int8
            base = self.pointer_cast(base, kl.pointer_type(kl.int8))
        block = self.constant_dims(block_shape, "block_shape")
        self.check_tile_shape("kl.make_block_ptr", block)
        order = self.constant_dims(order, "order")
        rank = len(block)
        shape = self.scalars(shape, "i64", "a block pointer's shape")
        strides = self.scalars(strides, "i64", "a block pointer's strides")
        offsets = self.scalars(offsets, "i32", "a block pointer's offsets")
        if not all(len(x) == rank for x in (shape, strides, offsets, order)):
            raise self.error(
                f"kl.make_block_ptr: shape, strides, offsets and order have "
                f"one entry per dimension of the {rank}-D block_shape")
        if sorted(order) != list(range(rank)) or 0 in block:
            raise self.error("kl.make_block_ptr: order must be a permutation "
                             "of the dimensions and the block's sizes "
                             "positive")
        type_ = Type((), f"!tile.block_ptr<{'x'.join(map(str, block))}x"
                         f"{base.type.pointee}>")
        names = [", ".join(v.name for v in x) for x in (shape, strides,
                                                        offsets)]
        return self.op(
            f"tile.make_block_ptr {base.name}, [{names[0]}], [{names[1]}], "
            f"[{names[2]}] "
            f"{{order = array<i32: {', '.join(map(str, order))}>}}"
            f" : {base.type.elem} -> {type_.elem}", type_)

    def builtin_make_tensor_descriptor(self, base, shape, strides,
                                       block_shape, padding_option="zero"):
        base = self.check_pointer(base, "kl.make_tensor_descriptor")
        if base.type.shape:
            raise self.error("kl.make_tensor_descriptor takes the tensor's "
                             f"base as one pointer, not a tile "
                             f"{base.type.ir()}")
        block = self.constant_dims(block_shape, "block_shape")
        self.check_tile_shape("kl.make_tensor_descriptor", block)
        shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
        strides = tuple(strides) if isinstance(strides, (tuple, list)) \
            else (strides,)
        if not len(shape) == len(strides) == len(block):
            raise self.error("kl.make_tensor_descriptor: shape, strides and "
                             "block_shape have one entry per dimension")
        last = strides[-1].value if isinstance(strides[-1], kl.constexpr) \
            else strides[-1]
        if not isinstance(last, Value) and last != 1:
            raise self.error(f"kl.make_tensor_descriptor: the last stride "
                             f"must be 1, not {last}")
        if padding_option not in ("zero", "nan"):
            raise self.error(f"padding_option is 'zero' or 'nan', not "
                             f"{padding_option!r}")
        return TensorDescriptor(base, shape, strides, block, padding_option)

    def descriptor_block(self, desc: Any, offsets: Any, what: str) -> Value:
        """The block pointer of ``desc``'s block at ``offsets``."""
        desc = self.check_descriptor(desc, what)
        rank = len(desc.block_shape)
        return self.builtin_make_block_ptr(
            desc.base, desc.shape, desc.strides, offsets, desc.block_shape,
            tuple(range(rank - 1, -1, -1)))

    def builtin_load_tensor_descriptor(self, desc, offsets):
        block = self.descriptor_block(desc, offsets,
                                      "kl.load_tensor_descriptor")
        return self.builtin_load(
            block, boundary_check=tuple(range(len(desc.block_shape))),
            padding_option=desc.padding_option)

    def builtin_store_tensor_descriptor(self, desc, offsets, value):
        block = self.descriptor_block(desc, offsets,
                                      "kl.store_tensor_descriptor")
        return self.builtin_store(
            block, value, boundary_check=tuple(range(len(desc.block_shape))))

    # Triton's descriptor atomics, gathers and scatters are TMA reductions
    # and gather4/scatter4 on Hopper; Kiln runs them element by element on
    # pointers, with the same results.
    def descriptor_elements(self, desc: TensorDescriptor,
                            coordinates: list[Value]) -> tuple[Value, Value]:
        """Pointers to ``desc``'s elements at ``coordinates`` (an integer
        tile per dimension, all of one shape) and where they are inside the
        tensor."""
        offset = inside = None
        for coordinate, size, stride in zip(coordinates, desc.shape,
                                            desc.strides):
            size, stride = (v.value if isinstance(v, kl.constexpr) else v
                            for v in (size, stride))
            term = self.binary(ast.Mult(), self.cast(coordinate, kl.int64),
                               stride)
            offset = term if offset is None else \
                self.binary(ast.Add(), offset, term)
            within = self.binary(ast.BitAnd(),
                                 self.compare(ast.GtE(), coordinate, 0),
                                 self.compare(ast.Lt(), coordinate, size))
            inside = within if inside is None else \
                self.binary(ast.BitAnd(), inside, within)
        return self.binary(ast.Add(), desc.base, offset), inside

    def check_descriptor(self, desc: Any, what: str) -> TensorDescriptor:
        if not isinstance(desc, TensorDescriptor):
            raise self.error(f"{what} takes a tensor descriptor")
        return desc

    def builtin_descriptor_atomic(self, desc, kind, offsets, value):
        what = f"desc.atomic_{kind}"
        desc = self.check_descriptor(desc, what)
        block = tuple(desc.block_shape)
        offsets = tuple(offsets) if isinstance(offsets, (tuple, list)) \
            else (offsets,)
        value = self.materialize(value, None)
        if len(offsets) != len(block) or value.type.shape != block:
            raise self.error(f"{what} takes one offset per dimension and a "
                             f"value of the block's shape {list(block)}, "
                             f"not {len(offsets)} offsets and "
                             f"{list(value.type.shape)}")
        coordinates = []
        for d, offset in enumerate(offsets):
            along = self.builtin_arange(0, block[d])
            along = self.builtin_reshape(along, *(
                n if axis == d else 1 for axis, n in enumerate(block)))
            coordinates.append(self.broadcast_to(
                self.binary(ast.Add(), along, offset), block))
        pointers, inside = self.descriptor_elements(desc, coordinates)
        self.remark(f"{what} runs as an atomic per element: Kiln has no TMA "
                    f"reduction (Triton's, on sm_90)")
        self.atomic(kind, pointers, value, inside, None, None)

    def gather_coordinates(self, desc, x_offsets, y_offset,
                           what: str) -> list[Value]:
        """The coordinates of rows ``x_offsets``, columns from
        ``y_offset`` on, of a 2-D descriptor whose block is one row."""
        desc = self.check_descriptor(desc, what)
        self.remark(f"{what} runs as a masked access per element: Kiln has "
                    f"no TMA {what[5:]}4 (Triton's, on sm_100)")
        if len(desc.block_shape) != 2 or desc.block_shape[0] != 1:
            raise self.error(f"{what} takes a 2-D descriptor whose block is "
                             f"one row, not {list(desc.block_shape)}")
        rows = self.materialize(x_offsets, None)
        if len(rows.type.shape) != 1 or not rows.type.is_int:
            raise self.error(f"{what}: the row offsets are a 1-D tile of "
                             f"integers, not {rows.type.ir()}")
        shape = (rows.type.shape[0], desc.block_shape[1])
        columns = self.binary(ast.Add(), self.builtin_arange(0, shape[1]),
                              y_offset)
        return [self.broadcast_to(self.builtin_expand_dims(rows, 1), shape),
                self.broadcast_to(self.builtin_expand_dims(columns, 0),
                                  shape)]

    def builtin_descriptor_gather(self, desc, x_offsets, y_offset):
        pointers, inside = self.descriptor_elements(
            desc, self.gather_coordinates(desc, x_offsets, y_offset,
                                          "desc.gather"))
        nan = desc.padding_option == "nan"
        if nan and not Type((), pointers.type.pointee).is_float:
            raise self.error("padding_option='nan' needs floats")
        return self.builtin_load(pointers, inside, float("nan") if nan else 0)

    def builtin_descriptor_scatter(self, desc, value, x_offsets, y_offset):
        coordinates = self.gather_coordinates(desc, x_offsets, y_offset,
                                              "desc.scatter")
        pointers, inside = self.descriptor_elements(desc, coordinates)
        self.builtin_store(pointers, value, inside)

    def builtin_advance(self, block_ptr, offsets):
        block_ptr = self.check_block_pointer(block_ptr, "kl.advance")
        offsets = self.scalars(offsets, "i32", "kl.advance's offsets")
        if len(offsets) != len(block_ptr.type.block[0]):
            raise self.error("kl.advance takes one offset per dimension of "
                             "the block")
        return self.op(f"tile.advance {block_ptr.name}, "
                       f"[{', '.join(v.name for v in offsets)}] : "
                       f"{block_ptr.type.elem}", block_ptr.type)

    def block_access(self, op: str, block_ptr: Value, boundary_check: Any,
                     padding_option: str = "", mask: Any = None,
                     other: Any = None) -> str:
        """The boundary_check of a load or store through ``block_ptr``,
        as its op's text, checked with what else it was given."""
        problem = kl.block_access_problem(op, len(block_ptr.type.block[0]),
                                          boundary_check, padding_option,
                                          mask, other)
        if problem:
            raise self.error(problem)
        dims = self.constant_dims(boundary_check, "boundary_check")
        return (f" boundary_check = [{', '.join(map(str, dims))}]"
                if dims else "")

    def check_hints(self, op: str, cache_modifier: Any, eviction_policy: Any,
                    volatile: Any = False, block_pointer: bool = False
                    ) -> None:
        problem = kl.memory_hint_problem(op, cache_modifier, eviction_policy,
                                         volatile, block_pointer)
        if problem:
            raise self.error(problem)

    def builtin_load(self, pointer, mask=None, other=None, boundary_check=(),
                     padding_option="", *, cache_modifier="",
                     eviction_policy="", volatile=False):
        block_pointer = isinstance(pointer, Value) and \
            pointer.type.is_block_pointer
        self.check_hints("load", cache_modifier, eviction_policy, volatile,
                         block_pointer)
        if block_pointer:
            checked = self.block_access("load", pointer, boundary_check,
                                        padding_option, mask, other)
            shape, elem = pointer.type.block
            if padding_option == "nan" and elem not in ("f16", "bf16", "f32",
                                                        "f64"):
                raise self.error("padding_option='nan' needs floats")
            result = Type(shape, elem)
            padding = " padding = nan" if padding_option == "nan" else ""
            return self.op(
                f"tile.block_load {pointer.name}{checked}{padding} : "
                f"{pointer.type.elem} -> {result.ir()}", result)
        if boundary_check or padding_option:
            raise self.error("boundary_check and padding_option apply to "
                             "block pointers (kl.make_block_ptr)")
        pointer = self.check_pointer(pointer, "kl.load")
        mask = self.mask_for(mask, pointer.type.shape)
        if mask is not None and mask.type.shape != pointer.type.shape:
            pointer = self.broadcast_to(pointer, mask.type.shape)
        result = Type(pointer.type.shape, pointer.type.pointee)
        operands = pointer.name
        if mask is not None:
            operands += f", {mask.name}"
        if other is not None:
            if mask is None:
                raise self.error("kl.load: other needs a mask")
            # As Triton: a Python number is a scalar of its own type
            # (int32, float32, ...; -1 of a uint32 load is 0xFFFFFFFF),
            # converted to the element type.
            other = self.materialize(other, None)
            other = self.broadcast_to(self.cast(other, kl.BY_IR[result.elem]),
                                      result.shape)
            operands += f", other {other.name}"
        if volatile:
            operands += " {isVolatile}"
        return self.op(f"tile.load {operands} : {pointer.type.ir()} -> "
                       f"{result.ir()}", result)

    def builtin_store(self, pointer, value, mask=None, boundary_check=(), *,
                      cache_modifier="", eviction_policy=""):
        self.check_hints("store", cache_modifier, eviction_policy)
        if isinstance(pointer, Value) and pointer.type.is_block_pointer:
            checked = self.block_access("store", pointer, boundary_check,
                                        mask=mask)
            shape, elem = pointer.type.block
            value = self.materialize(value, Type((), elem))
            if self.broadcast_shape(shape, value.type.shape) != shape:
                raise self.error(f"kl.store: a {value.type.ir()} does not "
                                 f"fit the block {shape}")
            value = self.broadcast_to(self.cast(value, kl.BY_IR[elem]), shape)
            self.ir.emit(f"tile.block_store {pointer.name}, {value.name}"
                         f"{checked} : "
                         f"{pointer.type.elem}, {value.type.ir()} "
                         f"{self.site.loc()}")
            return
        if boundary_check:
            raise self.error("boundary_check applies to block pointers "
                             "(kl.make_block_ptr)")
        pointer = self.check_pointer(pointer, "kl.store")
        pointer, value, operands = self.written(pointer, value, mask)
        self.ir.emit(f"tile.store {operands} : {pointer.type.ir()}, "
                     f"{value.type.ir()} {self.site.loc()}")

    def check_one_address(self, pointer: Value, values: list[Value],
                          mask: Any) -> None:
        """Refuses tiles written through one pointer, whose elements would
        all go to its address (Triton refuses them)."""
        if pointer.type.shape:
            return
        if any(v.type.shape for v in values):
            what = "value"
        elif isinstance(mask, Value) and mask.type.shape:
            what = "mask"
        else:
            return
        raise self.error(f"a {what} tile cannot be written through one "
                         f"pointer; make the pointer a tile of the same "
                         f"shape")

    def written(self, pointer: Value, value: Any, mask: Any
                ) -> tuple[Value, Value, str]:
        """The pointers, the values written through them (converted to
        the pointee type) and the mask of a store or an atomic, broadcast
        to one shape; and its operands' text."""
        # A Python number is a constant of its own type first, as Triton's
        # (0.1 into a float64 is float32's 0.1; 300 into an int8, 44).
        value = self.materialize(value, None)
        self.check_one_address(pointer, [value], mask)
        shape = self.broadcast_shape(pointer.type.shape, value.type.shape)
        mask = self.mask_for(mask, shape)
        if mask is not None:
            shape = mask.type.shape
        pointer = self.broadcast_to(pointer, shape)
        value = self.broadcast_to(
            self.cast(value, kl.BY_IR[pointer.type.pointee]), shape)
        operands = f"{pointer.name}, {value.name}"
        if mask is not None:
            operands += f", {mask.name}"
        return pointer, value, operands

    def atomic(self, kind: str, pointer, value, mask, sem, scope):
        problem = kl.atomic_order_problem(sem, scope)
        if problem:
            raise self.error(problem)
        pointer = self.check_pointer(pointer, f"kl.atomic_{kind}")
        if semantics.is_float8(pointer.type.pointee):
            raise self.error(f"kl.atomic_{kind} takes no 8-bit floats")
        if kind in ("and", "or", "xor") and not Type(
                (), pointer.type.pointee).is_int:
            raise self.error(f"kl.atomic_{kind} needs integers, not "
                             f"{pointer.type.pointee}")
        if kind in ("max", "min") and Type((), pointer.type.pointee).is_float:
            return self.float_extremum(kind, pointer, value, mask, sem, scope)
        pointer, value, operands = self.written(pointer, value, mask)
        sem = sem or kl.MEMORY_SEMANTICS[0]
        scope = scope or kl.MEMORY_SCOPES[0]
        if kind in ("max", "min") and value.type.is_unsigned:
            kind = f"u{kind}"
        return self.op(f"tile.atomic_rmw {kind} {sem} {scope} {operands} : "
                       f"{pointer.type.ir()}, {value.type.ir()}", value.type)

    def float_extremum(self, kind: str, pointer: Value, value: Any,
                       mask: Any, sem, scope) -> Value:
        """``kl.atomic_max`` / ``atomic_min`` of floats as Triton computes
        them: integer atomics on the bits, which order floats totally (-0
        below +0, a NaN beyond the infinity of its sign). Where the value's
        sign bit is clear, a signed max (min) of the bits; where it is set,
        an unsigned min (max)."""
        elem = pointer.type.pointee
        if elem not in ("f32", "f64"):
            raise self.error(f"kl.atomic_{kind} of floats takes float32 or "
                             f"float64 (as Triton), not {elem}")
        width = bit_width(elem)
        signed, unsigned = kl.BY_IR[f"i{width}"], kl.BY_IR[f"ui{width}"]
        # A Python number is a constant of its own type first, as in
        # `written` (0.1 into a float64 is float32's 0.1).
        value = self.materialize(value, None)
        shape = self.broadcast_shape(pointer.type.shape, value.type.shape)
        if mask is not None:
            mask = self.mask_for(mask, shape)
            shape = mask.type.shape
        value = self.broadcast_to(self.cast(value, kl.BY_IR[elem]), shape)
        bits = self.method_to(value, signed, bitcast=True)
        sign = self.compare(ast.Lt(), bits, 0)
        positive, negative = self.unary(ast.Invert(), sign), sign
        if mask is not None:
            negative = self.binary(ast.BitAnd(), negative, mask)
            positive = self.binary(ast.BitAnd(), positive, mask)
        flipped = "min" if kind == "max" else "max"
        old_positive = self.atomic(
            kind, self.pointer_cast(pointer, kl.pointer_type(signed)), bits,
            positive, sem, scope)
        old_negative = self.atomic(
            flipped, self.pointer_cast(pointer, kl.pointer_type(unsigned)),
            self.method_to(value, unsigned, bitcast=True), negative, sem,
            scope)
        old = self.builtin_where(
            sign, self.method_to(old_negative, signed, bitcast=True),
            old_positive)
        return self.method_to(old, kl.BY_IR[elem], bitcast=True)

    def one_way_sem(self, name: str, sem: Any) -> str:
        """``sem`` of ``kl.<name>``, checked, or its default."""
        problem = kl.one_way_order_problem(name, sem)
        if problem:
            raise self.error(problem)
        return sem or kl.ONE_WAY_SEMANTICS[name][0]

    def builtin_atomic_load(self, pointer, mask=None, sem=None, scope=None):
        sem = self.one_way_sem("atomic_load", sem)
        pointer = self.check_pointer(pointer, "kl.atomic_load")
        elem = pointer.type.pointee
        if elem not in ("i32", "i64", "f32", "f64"):
            raise self.error(f"kl.atomic_load reads elements of 32 or 64 "
                             f"bits, not {elem}")
        # An atomic or of 0 on the bits: the value, read atomically.
        bits = kl.BY_IR[f"i{elem[1:]}"]
        words = self.pointer_cast(pointer, kl.pointer_type(bits))
        old = self.atomic("or", words, 0, mask, sem, scope)
        if old.type.elem == elem:
            return old
        type_ = old.type.with_elem(elem)
        return self.op(f"arith.bitcast {old.name} : {old.type.ir()} to "
                       f"{type_.ir()}", type_)

    def builtin_atomic_store(self, pointer, val, mask=None, sem=None,
                             scope=None):
        self.atomic("xchg", pointer, val, mask,
                    self.one_way_sem("atomic_store", sem), scope)

    def builtin_atomic_poll(self, pointer, expected_value, sem=None,
                            scope=None, timeout_ns=None):
        if timeout_ns is not None:
            raise self.error("kl.atomic_poll: timeout_ns is not supported "
                             "by Kiln yet")
        pointer = self.check_pointer(pointer, "kl.atomic_poll")
        if pointer.type.pointee not in ("i32", "i64"):
            raise self.error(f"kl.atomic_poll waits on integers of 32 or 64 "
                             f"bits, not {pointer.type.pointee}")
        # scf.while: the before region reads and compares, the do region
        # is empty.
        with self.ir.region() as test_lines:
            value = self.builtin_atomic_load(pointer, sem=sem, scope=scope)
            differs = self.compare(ast.NotEq(), value, expected_value)
            if differs.type.shape:
                flat = self.builtin_reshape(differs, math.prod(
                    differs.type.shape))
                differs = self.builtin_reduce_or(flat, 0)
        self.ir.emit("scf.while : () -> () {")
        self.ir.lines.extend(test_lines)
        self.ir.lines.append("  " * (self.ir.depth + 1) +
                             f"scf.condition({differs.name})")
        self.ir.emit("} do {")
        self.ir.emit_yield([], depth=self.ir.depth + 1)
        self.ir.emit(f"}} {self.site.loc()}")
        return self.constant_tile(value.type.shape, True, kl.int1)

    def builtin_atomic_cas(self, pointer, cmp, val, sem=None, scope=None):
        problem = kl.atomic_order_problem(sem, scope)
        if problem:
            raise self.error(problem)
        pointer = self.check_pointer(pointer, "kl.atomic_cas")
        elem = pointer.type.pointee
        if bit_width(elem) not in (16, 32, 64):
            raise self.error(f"kl.atomic_cas compares and swaps elements of "
                             f"16, 32 or 64 bits, not {elem}")
        cmp, val = (self.cast(self.materialize(v, None), kl.BY_IR[elem])
                    for v in (cmp, val))
        self.check_one_address(pointer, [cmp, val], None)
        shape = self.broadcast_shape(pointer.type.shape, cmp.type.shape,
                                     val.type.shape)
        pointer, cmp, val = (self.broadcast_to(v, shape)
                             for v in (pointer, cmp, val))
        return self.op(f"tile.atomic_cas {sem or kl.MEMORY_SEMANTICS[0]} "
                       f"{scope or kl.MEMORY_SCOPES[0]} {pointer.name}, "
                       f"{cmp.name}, {val.name} : {pointer.type.ir()}, "
                       f"{val.type.ir()}", val.type)

    def builtin_debug_barrier(self):
        self.ir.emit(f"tile.barrier {self.site.loc()}")
