"""Triton's hints, kl.multiple_of / max_contiguous / max_constancy: they
reach the tile IR as tile.assume, widen the GPU's accesses where the
compiler cannot prove what they state, change nothing on the host or in
the interpreter, and are refused when malformed. Also the wrapped offsets
of Triton's matmul tutorial, which need no hint."""

from __future__ import annotations

import re

import numpy as np
import pytest

import kiln
import kiln.language as kl
from kiln.errors import KilnError


@kiln.jit
def gather_rows(x_ptr, starts_ptr, out_ptr, HINT: kl.constexpr):
    row = kl.program_id(0)
    start = kl.load(starts_ptr + row)  # nothing is known of it
    if HINT:
        start = kl.multiple_of(start, 4)
    cols = kl.arange(0, 64)
    offsets = start + cols
    if HINT:
        offsets = kl.max_contiguous(offsets, 64)
    kl.store(out_ptr + row * 64 + cols, kl.load(x_ptr + offsets))


def _vector_loads(ptx: str) -> int:
    return len(re.findall(r"ld\.global(?:\.[a-z0-9_:]+)*\.v4\.", ptx))


def _args():
    x = np.arange(1024, dtype=np.float32)
    starts = np.array([0, 128, 256, 512], dtype=np.int32)
    return x, starts, np.zeros(4 * 64, np.float32)


def test_hints_become_tile_assume():
    text = gather_rows.ir(*_args(), HINT=True)
    assert "tile.assume" in text
    assert "divisibility = array<i64: 4>" in text
    assert "contiguity = array<i64: 64>" in text
    assert "tile.assume" not in gather_rows.ir(*_args(), HINT=False)


def test_hints_widen_gpu_loads():
    """The start loaded from memory has no known alignment: 4-byte loads,
    unless the hints say it is a multiple of 4 elements."""
    plain = gather_rows.warmup(*_args(), HINT=False).asm["ptx"]
    hinted = gather_rows.warmup(*_args(), HINT=True).asm["ptx"]
    assert _vector_loads(plain) == 0
    assert _vector_loads(hinted) > 0


@pytest.mark.parametrize("interpret", [False, True])
def test_hints_keep_results(interpret):
    x, starts, out = _args()
    kernel = kiln.jit(gather_rows.fn, interpret=interpret)
    kernel[(4,)](x, starts, out, HINT=True)
    expected = np.concatenate([x[s:s + 64] for s in starts])
    np.testing.assert_array_equal(out, expected)


@kiln.jit
def bad_hint(x_ptr, out_ptr):
    cols = kl.arange(0, 16)
    kl.store(out_ptr + cols, kl.load(x_ptr + kl.multiple_of(cols, (4, 4))))


def test_hint_of_the_wrong_rank_is_refused_at_its_line():
    x = np.zeros(16, np.float32)
    with pytest.raises(KilnError, match=r"multiple_of takes 1 positive "
                                        r"integer\(s\) for a value of rank 1"):
        bad_hint[(1,)](x, x)


@kiln.jit
def wrapped_matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk,
                   stride_cm, BLOCK_M: kl.constexpr, BLOCK_N: kl.constexpr,
                   BLOCK_K: kl.constexpr):
    pid_m = kl.program_id(0)
    pid_n = kl.program_id(1)
    offs_am = (pid_m * BLOCK_M + kl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + kl.arange(0, BLOCK_N)) % N
    offs_k = kl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_am[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_bn[None, :]
    acc = kl.zeros((BLOCK_M, BLOCK_N), dtype=kl.float32)
    for k in range(0, kl.cdiv(K, BLOCK_K)):
        a = kl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = kl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = kl.dot(a, b, acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * stride_bk
    offs_cm = pid_m * BLOCK_M + kl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + kl.arange(0, BLOCK_N)
    kl.store(c_ptr + offs_cm[:, None] * stride_cm + offs_cn[None, :],
             acc.to(kl.float16),
             mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


def test_wrapped_offsets_reach_wgmma_and_cp_async():
    """`% M` and `% N` with M and N divisible by 16 keep 16-element runs:
    B is copied 16 bytes at a time into a pipeline feeding wgmma (it was
    loaded 2 bytes at a time, on mma.sync, before)."""
    a = np.zeros((256, 256), np.float16)
    ptx = wrapped_matmul.warmup(a, a, a, 256, 256, 256, 256, 256, 256,
                                BLOCK_M=128, BLOCK_N=128, BLOCK_K=64,
                                num_warps=8).asm["ptx"]
    assert "wgmma.mma_async" in ptx
    assert re.search(r"cp\.async\.cg\.shared\.global [^\n]*, 16\b", ptx)
    assert "mma.sync" not in ptx


@pytest.mark.parametrize("interpret", [False, True])
def test_wrapped_offsets_compute_the_product(interpret):
    rng = np.random.default_rng(3)
    M, N, K = 48, 40, 72  # ragged: the wrap reloads rows and columns
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = np.zeros((M, N), np.float16)
    kernel = kiln.jit(wrapped_matmul.fn, interpret=interpret)
    kernel[(2, 2)](a, b, c, M, N, K, K, N, N, BLOCK_M=32, BLOCK_N=32,
                   BLOCK_K=32)
    expected = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(c.astype(np.float32), expected, rtol=2e-2,
                               atol=2e-2)


@kiln.jit
def dropped_hint_kernel(x_ptr, out_ptr, N: kl.constexpr):
    ptrs = x_ptr + kl.arange(0, N)
    # A hint as a statement, its result dropped, as Triton's tutorial 08
    # writes it: it states the fact on `ptrs` itself.
    kl.multiple_of(ptrs, [16])
    kl.store(out_ptr + kl.arange(0, N), kl.load(ptrs))


def test_a_dropped_hint_still_states_its_fact():
    x = np.zeros(64, np.float32)
    ir = dropped_hint_kernel.ir(x, x, N=64)
    load = next(line for line in ir.splitlines() if "tile.load" in line)
    assume = next(line for line in ir.splitlines() if "tile.assume" in line)
    assert assume.split(" = ")[0].strip() in load
