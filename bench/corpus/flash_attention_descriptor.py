"""Attention forward in the manner of Triton 3.9's fused-attention
tutorial on Hopper: Q, K, V and O reach the kernel as host-side tensor
descriptors over the batch x heads x sequence rows (``TensorDescriptor``
of a ``(Z * H * N_CTX, HEAD_DIM)`` view), K is read with
``desc_k.load([offset, 0]).T``, the loop is ``tl.range`` with the row
offsets of K and V carried and advanced by ``BLOCK_N``, and O is written
with ``desc_o.store``. As in the tutorial, the sequence is a multiple of
``BLOCK_M`` (a block of O past its end would be another head's rows);
keys past the end of a causal diagonal are masked."""

import numpy as np

import kiln.triton as triton
import kiln.triton.language as tl
from kiln.triton.tools.tensor_descriptor import TensorDescriptor


@triton.jit
def _attn_fwd_inner(acc, l_i, m_i, q, desc_k, desc_v, offset_y,
                    dtype: tl.constexpr, start_m, qk_scale,
                    BLOCK_M: tl.constexpr, HEAD_DIM: tl.constexpr,
                    BLOCK_N: tl.constexpr, STAGE: tl.constexpr, offs_m,
                    offs_n, N_CTX):
    if STAGE == 1:
        lo, hi = 0, start_m * BLOCK_M
    elif STAGE == 2:
        lo, hi = start_m * BLOCK_M, (start_m + 1) * BLOCK_M
        lo = tl.multiple_of(lo, BLOCK_M)
    else:
        lo, hi = 0, N_CTX
    offsetk_y = offset_y + lo
    offsetv_y = offset_y + lo
    for start_n in tl.range(lo, hi, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        k = desc_k.load([offsetk_y, 0]).T
        qk = tl.dot(q, k)
        if STAGE == 2:
            mask = offs_m[:, None] >= (start_n + offs_n[None, :])
            qk = qk * qk_scale + tl.where(mask, 0, -1.0e6)
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            qk -= m_ij[:, None]
        else:
            m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        alpha = tl.math.exp2(m_i - m_ij)
        l_ij = tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = desc_v.load([offsetv_y, 0])
        p = p.to(dtype)
        acc = tl.dot(p, v, acc)
        l_i = l_i * alpha + l_ij
        m_i = m_ij
        offsetk_y += BLOCK_N
        offsetv_y += BLOCK_N
    return acc, l_i, m_i


@triton.jit
def _attn_fwd(sm_scale, M, Z, H, desc_q, desc_k, desc_v, desc_o, N_CTX,
              HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
              BLOCK_N: tl.constexpr, STAGE: tl.constexpr):
    dtype = tl.float16
    tl.static_assert(BLOCK_N <= HEAD_DIM)
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    offset_y = off_z * (N_CTX * H) + off_h * N_CTX
    qo_offset_y = offset_y + start_m * BLOCK_M
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504  # 1/log(2)
    q = desc_q.load([qo_offset_y, 0])
    if STAGE & 1:
        acc, l_i, m_i = _attn_fwd_inner(
            acc, l_i, m_i, q, desc_k, desc_v, offset_y, dtype, start_m,
            qk_scale, BLOCK_M, HEAD_DIM, BLOCK_N, 4 - STAGE, offs_m, offs_n,
            N_CTX)
    if STAGE & 2:
        acc, l_i, m_i = _attn_fwd_inner(
            acc, l_i, m_i, q, desc_k, desc_v, offset_y, dtype, start_m,
            qk_scale, BLOCK_M, HEAD_DIM, BLOCK_N, 2, offs_m, offs_n, N_CTX)
    m_i += tl.math.log2(l_i)
    acc = acc / l_i[:, None]
    tl.store(M + off_hz * N_CTX + offs_m, m_i)
    desc_o.store([qo_offset_y, 0], acc.to(dtype))


def descriptors(q, k, v, o, block_m, block_n):
    """Host descriptors of the four arrays' rows, blocks of a program's
    queries (Q, O) and of a step's keys (K, V)."""
    head_dim = q.shape[-1]
    rows = [(t.reshape(-1, head_dim), block)
            for t, block in ((q, block_m), (k, block_n), (v, block_n),
                             (o, block_m))]
    return tuple(TensorDescriptor.from_tensor(t, [block, head_dim])
                 for t, block in rows)


def attention(q, k, v, causal, sm_scale, block_m=32, block_n=32,
              num_warps=4):
    """``(out, lse2)`` of float16 ``q``, ``k``, ``v`` (batch x heads x
    sequence x head_dim, contiguous; the sequence a multiple of
    ``block_m``)."""
    Z, H, N_CTX, HEAD_DIM = q.shape
    assert N_CTX % block_m == 0 and block_m % block_n == 0
    o = np.empty_like(q)
    M = np.empty((Z, H, N_CTX), dtype=np.float32)
    _attn_fwd[(triton.cdiv(N_CTX, block_m), Z * H, 1)](
        sm_scale, M, Z, H, *descriptors(q, k, v, o, block_m, block_n),
        N_CTX, HEAD_DIM=HEAD_DIM, BLOCK_M=block_m, BLOCK_N=block_n,
        STAGE=3 if causal else 1, num_warps=num_warps)
    return o, M
