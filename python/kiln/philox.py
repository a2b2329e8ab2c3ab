"""Philox 4x32 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
3", SC 2011), the counter-based generator behind ``kl.rand``,
``kl.randint`` and ``kl.randn``, with Triton's conventions so that a
kernel ported from Triton draws the same numbers: the seed's low and
high 32 bits are the key, the offset is the first counter word (the
others 0), 10 rounds; a uniform float is the first word read as int32,
made non-negative (``x < 0`` becomes ``-x - 1``) and scaled by
4.6566127342e-10, the largest scale that keeps it below 1 in float32.

The rounds are written once, over an ``ops`` object: the compiler's
front end passes one that emits IR, the interpreter one that computes
with numpy's uint32 arrays; for ``kl.philox_impl`` (Triton's rounds on
uint32 or uint64 words of the caller's), each passes one that applies
the language's own operators.
"""

from __future__ import annotations

from typing import Any, Protocol

#: The multipliers of a round and the key's increments (the golden ratio
#: and sqrt(3) - 1 in 32-bit fixed point), and their 64-bit counterparts
#: for Philox 4x64, by word width.
ROUND_A, ROUND_B = 0xD2511F53, 0xCD9E8D57
KEY_A, KEY_B = 0x9E3779B9, 0xBB67AE85
CONSTANTS = {32: (ROUND_A, ROUND_B, KEY_A, KEY_B),
             64: (0xD2E7470EE14C6C93, 0xCA5A826395121157,
                  0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B)}
ROUNDS = 10
#: (2**31 - 1) * UNIFORM_SCALE is the largest float32 below 1.
UNIFORM_SCALE = 4.6566127342e-10
#: Triton's scale of a 64-bit word.
UNIFORM_SCALE_64 = 1.0842020432385337e-19


class Ops(Protocol):
    """32-bit unsigned arithmetic on counters (tiles) and keys (scalars);
    constants are Python ints below 2**32."""

    def mulhi(self, constant: int, x: Any) -> Any: ...
    def mullo(self, constant: int, x: Any) -> Any: ...
    def xor(self, x: Any, y: Any) -> Any: ...
    def add(self, x: Any, constant: int) -> Any: ...


def rounds(counter: tuple[Any, Any, Any, Any], key: tuple[Any, Any],
           ops: Ops, n: int = ROUNDS, bits: int = 32
           ) -> tuple[Any, Any, Any, Any]:
    """The four words Philox 4x``bits`` makes of ``counter`` under
    ``key``."""
    round_a, round_b, key_a, key_b = CONSTANTS[bits]
    c0, c1, c2, c3 = counter
    k0, k1 = key
    for _ in range(n):
        c0, c1, c2, c3 = (
            ops.xor(ops.xor(ops.mulhi(round_b, c2), c1), k0),
            ops.mullo(round_b, c2),
            ops.xor(ops.xor(ops.mulhi(round_a, c0), c3), k1),
            ops.mullo(round_a, c0))
        k0, k1 = ops.add(k0, key_a), ops.add(k1, key_b)
    return c0, c1, c2, c3


def signed32(value: int) -> int:
    """The int32 with the bits of the uint32 ``value``."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value
