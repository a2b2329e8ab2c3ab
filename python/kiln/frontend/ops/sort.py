"""Bitonic sorting (Triton's network, on a tile reshaped to a hypercube of
twos): ``sort``, ``topk``, ``bitonic_merge``."""

from __future__ import annotations

import ast
import math
from typing import Any

from kiln import semantics
from kiln import language as kl
from kiln.frontend.ir import Value, bit_width
from kiln.frontend.ops.core import CoreOps


class SortOps(CoreOps):

    def indicator(self, dims: int, j: int) -> Value:
        """0 or 1 along hypercube dimension ``j`` counted from the
        innermost, as an i32 tile of ``dims`` dimensions."""
        return self.builtin_reshape(self.builtin_arange(0, 2),
                                    (1,) * (dims - j - 1) + (2,) + (1,) * j)

    def compare_and_swap(self, h: Value, flip: Any, i: int) -> Value:
        """Each element against its partner along hypercube dimension
        ``i`` (from the innermost): the pair ordered ascending where
        ``flip`` is 0 and descending where it is 1."""
        dims = len(h.type.shape)
        bits = kl.BY_IR[f"i{bit_width(h.type.elem)}"]
        ix = self.method_to(h, bits, bitcast=True)
        partner = self.binary(ast.BitXor(), ix, self.arith_reduction(
            ix, dims - 1 - i, True, "xor"))
        y = self.method_to(partner, kl.BY_IR[h.type.elem], bitcast=True)
        right = self.binary(ast.BitXor(), flip, self.indicator(dims, i))
        swap = self.compare(ast.NotEq(), self.compare(ast.Gt(), h, y),
                            self.compare(ast.NotEq(), right, 0))
        return self.builtin_where(swap, y, h)

    def merge_hypercube(self, h: Value, stage: int, order: int) -> Value:
        """``stage`` rounds of compare-and-swap: ascending (order 0),
        descending (1) or alternating by blocks (2)."""
        flip = self.indicator(len(h.type.shape), stage) if order == 2 \
            else order
        for i in range(stage):
            h = self.compare_and_swap(h, flip, stage - 1 - i)
        return h

    def sorted_last(self, name: str, x: Any, k: Any, dim: Any,
                    descending: Any) -> Value:
        x = self.materialize(x, None)
        if semantics.is_float8(x.type.elem) or x.type.elem == "i1":
            # 8-bit floats compared in f32, exactly; booleans as bytes.
            wide = kl.uint8 if x.type.elem == "i1" else kl.float32
            return self.cast(self.sorted_last(
                name, self.cast(x, wide), k, dim, descending),
                kl.BY_IR[x.type.elem])
        shape = x.type.shape
        if isinstance(descending, kl.constexpr):
            descending = descending.value
        descending = int(bool(descending))
        if not shape or (dim is not None and self.normalized_axis(
                dim, len(shape)) != len(shape) - 1):
            raise self.error(f"kl.{name} sorts along the last dimension of "
                             "a tile")
        if any(n & (n - 1) for n in shape):
            raise self.error(f"kl.{name} sorts tiles whose sizes are powers "
                             f"of two, not {x.type.ir()}")
        log_n = shape[-1].bit_length() - 1
        log_k = log_n if k is None else k.bit_length() - 1
        if k is not None and (k <= 0 or k & (k - 1) or k > shape[-1]):
            raise self.error(f"kl.topk: k is a power of two no larger than "
                             f"{shape[-1]}, not {k}")
        reduce = self.builtin_max if descending else self.builtin_min
        if log_k == 0:
            return reduce(x, len(shape) - 1, keep_dims=True)
        dims = math.prod(shape).bit_length() - 1
        h = self.builtin_reshape(x, (2,) * dims)
        for i in range(1, log_k + 1):
            h = self.merge_hypercube(h, i, 2 if i < log_n else descending)
        for i in range(log_k + 1, log_n + 1):
            h = reduce(h, len(h.type.shape) - 1 - log_k)
            h = self.merge_hypercube(h, log_k,
                                     2 if i < log_n else descending)
        return self.builtin_reshape(h, shape[:-1] + (1 << log_k,))

    def builtin_sort(self, x, dim=None, descending=False):
        return self.sorted_last("sort", x, None, dim, descending)

    def builtin_topk(self, x, k, dim=None, descending=True):
        if isinstance(k, kl.constexpr):
            k = k.value
        if not isinstance(k, int) or isinstance(k, bool):
            raise self.error(f"kl.topk takes a constant k, not {k!r}")
        return self.sorted_last("topk", x, k, dim, descending)

    def builtin_bitonic_merge(self, x, dim=None, descending=False):
        x = self.materialize(x, None)
        shape = x.type.shape
        if not shape or any(n & (n - 1) for n in shape):
            raise self.error("kl.bitonic_merge takes a tile whose sizes are "
                             "powers of two")
        if isinstance(descending, kl.constexpr):
            descending = descending.value
        h = self.builtin_reshape(x, (2,) * (math.prod(shape).bit_length()
                                            - 1))
        h = self.merge_hypercube(h, shape[-1].bit_length() - 1,
                                 int(bool(descending)))
        return self.builtin_reshape(h, shape)
