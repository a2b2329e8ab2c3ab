"""K-major B operands (`a @ w.T` with w stored N x K, and attention's K
loaded transposed) on the tensor cores: staged column by column into
slots that wgmma reads K-major; and M-major A operands (`at.T @ b`),
staged the same way and read from their slots into registers. Compiled
for sm_90a on any machine; run against PyTorch where PyTorch sees a GPU."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

import kiln
import kiln.language as kl
from test_gpu import torch_cuda

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "bench" / "corpus"), str(ROOT / "bench")]

import compare  # noqa: E402
import isa  # noqa: E402


@kiln.jit
def linear(c_ptr, a_ptr, w_ptr, M, N, K, BM: kl.constexpr, BN: kl.constexpr,
           BK: kl.constexpr):
    """c = a @ w.T: a is M x K, w is N x K, both row-major."""
    rows = kl.program_id(0) * BM + kl.arange(0, BM)
    cols = kl.program_id(1) * BN + kl.arange(0, BN)
    acc = kl.zeros((BM, BN), kl.float32)
    for k in range(0, K, BK):
        ks = k + kl.arange(0, BK)
        a = kl.load(a_ptr + rows[:, None] * K + ks[None, :],
                    mask=(rows[:, None] < M) & (ks[None, :] < K), other=0.0)
        w = kl.load(w_ptr + cols[None, :] * K + ks[:, None],
                    mask=(cols[None, :] < N) & (ks[:, None] < K), other=0.0)
        acc = kl.dot(a, w, acc)
    kl.store(c_ptr + rows[:, None] * N + cols[None, :], acc,
             mask=(rows[:, None] < M) & (cols[None, :] < N))


def _ptx(M, N, K, chip):
    a = np.zeros((M, K), np.float16)
    c = np.zeros((M, N), np.float32)
    return linear.warmup(c, a, a, M, N, K, BM=128, BN=128, BK=64,
                         num_warps=8, chip=chip)


def test_k_major_b_reaches_wgmma_through_cp_async():
    compiled = _ptx(256, 256, 256, "sm_90a")
    ptx = compiled.asm["ptx"]
    # wgmma reads B K-major: imm-trans-b 0.
    assert re.search(r"wgmma\.mma_async\.sync\.aligned\.m64n128k16\.f32\.f16"
                     r"\.f16 [^;]*, p, 1,\s*1, 0,\s*0;", ptx)
    assert re.search(r"cp\.async\.cg\.shared\.global [^\n]*, 16\b", ptx)
    assert "mma.sync" not in ptx
    if compiled.metadata is not None:  # ptxas was found
        assert compiled.metadata.spill_stores == 0


def test_k_major_b_on_sm80_stays_on_mma_sync_pipelined():
    ptx = _ptx(256, 256, 256, "sm_80").asm["ptx"]
    assert "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" in ptx
    assert "cp.async.cg.shared.global" in ptx


@pytest.mark.parametrize("interpret", [False, True])
def test_k_major_b_on_the_host(interpret):
    rng = np.random.default_rng(7)
    M, N, K = 70, 50, 90
    a = rng.standard_normal((M, K)).astype(np.float16)
    w = rng.standard_normal((N, K)).astype(np.float16)
    c = np.zeros((M, N), np.float32)
    kernel = kiln.jit(linear.fn, interpret=interpret)
    kernel[(3, 2)](c, a, w, M, N, K, BM=32, BN=32, BK=32)
    want = a.astype(np.float64) @ w.astype(np.float64).T
    np.testing.assert_allclose(c, want, rtol=1e-3, atol=1e-3)


def test_k_major_b_on_the_gpu_against_torch():
    torch = torch_cuda()
    M, N, K = 300, 200, 320
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    w = torch.randn(N, K, device="cuda", dtype=torch.float16)
    c = torch.empty(M, N, device="cuda")
    linear[(3, 2)](c, a, w, M, N, K, BM=128, BN=128, BK=64, num_warps=8)
    torch.cuda.synchronize()
    torch.testing.assert_close(c, (a.double() @ w.double().T).float(),
                               rtol=2e-3, atol=2e-3)


@kiln.jit
def transposed_a(c_ptr, at_ptr, b_ptr, M, N, K, BM: kl.constexpr,
                 BN: kl.constexpr, BK: kl.constexpr):
    """c = at.T @ b: at is K x M (an M-major A), b K x N, both row-major."""
    rows = kl.program_id(0) * BM + kl.arange(0, BM)
    cols = kl.program_id(1) * BN + kl.arange(0, BN)
    acc = kl.zeros((BM, BN), kl.float32)
    for k in range(0, K, BK):
        ks = k + kl.arange(0, BK)
        at = kl.load(at_ptr + ks[:, None] * M + rows[None, :],
                     mask=(ks[:, None] < K) & (rows[None, :] < M), other=0.0)
        b = kl.load(b_ptr + ks[:, None] * N + cols[None, :],
                    mask=(ks[:, None] < K) & (cols[None, :] < N), other=0.0)
        acc = kl.dot(kl.trans(at), b, acc)
    kl.store(c_ptr + rows[:, None] * N + cols[None, :], acc,
             mask=(rows[:, None] < M) & (cols[None, :] < N))


@pytest.mark.parametrize("chip, matmul", [("sm_90a", "wgmma.mma_async"),
                                          ("sm_80", "mma.sync.aligned")])
def test_an_m_major_a_is_pipelined(chip, matmul):
    """An A stored K x M is staged column by column (16-byte copies) and
    read from its slot into registers: the loop was not pipelined, and on
    sm_90a it stayed on mma.sync with 14 KB of spills at 128x256."""
    a = np.zeros((256, 256), np.float16)
    compiled = transposed_a.warmup(np.zeros((256, 256), np.float32), a, a,
                                   256, 256, 256, BM=128, BN=128, BK=64,
                                   num_warps=4, chip=chip)
    ptx = compiled.asm["ptx"]
    assert re.search(r"cp\.async\.cg\.shared\.global [^\n]*, 16\b", ptx)
    assert matmul in ptx
    if chip == "sm_90a":
        assert "mma.sync" not in ptx
    if compiled.metadata is not None:  # ptxas was found
        assert compiled.metadata.spill_stores == 0


@pytest.mark.parametrize("interpret", [False, True])
def test_an_m_major_a_on_the_host(interpret):
    rng = np.random.default_rng(8)
    M, N, K = 70, 50, 90
    at = rng.standard_normal((K, M)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = np.zeros((M, N), np.float32)
    kernel = kiln.jit(transposed_a.fn, interpret=interpret)
    kernel[(3, 2)](c, at, b, M, N, K, BM=32, BN=32, BK=32)
    want = at.astype(np.float64).T @ b.astype(np.float64)
    np.testing.assert_allclose(c, want, rtol=1e-3, atol=1e-3)


def test_an_m_major_a_on_the_gpu_against_torch():
    torch = torch_cuda()
    M, N, K = 300, 200, 320
    at = torch.randn(K, M, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    c = torch.empty(M, N, device="cuda")
    transposed_a[(3, 2)](c, at, b, M, N, K, BM=128, BN=128, BK=64,
                         num_warps=4)
    torch.cuda.synchronize()
    torch.testing.assert_close(c, (at.double().T @ b.double()).float(),
                               rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.parametrize("causal", [False, True])
def test_attention_on_the_gpu_against_torch(head_dim, causal):
    """The corpus's flash attention (K loaded transposed) on wgmma, against
    PyTorch's attention in float32, on a ragged sequence length."""
    torch = torch_cuda()
    attention = compare.load_kiln("flash_attention")
    Z, H, N_CTX = 2, 3, 1000
    q, k, v = (torch.randn(Z, H, N_CTX, head_dim, device="cuda",
                           dtype=torch.float16) for _ in range(3))
    out = torch.empty_like(q)
    lse = torch.empty(Z, H, N_CTX, device="cuda")
    sm_scale = head_dim ** -0.5
    block_n = 64 if head_dim == 64 else 128
    grid = (kiln.cdiv(N_CTX, 128), Z * H, 1)
    attention._attn_fwd[grid](
        q, k, v, sm_scale, lse, out, *q.stride()[:3], *k.stride()[:3],
        *v.stride()[:3], *out.stride()[:3], H, N_CTX, HEAD_DIM=head_dim,
        BLOCK_M=128, BLOCK_N=block_n, STAGE=3 if causal else 1, num_warps=8)
    torch.cuda.synchronize()
    expected = torch.nn.functional.scaled_dot_product_attention(
        q.float(), k.float(), v.float(), is_causal=causal, scale=sm_scale)
    torch.testing.assert_close(out.float(), expected, rtol=2e-2, atol=2e-2)


