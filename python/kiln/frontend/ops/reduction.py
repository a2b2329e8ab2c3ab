"""Reductions and scans: ``sum``, ``max`` / ``min`` (with indices),
``argmax``, ``cumsum``, ``histogram``, and ``reduce`` / ``associative_scan``
with the kernel's own combining function."""

from __future__ import annotations

import ast
import math
from typing import Any, Callable

from kiln import semantics
from kiln import language as kl
from kiln.frontend.ir import Type, Value, results_head
from kiln.frontend.ops.core import CoreOps


class ReductionOps(CoreOps):

    def reduced(self, x: Any, axis: Any, keep_dims: bool,
                compute: Callable[[Value, int], Value]) -> Value:
        """``compute(x, axis)`` along ``axis`` (of the flattened tile when
        None), the reduced axis kept with size 1 where ``keep_dims``."""
        x = self.materialize(x, None)
        if not x.type.shape:
            raise self.error("reductions need a tile")
        rank = len(x.type.shape)
        if axis is None:
            if rank > 1:
                flat = x.type.with_shape((math.prod(x.type.shape),))
                x = self.op(f"tile.reshape {x.name} : {x.type.ir()} -> "
                            f"{flat.ir()}", flat)
            result = compute(x, 0)
            return self.broadcast_to(result, (1,) * rank) if keep_dims \
                else result
        axis = self.normalized_axis(axis, rank)
        result = compute(x, axis)
        if not keep_dims:
            return result
        if not result.type.shape:
            return self.broadcast_to(result, (1,))
        return self.expand_dims(result, axis)

    def reduce(self, x: Value, axis: int, combine: Callable[[str, str, str],
                                                            list[str]]):
        """`x` reduced along `axis` with a region built by
        `combine(a, b, type)` (lines computing %r)."""
        shape = x.type.shape[:axis] + x.type.shape[axis + 1:]
        result = Type(shape, x.type.elem)
        name = self.ir.fresh()
        elem = x.type.elem
        self.ir.emit(f"{name} = tile.reduce {x.name} axis {axis} : "
                     f"{x.type.ir()} -> {result.ir()} {{")
        self.ir.emit(f"^bb0(%a: {elem}, %b: {elem}):")
        for line in combine("%a", "%b", elem):
            self.ir.emit(f"  {line}")
        self.ir.emit(f"  tile.yield %r : {elem}")
        self.ir.emit(f"}} {self.site.loc()}")
        return Value(name, result)

    def summed_input(self, x: Any, dtype: Any) -> Value:
        """``x`` in the type a sum or product runs in: ``dtype``, else
        booleans and narrow integers widened to i32."""
        if isinstance(dtype, kl.constexpr):
            dtype = dtype.value
        if dtype is None:
            return self.widened(x)
        if not isinstance(dtype, kl.dtype):
            raise self.error(f"dtype is a kl type, not {dtype!r}")
        return self.cast(self.materialize(x, None), dtype)

    def arith_reduction(self, x: Value, axis: Any, keep_dims: bool,
                        op: str) -> Value:
        """``x`` reduced along ``axis`` by ``op`` ("add", "mul", "xor",
        "or"; f16 and bf16 in f32, rounded once)."""
        def combine(a: str, b: str, t: str) -> list[str]:
            suffix = ("f" if t.startswith(("f", "bf")) else "i") \
                if op in ("add", "mul") else "i"
            return [f"%r = arith.{op}{suffix} {a}, {b} : {t}"]
        return self.reduced(x, axis, keep_dims, lambda x, axis:
                            self.half_in_f32(x, lambda x: self.reduce(
                                x, axis, combine)))

    def builtin_sum(self, x, axis=None, keep_dims=False, dtype=None):
        return self.arith_reduction(self.summed_input(x, dtype), axis,
                                    keep_dims, "add")

    def integer_reduction(self, name: str, x, axis, keep_dims, op: str
                          ) -> Value:
        x = self.materialize(x, None)
        if not x.type.is_int:
            raise self.error(f"kl.{name} needs integers, not {x.type.elem}")
        return self.arith_reduction(x, axis, keep_dims, op)

    def builtin_histogram(self, input, num_bins, mask=None):
        x = self.materialize(input, None)
        if len(x.type.shape) != 1 or not x.type.is_int:
            raise self.error(f"kl.histogram takes a 1-D tile of integers, "
                             f"not {x.type.ir()}")
        if isinstance(num_bins, kl.constexpr):
            num_bins = num_bins.value
        if not isinstance(num_bins, int) or isinstance(num_bins, bool) or \
                num_bins < 1:
            raise self.error("kl.histogram needs a constant positive number "
                             f"of bins, not {num_bins!r}")
        # Element i, bin j: value i falls in bin j (a value outside every
        # bin in none).
        bins = self.expand_dims(self.builtin_arange(0, num_bins), 0)
        hits = self.compare(ast.Eq(), self.expand_dims(x, 1), bins)
        if mask is not None:
            mask = self.broadcast_to(self.materialize(mask, Type((), "i1")),
                                     x.type.shape)
            hits = self.binary(ast.BitAnd(), hits, self.expand_dims(mask, 1))
        return self.builtin_sum(self.cast(hits, kl.int32), 0)

    def builtin_item(self, input):
        x = self.materialize(input, None)
        if math.prod(x.type.shape) != 1 or x.type.is_pointer:
            raise self.error(f"x.item() takes a tile of one number, not "
                             f"{x.type.ir()}")
        if not x.type.shape:
            return x
        if len(x.type.shape) != 1:
            x = self.builtin_reshape(x, 1)
        # One element: the combining region never runs.
        op = "arith.addf" if x.type.is_float else "arith.ori"
        return self.reduce(x, 0, lambda a, b, t: [f"%r = {op} {a}, {b} : {t}"])

    def builtin_xor_sum(self, x, axis=None, keep_dims=False):
        return self.integer_reduction("xor_sum", x, axis, keep_dims, "xor")

    def builtin_reduce_or(self, x, axis, keep_dims=False):
        return self.integer_reduction("reduce_or", x, axis, keep_dims, "or")

    def with_indices(self, name: str, x, axis,
                     keep_dims) -> tuple[Value, Value]:
        """``kl.max(x, axis, return_indices=True)``: the extremum, in
        ``x``'s type, and the index of its first occurrence (the value at
        that index, a NaN where the index is a NaN's)."""
        x = self.materialize(x, None)
        if semantics.is_float8(x.type.elem):  # compared in f32, exactly
            value, index = self.with_indices(name, self.cast(
                x, kl.float32), axis, keep_dims)
            return self.cast(value, kl.BY_IR[x.type.elem]), index
        return tuple(self.reduced(x, axis, keep_dims, lambda x, axis, i=i:
                                  self.arg_reduce(x, axis, name)[i])
                     for i in (0, 1))

    def extremum_reduction(self, kind: str, x, axis, return_indices,
                           keep_dims) -> Any:
        """``kl.max`` or ``kl.min`` along ``axis``: NaN-ignoring, as
        Triton's (a NaN only where all are NaN), in f32 for f16 and bf16
        and in i32 for narrower integers (semantics)."""
        if return_indices:
            return self.with_indices(kind, x, axis, keep_dims)
        x = self.materialize(x, None)
        x = self.cast(x, kl.BY_IR[semantics.extremum_reduction_type(
            x.type.elem)])
        op = semantics.extremum_op(kind, x.type.elem,
                                   semantics.PropagateNan.NONE)
        return self.reduced(x, axis, keep_dims, lambda x, axis: self.reduce(
            x, axis, lambda a, b, t: [f"%r = arith.{op} {a}, {b} : {t}"]))

    # return_indices_tie_break_left and tie_break_left: the first index of
    # a tie either way; False promises none in particular, in Triton.
    def builtin_max(self, x, axis=None, return_indices=False,
                    return_indices_tie_break_left=True, keep_dims=False):
        return self.extremum_reduction("max", x, axis, return_indices,
                                       keep_dims)

    def builtin_min(self, x, axis=None, return_indices=False,
                    return_indices_tie_break_left=True, keep_dims=False):
        return self.extremum_reduction("min", x, axis, return_indices,
                                       keep_dims)

    def arg_reduce(self, x, axis, better: str) -> tuple[Value, Value]:
        """The first best element along `axis` and its index, as Triton's
        (whose interpreter takes numpy's nanargmax and nanargmin): a NaN
        loses to any number, and of NaNs alone the first wins, whatever
        the order in which the reduction combines. 8-bit floats compare in
        f32."""
        if semantics.is_float8(x.type.elem):
            value, index = self.arg_reduce(self.cast(x, kl.float32), axis,
                                           better)
            return self.cast(value, kl.BY_IR[x.type.elem]), index
        n = x.type.shape[axis]
        index = self.builtin_arange(0, n)
        for d in range(len(x.type.shape)):
            if d != axis:
                index = self.expand_dims(index, d)
        index = self.broadcast_to(index, x.type.shape)
        shape = x.type.shape[:axis] + x.type.shape[axis + 1:]
        elem = x.type.elem
        sign = "u" if semantics.is_unsigned(elem) else "s"
        cmp = (f"arith.cmpf {'ogt' if better == 'max' else 'olt'}"
               if x.type.is_float else
               f"arith.cmpi {sign}{'gt' if better == 'max' else 'lt'}")
        eq = "arith.cmpf oeq" if x.type.is_float else "arith.cmpi eq"
        name = self.ir.fresh()
        values, indices = Type(shape, elem), Type(shape, "i32")
        self.ir.emit(f"{name}:2 = tile.reduce {x.name}, {index.name} "
                     f"axis {axis} "
                     f": {x.type.ir()}, {index.type.ir()} -> {values.ir()}, "
                     f"{indices.ir()} {{")
        self.ir.emit(f"^bb0(%va: {elem}, %ia: i32, %vb: {elem}, %ib: i32):")
        take = ["%take = arith.ori %better, %tie : i1"]
        if x.type.is_float:
            # Where b is NaN, a wins as a number or as an earlier NaN; else
            # a wins as a better number (a NaN a is better than nothing).
            take = [f"%anum = arith.cmpf ord, %va, %va : {elem}",
                    f"%bnan = arith.cmpf uno, %vb, %vb : {elem}",
                    "%over_nan = arith.ori %anum, %first : i1",
                    "%number = arith.ori %better, %tie : i1",
                    "%take = arith.select %bnan, %over_nan, %number : i1"]
        for line in [f"%better = {cmp}, %va, %vb : {elem}",
                     f"%same = {eq}, %va, %vb : {elem}",
                     "%first = arith.cmpi slt, %ia, %ib : i32",
                     "%tie = arith.andi %same, %first : i1",
                     *take,
                     f"%v = arith.select %take, %va, %vb : {elem}",
                     "%i = arith.select %take, %ia, %ib : i32",
                     f"tile.yield %v, %i : {elem}, i32"]:
            self.ir.emit(f"  {line}")
        self.ir.emit(f"}} {self.site.loc()}")
        return Value(f"{name}#0", values), Value(f"{name}#1", indices)

    def builtin_argmax(self, x, axis, tie_break_left=True, keep_dims=False):
        return self.reduced(x, axis, keep_dims, lambda x, axis:
                            self.arg_reduce(x, axis, "max")[1])

    def builtin_argmin(self, x, axis, tie_break_left=True, keep_dims=False):
        return self.reduced(x, axis, keep_dims, lambda x, axis:
                            self.arg_reduce(x, axis, "min")[1])

    def builtin_cumsum(self, x, axis=0, reverse=False, dtype=None):
        return self.half_in_f32(self.summed_input(x, dtype), lambda x:
                                self.arith_scan("cumsum", x, axis, "add",
                                                reverse))

    def builtin_cumprod(self, x, axis=0, reverse=False, dtype=None):
        return self.half_in_f32(self.summed_input(x, dtype), lambda x:
                                self.arith_scan("cumprod", x, axis, "mul",
                                                reverse))

    def arith_scan(self, name: str, x: Value, axis: Any, op: str,
                   reverse: Any) -> Value:
        """The inclusive scan of ``x`` along ``axis`` by ``op`` ("add" or
        "mul"), from the last element back where ``reverse``."""
        if not x.type.shape:
            raise self.error(f"kl.{name} needs a tile")
        if isinstance(reverse, kl.constexpr):
            reverse = reverse.value
        axis = self.normalized_axis(axis, len(x.type.shape))
        elem = x.type.elem
        kind = f"arith.{op}{'f' if x.type.is_float else 'i'}"
        name = self.ir.fresh()
        flags = " reverse" if reverse else ""
        self.ir.emit(f"{name} = tile.scan {x.name} axis {axis}{flags} : "
                     f"{x.type.ir()} -> {x.type.ir()} {{")
        self.ir.emit(f"^bb0(%a: {elem}, %b: {elem}):")
        self.ir.emit(f"  %r = {kind} %a, %b : {elem}")
        self.ir.emit(f"  tile.yield %r : {elem}")
        self.ir.emit(f"}} {self.site.loc()}")
        return Value(name, x.type)

    def combined(self, kind: str, input: Any, axis: Any, combine_fn: Any,
                 reverse: bool = False) -> tuple[list[Value], bool]:
        """A ``tile.reduce`` or ``tile.scan`` (``kind``) of ``input`` (a
        tile or a tuple of tiles of one shape) along ``axis``, its region
        ``combine_fn`` (a @kiln.jit function of the running values, then
        the next ones) inlined. Returns the results and whether ``input``
        was one tile."""
        if not getattr(combine_fn, "__kiln_jit__", False):
            raise self.error("combine_fn must be a @kiln.jit function")
        single = not isinstance(input, tuple)
        tiles = [self.materialize(t, None) for t in
                 ((input,) if single else input)]
        shape = tiles[0].type.shape
        if not shape or any(t.type.shape != shape for t in tiles):
            raise self.error("the tiles combined must be tiles of one shape, "
                             "not " + ", ".join(t.type.ir() for t in tiles))
        axis = self.normalized_axis(axis, len(shape))
        elems = [t.type.elem for t in tiles]
        name = self.ir.fresh()
        out_shape = shape if kind == "scan" else \
            shape[:axis] + shape[axis + 1:]
        results = [Type(out_shape, e) for e in elems]
        running = [Value(f"{name}_a{i}", Type((), e))
                   for i, e in enumerate(elems)]
        following = [Value(f"{name}_b{i}", Type((), e))
                     for i, e in enumerate(elems)]
        with self.ir.region() as region:
            returned = self.site.inline(combine_fn, [*running, *following], {})
            returned = list(returned) if isinstance(returned, tuple) \
                else [returned]
            if len(returned) != len(tiles):
                raise self.error(f"combine_fn returns {len(returned)} values "
                                 f"for {len(tiles)} tiles combined")
            values = []
            for value, elem in zip(returned, elems):
                value = self.materialize(value, Type((), elem))
                if value.type != Type((), elem):
                    raise self.error(f"combine_fn returns {value.type.ir()} "
                                     f"where the tile it combines holds "
                                     f"{elem}")
                values.append(value)
            self.ir.emit("tile.yield " + ", ".join(v.name for v in values) +
                         " : " + ", ".join(elems))
        flags = " reverse" if reverse else ""
        self.ir.emit(f"{results_head(name, len(tiles))}tile.{kind} "
                     f"{', '.join(t.name for t in tiles)} axis {axis}{flags}"
                     " : "
                     f"{', '.join(t.type.ir() for t in tiles)} -> "
                     f"{', '.join(r.ir() for r in results)} {{")
        arguments = ", ".join(f"{v.name}: {v.type.elem}"
                              for v in [*running, *following])
        self.ir.emit(f"^bb0({arguments}):")
        self.ir.lines.extend(region)
        self.ir.emit(f"}} {self.site.loc()}")
        suffix = (lambda i: "") if len(tiles) == 1 else (lambda i: f"#{i}")
        return [Value(name + suffix(i), r)
                for i, r in enumerate(results)], single

    def builtin_reduce(self, input, axis, combine_fn, keep_dims=False):
        tiles = tuple(self.materialize(t, None) for t in
                      (input if isinstance(input, tuple) else (input,)))
        rank = len(tiles[0].type.shape)
        if axis is None:  # over the flattened tiles
            tiles = tuple(self.builtin_reshape(t, (math.prod(t.type.shape),))
                          for t in tiles)
        results, _ = self.combined(
            "reduce", tiles if isinstance(input, tuple) else tiles[0],
            0 if axis is None else axis, combine_fn)
        if keep_dims:
            results = [self.broadcast_to(r, (1,) * rank) if axis is None
                       or not r.type.shape else
                       self.expand_dims(r, self.normalized_axis(axis, rank))
                       for r in results]
        return tuple(results) if isinstance(input, tuple) else results[0]

    def builtin_associative_scan(self, input, axis, combine_fn,
                                 reverse=False):
        results, single = self.combined("scan", input, axis, combine_fn,
                                        bool(reverse))
        return results[0] if single else tuple(results)

    def builtin_softmax(self, x, dim=None, *, keep_dims=None,
                        ieee_rounding=False):
        x = self.materialize(x, None)
        axis = 0 if dim is None else dim
        shifted = self.binary(ast.Sub(), x, self.builtin_max(
            x, axis, keep_dims=True))
        numerator = self.unary_math("math.exp", shifted)
        return self.builtin_fdiv(numerator, self.builtin_sum(
            numerator, axis, keep_dims=True), ieee_rounding)
