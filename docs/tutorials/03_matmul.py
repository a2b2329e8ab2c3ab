"""
Matrix multiplication
=====================

``C = A @ B`` for an ``M x K`` matrix A and a ``K x N`` matrix B, in float16
with float32 accumulation: the case GPU tensor cores are built for.

Each program instance computes one ``BLOCK_M x BLOCK_N`` tile of C. It
walks along K a ``BLOCK_K`` slice at a time, loads a tile of A and a tile
of B, and accumulates their product with ``kl.dot`` into a float32 tile
that lives in registers for the whole loop:

.. code-block:: text

    acc = zeros((BLOCK_M, BLOCK_N))
    for k in range(0, K, BLOCK_K):
        acc += A[m:m+BLOCK_M, k:k+BLOCK_K] @ B[k:k+BLOCK_K, n:n+BLOCK_N]
    C[m:m+BLOCK_M, n:n+BLOCK_N] = acc

This tutorial shows:

* 2-D tiles of pointers built by broadcasting, ``rm[:, None] * stride +
  rk[None, :]``, with strides as arguments so any layout works;
* a ``for`` loop over K whose carried values (the accumulator, the
  pointers) are the names the body reassigns;
* masks on both edges of every tile, so M, N and K need not be multiples
  of the blocks;
* *grouped ordering*: neighbouring programs take tiles that share rows of
  A, so on a GPU those rows are reused from the L2 cache;
* ``kernel.asm(...)``, which shows what the GPU would run, on any machine;
* the same kernel with *block pointers* (``kl.make_block_ptr``,
  ``kl.advance``, ``boundary_check``), whose loads Hopper copies with its
  tensor memory accelerator (TMA).

Run it with ``PYTHONPATH=python python3 docs/tutorials/03_matmul.py``.
"""

import numpy as np

import kiln
import kiln.language as kl
from harness import Report, empty_like, stride, targets

# %%
# The kernel
# ----------
# The grid is one-dimensional. Program ``pid`` finds its tile: groups of
# ``GROUP_M`` tile-rows are walked column by column, so ``GROUP_M``
# consecutive programs share a tile-column of B and ``GROUP_M`` tile-rows
# of A. Integer ``//`` and ``%`` on non-negative values are as in Python.


@kiln.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn,
                  stride_cm, stride_cn,
                  BLOCK_M: kl.constexpr, BLOCK_N: kl.constexpr,
                  BLOCK_K: kl.constexpr, GROUP_M: kl.constexpr):
    pid = kl.program_id(0)
    tiles_m = kl.cdiv(M, BLOCK_M)
    tiles_n = kl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * tiles_n
    first_m = (pid // per_group) * GROUP_M
    group_m = kl.minimum(tiles_m - first_m, GROUP_M)
    pid_m = first_m + (pid % per_group) % group_m
    pid_n = (pid % per_group) // group_m

    rm = pid_m * BLOCK_M + kl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + kl.arange(0, BLOCK_N)
    rk = kl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = kl.zeros((BLOCK_M, BLOCK_N), kl.float32)
    for k in range(0, K, BLOCK_K):
        a = kl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < K - k),
                    other=0.0)
        b = kl.load(b_ptrs, mask=(rk[:, None] < K - k) & (rn[None, :] < N),
                    other=0.0)
        acc += kl.dot(a, b)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn
    kl.store(c_ptrs, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


# %%
# The launcher
# ------------
# One program per tile of C. C is float32: the accumulator, unrounded.

BLOCKS = dict(BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, GROUP_M=8)


def matmul_arguments(a, b, c) -> tuple:
    """The kernel's arguments for C = A @ B, constexprs aside."""
    (M, K), (_, N) = a.shape, b.shape
    return (a, b, c, M, N, K, stride(a, 0), stride(a, 1), stride(b, 0),
            stride(b, 1), stride(c, 0), stride(c, 1))


def matmul(a, b):
    M, N = a.shape[0], b.shape[1]
    c = empty_like(a, (M, N), np.float32)
    grid = lambda meta: (kiln.cdiv(M, meta["BLOCK_M"]) *
                         kiln.cdiv(N, meta["BLOCK_N"]),)
    matmul_kernel[grid](*matmul_arguments(a, b, c), **BLOCKS)
    return c


# %%
# Block pointers
# --------------
# A block pointer describes a tile of a strided tensor: base, shape,
# strides, the tile's offsets and shape, and the dimension order. Loads
# check the edges named in ``boundary_check`` (zeros past them), and the
# loop moves the pointers with ``kl.advance``. On sm_90 the compiler copies
# these loads with TMA, through tensor maps each launch builds from the
# arguments, when the tensors are row-major and 16-byte aligned (the
# launch specializes on that); elsewhere they are ordinary loads.

@kiln.jit
def block_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                        stride_am, stride_bk, stride_cm,
                        BLOCK_M: kl.constexpr, BLOCK_N: kl.constexpr,
                        BLOCK_K: kl.constexpr):
    m0 = kl.program_id(0) * BLOCK_M
    n0 = kl.program_id(1) * BLOCK_N
    a = kl.make_block_ptr(a_ptr, (M, K), (stride_am, 1), (m0, 0),
                          (BLOCK_M, BLOCK_K), (1, 0))
    b = kl.make_block_ptr(b_ptr, (K, N), (stride_bk, 1), (0, n0),
                          (BLOCK_K, BLOCK_N), (1, 0))
    acc = kl.zeros((BLOCK_M, BLOCK_N), kl.float32)
    for k in range(0, K, BLOCK_K):
        acc += kl.dot(kl.load(a, boundary_check=(0, 1)),
                      kl.load(b, boundary_check=(0, 1)))
        a = kl.advance(a, (0, BLOCK_K))
        b = kl.advance(b, (BLOCK_K, 0))
    c = kl.make_block_ptr(c_ptr, (M, N), (stride_cm, 1), (m0, n0),
                          (BLOCK_M, BLOCK_N), (1, 0))
    kl.store(c, acc, boundary_check=(0, 1))


