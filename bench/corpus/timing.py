"""The corpus kernels timed on a GPU: Kiln, Triton and PyTorch on the same
tensors, in one process (``bench/gpu_suite.py --sections corpus``).

Each case of ``isa_cases.py`` (the blocks, warps and stages Triton's
tutorials use on Hopper) is launched at a size far larger than the L2
cache, from the same corpus file compiled twice: by Kiln through
``kiln.triton`` and by Triton (``compare.load_triton``). Before timing,
Kiln's outputs are checked against Triton's. Times are medians of device
events over ``REPEATS`` launches after a warm-up, with the L2 cache
flushed (a 256 MiB write) before each launch, as ``triton.testing.do_bench``
does; the PyTorch column does the same work with PyTorch's own kernels.
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from typing import Callable

import compare
from isa_cases import CASES

REPEATS = 50
#: The bytes zeroed before each timed launch: more than an H200's L2.
FLUSH_BYTES = 256 << 20


@dataclasses.dataclass
class Launch:
    """One corpus kernel's launch on device tensors."""
    args: dict
    """Its run-time arguments by name (tensors and numbers)."""
    grid: tuple
    outputs: tuple[str, ...]
    """The arguments it writes, compared between Kiln and Triton."""
    peer: Callable[[], object]
    """PyTorch doing the same work."""
    work: tuple[str, float]
    """("GB/s", bytes moved once) or ("TFLOP/s", floating-point operations)."""
    tolerance: float = 1e-2
    written: dict = dataclasses.field(default_factory=dict)
    """The tensor behind an output that is not one itself (a descriptor,
    an array of addresses)."""
    describe: Callable[[object], dict] | None = None
    """Arguments a compiler's copy of the corpus file makes itself (its
    own TensorDescriptor class), from that copy."""
    reset: Callable[[], object] | None = None
    """Puts back an input the kernel writes in place, before each
    compiler's checked launch."""


