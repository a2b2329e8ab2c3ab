"""``dot``: the matrix product on tensor cores where the GPU target can."""

from __future__ import annotations


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
