"""The corpus kernels as the GPU would compile them: for each, the
arguments and meta-parameters a Triton user passes on an H100/H200 (the
blocks, warps and stages of Triton's tutorials for Hopper), for
``isa.py``'s comparison of Kiln's code with Triton's. Arrays only stand
for their element type and alignment, so they are small; the integers are
the sizes of a real launch, which both compilers specialize on (divisible
by 16, or equal to 1)."""

from __future__ import annotations

import dataclasses
from typing import Callable

import ml_dtypes
import numpy as np


@dataclasses.dataclass(frozen=True)
class Case:
    """One compile of one corpus kernel."""
    module: str
    """File of bench/corpus, without .py."""
    kernel: str
    """The @triton.jit function's name in it."""
    args: Callable[[], dict]
    """Its run-time arguments by name."""
    constexprs: dict
    num_warps: int = 4
    num_stages: int = 3


def _array(dtype) -> Callable[[], np.ndarray]:
    return lambda: np.zeros(64, dtype)


f16, f32 = _array(np.float16), _array(np.float32)
f8e5 = _array(ml_dtypes.float8_e5m2)
f8e4 = _array(ml_dtypes.float8_e4m3fn)
i8, i32, i64 = _array(np.int8), _array(np.int32), _array(np.int64)


def _pointers(names: str, make) -> dict:
    return {name: make() for name in names.split()}


def _descriptors(m: int, n: int, k: int, block_m: int, block_n: int,
                 block_k: int) -> dict:
    """Host-side descriptors of f16 A, B and C of a launch's sizes (over
    a small array: only the element type and alignment count)."""
    from kiln.tensor_descriptor import TensorDescriptor
    base = f16()
    return {name: TensorDescriptor(base, shape, [shape[1], 1], block)
            for name, shape, block in (
                ("a_desc", (m, k), (block_m, block_k)),
                ("b_desc", (k, n), (block_k, block_n)),
                ("c_desc", (m, n), (block_m, block_n)))}


def _ops_matmul(kernel: str, m: int, n: int, k: int, blocks: dict,
                scalars: dict | None = None, **launch) -> Case:
    """A kernel of kiln.ops.matmul's (``gemm.py``) on row-major f16 A
    and B of an m x k by k x n launch, C float32 where the split and
    stream kernels add into it (f16 where whole tiles store it), with the
    kernel's other ``scalars``."""
    out = f16 if blocks.get("SPLIT_K") == 1 else f32
    return Case("gemm", kernel,
                lambda: {**_pointers("a_ptr b_ptr", f16), "c_ptr": out(),
                         "M": m, "N": n, "K": k, "stride_am": k,
                         "stride_ak": 1, "stride_bk": n, "stride_bn": 1,
                         "stride_cm": n, "stride_cn": 1, "scale": 1.0,
                         **(scalars or {})},
                {**blocks, "GROUP_M": 8}, **launch)


def _tma_persistent(warp_specialize: bool) -> Case:
    """Triton's persistent TMA matmul at 4096^3 with its Hopper blocks, B
    K-major; its tile loop flattened, warp-specialized or not."""
    from kiln.tensor_descriptor import TensorDescriptor
    base, size = f16(), 4096
    return Case(
        "matmul_tma_persistent", "matmul_kernel_tma_persistent",
        lambda: {name: TensorDescriptor(base, (size, size), [size, 1], block)
                 for name, block in (("a_desc", (128, 64)),
                                     ("b_desc", (256, 64)),
                                     ("c_desc", (128, 256)))}
        | {"M": size, "N": size, "K": size},
        {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 64,
         "GROUP_SIZE_M": 8, "EPILOGUE_SUBTILE": False, "NUM_SMS": 132,
         "WARP_SPECIALIZE": warp_specialize},
        num_warps=8, num_stages=3)


def _attention(stage: int, head_dim: int) -> Case:
    n_ctx, heads = 4096, 32
    row = heads * n_ctx * head_dim

    def args():
        strides = {}
        for t in "qkvo":
            strides |= {f"stride_{t}z": row, f"stride_{t}h": n_ctx * head_dim,
                        f"stride_{t}{'n' if t in 'kv' else 'm'}": head_dim}
        return {**_pointers("Q K V Out", f16), "M": f32(), "sm_scale": 0.125,
                **strides, "H": heads, "N_CTX": n_ctx}
    return Case("flash_attention", "_attn_fwd", args,
                {"HEAD_DIM": head_dim, "BLOCK_M": 128,
                 "BLOCK_N": 64 if head_dim == 64 else 128, "STAGE": stage},
                num_warps=8, num_stages=3)