def _matmul(torch, case: str, activation=None) -> Launch:
    """A 4096^3 f16 GEMM of the tutorial's signature (``linear``: B
    stored N x K; ``matmul_int8``: int8 into int32; ``matmul_fp8``:
    float8e5 A and B, B transposed, as the tutorial runs fp8, against
    PyTorch's f16 matmul of the same values: cuBLAS has no e5m2 x e5m2;
    ``*_tf32``: float32, against cuBLAS in tf32, as Triton's default)."""
    size = 4096
    if case.endswith("_tf32"):
        a = torch.randn(size, size, device="cuda")
        b = torch.randn(size, size, device="cuda")
        c = torch.empty(size, size, device="cuda")
        peer = _tf32(torch, (lambda: torch.nn.functional.linear(a, b))
                     if case == "linear_tf32" else (lambda: a @ b))
    elif case == "matmul_fp8":
        a = torch.randn(size, size, device="cuda").to(torch.float8_e5m2)
        b = torch.randn(size, size, device="cuda").to(torch.float8_e5m2).T
        c = torch.empty(size, size, dtype=torch.float16, device="cuda")
        wide = (a.to(torch.float16), b.to(torch.float16))
        peer = lambda: wide[0] @ wide[1]  # noqa: E731
    elif case == "matmul_int8":
        a = torch.randint(-8, 8, (size, size), dtype=torch.int8, device="cuda")
        b = torch.randint(-8, 8, (size, size), dtype=torch.int8, device="cuda")
        c = torch.empty(size, size, dtype=torch.int32, device="cuda")
        peer = lambda: torch._int_mm(a, b)  # noqa: E731
    else:
        a = torch.randn(size, size, dtype=torch.float16, device="cuda")
        b = torch.randn(size, size, dtype=torch.float16, device="cuda")
        c = torch.empty(size, size, dtype=torch.float16, device="cuda")
        peer = ((lambda: torch.nn.functional.linear(a, b)) if case == "linear"
                else (lambda: torch.nn.functional.leaky_relu(a @ b, 0.01))
                if activation else (lambda: a @ b))
    block_m, block_n = (CASES[case].constexprs["BLOCK_SIZE_M"],
                        CASES[case].constexprs["BLOCK_SIZE_N"])
    b_strides = ({"stride_bn": b.stride(0), "stride_bk": b.stride(1)}
                 if case.startswith("linear") else
                 {"stride_bk": b.stride(0), "stride_bn": b.stride(1)})
    args = {"a_ptr": a, "b_ptr": b, "c_ptr": c, "M": size, "N": size,
            "K": size, "stride_am": a.stride(0), "stride_ak": a.stride(1),
            **b_strides, "stride_cm": c.stride(0), "stride_cn": c.stride(1)}
    grid = (-(-size // block_m) * -(-size // block_n),)
    if case == "matmul_persistent":  # a program per SM, walking the tiles
        grid = (CASES[case].constexprs["NUM_SMS"],)
    return Launch(args, grid, ("c_ptr",), peer, ("TFLOP/s", 2 * size ** 3),
                  tolerance=0 if case == "matmul_int8" else 0.05)


def _tf32(torch, product: Callable[[], object]) -> Callable[[], object]:
    """``product`` with cuBLAS's float32 matmuls in tf32."""
    def in_tf32():
        allowed = torch.backends.cuda.matmul.allow_tf32
        torch.backends.cuda.matmul.allow_tf32 = True
        try:
            return product()
        finally:
            torch.backends.cuda.matmul.allow_tf32 = allowed
    return in_tf32


def _int8_weight_linear(torch) -> Launch:
    """f16 activations (4096 x 4096) times int8 weights (4096 x 4096,
    stored N x K) with a float32 scale per output feature, against
    PyTorch dequantizing the weight and calling cuBLAS."""
    size = 4096
    x = torch.randn(size, size, dtype=torch.float16, device="cuda")
    w = torch.randint(-128, 128, (size, size), dtype=torch.int8,
                      device="cuda")
    scale = torch.rand(size, device="cuda") / 1024
    c = torch.empty(size, size, dtype=torch.float16, device="cuda")
    args = {"a_ptr": x, "b_ptr": w, "scale_ptr": scale, "c_ptr": c,
            "M": size, "N": size, "K": size, "stride_am": size,
            "stride_ak": 1, "stride_bn": size, "stride_bk": 1,
            "stride_cm": size, "stride_cn": 1}
    constexprs = CASES["int8_weight_linear"].constexprs
    tiles = (-(-size // constexprs["BLOCK_SIZE_M"])
             * -(-size // constexprs["BLOCK_SIZE_N"]))
    return Launch(args, (tiles,), ("c_ptr",),
                  lambda: (x @ (w.to(torch.float16) * scale[:, None]
                                .to(torch.float16)).T),
                  ("TFLOP/s", 2 * size ** 3), tolerance=0.05)


def _descriptor_matmul(torch, case: str) -> Launch:
    size = 4096
    dtype = torch.float32 if case.endswith("_tf32") else torch.float16
    a = torch.randn(size, size, dtype=dtype, device="cuda")
    b = torch.randn(size, size, dtype=dtype, device="cuda")
    c = torch.empty(size, size, dtype=dtype, device="cuda")
    blocks = CASES[case].constexprs
    grid = ((size // blocks["BLOCK_M"]) * (size // blocks["BLOCK_N"]),)
    sizes = {"M": size, "N": size, "K": size}
    if case in ("matmul_descriptor", "matmul_descriptor_tf32"):
        return Launch({"a_ptr": a, "b_ptr": b, "c_ptr": c, **sizes}, grid,
                      ("c_ptr",), _tf32(torch, lambda: a @ b),
                      ("TFLOP/s", 2 * size ** 3), tolerance=0.05)
    return Launch(
        sizes, grid, ("c_desc",), lambda: a @ b, ("TFLOP/s", 2 * size ** 3),
        tolerance=0.05, written={"c_desc": c},
        describe=lambda module: dict(zip(
            ("a_desc", "b_desc", "c_desc"),
            module.descriptors(a, b, c, blocks["BLOCK_M"],
                               blocks["BLOCK_N"], blocks["BLOCK_K"]))))


def _tma_persistent(torch, case: str) -> Launch:
    """Triton's persistent TMA matmul at 4096^3, B K-major, a program per
    SM (the case's NUM_SMS), warp-specialized or not."""
    size = 4096
    a = torch.randn(size, size, dtype=torch.float16, device="cuda")
    b = torch.randn(size, size, dtype=torch.float16, device="cuda")
    c = torch.empty(size, size, dtype=torch.float16, device="cuda")
    blocks = CASES[case].constexprs
    return Launch(
        {"M": size, "N": size, "K": size}, (blocks["NUM_SMS"],), ("c_desc",),
        lambda: a @ b.T, ("TFLOP/s", 2 * size ** 3), tolerance=0.05,
        written={"c_desc": c},
        describe=lambda module: dict(zip(
            ("a_desc", "b_desc", "c_desc"),
            module.descriptors(a, b, c, blocks["BLOCK_SIZE_M"],
                               blocks["BLOCK_SIZE_N"],
                               blocks["BLOCK_SIZE_K"],
                               blocks["EPILOGUE_SUBTILE"]))))


def _gemm(torch, case: str) -> Launch:
    """kiln.ops.matmul's kernels at their cases' sizes: whole tiles of a
    64-row prefill, split-K (a decode shape) and stream-K (a prefill of
    few tiles), the last two accumulating C by atomics (zeroed before each
    compiler's checked launch; the timed ones keep adding)."""
    spec = CASES[case]
    args = spec.args()
    m, n, k = args["M"], args["N"], args["K"]
    blocks = spec.constexprs
    a = torch.randn(m, k, dtype=torch.float16, device="cuda")
    b = torch.randn(k, n, dtype=torch.float16, device="cuda")
    c = torch.zeros(m, n, device="cuda", dtype=torch.float16
                    if blocks.get("SPLIT_K") == 1 else torch.float32)
    tiles = (math.ceil(m / blocks["BLOCK_M"]) *
             math.ceil(n / blocks["BLOCK_N"]))
    if "SPLIT_K" in blocks:
        grid = (tiles, blocks["SPLIT_K"])
    else:
        steps = tiles * math.ceil(k / blocks["BLOCK_K"])
        grid = (math.ceil(steps / args["steps_per_program"]),)
    return Launch(
        {**args, "a_ptr": a, "b_ptr": b, "c_ptr": c}, grid, ("c_ptr",),
        lambda: a @ b, ("TFLOP/s", 2 * m * n * k), tolerance=0.05,
        reset=c.zero_)


def _grouped_gemm(torch) -> Launch:
    size, count = 2048, 4
    group = [[torch.randn(size, size, dtype=torch.float16, device="cuda")
              for _ in range(count)] for _ in range(2)]
    c = torch.empty(count, size, size, dtype=torch.float16, device="cuda")
    addresses = [torch.tensor([t.data_ptr() for t in ts], dtype=torch.int64,
                              device="cuda")
                 for ts in (*group, list(c))]
    sizes = torch.tensor([[size] * 3] * count, dtype=torch.int32,
                         device="cuda")
    args = {"group_a_ptrs": addresses[0], "group_b_ptrs": addresses[1],
            "group_c_ptrs": addresses[2], "group_gemm_sizes": sizes,
            "g_lds": sizes.clone(), "group_size": count}
    return Launch(args, (CASES["grouped_gemm"].constexprs["NUM_SM"],),
                  ("group_c_ptrs",), lambda: [a @ b for a, b in zip(*group)],
                  ("TFLOP/s", 2 * count * size ** 3), tolerance=0.05,
                  written={"group_c_ptrs": c})


def _attention(torch, case: str) -> Launch:
    heads, n_ctx = 32, 4096
    head_dim = CASES[case].constexprs["HEAD_DIM"]
    causal = CASES[case].constexprs["STAGE"] == 3
    q, k, v = (torch.randn(1, heads, n_ctx, head_dim, dtype=torch.float16,
                           device="cuda") for _ in range(3))
    o = torch.empty_like(q)
    lse = torch.empty(1, heads, n_ctx, dtype=torch.float32, device="cuda")
    args = {"Q": q, "K": k, "V": v, "sm_scale": head_dim ** -0.5, "M": lse,
            "Out": o, "H": heads, "N_CTX": n_ctx}
    for name, t in (("q", q), ("k", k), ("v", v), ("o", o)):
        row = "n" if name in "kv" else "m"
        args |= {f"stride_{name}z": t.stride(0), f"stride_{name}h": t.stride(1),
                 f"stride_{name}{row}": t.stride(2)}
    flops = 4 * heads * n_ctx * n_ctx * head_dim // (2 if causal else 1)
    return Launch(
        args, (n_ctx // CASES[case].constexprs["BLOCK_M"], heads, 1),
        ("Out", "M"),
        lambda: torch.nn.functional.scaled_dot_product_attention(
            q, k, v, is_causal=causal), ("TFLOP/s", flops), tolerance=0.02)


def _attention_descriptors(torch, case: str) -> Launch:
    """The forward on host descriptors: each compiler's copy of the file
    makes its own from the same tensors."""
    heads, n_ctx = 32, 4096
    spec = CASES[case].constexprs
    head_dim, causal = spec["HEAD_DIM"], spec["STAGE"] == 3
    q, k, v = (torch.randn(1, heads, n_ctx, head_dim, dtype=torch.float16,
                           device="cuda") for _ in range(3))
    o = torch.empty_like(q)
    lse = torch.empty(1, heads, n_ctx, dtype=torch.float32, device="cuda")
    flops = 4 * heads * n_ctx * n_ctx * head_dim // (2 if causal else 1)
    names = ("desc_q", "desc_k", "desc_v", "desc_o")
    return Launch(
        {"sm_scale": head_dim ** -0.5, "M": lse, "Z": 1, "H": heads,
         "N_CTX": n_ctx}, (n_ctx // spec["BLOCK_M"], heads, 1),
        ("desc_o", "M"),
        lambda: torch.nn.functional.scaled_dot_product_attention(
            q, k, v, is_causal=causal), ("TFLOP/s", flops), tolerance=0.02,
        written={"desc_o": o},
        describe=lambda module: dict(zip(names, module.descriptors(
            q, k, v, o, spec["BLOCK_M"], spec["BLOCK_N"]))))


def _attention_backward(torch, case: str) -> Launch:
    """dQ, dK and dV of one forward, whose log-sum-exp (base 2) and
    ``delta = rowsum(dO * O)`` PyTorch computes; PyTorch's peer is its
    autograd backward of the same attention (the forward's graph kept),
    counted as the tutorial counts it: 2.5 forwards' work."""
    heads, n_ctx = 32, 4096
    spec = CASES[case].constexprs
    head_dim, causal = spec["HEAD_DIM"], spec["CAUSAL"]
    sm_scale = head_dim ** -0.5
    q, k, v, do = (torch.randn(1, heads, n_ctx, head_dim, dtype=torch.float16,
                               device="cuda") for _ in range(4))
    leaves = [t.clone().requires_grad_() for t in (q, k, v)]
    out = torch.nn.functional.scaled_dot_product_attention(
        *leaves, is_causal=causal, scale=sm_scale)
    scores = (q.float() @ k.float().transpose(-1, -2)) * sm_scale
    if causal:
        scores = scores.masked_fill(
            torch.ones(n_ctx, n_ctx, dtype=torch.bool, device="cuda").triu(1),
            float("-inf"))
    lse2 = torch.logsumexp(scores, -1) / 0.6931471824645996
    del scores
    delta = (out.detach().float() * do.float()).sum(-1)
    dq, dk, dv = (torch.empty_like(t) for t in (q, k, v))
    args = {"Q": q, "K": k * (sm_scale / 0.6931471824645996), "V": v,
            "sm_scale": sm_scale, "DO": do, "DQ": dq, "DK": dk, "DV": dv,
            "M": lse2, "D": delta, "stride_z": q.stride(0),
            "stride_h": q.stride(1), "stride_tok": q.stride(2),
            "stride_d": q.stride(3), "H": heads, "N_CTX": n_ctx}
    flops = 2.5 * 4 * heads * n_ctx * n_ctx * head_dim / (2 if causal else 1)
    return Launch(
        args, (n_ctx // spec["BLOCK_N1"], 1, heads), ("DQ", "DK", "DV"),
        lambda: torch.autograd.grad(out, leaves, do, retain_graph=True),
        ("TFLOP/s", flops), tolerance=0.05)


def _rows(torch, case: str) -> Launch:
    """The row kernels: softmax (both forms), cross-entropy, layer norm
    forward and backward, RMSNorm, SwiGLU, per-token fp8 quantization,
    rotary embedding."""
    f = torch.nn.functional
    rows, cols = 16384, 4096
    if case in ("softmax", "softmax_persistent"):
        x = torch.randn(rows, cols, device="cuda")
        y = torch.empty_like(x)
        args = {"output_ptr": y, "input_ptr": x, "input_row_stride": cols,
                "output_row_stride": cols, "n_cols": cols}
        programs = torch.cuda.get_device_properties(0).multi_processor_count
        if case == "softmax_persistent":
            args["n_rows"] = rows
        return Launch(args, (programs if case == "softmax_persistent"
                             else rows,), ("output_ptr",),
                      lambda: torch.softmax(x, dim=1),
                      ("GB/s", 8 * rows * cols), tolerance=1e-5)
    if case == "cross_entropy":
        rows, cols = 512, 131072
        x = torch.randn(rows, cols, device="cuda")
        y = torch.randint(0, cols, (rows,), device="cuda")
        loss = torch.empty(rows, device="cuda")
        return Launch({"X_ptr": x, "X_stride": cols, "Y_ptr": y,
                       "Y_stride": 1, "loss_ptr": loss, "loss_stride": 1,
                       "n_cols": cols, "ignore_index": -100}, (rows,),
                      ("loss_ptr",),
                      lambda: f.cross_entropy(x, y, reduction="none"),
                      ("GB/s", 4 * rows * cols), tolerance=1e-3)
    half = dict(dtype=torch.float16, device="cuda")
    if case in ("layer_norm", "layer_norm_backward"):
        n = CASES[case].args()["N"]
        x = torch.randn(rows, n, **half)
        w, b = torch.randn(n, **half), torch.randn(n, **half)
        mean = torch.empty(rows, device="cuda")
        rstd = torch.empty(rows, device="cuda")
        if case == "layer_norm":
            return Launch({"X": x, "Y": torch.empty_like(x), "W": w, "B": b,
                           "Mean": mean, "Rstd": rstd, "stride": n, "N": n,
                           "eps": 1e-5}, (rows,), ("Y", "Mean", "Rstd"),
                          lambda: f.layer_norm(x, (n,), w, b),
                          ("GB/s", 4 * rows * n))
        mean.copy_(x.float().mean(1))
        rstd.copy_(1 / (x.float().var(1, unbiased=False) + 1e-5).sqrt())
        groups = CASES[case].constexprs["GROUP_SIZE_M"]
        dy = torch.randn(rows, n, **half)
        partial = dict(dtype=torch.float16, device="cuda")
        args = {"DX": torch.empty_like(x), "DY": dy,
                "DW": torch.zeros(groups, n, **partial),
                "DB": torch.zeros(groups, n, **partial), "X": x, "W": w,
                "Mean": mean, "Rstd": rstd,
                "Lock": torch.zeros(2 * groups, dtype=torch.int32,
                                    device="cuda"),
                "stride": n, "N": n}
        return Launch(args, (rows,), ("DX",),
                      lambda: torch.ops.aten.native_layer_norm_backward(
                          dy, x, (n,), mean, rstd, w, b,
                          [True, True, True]),
                      ("GB/s", 6 * rows * n))
    if case == "rms_norm":
        x = torch.randn(rows, cols, **half)
        w = torch.randn(cols, **half)
        return Launch({"X": x, "Y": torch.empty_like(x), "W": w,
                       "stride_x": cols, "stride_y": cols, "N": cols,
                       "eps": 1e-6}, (rows,), ("Y",),
                      lambda: f.rms_norm(x, (cols,), w, 1e-6),
                      ("GB/s", 4 * rows * cols))
    if case == "swiglu":
        a, b = torch.randn(rows, cols, **half), torch.randn(rows, cols, **half)
        return Launch({"a_ptr": a, "b_ptr": b, "c_ptr": torch.empty_like(a),
                       "stride": cols}, (rows,), ("c_ptr",),
                      lambda: f.silu(a) * b, ("GB/s", 6 * rows * cols))
    if case == "fp8_quant":
        x = torch.randn(rows, cols, **half)
        y = torch.empty(rows, cols, dtype=torch.float8_e4m3fn, device="cuda")
        scale = torch.empty(rows, device="cuda")

        def quantize():
            s = x.abs().amax(1).float().clamp(min=1e-10) / 448.0
            return (x.float() / s[:, None]).clamp(-448.0, 448.0).to(
                torch.float8_e4m3fn), s
        return Launch({"x_ptr": x, "y_ptr": y, "scale_ptr": scale,
                       "stride_x": cols, "stride_y": cols, "N": cols,
                       "fp8_min": -448.0, "fp8_max": 448.0, "eps": 1e-10},
                      (rows,), ("y_ptr", "scale_ptr"), quantize,
                      ("GB/s", 3 * rows * cols), tolerance=0)
    if case != "rotary":
        raise KeyError(case)
    # 16384 tokens of 32 heads of 128, rotated in place.
    heads, head_dim = 32, 128
    original = torch.randn(rows, heads * head_dim, **half)
    q = original.clone()
    angles = torch.randn(rows, head_dim // 2, device="cuda")
    cos, sin = angles.cos(), angles.sin()

    def rotate():
        x = original.view(rows, heads, head_dim).float()
        first, second = x[..., :head_dim // 2], x[..., head_dim // 2:]
        c, s = cos[:, None], sin[:, None]
        return torch.cat((first * c - second * s, second * c + first * s), -1)
    return Launch({"q_ptr": q, "q_row_stride": heads * head_dim,
                   "cos_ptr": cos, "sin_ptr": sin,
                   "cs_row_stride": head_dim // 2, "n_heads": heads},
                  (rows,), ("q_ptr",), rotate,
                  ("GB/s", 4 * rows * heads * head_dim),
                  reset=lambda: q.copy_(original))


def _elementwise(torch, case: str) -> Launch:
    """vector_add and dropout over 2^26 f32 elements."""
    n = 1 << 26
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    grid = (-(-n // CASES[case].constexprs["BLOCK_SIZE"]),)
    if case == "vector_add":
        return Launch({"x_ptr": x, "y_ptr": y, "output_ptr": out,
                       "n_elements": n}, grid, ("output_ptr",),
                      lambda: torch.add(x, y, out=out), ("GB/s", 12 * n),
                      tolerance=0)
    if case == "dropout":
        return Launch({"x_ptr": x, "output_ptr": out, "n_elements": n,
                       "p": 0.5, "seed": 123}, grid, ("output_ptr",),
                      lambda: torch.nn.functional.dropout(x, 0.5),
                      ("GB/s", 8 * n), tolerance=0)
    raise KeyError(case)


def _column_sum(torch) -> Launch:
    """A 16384 x 4096 f32 sum over the rows."""
    m, cols = 16384, 4096
    x = torch.randn(m, cols, device="cuda")
    return Launch({"x_ptr": x, "out_ptr": torch.empty(cols, device="cuda"),
                   "M": m, "N": cols, "stride_m": cols, "stride_n": 1},
                  (cols // CASES["column_sum"].constexprs["BLOCK_N"],),
                  ("out_ptr",),
                  lambda: x.sum(0), ("GB/s", 4 * m * cols), tolerance=1e-3)


def make_launch(torch, case: str) -> Launch:
    """The launch of case ``case`` of ``isa_cases.CASES`` on new tensors."""
    if case.startswith("attention_bwd"):
        return _attention_backward(torch, case)
    if case.startswith("attention_tma"):
        return _attention_descriptors(torch, case)
    if case.startswith("attention"):
        return _attention(torch, case)
    if case in ("matmul", "matmul_leaky_relu", "linear", "matmul_int8",
                "matmul_fp8", "matmul_persistent", "matmul_tf32",
                "linear_tf32"):
        return _matmul(torch, case, CASES[case].constexprs.get("ACTIVATION"))
    if case == "int8_weight_linear":
        return _int8_weight_linear(torch)
    if case in ("matmul_descriptor", "matmul_host_descriptor",
                "matmul_descriptor_tf32"):
        return _descriptor_matmul(torch, case)
    if case.startswith("matmul_tma_persistent"):
        return _tma_persistent(torch, case)
    if case == "grouped_gemm":
        return _grouped_gemm(torch)
    if case in ("matmul_tiles_m64", "matmul_split_k", "matmul_stream_k"):
        return _gemm(torch, case)
    if case in ("vector_add", "dropout"):
        return _elementwise(torch, case)
    if case == "column_sum":
        return _column_sum(torch)
    return _rows(torch, case)


def median_seconds(torch, launch: Callable[[], object], flush) -> float:
    """Median device time of ``launch()``, the L2 flushed before each."""
    for _ in range(3):
        launch()
    torch.cuda.synchronize()
    times = []
    for _ in range(REPEATS):
        flush.zero_()
        start, stop = (torch.cuda.Event(enable_timing=True) for _ in range(2))
        start.record()
        launch()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) / 1e3)
    return statistics.median(times)


def _launcher(module, case: str, launch: Launch) -> Callable[[], object]:
    """``module``'s launch of ``case``: the corpus launchers' call, a
    parameter named like a launch option (``num_stages``) taking the
    option's value in both compilers."""
    spec = CASES[case]
    kernel = getattr(module, spec.kernel)
    args = {**launch.args,
            **(launch.describe(module) if launch.describe else {})}
    return lambda: kernel[launch.grid](
        **args, **spec.constexprs, num_warps=spec.num_warps,
        num_stages=spec.num_stages)


def time_case(torch, case: str, flush) -> dict:
    """Kiln's, Triton's and PyTorch's times of ``case`` on the same
    tensors, and how far Kiln's outputs are from Triton's; a failed
    compiler's cell holds its error instead."""
    launch = make_launch(torch, case)
    row = {"kernel": case, "unit": launch.work[0], "work": launch.work[1]}
    outputs = {}
    for name, load in (("kiln", compare.load_kiln),
                       ("triton", compare.load_triton)):
        try:
            run = _launcher(load(CASES[case].module), case, launch)
            if launch.reset:
                launch.reset()
            run()
            torch.cuda.synchronize()
            outputs[name] = [launch.written.get(o, launch.args.get(o))
                             .clone() for o in launch.outputs]
            row[f"{name}_s"] = median_seconds(torch, run, flush)
        except Exception as error:  # a failed cell, not a crash
            row[f"{name}_error"] = str(error)[-500:]
    if "kiln" in outputs and "triton" in outputs:
        pairs = list(zip(outputs["kiln"], outputs["triton"]))
        row["max_difference"] = max((k.double() - t.double()).abs().max()
                                    .item() for k, t in pairs)
        row["matches_triton"] = all(
            torch.allclose(k.double(), t.double(), atol=launch.tolerance,
                           rtol=launch.tolerance) for k, t in pairs)
    row["torch_s"] = median_seconds(torch, launch.peer, flush)
    return row


def corpus_rows(torch, cases=None) -> list[dict]:
    """Every case timed (``cases``: some of them)."""
    import triton
    # In-kernel tensor descriptors take their scratch from this allocator.
    triton.set_allocator(lambda size, alignment, stream: torch.empty(
        size, dtype=torch.int8, device="cuda"))
    flush = torch.empty(FLUSH_BYTES, dtype=torch.int8, device="cuda")
    return [time_case(torch, case, flush) for case in (cases or CASES)]


def table(rows: list[dict]) -> list[str]:
    """The rows as Markdown: times, rates, and Kiln's speed as a fraction
    of Triton's (Triton's time over Kiln's: above 1 is faster)."""
    lines = ["", "| kernel | Kiln (us) | Triton (us) | PyTorch (us) | Kiln "
             "rate | Kiln / Triton speed | Kiln / PyTorch speed | matches "
             "Triton |", "|---|---:|---:|---:|---:|---:|---:|---|"]
    for row in rows:
        def cell(name):
            return (f"{row[name + '_s'] * 1e6:.1f}" if name + "_s" in row
                    else "failed")
        rate = ""
        if "kiln_s" in row:
            scale = 1e12 if row["unit"] == "TFLOP/s" else 1e9
            rate = f"{row['work'] / row['kiln_s'] / scale:.0f} {row['unit']}"
        speed = (f"{row['triton_s'] / row['kiln_s']:.2f}"
                 if "kiln_s" in row and "triton_s" in row else "")
        torch_speed = (f"{row['torch_s'] / row['kiln_s']:.2f}"
                       if "kiln_s" in row else "")
        check = ("" if "matches_triton" not in row else
                 "yes" if row["matches_triton"] else
                 f"no (max difference {row['max_difference']:.3g})")
        lines.append(f"| {row['kernel']} | {cell('kiln')} | {cell('triton')} "
                     f"| {cell('torch')} | {rate} | {speed} | {torch_speed} "
                     f"| {check} |")
    errors = [f"- {row['kernel']}, {who}: {row[who + '_error']}"
              for row in rows for who in ("kiln", "triton")
              if who + "_error" in row]
    return lines + ([""] + errors if errors else [])
