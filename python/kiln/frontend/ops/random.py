"""Random numbers: Philox (kiln/philox.py) and its uniform and normal
variates."""

from __future__ import annotations

import ast
from typing import Any

from kiln import philox, semantics
from kiln import language as kl
from kiln.frontend.ir import Type, Value, bit_width
from kiln.frontend.ops.core import CoreOps


class RandomOps(CoreOps):

    def random_key(self, seed: Any) -> tuple[Any, Any]:
        """The Philox 4x32 key of ``seed`` (an integer scalar or tile, as
        Triton's, converted to uint64 first): its low and high 32 bits,
        as int32 (Python ints for a constant)."""
        if isinstance(seed, kl.constexpr):
            seed = seed.value
        if isinstance(seed, int) and not isinstance(seed, bool):
            seed &= (1 << 64) - 1
            return seed & 0xFFFFFFFF, seed >> 32
        seed = self.checked_seed(seed)
        high = self.binary(ast.RShift(), seed, 32)
        return self.cast(seed, kl.int32), self.cast(high, kl.int32)

    def checked_seed(self, seed: Any) -> Value:
        """``seed`` as uint64, as Triton converts it: a value (a scalar or
        tile) of any integer type."""
        if not (isinstance(seed, Value) and seed.type.is_int):
            raise self.error(f"a random seed is an integer, not {seed!r}"
                             if not isinstance(seed, Value) else
                             f"a random seed is an integer, not "
                             f"{seed.type.ir()}")
        return self.cast(seed, kl.uint64)

    def philox_words(self, seed, counter: list[Any], n_rounds: Any
                     ) -> tuple[Value, ...]:
        """Philox of the ``counter`` words (broadcast to one shape) under
        ``seed``'s key, as Triton's ``tl.philox``: 4x32 of 32-bit words
        (uint32), 4x64 of 64-bit ones (uint64, keyed by the seed alone)."""
        if isinstance(n_rounds, kl.constexpr):
            n_rounds = n_rounds.value
        if not isinstance(n_rounds, int) or n_rounds < 1:
            raise self.error("n_rounds must be a positive constant")
        words = [self.materialize(c, Type((), "i32")) for c in counter]
        widths = {bit_width(w.type.elem) if w.type.is_int else 0
                  for w in words}
        if widths not in ({32}, {64}):
            raise self.error(
                "random offsets and counters are 32-bit or 64-bit integers, "
                "all of one width, not " + ", ".join(
                    semantics.name(w.type.elem) for w in words))
        shape = self.broadcast_shape(*(w.type.shape for w in words))
        if widths == {64}:
            words = [self.broadcast_to(self.method_to(w, kl.uint64,
                                                      bitcast=True), shape)
                     for w in words]
            return philox.rounds(
                tuple(words), (self.checked_seed(seed),
                               self.materialize(0, Type((), "ui64"))),
                _LanguageOps(self), n_rounds, 64)
        words = [self.broadcast_to(self.cast(w, kl.int32), shape)
                 for w in words]
        # Triton's words are uint32 (their arithmetic is unsigned).
        return tuple(self.cast(w, kl.uint32) for w in philox.rounds(
            tuple(words), self.random_key(seed), _IROps(self), n_rounds))

    def uniform(self, x: Value) -> Value:
        """A uniform float32 in [0, 1) of the random word ``x``, read as
        a signed integer of its width as Triton reads it (32 or 64 bits)."""
        if bit_width(x.type.elem) == 64:
            x, scale = self.method_to(x, kl.int64, bitcast=True), \
                philox.UNIFORM_SCALE_64
        else:
            x, scale = self.cast(x, kl.int32), philox.UNIFORM_SCALE
        negative = self.binary(ast.Sub(), self.binary(ast.Sub(), 0, x), 1)
        x = self.builtin_where(self.compare(ast.Lt(), x, 0), negative, x)
        return self.binary(ast.Mult(), self.cast(x, kl.float32), scale)

    def builtin_philox_impl(self, c0, c1, c2, c3, k0, k1,
                            n_rounds=philox.ROUNDS):
        if isinstance(n_rounds, kl.constexpr):
            n_rounds = n_rounds.value
        if not isinstance(n_rounds, int) or n_rounds < 1:
            raise self.error("n_rounds must be a positive constant")
        words = [self.materialize(self.assigned(w), None)
                 for w in (c0, c1, c2, c3, k0, k1)]
        elem = words[0].type.elem
        if elem not in ("ui32", "ui64") or any(
                w.type.elem != elem for w in words):
            raise self.error("kl.philox_impl takes uint32 or uint64 words, "
                             "all of one type, not " + ", ".join(
                                 semantics.name(w.type.elem) for w in words))
        return philox.rounds(tuple(words[:4]), tuple(words[4:]),
                             _LanguageOps(self), n_rounds, bit_width(elem))

    def builtin_philox(self, seed, c0, c1, c2, c3, n_rounds=philox.ROUNDS):
        return self.philox_words(seed, [c0, c1, c2, c3], n_rounds)

    def builtin_randint4x(self, seed, offset, n_rounds=philox.ROUNDS):
        # As Triton's: the offset converted to uint32 is the first counter
        # word; a 64-bit offset's high 32 bits are the second.
        offset = self.materialize(offset, Type((), "i32"))
        if not offset.type.is_int:
            raise self.error(f"random offsets are integers, not "
                             f"{offset.type.ir()}")
        high = 0
        if bit_width(offset.type.elem) == 64:
            high = self.cast(self.binary(ast.RShift(), offset, 32),
                             kl.uint32)
        return self.philox_words(
            seed, [self.cast(offset, kl.uint32), high, 0, 0], n_rounds)

    def builtin_randint(self, seed, offset, n_rounds=philox.ROUNDS):
        return self.builtin_randint4x(seed, offset, n_rounds)[0]

    def builtin_rand(self, seed, offset, n_rounds=philox.ROUNDS):
        return self.uniform(self.builtin_randint(seed, offset, n_rounds))

    def builtin_randn(self, seed, offset, n_rounds=philox.ROUNDS):
        words = self.builtin_randint4x(seed, offset, n_rounds)
        return self.builtin_pair_uniform_to_normal(
            self.uniform(words[0]), self.uniform(words[1]))[0]

    def builtin_uint_to_uniform_float(self, x):
        x = self.materialize(x, None)
        if x.type.elem not in ("i32", "ui32", "i64", "ui64"):
            raise self.error(f"kl.uint_to_uniform_float takes 32-bit or "
                             f"64-bit integer words, not {x.type.elem}")
        return self.uniform(x)

    def builtin_pair_uniform_to_normal(self, u1, u2):
        u1 = self.builtin_maximum(u1, 1.0e-7)
        angle = self.binary(ast.Mult(), 6.283185307179586, u2)
        radius = self.unary_math("math.sqrt", self.binary(
            ast.Mult(), -2.0, self.unary_math("math.log", u1)))
        return (self.binary(ast.Mult(), radius,
                            self.unary_math("math.cos", angle)),
                self.binary(ast.Mult(), radius,
                            self.unary_math("math.sin", angle)))

    def builtin_rand4x(self, seed, offsets, n_rounds=philox.ROUNDS):
        return tuple(self.uniform(w) for w in
                     self.builtin_randint4x(seed, offsets, n_rounds))

    def builtin_randn4x(self, seed, offsets, n_rounds=philox.ROUNDS):
        u = self.builtin_rand4x(seed, offsets, n_rounds)
        return (self.builtin_pair_uniform_to_normal(u[0], u[1])
                + self.builtin_pair_uniform_to_normal(u[2], u[3]))