def _attention_descriptors(causal: bool, head_dim: int) -> Case:
    """Triton 3.9's tutorial forward on host descriptors (TMA) at its
    Hopper blocks: 128 queries, 128 keys (64 at head dim 64, which it
    asserts), 8 warps, 3 stages."""
    n_ctx, heads = 4096, 32

    def args():
        from kiln.tensor_descriptor import TensorDescriptor
        base = f16()
        rows = (heads * n_ctx, head_dim)
        return {"sm_scale": 0.125, "M": f32(), "Z": 1, "H": heads,
                **{name: TensorDescriptor(base, rows, [head_dim, 1],
                                          [128, head_dim])
                   for name in ("desc_q", "desc_k", "desc_v", "desc_o")},
                "N_CTX": n_ctx}
    return Case("flash_attention_descriptor", "_attn_fwd", args,
                {"HEAD_DIM": head_dim, "BLOCK_M": 128,
                 "BLOCK_N": min(128, head_dim), "STAGE": 3 if causal else 1},
                num_warps=8, num_stages=3)


def _attention_backward(causal: bool, head_dim: int) -> Case:
    """The tutorial's backward at its blocks for Hopper (dK/dV over
    32-query steps of a 128-key block, dQ over 32-key steps of a 128-query
    block), 5 stages; 4 warps at head dim 64, as the tutorial, and 8 at
    128, where 4 spill kilobytes in both compilers."""
    n_ctx, heads = 4096, 32
    return Case(
        "flash_attention", "_attn_bwd",
        lambda: {**_pointers("Q K V DO DQ DK DV", f16),
                 **_pointers("M D", f32), "sm_scale": 0.125,
                 "stride_z": heads * n_ctx * head_dim,
                 "stride_h": n_ctx * head_dim, "stride_tok": head_dim,
                 "stride_d": 1, "H": heads, "N_CTX": n_ctx},
        {"BLOCK_M1": 32, "BLOCK_N1": 128, "BLOCK_M2": 128, "BLOCK_N2": 32,
         "BLK_SLICE_FACTOR": 2, "HEAD_DIM": head_dim, "CAUSAL": causal},
        num_warps=4 if head_dim == 64 else 8, num_stages=5)


def _gemm(module: str, kernel: str, element, out, blocks: tuple[int, int, int],
          b_k_major: bool = False, **constexprs) -> Case:
    """A 4096^3 row-major GEMM of Triton's matmul tutorial family, with
    8 warps and 3 stages; ``b_k_major``: B stored N x K (``a @ b.T``)."""
    size = 4096
    block_m, block_n, block_k = blocks
    b_strides = ({"stride_bn": size, "stride_bk": 1} if b_k_major
                 else {"stride_bk": size, "stride_bn": 1})
    return Case(
        module, kernel,
        lambda: {**_pointers("a_ptr b_ptr", element), "c_ptr": out(),
                 "M": size, "N": size, "K": size, "stride_am": size,
                 "stride_ak": 1, **b_strides, "stride_cm": size,
                 "stride_cn": 1},
        {"BLOCK_SIZE_M": block_m, "BLOCK_SIZE_N": block_n,
         "BLOCK_SIZE_K": block_k, "GROUP_SIZE_M": 8, **constexprs},
        num_warps=8, num_stages=3)


def _matmul(activation: str) -> Case:
    return _gemm("matmul", "matmul_kernel", f16, f16, (128, 256, 64),
                 ACTIVATION=activation)