def block_matmul_arguments(a, b, c) -> tuple:
    (M, K), (_, N) = a.shape, b.shape
    return (a, b, c, M, N, K, stride(a, 0), stride(b, 0), stride(c, 0))


def block_matmul(a, b):
    M, N = a.shape[0], b.shape[1]
    c = empty_like(a, (M, N), np.float32)
    grid = (kiln.cdiv(M, 64), kiln.cdiv(N, 64))
    block_matmul_kernel[grid](*block_matmul_arguments(a, b, c),
                              BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)
    return c


# %%
# Checking it
# -----------
# Products of float16 numbers are exact in float32, so the only error is
# the rounding of the float32 sums: at most about ``K * eps32`` times
# ``|A| @ |B|`` (the sum of the magnitudes of the terms) for each element.
# The second case passes B as a transposed view (column-major): only its
# strides differ.

if __name__ == "__main__":
    rng = np.random.default_rng(0)
    report = Report()
    for target in targets():
        for M, N, K, column_major in ((157, 203, 91, False),
                                      (300, 250, 400, True)):
            a = rng.standard_normal((M, K)).astype(np.float16)
            b = rng.standard_normal((K, N)).astype(np.float16)
            stored_b = np.ascontiguousarray(b.T) if column_major else b
            b_arg = target.put(stored_b)
            c = target.get(matmul(target.put(a), b_arg.T if column_major
                                  else b_arg))
            a64, b64 = a.astype(np.float64), b.astype(np.float64)
            bound = K * np.finfo(np.float32).eps * (np.abs(a64) @ np.abs(b64))
            layout = "B column-major" if column_major else "row-major"
            report.check("matmul_kernel", np.float16,
                         f"{M}x{N}x{K} {layout}", target.name, c, a64 @ b64,
                         bound)
        # Block pointers: ragged, then 16-byte-aligned rows (TMA on sm_90).
        for M, N, K in ((157, 203, 91), (256, 192, 320)):
            a = rng.standard_normal((M, K)).astype(np.float16)
            b = rng.standard_normal((K, N)).astype(np.float16)
            c = target.get(block_matmul(target.put(a), target.put(b)))
            a64, b64 = a.astype(np.float64), b.astype(np.float64)
            bound = K * np.finfo(np.float32).eps * (np.abs(a64) @ np.abs(b64))
            report.check("block_matmul_kernel", np.float16, f"{M}x{N}x{K}",
                         target.name, c, a64 @ b64, bound)
    report.finish()

    # What the GPU runs, without a GPU: the tile IR, LLVM IR and PTX for a
    # chip. On sm_80 and later the f16 dot becomes tensor-core mma.sync.
    a, b = np.zeros((128, 64), np.float16), np.zeros((64, 128), np.float16)
    c = np.zeros((128, 128), np.float32)
    ptx = matmul_kernel.asm(*matmul_arguments(a, b, c), chip="sm_80",
                            **BLOCKS)["ptx"]
    mma = "mma.sync.aligned.m16n8k16.row.col.f32.f16"
    print(f"sm_80 PTX: {len(ptx.splitlines())} lines, {ptx.count(mma)} x "
          f"{mma}")
    assert mma in ptx, "the f16 dot does not run on tensor cores"

    # On Hopper the block loads are TMA copies, one thread issuing each
    # box and every thread waiting on the slot's mbarrier.
    a, b = np.zeros((256, 192), np.float16), np.zeros((192, 256), np.float16)
    c = np.zeros((256, 256), np.float32)
    ptx = block_matmul_kernel.asm(*block_matmul_arguments(a, b, c),
                                  chip="sm_90a", num_warps=8, BLOCK_M=128,
                                  BLOCK_N=128, BLOCK_K=64)["ptx"]
    tma = "cp.async.bulk.tensor.2d"
    print(f"sm_90a PTX: {ptx.count(tma)} x {tma}, "
          f"{ptx.count('wgmma.mma_async')} x wgmma.mma_async")
    assert tma in ptx, "the block loads are not TMA copies"
