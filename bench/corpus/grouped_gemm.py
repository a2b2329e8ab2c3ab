"""Grouped GEMM in the idiom of Triton's tutorial 08: one persistent
launch computes several independent matmuls of different sizes. Their
A, B and C come as arrays of addresses (int64), turned back into pointers
with ``.to(tl.pointer_type(tl.float16))``; each program walks the tiles of
every problem with ``tile_idx += NUM_SM`` in a ``while`` whose condition
is a conjunction."""

import numpy as np

import kiln.triton as triton
import kiln.triton.language as tl


@triton.jit
def grouped_matmul_kernel(group_a_ptrs, group_b_ptrs, group_c_ptrs,
                          group_gemm_sizes, g_lds, group_size,
                          NUM_SM: tl.constexpr, BLOCK_SIZE_M: tl.constexpr,
                          BLOCK_SIZE_N: tl.constexpr,
                          BLOCK_SIZE_K: tl.constexpr):
    tile_idx = tl.program_id(0)
    last_problem_end = 0
    for g in range(group_size):
        gm = tl.load(group_gemm_sizes + g * 3)
        gn = tl.load(group_gemm_sizes + g * 3 + 1)
        gk = tl.load(group_gemm_sizes + g * 3 + 2)
        num_m_tiles = tl.cdiv(gm, BLOCK_SIZE_M)
        num_n_tiles = tl.cdiv(gn, BLOCK_SIZE_N)
        num_tiles = num_m_tiles * num_n_tiles
        while (tile_idx >= last_problem_end
               and tile_idx < last_problem_end + num_tiles):
            lda = tl.load(g_lds + g * 3)
            ldb = tl.load(g_lds + g * 3 + 1)
            ldc = tl.load(g_lds + g * 3 + 2)
            a_ptr = tl.load(group_a_ptrs + g).to(tl.pointer_type(tl.float16))
            b_ptr = tl.load(group_b_ptrs + g).to(tl.pointer_type(tl.float16))
            c_ptr = tl.load(group_c_ptrs + g).to(tl.pointer_type(tl.float16))
            tile_idx_in_gemm = tile_idx - last_problem_end
            tile_m_idx = tile_idx_in_gemm // num_n_tiles
            tile_n_idx = tile_idx_in_gemm % num_n_tiles
            offs_am = tile_m_idx * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
            offs_bn = tile_n_idx * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
            offs_k = tl.arange(0, BLOCK_SIZE_K)
            a_ptrs = a_ptr + offs_am[:, None] * lda + offs_k[None, :]
            b_ptrs = b_ptr + offs_k[:, None] * ldb + offs_bn[None, :]
            accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N),
                                   dtype=tl.float32)
            for kk in range(0, tl.cdiv(gk, BLOCK_SIZE_K)):
                # The tutorial's hints, as statements: Triton states them
                # on the pointers themselves.
                tl.multiple_of(a_ptrs, [16, 16])
                tl.multiple_of(b_ptrs, [16, 16])
                a = tl.load(a_ptrs)
                b = tl.load(b_ptrs)
                accumulator += tl.dot(a, b)
                a_ptrs += BLOCK_SIZE_K
                b_ptrs += BLOCK_SIZE_K * ldb
            c = accumulator.to(tl.float16)
            offs_cm = tile_m_idx * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
            offs_cn = tile_n_idx * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
            c_ptrs = c_ptr + ldc * offs_cm[:, None] + offs_cn[None, :]
            tl.store(c_ptrs, c)
            tile_idx += NUM_SM
        last_problem_end = last_problem_end + num_tiles


def group_gemm(group_a, group_b, num_sm=4, block_m=32, block_n=32,
               block_k=32):
    """``[a @ b for a, b in zip(group_a, group_b)]`` in one launch; every
    size a multiple of its block, as the tutorial takes them."""
    group_c = [np.empty((a.shape[0], b.shape[1]), dtype=np.float16)
               for a, b in zip(group_a, group_b)]
    addresses = [np.array([m.ctypes.data for m in ms], dtype=np.int64)
                 for ms in (group_a, group_b, group_c)]
    sizes = np.array([(a.shape[0], b.shape[1], a.shape[1])
                      for a, b in zip(group_a, group_b)], dtype=np.int32)
    lds = np.array([(a.strides[0] // 2, b.strides[0] // 2, c.strides[0] // 2)
                    for a, b, c in zip(group_a, group_b, group_c)],
                   dtype=np.int32)
    grouped_matmul_kernel[(num_sm,)](
        *addresses, sizes, lds, len(group_a), NUM_SM=num_sm,
        BLOCK_SIZE_M=block_m, BLOCK_SIZE_N=block_n, BLOCK_SIZE_K=block_k)
    return group_c


def reference(group_a, group_b):
    return [a.astype(np.float64) @ b.astype(np.float64)
            for a, b in zip(group_a, group_b)]


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    shapes = [(64, 32, 96), (32, 96, 64), (96, 64, 32)]
    group_a = [rng.standard_normal((m, k)).astype(np.float16)
               for m, _, k in shapes]
    group_b = [rng.standard_normal((k, n)).astype(np.float16)
               for _, n, k in shapes]
    for got, want in zip(group_gemm(group_a, group_b),
                         reference(group_a, group_b)):
        triton.testing.assert_close(got, want, atol=5e-2, rtol=1e-2)
    print("grouped GEMM: ok")
