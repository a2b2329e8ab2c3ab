"""The kernels bench/gpu_suite.py writes in Python: an empty kernel and a
one-element add (launch overhead) in Kiln and Triton, and Triton's matmul
of the same blocking as docs/examples/matmul.mlir. They are defined at
module level because both compilers look a kernel's names (``kl``,
``tl``) up among its module's globals. Without Triton, the Triton kernels
are None and TRITON_MISSING says why.
"""

from __future__ import annotations

import kiln
import kiln.language as kl


@kiln.jit
def empty(x_ptr):
    pass


@kiln.jit
def add_one(x_ptr, n, BLOCK: kl.constexpr):
    offsets = kl.arange(0, BLOCK)
    mask = offsets < n
    kl.store(x_ptr + offsets, kl.load(x_ptr + offsets, mask=mask) + 1.0,
             mask=mask)


try:
    import triton
    import triton.language as tl
except ImportError as error:
    TRITON_MISSING: str | None = f"Triton is not installed ({error})"
    triton_empty = triton_add_one = triton_matmul = None
else:
    TRITON_MISSING = None

    @triton.jit
    def triton_empty(x_ptr):
        pass

    @triton.jit
    def triton_add_one(x_ptr, n, BLOCK: tl.constexpr):
        offsets = tl.arange(0, BLOCK)
        mask = offsets < n
        tl.store(x_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + 1.0,
                 mask=mask)

    @triton.jit
    def triton_matmul(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                      BK: tl.constexpr):
        rows = tl.program_id(0) * BM + tl.arange(0, BM)
        cols = tl.program_id(1) * BN + tl.arange(0, BN)
        ks = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            x = tl.load(a + rows[:, None] * K + (k + ks)[None, :])
            y = tl.load(b + (k + ks)[:, None] * N + cols[None, :])
            acc += tl.dot(x, y)
        tl.store(c + rows[:, None] * N + cols[None, :], acc)
