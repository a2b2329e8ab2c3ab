"""The kernels bench/gpu_suite.py writes in Python: an empty kernel and a
one-element add (launch overhead) in Kiln and Triton, Triton's matmul
of the same blocking as docs/examples/matmul.mlir, and Triton's versions
of the bandwidth examples (docs/examples: vector add, cos(cos(x)), GELU
in its erf and tanh forms, relu(a*x+b), row softmax, layer norm), the same
computation in the same words (bench/compile_time.py compiles the vector
add, softmax and layer norm beside its @kiln.jit twins), and the matmul + bias + GELU array
example fused into one Triton kernel. They are defined at
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
    triton_empty = triton_add_one = triton_matmul = triton_mlp = None
    TRITON_BANDWIDTH: dict = {}
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
    def triton_block_product(a, b, rows, cols, N, K, BM: tl.constexpr,
                             BN: tl.constexpr, BK: tl.constexpr):
        # The float32 product of rows of a (cast to b's type) and columns
        # of b, both row-major, K a multiple of BK.
        ks = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            x = tl.load(a + rows[:, None] * K + (k + ks)[None, :])
            y = tl.load(b + (k + ks)[:, None] * N + cols[None, :])
            acc += tl.dot(x.to(y.dtype), y)
        return acc

    @triton.jit
    def triton_matmul(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                      BK: tl.constexpr):
        rows = tl.program_id(0) * BM + tl.arange(0, BM)
        cols = tl.program_id(1) * BN + tl.arange(0, BN)
        acc = triton_block_product(a, b, rows, cols, N, K, BM, BN, BK)
        tl.store(c + rows[:, None] * N + cols[None, :], acc)

    @triton.jit
    def triton_vector_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) +
                 tl.load(y_ptr + offsets, mask=mask), mask=mask)

    @triton.jit
    def triton_cos_cos(x, out, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        tl.store(out + offsets, tl.cos(tl.cos(tl.load(x + offsets,
                                                      mask=mask))),
                 mask=mask)

    @triton.jit
    def triton_gelu(x, out, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        v = tl.load(x + offsets, mask=mask)
        tl.store(out + offsets,
                 0.5 * v * (1.0 + tl.math.erf(v * 0.7071067811865476)),
                 mask=mask)

    @triton.jit
    def triton_gelu_tanh(x, out, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        v = tl.load(x + offsets, mask=mask)
        inner = 0.7978845608028654 * (v + 0.044715 * v * v * v)
        # tanh(t) = 2 * sigmoid(2t) - 1
        tanh = 2.0 * tl.sigmoid(2.0 * inner) - 1.0
        tl.store(out + offsets, 0.5 * v * (1.0 + tanh), mask=mask)

    @triton.jit
    def triton_relu_axpb(x, out, a, b, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        v = tl.load(x + offsets, mask=mask)
        tl.store(out + offsets, tl.maximum(a * v + b, 0.0), mask=mask)

    @triton.jit
    def triton_softmax(in_ptr, out_ptr, row_stride, n_cols,
                       BLOCK: tl.constexpr):
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(in_ptr + row * row_stride + cols, mask=mask,
                    other=-float("inf"))
        x = x - tl.max(x, axis=0)
        numerator = tl.exp(x)
        tl.store(out_ptr + row * row_stride + cols,
                 numerator / tl.sum(numerator, axis=0), mask=mask)

    @triton.jit
    def triton_layer_norm(x_ptr, y_ptr, w_ptr, b_ptr, row_stride, n_cols,
                          eps, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_ptr + row * row_stride + cols, mask=mask, other=0.0)
        mean = tl.sum(x, axis=0) / n_cols
        diff = tl.where(mask, x - mean, 0.0)
        rstd = tl.rsqrt(tl.sum(diff * diff, axis=0) / n_cols + eps)
        w = tl.load(w_ptr + cols, mask=mask)
        b = tl.load(b_ptr + cols, mask=mask)
        tl.store(y_ptr + row * row_stride + cols, diff * rstd * w + b,
                 mask=mask)

    @triton.jit
    def triton_mlp(x, w, b, y, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                   BK: tl.constexpr):
        # GELU(x @ w + b) in f16, x f32 cast to f16 on the way in: the
        # computation of docs/examples/matmul_bias_gelu_array.mlir, fused.
        rows = tl.program_id(0) * BM + tl.arange(0, BM)
        cols = tl.program_id(1) * BN + tl.arange(0, BN)
        acc = triton_block_product(x, w, rows, cols, N, K, BM, BN, BK)
        s = acc + tl.load(b + cols)[None, :]
        inner = 0.7978845608028654 * (s + 0.044715 * s * s * s)
        tanh = 2.0 * tl.sigmoid(2.0 * inner) - 1.0
        tl.store(y + rows[:, None] * N + cols[None, :],
                 (0.5 * s * (1.0 + tanh)).to(tl.float16))

    # The bandwidth examples' Triton peers, by the suite's kernel names.
    TRITON_BANDWIDTH = {
        "vector_add": triton_vector_add, "cos_cos": triton_cos_cos,
        "gelu": triton_gelu, "gelu_tanh": triton_gelu_tanh,
        "relu_axpb": triton_relu_axpb, "softmax": triton_softmax,
        "layer_norm": triton_layer_norm,
    }
