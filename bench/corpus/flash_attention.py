"""Attention forward in the manner of Triton's fused-attention tutorial
(FlashAttention-2): a program holds a block of queries and walks the keys
and values in blocks, keeping a running maximum and sum of its softmax
(in base 2, ``exp2``, with the scale folded into ``qk_scale``) so that
the scores are never stored; K is loaded transposed (``K + cols[None, :]
* stride + d[:, None]``); the probabilities meet V in float16 with the
accumulator passed to ``tl.dot``. Causal attention runs the blocks left
of the diagonal unmasked (stage 1) and the diagonal block masked (stage
2); non-causal attention runs every block (stage 3). Unlike the tutorial
it masks the last block of a sequence whose length is not a multiple of
the blocks. It also stores each query's log-sum-exp (base 2), ``M``, as
the tutorial does for its backward pass."""

import numpy as np

import kiln.triton as triton
import kiln.triton.language as tl


@triton.jit
def _attn_fwd_inner(acc, l_i, m_i, q, K_ptr, V_ptr, stride_kn, stride_vn,
                    start_m, qk_scale, N_CTX, BLOCK_M: tl.constexpr,
                    HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr,
                    STAGE: tl.constexpr, offs_m, offs_n):
    if STAGE == 1:
        lo, hi = 0, start_m * BLOCK_M
    elif STAGE == 2:
        lo, hi = start_m * BLOCK_M, (start_m + 1) * BLOCK_M
    else:
        lo, hi = 0, N_CTX
    offs_d = tl.arange(0, HEAD_DIM)
    for start_n in range(lo, hi, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        cols = start_n + offs_n
        k = tl.load(K_ptr + cols[None, :] * stride_kn + offs_d[:, None],
                    mask=cols[None, :] < N_CTX, other=0.0)
        qk = tl.dot(q, k)
        valid = cols[None, :] < N_CTX
        if STAGE == 2:
            valid = valid & (offs_m[:, None] >= cols[None, :])
        qk = qk * qk_scale + tl.where(valid, 0, -1.0e6)
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        qk -= m_ij[:, None]
        p = tl.math.exp2(qk)
        l_ij = tl.sum(p, 1)
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + l_ij
        acc = acc * alpha[:, None]
        v = tl.load(V_ptr + cols[:, None] * stride_vn + offs_d[None, :],
                    mask=cols[:, None] < N_CTX, other=0.0)
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_ij
    return acc, l_i, m_i


@triton.jit
def _attn_fwd(Q, K, V, sm_scale, M, Out,
              stride_qz, stride_qh, stride_qm,
              stride_kz, stride_kh, stride_kn,
              stride_vz, stride_vh, stride_vn,
              stride_oz, stride_oh, stride_om,
              H, N_CTX, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
              BLOCK_N: tl.constexpr, STAGE: tl.constexpr):
    tl.static_assert(BLOCK_N <= HEAD_DIM)
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    q_offset = off_z.to(tl.int64) * stride_qz + off_h.to(tl.int64) * stride_qh
    k_offset = off_z.to(tl.int64) * stride_kz + off_h.to(tl.int64) * stride_kh
    v_offset = off_z.to(tl.int64) * stride_vz + off_h.to(tl.int64) * stride_vh
    o_offset = off_z.to(tl.int64) * stride_oz + off_h.to(tl.int64) * stride_oh

    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504  # 1/log(2)
    q = tl.load(Q + q_offset + offs_m[:, None] * stride_qm + offs_d[None, :],
                mask=offs_m[:, None] < N_CTX, other=0.0)
    if STAGE & 1:
        acc, l_i, m_i = _attn_fwd_inner(
            acc, l_i, m_i, q, K + k_offset, V + v_offset, stride_kn,
            stride_vn, start_m, qk_scale, N_CTX, BLOCK_M, HEAD_DIM, BLOCK_N,
            4 - STAGE, offs_m, offs_n)
    if STAGE & 2:
        acc, l_i, m_i = _attn_fwd_inner(
            acc, l_i, m_i, q, K + k_offset, V + v_offset, stride_kn,
            stride_vn, start_m, qk_scale, N_CTX, BLOCK_M, HEAD_DIM, BLOCK_N,
            2, offs_m, offs_n)
    m_i += tl.math.log2(l_i)
    acc = acc / l_i[:, None]
    tl.store(M + off_hz * N_CTX + offs_m, m_i, mask=offs_m < N_CTX)
    tl.store(Out + o_offset + offs_m[:, None] * stride_om + offs_d[None, :],
             acc.to(Out.dtype.element_ty), mask=offs_m[:, None] < N_CTX)


def _strides(x):
    return tuple(s // x.itemsize for s in x.strides)


def attention(q, k, v, causal, sm_scale, block_m=32, block_n=32):
    """``(out, lse2)`` of float16 ``q``, ``k``, ``v`` (batch x heads x
    sequence x head_dim, each head's rows contiguous)."""
    Z, H, N_CTX, HEAD_DIM = q.shape
    assert HEAD_DIM in {16, 32, 64, 128, 256}
    o = np.empty_like(q)
    M = np.empty((Z, H, N_CTX), dtype=np.float32)
    stage = 3 if causal else 1
    grid = lambda args: (triton.cdiv(N_CTX, args["BLOCK_M"]), Z * H, 1)
    _attn_fwd[grid](q, k, v, sm_scale, M, o,
                    *_strides(q)[:3], *_strides(k)[:3], *_strides(v)[:3],
                    *_strides(o)[:3], H, N_CTX, HEAD_DIM=HEAD_DIM,
                    BLOCK_M=block_m, BLOCK_N=block_n, STAGE=stage)
    return o, M


def reference(q, k, v, causal, sm_scale):
    """``(out, lse2)`` in float64."""
    q, k, v = (t.astype(np.float64) for t in (q, k, v))
    scores = q @ np.swapaxes(k, -1, -2) * sm_scale
    if causal:
        n = q.shape[2]
        scores = np.where(np.tril(np.ones((n, n), bool)), scores, -np.inf)
    top = scores.max(axis=-1, keepdims=True)
    e = np.exp(scores - top)
    total = e.sum(axis=-1, keepdims=True)
    lse2 = (top + np.log(total))[..., 0] / np.log(2)
    return e / total @ v, lse2


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((1, 2, 100, 64)).astype(np.float16)
               for _ in range(3))
    for causal in (False, True):
        out, lse = attention(q, k, v, causal, 0.125)
        want, want_lse = reference(q, k, v, causal, 0.125)
        triton.testing.assert_close(out, want, atol=1e-2)
        triton.testing.assert_close(lse, want_lse, atol=1e-3)
    print("flash attention: ok")
