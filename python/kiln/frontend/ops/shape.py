"""Tiles reshaped, broadcast, permuted, joined, split, concatenated, flipped
and gathered."""

from __future__ import annotations

import ast
import math

from kiln import language as kl
from kiln.frontend.ir import Value, bit_width
from kiln.frontend.ops.core import CoreOps


class ShapeOps(CoreOps):

    def builtin_gather(self, src, index, axis):
        src, index = self.materialize(src, None), self.materialize(index, None)
        if not src.type.shape or not index.type.is_int or \
                len(index.type.shape) != len(src.type.shape):
            raise self.error(f"kl.gather takes a tile and an integer index "
                             f"tile of its rank, not {src.type.ir()} and "
                             f"{index.type.ir()}")
        axis = self.normalized_axis(axis, len(src.type.shape))
        for d, (have, want) in enumerate(zip(index.type.shape,
                                             src.type.shape)):
            if d != axis and have != want:
                raise self.error(f"kl.gather: the index's dimension {d} has "
                                 f"size {have} but the source's has {want}")
        type_ = index.type.with_elem(src.type.elem)
        return self.op(f"tile.gather {src.name}[{index.name}] axis {axis} : "
                       f"{src.type.ir()}, {index.type.ir()} -> {type_.ir()}",
                       type_)

    def builtin_broadcast_to(self, x, *shape):
        shape = kl.shape_argument(shape)
        self.check_tile_shape("kl.broadcast_to", shape)
        return self.broadcast_to(self.materialize(x, None), shape)

    def builtin_expand_dims(self, x, axis):
        """As Triton's: ``axis`` one axis or several, each counted in the
        result's dimensions (negative from its end)."""
        x = self.materialize(x, None)
        axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
        rank = len(x.type.shape) + len(axes)
        axes = sorted(self.normalized_axis(a, rank) for a in axes)
        if len(set(axes)) != len(axes):
            raise self.error(f"kl.expand_dims: the axes {axes} repeat")
        for a in axes:
            x = self.broadcast_to(x, (1,)) if not x.type.shape else \
                self.expand_dims(x, a)
        return x

    def builtin_trans(self, x, *dims):
        return self.trans(self.materialize(x, None), kl.shape_argument(dims))

    def builtin_permute(self, x, *dims):
        return self.trans(self.materialize(x, None), kl.shape_argument(dims)
                          or (None,))

    def builtin_reshape(self, x, *shape, can_reorder=False):
        x = self.materialize(x, None)
        if not x.type.shape:
            raise self.error("kl.reshape takes a tile, not a scalar")
        shape = kl.shape_argument(shape)
        self.check_tile_shape("kl.reshape", shape)
        if math.prod(shape) != math.prod(x.type.shape):
            raise self.error(f"cannot reshape a tile of shape "
                             f"{list(x.type.shape)} to {list(shape)}")
        if shape == ():  # a tile of one number to that number, as Triton's
            return self.builtin_item(x)
        type_ = x.type.with_shape(shape)
        return self.op(f"tile.reshape {x.name} : {x.type.ir()} -> "
                       f"{type_.ir()}", type_)

    def builtin_ravel(self, x, can_reorder=False):
        x = self.materialize(x, None)
        return self.builtin_reshape(x, math.prod(x.type.shape))

    def builtin_view(self, x, *shape):
        return self.builtin_reshape(x, *shape)

    def builtin_squeeze(self, x, dim):
        x = self.materialize(x, None)
        rank = len(x.type.shape)
        dim = self.normalized_axis(dim, rank)
        if x.type.shape[dim] != 1:
            raise self.error(f"kl.squeeze: dimension {dim} has size "
                             f"{x.type.shape[dim]}, not 1")
        return self.builtin_reshape(
            x, x.type.shape[:dim] + x.type.shape[dim + 1:])

    def builtin_unsqueeze(self, x, dim):
        return self.builtin_expand_dims(x, dim)

    def pair_index(self, shape: tuple[int, ...]) -> Value:
        """``k == 0`` over a tile of ``shape``, whose last dimension (of
        size 2) holds k."""
        index = self.builtin_arange(0, 2)
        for _ in shape[:-1]:
            index = self.expand_dims(index, 0)
        return self.compare(ast.Eq(), self.broadcast_to(index, shape), 0)

    def builtin_join(self, a, b):
        if not isinstance(a, Value) and not isinstance(b, Value):
            a = self.materialize(a, None)
        a, b = self.unify(a, b)
        shape = self.broadcast_shape(a.type.shape, b.type.shape) + (2,)
        a, b = (self.broadcast_to(self.expand_dims(v, len(shape) - 1)
                                  if v.type.shape else v, shape)
                for v in (a, b))
        return self.builtin_where(self.pair_index(shape), a, b)

    def builtin_split(self, a):
        """Each half is the or of the half's bits with zeros, which no
        combining order changes."""
        a = self.materialize(a, None)
        if not a.type.shape or a.type.shape[-1] != 2:
            raise self.error(f"kl.split needs a last dimension of size 2, "
                             f"not a tile of shape {list(a.type.shape)}")
        # Pointers as their int64 addresses.
        elem = kl.pointer_type(kl.BY_IR[a.type.pointee]) if \
            a.type.is_pointer else kl.BY_IR[a.type.elem]
        bits = a if a.type.is_int else self.method_to(
            a, kl.int64 if a.type.is_pointer else
            kl.BY_IR[f"i{bit_width(a.type.elem)}"], bitcast=True)
        first = self.pair_index(a.type.shape)
        halves = []
        for take in (first, self.compare(ast.Eq(), first, False)):
            masked = self.builtin_where(take, bits, 0)
            half = self.arith_reduction(masked, -1, False, "or")
            halves.append(half if a.type.is_int else self.method_to(
                half, elem, bitcast=True))
        return tuple(halves)

    def builtin_interleave(self, a, b):
        joined = self.builtin_join(a, b)
        shape = joined.type.shape
        if len(shape) == 1:  # two scalars: the pair is the interleaving
            return joined
        return self.builtin_reshape(joined, shape[:-2] + (2 * shape[-2],))

    def builtin_cat(self, input, other, can_reorder=False, dim=0):
        a, b = self.materialize(input, None), self.materialize(other, None)
        rank = len(a.type.shape)
        if not rank or a.type.shape != b.type.shape:
            raise self.error(f"kl.cat takes two tiles of one shape, not "
                             f"{list(a.type.shape)} and {list(b.type.shape)}")
        dim = self.normalized_axis(dim, rank)
        joined = self.builtin_join(a, b)
        order = list(range(rank))
        order.insert(dim, rank)
        moved = self.trans(joined, tuple(order))
        shape = list(a.type.shape)
        shape[dim] *= 2
        return self.builtin_reshape(moved, tuple(shape))

    def builtin_flip(self, x, dim=None):
        """Triton's exchange: along each of the size-2 dimensions the
        flipped one is reshaped into, an element's bits xor the pair's
        xor-sum are its partner's."""
        x = self.materialize(x, None)
        shape = x.type.shape
        if not shape:
            raise self.error("kl.flip needs a tile")
        if x.type.is_pointer:
            raise self.error("kl.flip reverses numbers, not pointers (Triton "
                             "refuses them too); flip the offsets")
        dim = self.normalized_axis(len(shape) - 1 if dim is None else dim,
                                   len(shape))
        size = shape[dim]
        if size & (size - 1):
            raise self.error(f"kl.flip reverses a dimension whose size is a "
                             f"power of two, not {size}")
        steps = size.bit_length() - 1
        bits = x if x.type.is_int and x.type.elem != "i1" else \
            self.method_to(x, kl.BY_IR[f"i{max(8, bit_width(x.type.elem))}"],
                           bitcast=x.type.elem != "i1")
        y = self.builtin_reshape(bits, shape[:dim] + (2,) * steps
                                 + shape[dim + 1:])
        for i in range(steps):
            pair = self.arith_reduction(y, dim + i, True, "xor")
            y = self.binary(ast.BitXor(), y, pair)
        y = self.builtin_reshape(y, shape)
        if y.type.elem == x.type.elem:
            return y
        return self.method_to(y, kl.BY_IR[x.type.elem],
                              bitcast=x.type.elem != "i1")

    def builtin_broadcast(self, input, other):
        a, b = (self.materialize(v, None) for v in (input, other))
        shape = self.broadcast_shape(a.type.shape, b.type.shape)
        return self.broadcast_to(a, shape), self.broadcast_to(b, shape)