CASES: dict[str, Case] = {
    "vector_add": Case(
        "vector_add", "add_kernel",
        lambda: {**_pointers("x_ptr y_ptr output_ptr", f32),
                 "n_elements": 98432},
        {"BLOCK_SIZE": 1024}),
    "softmax": Case(
        "softmax", "softmax_kernel",
        lambda: {**_pointers("output_ptr input_ptr", f32),
                 "input_row_stride": 4096, "output_row_stride": 4096,
                 "n_cols": 4096},
        {"BLOCK_SIZE": 4096}, num_warps=16),
    "softmax_persistent": Case(
        "softmax", "persistent_softmax_kernel",
        lambda: {**_pointers("output_ptr input_ptr", f32),
                 "input_row_stride": 4096, "output_row_stride": 4096,
                 "n_rows": 4096, "n_cols": 4096},
        {"BLOCK_SIZE": 4096}, num_warps=8, num_stages=2),
    "matmul": _matmul(""),
    "matmul_persistent": _gemm("matmul_persistent",
                               "matmul_kernel_persistent", f16, f16,
                               (128, 256, 64), NUM_SMS=132),
    "matmul_tma_persistent": _tma_persistent(False),
    "matmul_tma_persistent_ws": _tma_persistent(True),
    "matmul_leaky_relu": _matmul("leaky_relu"),
    # No case for matmul_block_ptr.py: Triton 3.9 has no peer for it
    # ("Block pointers have been removed in favor of the tensor
    # descriptor API"); Kiln alone gets TMA loads and wgmma at 128x256x64.
    "matmul_descriptor": Case(
        "matmul_descriptor", "matmul_descriptor_kernel",
        lambda: {**_pointers("a_ptr b_ptr c_ptr", f16), "M": 4096,
                 "N": 4096, "K": 4096},
        {"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8},
        num_warps=8, num_stages=3),
    # The same on float32 (tf32): B, copied N-major by TMA, is written
    # K-major into a buffer of its own each step for wgmma.
    "matmul_descriptor_tf32": Case(
        "matmul_descriptor", "matmul_descriptor_kernel",
        lambda: {**_pointers("a_ptr b_ptr c_ptr", f32), "M": 4096,
                 "N": 4096, "K": 4096},
        {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8},
        num_warps=8, num_stages=3),
    "matmul_host_descriptor": Case(
        "matmul_host_descriptor", "matmul_host_descriptor_kernel",
        lambda: {**_descriptors(4096, 4096, 4096, 128, 256, 64),
                 "M": 4096, "N": 4096, "K": 4096},
        {"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8},
        num_warps=8, num_stages=3),
    "grouped_gemm": Case(
        "grouped_gemm", "grouped_matmul_kernel",
        lambda: {**_pointers("group_a_ptrs group_b_ptrs group_c_ptrs", i64),
                 "group_gemm_sizes": i32(), "g_lds": i32(), "group_size": 4},
        {"NUM_SM": 132, "BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128,
         "BLOCK_SIZE_K": 32}, num_warps=4, num_stages=3),
    "linear": _gemm("linear", "linear_kernel", f16, f16, (128, 256, 64),
                    b_k_major=True),
    # int8 weights (N x K, read K-major) widened to f16 in the loop: a
    # weight-only quantized linear layer.
    "int8_weight_linear": Case(
        "int8_weight_linear", "int8_weight_linear_kernel",
        lambda: {"a_ptr": f16(), "b_ptr": i8(), "scale_ptr": f32(),
                 "c_ptr": f16(), "M": 4096, "N": 4096, "K": 4096,
                 "stride_am": 4096, "stride_ak": 1, "stride_bn": 4096,
                 "stride_bk": 1, "stride_cm": 4096, "stride_cn": 1},
        {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 64,
         "GROUP_SIZE_M": 8}, num_warps=8, num_stages=3),
    "matmul_int8": _gemm("int8_matmul", "matmul_int8_kernel", i8, i32,
                         (128, 128, 64)),
    # Triton's tutorial 03 on fp8 (float8e5): B transposed first (K-major),
    # with the tutorial's Hopper fp8 blocking.
    "matmul_fp8": _gemm("matmul", "matmul_kernel", f8e5, f16,
                        (128, 256, 128), b_k_major=True, ACTIVATION=""),
    # Tutorial 03 on float32 tiles, which Triton's tl.dot multiplies as
    # tf32 by default: wgmma reads tf32 operands K-major only, so B is
    # staged K-major, element by element; and x @ w.T of f32, whose B is.
    "matmul_tf32": _gemm("matmul", "matmul_kernel", f32, f32,
                         (128, 128, 32), ACTIVATION=""),
    "linear_tf32": _gemm("linear", "linear_kernel", f32, f32,
                         (128, 128, 32), b_k_major=True),
    "cross_entropy": Case(
        "cross_entropy", "cross_entropy_fwd_kernel",
        lambda: {"X_ptr": f32(), "X_stride": 131072, "Y_ptr": i64(),
                 "Y_stride": 1, "loss_ptr": f32(), "loss_stride": 1,
                 "n_cols": 131072, "ignore_index": -100},
        {"BLOCK_SIZE": 4096}, num_warps=8),
    "layer_norm": Case(
        "layer_norm", "_layer_norm_fwd_fused",
        lambda: {**_pointers("X Y W B", f16), **_pointers("Mean Rstd", f32),
                 "stride": 8192, "N": 8192, "eps": 1e-5},
        {"BLOCK_SIZE": 8192}, num_warps=8),
    "layer_norm_backward": Case(
        "layer_norm", "_layer_norm_bwd_dx_fused",
        lambda: {**_pointers("DX DY DW DB X W", f16),
                 **_pointers("Mean Rstd", f32), "Lock": i32(),
                 "stride": 4096, "N": 4096},
        {"GROUP_SIZE_M": 128, "BLOCK_SIZE_N": 4096}, num_warps=8),
    "rms_norm": Case(
        "rms_norm", "rms_norm_kernel",
        lambda: {**_pointers("X Y W", f16), "stride_x": 4096,
                 "stride_y": 4096, "N": 4096, "eps": 1e-6},
        {"BLOCK_SIZE": 4096}, num_warps=8),
    "dropout": Case(
        "dropout", "_seeded_dropout",
        lambda: {**_pointers("x_ptr output_ptr", f32), "n_elements": 98432,
                 "p": 0.5, "seed": 123},
        {"BLOCK_SIZE": 1024}),
    "fp8_quant": Case(
        "fp8_quant", "per_token_quant_fp8_kernel",
        lambda: {"x_ptr": f16(), "y_ptr": f8e4(), "scale_ptr": f32(),
                 "stride_x": 4096, "stride_y": 4096, "N": 4096,
                 "fp8_min": -448.0, "fp8_max": 448.0, "eps": 1e-10},
        {"BLOCK": 4096}, num_warps=8),
    "swiglu": Case(
        "swiglu", "_swiglu_forward_kernel",
        lambda: {**_pointers("a_ptr b_ptr c_ptr", f16), "stride": 4096},
        {"n_cols": 4096, "BLOCK_SIZE": 4096}, num_warps=8),
    "rotary": Case(
        "rotary", "_rope_kernel",
        lambda: {"q_ptr": f16(), "q_row_stride": 32 * 128,
                 **_pointers("cos_ptr sin_ptr", f32), "cs_row_stride": 64,
                 "n_heads": 32},
        {"HEAD_DIM": 128, "BLOCK_H": 32}),
    "column_sum": Case(
        "column_sum", "sum_axis0_kernel",
        lambda: {**_pointers("x_ptr out_ptr", f32), "M": 4096, "N": 4096,
                 "stride_m": 4096, "stride_n": 1},
        {"BLOCK_M": 32, "BLOCK_N": 128}),
    # A decode shape (16 rows, N = K = 4096) split 4 ways over K, with
    # the blocks split-K kernels use for it (kiln.ops.matmul's).
    "matmul_split_k": _ops_matmul("matmul_split_k_kernel", 16, 4096, 4096,
                                  {"BLOCK_M": 16, "BLOCK_N": 64,
                                   "BLOCK_K": 128, "SPLIT_K": 4},
                                  num_warps=4, num_stages=4),
    # kiln.ops.matmul's whole-tile kernel at its 64-row blocks (wgmma),
    # on a 64-row prefill.
    "matmul_tiles_m64": _ops_matmul("matmul_split_k_kernel", 64, 4096,
                                    14336, {"BLOCK_M": 64, "BLOCK_N": 128,
                                            "BLOCK_K": 64, "SPLIT_K": 1},
                                    num_warps=4, num_stages=4),
    # Its stream-K kernel on a prefill shape of few tiles (56 of 128x256,
    # 64 K steps each), in runs of 28 steps (the runs of 132 programs;
    # 128 have one).
    "matmul_stream_k": _ops_matmul("matmul_stream_k_kernel", 128, 14336, 4096,
                                   {"BLOCK_M": 128, "BLOCK_N": 256,
                                    "BLOCK_K": 64},
                                   {"steps_per_program": 28},
                                   num_warps=8, num_stages=3),
    "attention_d64": _attention(1, 64),
    "attention_d64_causal": _attention(3, 64),
    "attention_d128": _attention(1, 128),
    "attention_d128_causal": _attention(3, 128),
    "attention_tma_d64": _attention_descriptors(False, 64),
    "attention_tma_d128_causal": _attention_descriptors(True, 128),
    "attention_bwd_d64": _attention_backward(False, 64),
    "attention_bwd_d64_causal": _attention_backward(True, 64),
    "attention_bwd_d128": _attention_backward(False, 128),
    "attention_bwd_d128_causal": _attention_backward(True, 128),
}

#: Cases Triton refuses to compile for a chip, and why: Kiln's classes are
#: listed without a peer there.
TRITON_REFUSES: dict[tuple[str, str], str] = {
    ("fp8_quant", "sm_80"): "Triton 3.9 has float8e4nv only from sm_89 "
                            "(Kiln converts it with integer operations)",
}