#: wgmma with A from shared memory (a descriptor) and from registers.
_WGMMA_SHARED_A = re.compile(r"wgmma\.mma_async[^;]*\}, %rd\d+, %rd\d+, p")
_WGMMA_REGISTER_A = re.compile(
    r"wgmma\.mma_async[^;]*\}, \{[^}]*\}, %rd\d+, p")


def _dot_loops(ptx: str) -> list[str]:
    """The text of each loop of ``ptx`` that runs wgmma."""
    return [ptx[start:end] for start, end in isa.loop_spans(ptx)
            if "wgmma.mma_async" in ptx[start:end]]


@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_attention_forward_loop_keeps_p_and_the_softmax_in_registers(
        head_dim, causal):
    """Each loop over K/V blocks of the forward (two when causal): QK^T on
    wgmma from shared memory (Q's slot, K's cp.async slots), then P V on
    wgmma with P in registers; no shared-memory store or load (P is never
    stored, the softmax needs no layout round trip) and one barrier, the
    pipeline's; ptxas spills nothing."""
    attention = compare.load_kiln("flash_attention")
    f16, f32 = np.zeros(64, np.float16), np.zeros(64, np.float32)
    n_ctx, heads = 4096, 32
    strides = (heads * n_ctx * head_dim, n_ctx * head_dim, head_dim)
    compiled = attention._attn_fwd.warmup(
        f16, f16, f16, 0.125, f32, f16, *strides * 4, heads, n_ctx,
        HEAD_DIM=head_dim, BLOCK_M=128, BLOCK_N=64 if head_dim == 64 else 128,
        STAGE=3 if causal else 1, num_warps=8, chip="sm_90a")
    if compiled.metadata is not None:  # ptxas was found
        assert compiled.metadata.spill_stores == 0
    loops = _dot_loops(compiled.asm["ptx"])
    assert len(loops) == (2 if causal else 1)
    for body in loops:
        assert _WGMMA_SHARED_A.search(body) and _WGMMA_REGISTER_A.search(body)
        assert "cp.async.cg.shared.global" in body
        assert not re.search(r"\b(st|ld)\.shared\b", body)
        assert body.count("bar.sync") == 1


