"""Flash attention, forward and backward: the kernels ``kiln.ops.attention``
runs, written in Triton's idiom (its fused-attention tutorial,
FlashAttention-2), so that the same file is also a kernel of the
Triton-idiom corpus (``bench/corpus``), compiled by Triton too.

The forward: a program holds a block of queries and walks the keys and
values in blocks, keeping a running maximum and sum of its softmax (in
base 2, ``exp2``, with the scale folded into ``qk_scale``) so that the
scores are never stored; K is loaded transposed (``K + cols[None, :] *
stride + d[:, None]``); the probabilities meet V in V's type with the
accumulator passed to ``tl.dot``. Causal attention runs the blocks left
of the diagonal unmasked (stage 1) and the diagonal block masked (stage
2); non-causal attention runs every block (stage 3). Unlike the tutorial
it masks the last block of a sequence whose length is not a multiple of
the blocks. It also stores each query's log-sum-exp (base 2), ``M``, for
the backward pass.

The backward pass is the tutorial's too: a preprocess computes each
query's ``delta = rowsum(dO * O)``; then one program per block of keys
walks the queries for dK and dV (``Q`` loaded transposed, ``tl.dot(k,
qT)``, ``tl.trans(do)``) and the same program walks the keys for the dQ of
a block of queries. K arrives pre-scaled by ``sm_scale / ln 2`` so that
the scores are in ``M``'s base 2. Causal attention takes the diagonal
block in narrower masked steps (``BLK_SLICE_FACTOR``) and the rest
unmasked; every load and store is masked for ragged sequences.

``forward`` and ``backward`` launch them on numpy arrays (the host
target) or PyTorch tensors (the GPU for CUDA tensors, the host target for
CPU ones), with the blocks Triton's tutorial uses on Hopper on a GPU and
small ones on the host."""

import functools
import math

import numpy as np

import kiln.triton as triton
import kiln.triton.language as tl
from kiln.errors import KilnError
from kiln.ops.operands import is_torch, on_gpu, strides


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
        acc = tl.dot(p.to(v.dtype), v, acc)
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


@triton.jit
def _attn_bwd_preprocess(Out, DO, Delta, N_CTX, BLOCK_M: tl.constexpr,
                         HEAD_DIM: tl.constexpr):
    off_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    off_hz = tl.program_id(1)
    off_n = tl.arange(0, HEAD_DIM)
    rows = off_hz * N_CTX + off_m
    in_range = off_m[:, None] < N_CTX
    o = tl.load(Out + rows[:, None] * HEAD_DIM + off_n[None, :],
                mask=in_range, other=0.0)
    do = tl.load(DO + rows[:, None] * HEAD_DIM + off_n[None, :],
                 mask=in_range, other=0.0).to(tl.float32)
    delta = tl.sum(o * do, axis=1)
    tl.store(Delta + rows, delta, mask=off_m < N_CTX)


