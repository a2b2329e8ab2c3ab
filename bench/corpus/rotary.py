"""Rotary position embedding (RoPE), in place, as LLM kernel libraries
write it in Triton: one program per token rotates every head of it, the
first half of each head's dimensions against the second (the
non-interleaved layout), with a 2-D tile of heads by half-dimensions."""

import numpy as np

import kiln.triton as triton
import kiln.triton.language as tl


@triton.jit
def _rope_kernel(q_ptr, q_row_stride, cos_ptr, sin_ptr, cs_row_stride,
                 n_heads, HEAD_DIM: tl.constexpr, BLOCK_H: tl.constexpr):
    token = tl.program_id(0)
    q_ptr = q_ptr + token * q_row_stride
    cos_ptr = cos_ptr + token * cs_row_stride
    sin_ptr = sin_ptr + token * cs_row_stride
    half = tl.arange(0, HEAD_DIM // 2)
    cos = tl.load(cos_ptr + half)[None, :].to(tl.float32)
    sin = tl.load(sin_ptr + half)[None, :].to(tl.float32)
    heads = tl.arange(0, BLOCK_H)
    mask = (heads[:, None] < n_heads) & (half[None, :] < HEAD_DIM // 2)
    first = q_ptr + heads[:, None] * HEAD_DIM + half[None, :]
    second = first + HEAD_DIM // 2
    x1 = tl.load(first, mask=mask, other=0).to(tl.float32)
    x2 = tl.load(second, mask=mask, other=0).to(tl.float32)
    tl.store(first, x1 * cos - x2 * sin, mask=mask)
    tl.store(second, x2 * cos + x1 * sin, mask=mask)


def rope_(q, cos, sin):
    """Rotates ``q`` (tokens x heads x head_dim, contiguous heads) in
    place by the angles whose ``cos`` and ``sin`` (tokens x head_dim/2)
    are given; returns ``q``."""
    n_tokens, n_heads, head_dim = q.shape
    _rope_kernel[(n_tokens,)](q, q.strides[0] // q.itemsize, cos, sin,
                              cos.strides[0] // cos.itemsize, n_heads,
                              HEAD_DIM=head_dim,
                              BLOCK_H=triton.next_power_of_2(n_heads))
    return q


def angles(n_tokens, head_dim, base=10000.0):
    """``cos`` and ``sin`` of position times frequency, float32."""
    inv_freq = base ** (-np.arange(0, head_dim, 2) / head_dim)
    theta = np.arange(n_tokens)[:, None] * inv_freq[None, :]
    return np.cos(theta).astype(np.float32), np.sin(theta).astype(np.float32)


def reference(q, cos, sin):
    q = q.astype(np.float64)
    half = q.shape[-1] // 2
    x1, x2 = q[..., :half], q[..., half:]
    c, s = cos[:, None, :], sin[:, None, :]
    return np.concatenate([x1 * c - x2 * s, x2 * c + x1 * s], axis=-1)


if __name__ == "__main__":
    q = np.random.default_rng(0).standard_normal((50, 5, 64), np.float32)
    cos, sin = angles(50, 64)
    want = reference(q, cos, sin)
    triton.testing.assert_close(rope_(q, cos, sin), want, atol=1e-5)
    print("rotary: ok")