class _IROps:
    """Philox's 32-bit unsigned arithmetic as IR on int32 values (tiles
    and scalars) and Python ints (a constant key)."""

    def __init__(self, gen: RandomOps) -> None:
        self.gen = gen

    def mulhi(self, constant: int, x: Value) -> Value:
        """The high word of the 64-bit product, through i64."""
        g = self.gen
        wide = x.type.with_elem("i64")
        x64 = g.op(f"arith.extui {x.name} : {x.type.ir()} to {wide.ir()}",
                   wide)
        product = g.binary(ast.Mult(), x64, constant)
        shift = g.broadcast_to(g.materialize(32, Type((), "i64")),
                               wide.shape)
        high = g.op(f"arith.shrui {product.name}, {shift.name} : "
                    f"{wide.ir()}", wide)
        return g.cast(high, kl.int32)

    def mullo(self, constant: int, x: Value) -> Value:
        return self.gen.binary(ast.Mult(), x, philox.signed32(constant))

    def xor(self, x: Any, y: Any) -> Any:
        if not isinstance(x, Value) and not isinstance(y, Value):
            return x ^ y
        y = philox.signed32(y) if isinstance(y, int) else y
        return self.gen.binary(ast.BitXor(), x, y)

    def add(self, x: Any, constant: int) -> Any:
        if not isinstance(x, Value):
            return (x + constant) & 0xFFFFFFFF
        return self.gen.binary(ast.Add(), x, philox.signed32(constant))


class _LanguageOps:
    """Philox's arithmetic as the language's operators on the caller's
    typed words (``kl.philox_impl``)."""

    def __init__(self, gen: RandomOps) -> None:
        self.gen = gen

    def mulhi(self, constant: int, x: Value) -> Value:
        return self.gen.builtin_umulhi(constant, x)

    def mullo(self, constant: int, x: Value) -> Value:
        return self.gen.binary(ast.Mult(), constant, x)

    def xor(self, x: Value, y: Value) -> Value:
        return self.gen.binary(ast.BitXor(), x, y)

    def add(self, x: Value, constant: int) -> Value:
        return self.gen.binary(ast.Add(), x, constant)