def _attention_backward_ptx(causal: bool, chip: str):
    """The corpus's attention backward at the tutorial's Hopper blocks."""
    attention = compare.load_kiln("flash_attention")
    f16, f32 = np.zeros(64, np.float16), np.zeros(64, np.float32)
    n_ctx, heads, head_dim = 4096, 32, 64
    return attention._attn_bwd.warmup(
        f16, f16, f16, 0.125, f16, f16, f16, f16, f32, f32,
        heads * n_ctx * head_dim, n_ctx * head_dim, head_dim, 1, heads, n_ctx,
        BLOCK_M1=32, BLOCK_N1=128, BLOCK_M2=128, BLOCK_N2=32,
        BLK_SLICE_FACTOR=2, HEAD_DIM=head_dim, CAUSAL=causal, num_warps=4,
        num_stages=5, chip=chip)


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_attention_backward_reads_its_loads_both_ways_on_wgmma(causal):
    """Q (loaded transposed) and dO each feed one dot as loaded and one
    through tl.trans: one cp.async slot each, read by wgmma K-major
    (imm-trans-b 0, A from shared memory: `dot(k, qT)`, `dot(v,
    tl.trans(do))`) and N-major (imm-trans-b 1, A in registers: `dot(ppT,
    do)`, `dot(dsT, tl.trans(qT))`); nothing on mma.sync."""
    compiled = _attention_backward_ptx(causal, "sm_90a")
    ptx = compiled.asm["ptx"]
    wgmma = r"wgmma\.mma_async\.sync\.aligned\.m64n\d+k16\.f32\.f16\.f16 "
    assert re.search(wgmma + r"[^;]*, p, 1,\s*1, 0,\s*0;", ptx)
    assert re.search(wgmma + r"\{[^}]*\}, \{[^}]*\}, %rd\d+, p, 1,\s*1,\s*1;",
                     ptx)
    assert re.search(r"cp\.async\.cg\.shared\.global [^\n]*, 16\b", ptx)
    assert "mma.sync" not in ptx


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_attention_backward_on_sm80_reads_the_slots_with_ldmatrix(causal):
    ptx = _attention_backward_ptx(causal, "sm_80").asm["ptx"]
    assert "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" in ptx
    assert "cp.async.cg.shared.global" in ptx
    assert "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16" in ptx
    assert "ldmatrix.sync.aligned.m8n8.x4.shared.b16" in ptx


