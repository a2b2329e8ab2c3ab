"""Seeded dropout, in the idiom of Triton's low-memory-dropout tutorial:
the keep mask comes from ``tl.rand(seed, offsets)``, so it is never
stored, and the same seed gives the same mask. The reference draws the
same numbers with its own numpy Philox 4x32-10 (Triton's constants)."""

import numpy as np

import kiln.triton as triton
import kiln.triton.language as tl


@triton.jit
def _seeded_dropout(x_ptr, output_ptr, n_elements, p, seed,
                    BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    random = tl.rand(seed, offsets)
    x_keep = random > p
    output = tl.where(x_keep, x / (1 - p), 0.0)
    tl.store(output_ptr + offsets, output, mask=mask)


def seeded_dropout(x, p, seed, block_size=1024):
    output = np.empty_like(x)
    n_elements = x.size
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)
    _seeded_dropout[grid](x, output, n_elements, p, seed,
                          BLOCK_SIZE=block_size)
    return output


def _philox_first_word(seed, counter, rounds=10):
    """The first word of Philox 4x32 of counters ``(counter, 0, 0, 0)``
    under the key of the 64-bit ``seed``."""
    mask = np.uint64(0xFFFFFFFF)
    c0 = counter.astype(np.uint64)
    c1 = np.zeros_like(c0)
    c2 = np.zeros_like(c0)
    c3 = np.zeros_like(c0)
    k0, k1 = seed & 0xFFFFFFFF, (seed >> 32) & 0xFFFFFFFF
    for _ in range(rounds):
        p0 = np.uint64(0xCD9E8D57) * c2  # exact: both below 2**32
        p1 = np.uint64(0xD2511F53) * c0
        c0, c1, c2, c3 = ((p0 >> np.uint64(32)) ^ c1 ^ np.uint64(k0),
                          p0 & mask,
                          (p1 >> np.uint64(32)) ^ c3 ^ np.uint64(k1),
                          p1 & mask)
        k0 = (k0 + 0x9E3779B9) & 0xFFFFFFFF
        k1 = (k1 + 0xBB67AE85) & 0xFFFFFFFF
    return c0.astype(np.uint32)


def uniform(seed, offsets):
    """``tl.rand(seed, offsets)``: the int32 word, its negatives folded
    (``~x``), times a scale just under 2**-31, in float32."""
    x = _philox_first_word(seed, offsets.astype(np.uint32)).view(np.int32)
    x = np.where(x < 0, ~x, x)
    return x.astype(np.float32) * np.float32(4.6566127342e-10)


def reference(x, p, seed):
    keep = uniform(seed, np.arange(x.size)) > np.float32(p)
    return np.where(keep, x / (np.float32(1) - np.float32(p)),
                    np.float32(0)).astype(x.dtype)


if __name__ == "__main__":
    x = np.random.default_rng(0).standard_normal(1000).astype(np.float32)
    triton.testing.assert_close(seeded_dropout(x, 0.5, 123),
                                reference(x, 0.5, 123), atol=0)
    print("dropout: ok")
