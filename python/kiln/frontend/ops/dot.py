"""``dot``: the matrix product on tensor cores where the GPU target can."""

from __future__ import annotations

import ast

from kiln import semantics
from kiln import language as kl
from kiln.frontend.ir import Value
from kiln.frontend.ops.core import CoreOps


class DotOps(CoreOps):

    def builtin_dot(self, a, b, acc=None, input_precision=None,
                    allow_tf32=None, max_num_imprecise_acc=None,
                    out_dtype=None):
        if not (isinstance(a, Value) and isinstance(b, Value)):
            raise self.error("kl.dot takes two tiles")
        try:
            precision = semantics.dot_precision(
                a.type.elem, *(v.value if isinstance(v, kl.constexpr) else v
                               for v in (input_precision, allow_tf32)))
        except ValueError as exc:
            raise self.error(str(exc)) from None
        out = None if out_dtype is None else self.dtype_of(out_dtype).ir
        if problem := semantics.dot_out_problem(a.type.elem, out):
            raise self.error(problem)
        # Two 8-bit floats of the formats tensor cores take (e4m3, e5m2)
        # stay as they are: sm_90a's wgmma multiplies them, and the other
        # targets multiply their f16 widenings, which are exact. Any other
        # 8-bit float (or one beside a wider type) is widened here.
        tensor_core_fp8 = ("f8E4M3FN", "f8E5M2")
        into_f32 = (acc.type.elem == "f32" if isinstance(acc, Value) else
                    out in (None, "f32"))
        if not (a.type.elem in tensor_core_fp8 and
                b.type.elem in tensor_core_fp8 and into_f32):
            a, b = (self.cast(v, kl.float16) if semantics.is_float8(
                v.type.elem) else v for v in (a, b))
        unsigned = [v.type.elem for v in (a, b, acc)
                    if isinstance(v, Value) and v.type.elem.startswith("ui")]
        if unsigned:
            # The IR's integer dot is signed; Triton's takes int8 only.
            raise self.error(f"kl.dot multiplies int8 integers, not "
                             f"{semantics.name(unsigned[0])}")
        if acc is None:
            elem = semantics.dot_type(a.type.elem, out)
            shape = tuple(a.type.shape[:-1]) + (b.type.shape[-1],)
            acc = self.constant_tile(shape, 0, kl.BY_IR[elem])
        elif out is not None and out != acc.type.elem:
            raise self.error(f"kl.dot: out_dtype {out_dtype!r} differs from "
                             f"the accumulator's {acc.type.elem}")
        precision = f" input_precision = {precision}" if precision else ""
        return self.op(f"tile.dot {a.name}, {b.name}, {acc.name}{precision} "
                       f": {a.type.ir()}, {b.type.ir()} -> {acc.type.ir()}",
                       acc.type)

    def builtin_dot_scaled(self, lhs, lhs_scale, lhs_format, rhs, rhs_scale,
                           rhs_format, acc=None, fast_math=False,
                           lhs_k_pack=True, rhs_k_pack=True,
                           out_dtype=kl.float32):
        """Triton's emulation of microscaled products where the tensor
        cores have none: each operand decoded, times its e8m0 scales
        (2^(s - 127) per group of K), in bfloat16 (float16 where an
        operand is fp16), then an ordinary dot into float32."""
        formats = [_unwrapped(f) for f in (lhs_format, rhs_format)]
        for f in formats:
            if f not in semantics.SCALED_FORMATS:
                raise self.error(
                    f"kl.dot_scaled: format {f!r} is not one of "
                    f"{', '.join(semantics.SCALED_FORMATS)}")
        if self.dtype_of(_unwrapped(out_dtype)) is not kl.float32:
            raise self.error("kl.dot_scaled computes float32 (out_dtype)")
        compute = semantics.dot_scaled_compute_type(*formats)
        a = self.scaled_operand(lhs, lhs_scale, formats[0],
                                bool(_unwrapped(lhs_k_pack)), compute, False)
        b = self.scaled_operand(rhs, rhs_scale, formats[1],
                                bool(_unwrapped(rhs_k_pack)), compute, True)
        if a.type.shape[1] != b.type.shape[0]:
            raise self.error(f"kl.dot_scaled: the operands hold "
                             f"{a.type.shape[1]} and {b.type.shape[0]} "
                             f"elements along K")
        if isinstance(acc, Value) and acc.type.elem != "f32":
            raise self.error(f"kl.dot_scaled accumulates in float32, not "
                             f"{kl.BY_IR[acc.type.elem].name}")
        return self.builtin_dot(a, b, acc)

    def scaled_operand(self, value, scale, format: str, k_pack: bool,
                       compute: str, is_rhs: bool) -> Value:
        """A dot_scaled operand (``is_rhs``: K x N, else M x K) decoded,
        scaled and rounded to ``compute``."""
        value = self.materialize(value, None)
        side = "rhs" if is_rhs else "lhs"
        if len(value.type.shape) != 2:
            raise self.error(f"kl.dot_scaled takes 2-D operands, not a "
                             f"{side} of shape {list(value.type.shape)}")
        if format == "e2m1":
            if value.type.elem != "ui8":
                raise self.error(f"kl.dot_scaled: an e2m1 {side} comes "
                                 f"packed two to a uint8, not as "
                                 f"{kl.BY_IR[value.type.elem].name}")
            # Packed along K, or along M (N) without k_pack.
            x = self.unpack_e2m1(value, 0 if is_rhs == k_pack else 1)
        else:
            if not k_pack:
                raise self.error("kl.dot_scaled: only e2m1 operands may be "
                                 "packed along M or N")
            want = semantics.SCALED_FORMATS[format]
            if value.type.elem == semantics.SCALED_FORMAT_BITS[format]:
                value = self.method_to(value, kl.BY_IR[want], bitcast=True)
            elif value.type.elem != want:
                raise self.error(
                    f"kl.dot_scaled: a {format} {side} is "
                    f"{kl.BY_IR[want].name} or its bits, not "
                    f"{kl.BY_IR[value.type.elem].name}")
            x = self.cast(value, kl.float32)
        if _unwrapped(scale) is not None:
            rows, k = x.type.shape[::-1] if is_rhs else x.type.shape
            factors = self.e8m0_factors(self.materialize(scale, None), rows,
                                        k, compute, side)
            x = self.binary(ast.Mult(), x, self.trans(factors, (1, 0))
                            if is_rhs else factors)
        return self.cast(x, kl.BY_IR[compute])

    def unpack_e2m1(self, packed: Value, axis: int) -> Value:
        """The float32 values of the e2m1 pairs ``packed`` holds, the low
        nibble first along ``axis``."""
        halves = [self.decode_e2m1(self.cast(self.binary(
            op, packed, amount), kl.int32))
            for op, amount in ((ast.BitAnd(), 15), (ast.RShift(), 4))]
        if axis == 1:
            return self.builtin_interleave(*halves)
        rows = [self.trans(h, (1, 0)) for h in halves]
        return self.trans(self.builtin_interleave(*rows), (1, 0))

    def decode_e2m1(self, code: Value) -> Value:
        """The float32 of each 4-bit e2m1 code (int32): sign, two bits of
        exponent (bias 1), one of mantissa, built as float32 bits."""
        magnitude = self.binary(ast.BitAnd(), code, 7)
        exponent = self.binary(ast.RShift(), magnitude, 1)
        mantissa = self.binary(ast.BitAnd(), magnitude, 1)
        normal = self.binary(ast.BitOr(), self.binary(
            ast.LShift(), self.binary(ast.Add(), exponent, 126), 23),
            self.binary(ast.LShift(), mantissa, 22))
        half = self.binary(ast.Mult(), mantissa, 0x3F000000)  # 0.5 or 0
        bits = self.builtin_where(self.compare(ast.Eq(), exponent, 0), half,
                                  normal)
        x = self.method_to(bits, kl.float32, bitcast=True)
        negative = self.compare(ast.NotEq(),
                                self.binary(ast.BitAnd(), code, 8), 0)
        return self.builtin_where(negative, self.binary(ast.Mult(), x, -1.0),
                                  x)

    def e8m0_factors(self, scale: Value, rows: int, k: int, compute: str,
                     side: str) -> Value:
        """The rows x k float32 factors of e8m0 ``scale`` (rows x groups,
        uint8 or int8 bytes): 2^(s - 127) for each group of K; byte 255 is
        NaN, and byte 0 is 2^-127 in a bfloat16 product (it is zero in a
        float16 one), as Triton's interpreter reads them."""
        groups = scale.type.shape[-1] if len(scale.type.shape) == 2 else 0
        if scale.type.elem not in ("ui8", "i8") or \
                tuple(scale.type.shape) != (rows, groups) or k % groups:
            raise self.error(
                f"kl.dot_scaled: the {side} scale is a uint8 tile of shape "
                f"[{rows}, K // group] (K = {k}), not "
                f"{scale.type.ir()}")
        if scale.type.elem == "i8":
            scale = self.method_to(scale, kl.uint8, bitcast=True)
        byte = self.cast(scale, kl.int32)
        bits = self.binary(ast.LShift(), byte, 23)
        if compute == "bf16":
            bits = self.builtin_where(self.compare(ast.Eq(), byte, 0),
                                      0x400000, bits)
        factor = self.builtin_where(
            self.compare(ast.Eq(), byte, 255), float("nan"),
            self.method_to(bits, kl.float32, bitcast=True))
        group = self.broadcast_to(self.expand_dims(factor, 2),
                                  (rows, groups, k // groups))
        return self.builtin_reshape(group, (rows, k))


def _unwrapped(value):
    return value.value if isinstance(value, kl.constexpr) else value