@pytest.mark.parametrize("causal", [False, True])
def test_attention_backward_on_the_gpu_against_torch(causal):
    """The corpus's backward pass against PyTorch's autograd of attention
    in float32, on a ragged sequence length."""
    torch = torch_cuda()
    attention = compare.load_kiln("flash_attention")
    Z, H, N_CTX, D = 2, 3, 1000, 64
    q, k, v, do = (torch.randn(Z, H, N_CTX, D, device="cuda",
                               dtype=torch.float16) for _ in range(4))
    sm_scale = D ** -0.5
    out, lse = (torch.empty_like(q),
                torch.empty(Z, H, N_CTX, device="cuda"))
    attention._attn_fwd[(kiln.cdiv(N_CTX, 128), Z * H, 1)](
        q, k, v, sm_scale, lse, out, *q.stride()[:3], *k.stride()[:3],
        *v.stride()[:3], *out.stride()[:3], H, N_CTX, HEAD_DIM=D,
        BLOCK_M=128, BLOCK_N=64, STAGE=3 if causal else 1, num_warps=8)
    delta = torch.empty_like(lse)
    attention._attn_bwd_preprocess[(kiln.cdiv(N_CTX, 128), Z * H)](
        out, do, delta, N_CTX, BLOCK_M=128, HEAD_DIM=D)
    dq, dk, dv = (torch.empty_like(t) for t in (q, k, v))
    arg_k = k * (sm_scale / 0.6931471824645996)
    attention._attn_bwd[(kiln.cdiv(N_CTX, 128), 1, Z * H)](
        q, arg_k, v, sm_scale, do, dq, dk, dv, lse, delta, *q.stride(), H,
        N_CTX, BLOCK_M1=32, BLOCK_N1=128, BLOCK_M2=128, BLOCK_N2=32,
        BLK_SLICE_FACTOR=2, HEAD_DIM=D, CAUSAL=causal, num_warps=4,
        num_stages=5)
    torch.cuda.synchronize()
    leaves = [t.float().requires_grad_() for t in (q, k, v)]
    expected = torch.nn.functional.scaled_dot_product_attention(
        *leaves, is_causal=causal, scale=sm_scale)
    expected.backward(do.float())
    for got, leaf in zip((dq, dk, dv), leaves):
        torch.testing.assert_close(got.float(), leaf.grad, rtol=2e-2,
                                   atol=2e-2)