@triton.jit
def _attn_bwd_dkdv(dk, dv, Q, k, v, DO, M, D, stride_tok, stride_d, N_CTX,
                   BLOCK_M1: tl.constexpr, BLOCK_N1: tl.constexpr,
                   HEAD_DIM: tl.constexpr, start_n, start_m, num_steps,
                   MASK: tl.constexpr):
    offs_m = start_m + tl.arange(0, BLOCK_M1)
    offs_n = start_n + tl.arange(0, BLOCK_N1)
    offs_k = tl.arange(0, HEAD_DIM)
    qT_ptrs = Q + offs_m[None, :] * stride_tok + offs_k[:, None] * stride_d
    do_ptrs = DO + offs_m[:, None] * stride_tok + offs_k[None, :] * stride_d
    tl.static_assert(BLOCK_N1 % BLOCK_M1 == 0)
    curr_m = start_m
    step_m = BLOCK_M1
    for blk_idx in range(num_steps):
        offs_m = curr_m + tl.arange(0, BLOCK_M1)
        qT = tl.load(qT_ptrs, mask=offs_m[None, :] < N_CTX, other=0.0)
        # A query past the end has an infinite log-sum-exp: p is 0.
        m = tl.load(M + offs_m, mask=offs_m < N_CTX, other=float("inf"))
        qkT = tl.dot(k, qT)
        pT = tl.math.exp2(qkT - m[None, :])
        if MASK:
            pT = tl.where(offs_m[None, :] >= offs_n[:, None], pT, 0.0)
        do = tl.load(do_ptrs, mask=offs_m[:, None] < N_CTX, other=0.0)
        ppT = pT.to(do.dtype)
        dv += tl.dot(ppT, do)
        Di = tl.load(D + offs_m, mask=offs_m < N_CTX, other=0.0)
        dpT = tl.dot(v, tl.trans(do)).to(tl.float32)
        dsT = pT * (dpT - Di[None, :])
        dsT = dsT.to(qT.dtype)
        dk += tl.dot(dsT, tl.trans(qT))
        curr_m += step_m
        qT_ptrs += step_m * stride_tok
        do_ptrs += step_m * stride_tok
    return dk, dv


@triton.jit
def _attn_bwd_dq(dq, q, K, V, do, m, D, stride_tok, stride_d, N_CTX,
                 BLOCK_M2: tl.constexpr, BLOCK_N2: tl.constexpr,
                 HEAD_DIM: tl.constexpr, start_m, start_n, num_steps,
                 MASK: tl.constexpr):
    offs_m = start_m + tl.arange(0, BLOCK_M2)
    offs_n = start_n + tl.arange(0, BLOCK_N2)
    offs_k = tl.arange(0, HEAD_DIM)
    kT_ptrs = K + offs_n[None, :] * stride_tok + offs_k[:, None] * stride_d
    vT_ptrs = V + offs_n[None, :] * stride_tok + offs_k[:, None] * stride_d
    Di = tl.load(D + offs_m, mask=offs_m < N_CTX, other=0.0)
    tl.static_assert(BLOCK_M2 % BLOCK_N2 == 0)
    curr_n = start_n
    step_n = BLOCK_N2
    for blk_idx in range(num_steps):
        offs_n = curr_n + tl.arange(0, BLOCK_N2)
        kT = tl.load(kT_ptrs, mask=offs_n[None, :] < N_CTX, other=0.0)
        vT = tl.load(vT_ptrs, mask=offs_n[None, :] < N_CTX, other=0.0)
        qk = tl.dot(q, kT)
        p = tl.math.exp2(qk - m)
        valid = offs_n[None, :] < N_CTX
        if MASK:
            valid = valid & (offs_m[:, None] >= offs_n[None, :])
        p = tl.where(valid, p, 0.0)
        dp = tl.dot(do, vT).to(tl.float32)
        ds = p * (dp - Di[:, None])
        ds = ds.to(kT.dtype)
        dq += tl.dot(ds, tl.trans(kT))
        curr_n += step_n
        kT_ptrs += step_n * stride_tok
        vT_ptrs += step_n * stride_tok
    return dq


@triton.jit
def _attn_bwd(Q, K, V, sm_scale, DO, DQ, DK, DV, M, D,
              stride_z, stride_h, stride_tok, stride_d,
              H, N_CTX, BLOCK_M1: tl.constexpr, BLOCK_N1: tl.constexpr,
              BLOCK_M2: tl.constexpr, BLOCK_N2: tl.constexpr,
              BLK_SLICE_FACTOR: tl.constexpr, HEAD_DIM: tl.constexpr,
              CAUSAL: tl.constexpr):
    LN2: tl.constexpr = 0.6931471824645996  # ln(2)

    bhid = tl.program_id(2)
    off_chz = (bhid * N_CTX).to(tl.int64)
    adj = (stride_h * (bhid % H) + stride_z * (bhid // H)).to(tl.int64)
    pid = tl.program_id(0)

    Q += adj
    K += adj
    V += adj
    DO += adj
    DQ += adj
    DK += adj
    DV += adj
    M += off_chz
    D += off_chz

    offs_k = tl.arange(0, HEAD_DIM)

    # dK and dV of this program's block of keys.
    start_n = pid * BLOCK_N1
    offs_n = start_n + tl.arange(0, BLOCK_N1)
    keys = offs_n[:, None] < N_CTX
    dv = tl.zeros([BLOCK_N1, HEAD_DIM], dtype=tl.float32)
    dk = tl.zeros([BLOCK_N1, HEAD_DIM], dtype=tl.float32)
    k = tl.load(K + offs_n[:, None] * stride_tok + offs_k[None, :] * stride_d,
                mask=keys, other=0.0)
    v = tl.load(V + offs_n[:, None] * stride_tok + offs_k[None, :] * stride_d,
                mask=keys, other=0.0)
    if CAUSAL:
        # The diagonal block, in narrower masked steps, then the queries
        # below it.
        start_m = start_n
        MASK_BLOCK_M1: tl.constexpr = BLOCK_M1 // BLK_SLICE_FACTOR
        num_steps = BLOCK_N1 // MASK_BLOCK_M1
        dk, dv = _attn_bwd_dkdv(dk, dv, Q, k, v, DO, M, D, stride_tok,
                                stride_d, N_CTX, MASK_BLOCK_M1, BLOCK_N1,
                                HEAD_DIM, start_n, start_m, num_steps,
                                MASK=True)
        start_m += num_steps * MASK_BLOCK_M1
    else:
        start_m = 0
    num_steps = tl.cdiv(N_CTX - start_m, BLOCK_M1)
    dk, dv = _attn_bwd_dkdv(dk, dv, Q, k, v, DO, M, D, stride_tok, stride_d,
                            N_CTX, BLOCK_M1, BLOCK_N1, HEAD_DIM, start_n,
                            start_m, num_steps, MASK=False)
    dv_ptrs = DV + offs_n[:, None] * stride_tok + offs_k[None, :] * stride_d
    tl.store(dv_ptrs, dv, mask=keys)
    dk *= sm_scale
    dk_ptrs = DK + offs_n[:, None] * stride_tok + offs_k[None, :] * stride_d
    tl.store(dk_ptrs, dk, mask=keys)

    # dQ of this program's block of queries.
    start_m = pid * BLOCK_M2
    offs_m = start_m + tl.arange(0, BLOCK_M2)
    queries = offs_m[:, None] < N_CTX
    q = tl.load(Q + offs_m[:, None] * stride_tok + offs_k[None, :] * stride_d,
                mask=queries, other=0.0)
    dq = tl.zeros([BLOCK_M2, HEAD_DIM], dtype=tl.float32)
    do_ptrs = DO + offs_m[:, None] * stride_tok + offs_k[None, :] * stride_d
    do = tl.load(do_ptrs, mask=queries, other=0.0)
    m = tl.load(M + offs_m, mask=offs_m < N_CTX, other=float("inf"))
    m = m[:, None]
    if CAUSAL:
        # The keys left of the diagonal unmasked, then the diagonal block
        # in narrower masked steps.
        num_steps = start_m // BLOCK_N2
        dq = _attn_bwd_dq(dq, q, K, V, do, m, D, stride_tok, stride_d, N_CTX,
                          BLOCK_M2, BLOCK_N2, HEAD_DIM, start_m, 0,
                          num_steps, MASK=False)
        MASK_BLOCK_N2: tl.constexpr = BLOCK_N2 // BLK_SLICE_FACTOR
        dq = _attn_bwd_dq(dq, q, K, V, do, m, D, stride_tok, stride_d, N_CTX,
                          BLOCK_M2, MASK_BLOCK_N2, HEAD_DIM, start_m, start_m,
                          BLOCK_M2 // MASK_BLOCK_N2, MASK=True)
    else:
        dq = _attn_bwd_dq(dq, q, K, V, do, m, D, stride_tok, stride_d, N_CTX,
                          BLOCK_M2, BLOCK_N2, HEAD_DIM, start_m, 0,
                          tl.cdiv(N_CTX, BLOCK_N2), MASK=False)
    # K was scaled by sm_scale / ln(2): dQ takes ln(2) back.
    dq *= LN2
    dq_ptrs = DQ + offs_m[:, None] * stride_tok + offs_k[None, :] * stride_d
    tl.store(dq_ptrs, dq, mask=queries)


#: The head dimensions the kernels take (powers of two, for tl.arange).
HEAD_DIMS = (16, 32, 64, 128, 256)
#: ln(2), by which the backward's K is scaled down with sm_scale.
_LN2 = 0.6931471824645996


def _contiguous(x):
    return x.detach().contiguous() if is_torch(x) else np.ascontiguousarray(x)


def _empty(like, shape, float32=False):
    """A new array of ``shape`` beside ``like``, of its type or float32."""
    if is_torch(like):
        import torch
        return like.new_empty(shape,
                              dtype=torch.float32 if float32 else like.dtype)
    return np.empty(shape, np.float32 if float32 else like.dtype)


def _scaled(x, scale):
    """``x * scale`` in ``x``'s type."""
    return (x * scale).to(x.dtype) if is_torch(x) else \
        (x * scale).astype(x.dtype)


def check(q, k, v, sm_scale=None) -> None:
    """Refuses, by name, what the kernels do not take."""
    if not (len(q.shape) == 4 and tuple(q.shape) == tuple(k.shape) ==
            tuple(v.shape)):
        raise KilnError(
            "attention takes q, k and v of one shape batch x heads x "
            f"sequence x head_dim, not {tuple(q.shape)}, {tuple(k.shape)}, "
            f"{tuple(v.shape)}")
    types = {str(t.dtype).removeprefix("torch.") for t in (q, k, v)}
    if len(types) != 1 or types.pop() not in ("float16", "bfloat16"):
        raise KilnError(
            "attention takes q, k and v all float16 or all bfloat16, not "
            f"{q.dtype}, {k.dtype}, {v.dtype}")
    if q.shape[-1] not in HEAD_DIMS:
        raise KilnError(f"attention takes head dims {HEAD_DIMS}, not "
                        f"{q.shape[-1]}")
    if len({on_gpu(t) for t in (q, k, v)}) != 1:
        raise KilnError("attention takes q, k and v all on the GPU or all on "
                        "the host")
    if sm_scale is not None and not math.isfinite(sm_scale):
        raise KilnError(f"attention's sm_scale must be finite, not {sm_scale}")


def forward(q, k, v, causal, sm_scale):
    """``(out, lse2)``: the attention of ``q``, ``k``, ``v`` (batch x heads
    x sequence x head_dim, each head's rows contiguous) and each query's
    log-sum-exp of its scaled scores in base 2, float32."""
    Z, H, N_CTX, HEAD_DIM = q.shape
    o = _empty(q, q.shape)
    M = _empty(q, (Z, H, N_CTX), float32=True)
    if on_gpu(q):
        block_m, block_n, warps, stages = 128, min(
            HEAD_DIM, 128 if HEAD_DIM == 128 else 64), 8, 3
    else:
        block_m, block_n, warps, stages = 32, min(HEAD_DIM, 32), 4, 3
    grid = (triton.cdiv(N_CTX, block_m), Z * H, 1)
    _attn_fwd[grid](q, k, v, sm_scale, M, o,
                    *strides(q)[:3], *strides(k)[:3], *strides(v)[:3],
                    *strides(o)[:3], H, N_CTX, HEAD_DIM=HEAD_DIM,
                    BLOCK_M=block_m, BLOCK_N=block_n,
                    STAGE=3 if causal else 1, num_warps=warps,
                    num_stages=stages)
    return o, M


def backward(q, k, v, o, M, do, causal, sm_scale):
    """``(dq, dk, dv)`` of ``o, M = forward(q, k, v, ...)`` given ``do``,
    all of one contiguous shape batch x heads x sequence x head_dim."""
    Z, H, N_CTX, HEAD_DIM = q.shape
    arg_k = _scaled(k, sm_scale / _LN2)
    delta = _empty(q, M.shape, float32=True)
    if on_gpu(q):
        # The tutorial's blocks; 8 warps, where its 4 spill on sm_90a
        # (132 bytes at head dim 64, 5 KB at 128; Triton's code alike).
        blocks, warps, stages, pre_block = (32, 128, 128, 32), 8, 5, 128
    else:
        blocks, warps, stages, pre_block = (32, 64, 64, 32), 4, 3, 64
    block_m1, block_n1, block_m2, block_n2 = blocks
    _attn_bwd_preprocess[(triton.cdiv(N_CTX, pre_block), Z * H)](
        o, do, delta, N_CTX, BLOCK_M=pre_block, HEAD_DIM=HEAD_DIM)
    dq, dk, dv = _empty(q, q.shape), _empty(k, k.shape), _empty(v, v.shape)
    # One program takes a block of keys and one of queries (BLOCK_N1 ==
    # BLOCK_M2).
    _attn_bwd[(triton.cdiv(N_CTX, block_n1), 1, Z * H)](
        q, arg_k, v, sm_scale, do, dq, dk, dv, M, delta,
        *strides(q), H, N_CTX, BLOCK_M1=block_m1, BLOCK_N1=block_n1,
        BLOCK_M2=block_m2, BLOCK_N2=block_n2, BLK_SLICE_FACTOR=2,
        HEAD_DIM=HEAD_DIM, CAUSAL=causal, num_warps=warps,
        num_stages=stages)
    return dq, dk, dv


@functools.cache
def _autograd_function():
    """The torch.autograd.Function of ``attention`` (PyTorch is imported
    only when tensors of it are given)."""
    import torch

    class Attention(torch.autograd.Function):
        @staticmethod
        def forward(ctx, q, k, v, causal, sm_scale):
            q, k, v = (_contiguous(t) for t in (q, k, v))
            o, M = forward(q, k, v, causal, sm_scale)
            ctx.save_for_backward(q, k, v, o, M)
            ctx.causal, ctx.sm_scale = causal, sm_scale
            return o

        @staticmethod
        def backward(ctx, do):
            # The saved output is the Function's own, which requires grad.
            q, k, v, o, M = (t.detach() for t in ctx.saved_tensors)
            dq, dk, dv = backward(q, k, v, o, M, _contiguous(do), ctx.causal,
                                  ctx.sm_scale)
            return dq, dk, dv, None, None

    return Attention


def attention(q, k, v, causal=False, sm_scale=None):
    """``softmax(q @ k.T * sm_scale) @ v`` (causal: each query attends to
    the keys up to its own position), as
    ``torch.nn.functional.scaled_dot_product_attention``: ``q``, ``k``,
    ``v`` batch x heads x sequence x head_dim, float16 or bfloat16, head
    dim 16 to 256; ``sm_scale`` 1/sqrt(head_dim) by default. Takes numpy
    arrays (run on the host target) or PyTorch tensors (on their GPU, or
    on the host target for CPU tensors); PyTorch tensors that require
    grad get gradients from the backward kernels."""
    check(q, k, v, sm_scale)
    sm_scale = q.shape[-1] ** -0.5 if sm_scale is None else float(sm_scale)
    if is_torch(q):
        import torch
        if torch.is_grad_enabled() and any(t.requires_grad
                                           for t in (q, k, v)):
            return _autograd_function().apply(q, k, v, causal, sm_scale)
    q, k, v = (_contiguous(t) for t in (q, k, v))
    return forward(q, k, v, causal, sm_scale)[0]
