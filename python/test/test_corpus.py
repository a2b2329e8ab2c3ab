"""The Triton-idiom kernels of bench/corpus, written against
``kiln.triton`` exactly as Triton users write them, each run on the host
target and in the interpreter against its numpy reference, on sizes that
are not multiples of the blocks and random data."""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import attention_reference
import kiln
import triton_interpreter

CORPUS = Path(__file__).resolve().parents[2] / "bench" / "corpus"
sys.path[:0] = [str(CORPUS), str(CORPUS.parent)]

import compare  # noqa: E402
RNG = np.random.default_rng(24)


def corpus(name: str):
    """The corpus module ``name``, imported from its file; under
    ``TRITON_INTERPRET=1``, the same file on Triton itself."""
    if os.environ.get("TRITON_INTERPRET") == "1":
        return triton_interpreter.on_triton(name, CORPUS)
    return compare.load_kiln(name)


@pytest.fixture(params=triton_interpreter.TARGETS)
def target(request, monkeypatch):
    """Runs the test's launches on the host target, in the interpreter
    (``KILN_INTERPRET=1``, read at each launch), and, where the ``triton``
    wheel is installed, in Triton's own interpreter on the same source."""
    triton_interpreter.skip_unless_runs(request.param)
    if request.param == "triton-interpreter":
        with triton_interpreter.interpreting():
            yield request.param
        return
    monkeypatch.setenv("KILN_INTERPRET",
                       "1" if request.param == "interpreter" else "0")
    yield request.param


def not_in_triton(target: str, why: str) -> None:
    """Skips the Triton-interpreter run of a case Triton cannot run here:
    one it refuses (where Kiln takes more) or one that needs a GPU."""
    if target == "triton-interpreter":
        pytest.skip(f"not in Triton's interpreter: {why}")


def normal(*shape, dtype=np.float32, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(dtype)


def check(got, want, atol, rtol):
    np.testing.assert_allclose(np.asarray(got, np.float64), want, atol=atol,
                               rtol=rtol)


@pytest.mark.parametrize("n", [1, 1000, 4099])
def test_vector_add(target, n):
    module = corpus("vector_add")
    x, y = normal(n), normal(n)
    np.testing.assert_array_equal(module.add(x, y, block_size=256),
                                  module.reference(x, y))


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_softmax(target, dtype):
    module = corpus("softmax")
    wide = normal(37, 150, dtype=dtype, scale=3.0)
    x = wide[:, :131]  # rows 150 elements apart, 131 long
    want = module.reference(x)
    eps = np.finfo(dtype).eps
    check(module.softmax(x), want, atol=1e-6, rtol=8 * eps)
    check(module.persistent_softmax(x, num_programs=5, num_stages=2), want,
          atol=1e-6, rtol=8 * eps)


@pytest.mark.parametrize("activation", ["", "leaky_relu"])
def test_grouped_matmul(target, activation):
    module = corpus("matmul")
    a, b = normal(100, 90, dtype=np.float16), normal(90, 72, dtype=np.float16)
    want = module.reference(a, b, activation)
    # float32 sums of 90 products of float16 values, rounded to float16.
    got = module.matmul(a, b, activation, block_m=32, block_n=32,
                        block_k=32, group_m=2)
    check(got, want, atol=1e-3, rtol=2 ** -10)


@pytest.mark.parametrize("num_sms", [1, 3, 64])
def test_persistent_matmul(target, num_sms):
    """Programs walking every num_sms-th of the 12 tiles (1: one program
    takes them all; 64: a program per tile), the loop hint remarked and
    not acted on."""
    module = corpus("matmul_persistent")
    a, b = normal(100, 90, dtype=np.float16), normal(90, 72, dtype=np.float16)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", kiln.CompilerRemark)
        got = module.matmul_persistent(a, b, num_sms=num_sms, block_m=32,
                                       block_n=32, block_k=32, group_m=2)
    check(got, module.reference(a, b), atol=1e-3, rtol=2 ** -10)


def test_grouped_matmul_of_fp8_with_b_transposed(target):
    """Tutorial 03 on 8-bit floats: float8e5 A and B, B transposed first
    (a K-major view), float32 sums of exact products rounded to float16."""
    module = corpus("matmul")
    a = normal(100, 96).astype(ml_dtypes.float8_e5m2)
    b = normal(72, 96).astype(ml_dtypes.float8_e5m2).T
    got = module.matmul(a, b, block_m=32, block_n=32, block_k=32, group_m=2)
    check(got, a.astype(np.float64) @ b.astype(np.float64), atol=1e-3,
          rtol=2 ** -10)


def test_grouped_matmul_autotuned(target, tmp_path, monkeypatch):
    not_in_triton(target, "its autotuner times configs on a GPU driver")
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path))  # tunes anew
    module = corpus("matmul")
    a, b = normal(50, 40, dtype=np.float16), normal(40, 30, dtype=np.float16)
    got = module.matmul_autotuned(a, b, "leaky_relu")
    check(got, module.reference(a, b, "leaky_relu"), atol=1e-3, rtol=2 ** -10)
    assert module.matmul_autotuned_kernel.best_config in \
        module.matmul_autotuned_kernel.configs


def test_block_pointer_matmul(target):
    not_in_triton(target, "Triton 3.9 removed block pointers for tensor "
                  "descriptors (Kiln keeps both)")
    module = corpus("matmul_block_ptr")
    a, b = normal(100, 90, dtype=np.float16), normal(90, 72, dtype=np.float16)
    got = module.matmul(a, b, block_m=32, block_n=32, block_k=32, group_m=2,
                        num_warps=4)
    # As the pointer matmul: float32 sums of 90 products, rounded once.
    check(got, module.reference(a, b), atol=1e-3, rtol=2 ** -10)


def test_linear_reads_the_weight_transposed(target):
    module = corpus("linear")
    x, w = normal(100, 90, dtype=np.float16), normal(72, 90, dtype=np.float16)
    got = module.linear(x, w, block_m=32, block_n=32, block_k=32, group_m=2,
                        num_warps=4)
    check(got, module.reference(x, w), atol=1e-3, rtol=2 ** -10)


def test_int8_weight_linear_widens_the_weight_in_the_loop(target):
    module = corpus("int8_weight_linear")
    x = normal(100, 90, dtype=np.float16)
    w = RNG.integers(-128, 128, (72, 90), dtype=np.int8)
    scale = (RNG.random(72) / 64).astype(np.float32)
    got = module.int8_weight_linear(x, w, scale, block_m=32, block_n=32,
                                    block_k=32, group_m=2, num_warps=4)
    # float32 sums of 90 exact products (int8 is exact in f16), scaled and
    # rounded once to float16.
    check(got, module.reference(x, w, scale), atol=1e-3, rtol=2 ** -10)


def test_int8_matmul(target):
    module = corpus("int8_matmul")
    # K = 300 over the full int8 range: sums well past int16, exact in int32.
    a = RNG.integers(-128, 128, (70, 300), dtype=np.int8)
    b = RNG.integers(-128, 128, (300, 45), dtype=np.int8)
    got = module.matmul_int8(a, b, block_m=32, block_n=32, block_k=32,
                             group_m=2, num_warps=4)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, module.reference(a, b))


@pytest.mark.parametrize("n_cols, block_size", [
    (1000, None), (1000, 256), (32000, 4096)])
def test_cross_entropy(target, n_cols, block_size):
    module = corpus("cross_entropy")
    n_rows = 9
    logits = normal(n_rows, n_cols, scale=4.0)
    logits[2] += 200.0  # exp(200) overflows float32 without the running max
    target_ids = RNG.integers(0, n_cols, n_rows)
    target_ids[[0, 1, 4]] = [0, n_cols - 1, -100]  # both ends, one ignored
    got = module.cross_entropy(logits, target_ids, block_size=block_size,
                               num_warps=8)
    check(got, module.reference(logits, target_ids), atol=1e-4, rtol=1e-5)
    assert got[4] == 0.0


@pytest.mark.parametrize("block_size", [None, 128])
def test_layer_norm(target, block_size):
    module = corpus("layer_norm")
    x = normal(19, 300, scale=2.0) + 1.5
    w, b = normal(300), normal(300)
    got = module.layer_norm(x, w, b, eps=1e-5, block_size=block_size)
    for value, want in zip(got, module.reference(x, w, b, eps=1e-5)):
        check(value, want, atol=1e-5, rtol=1e-4)


def test_grouped_gemm(target):
    """Tutorial 08: A, B, C of each problem through int64 addresses cast
    back to pointers, every tile of every problem by a persistent grid."""
    module = corpus("grouped_gemm")
    shapes = [(64, 32, 96), (32, 96, 64), (96, 64, 32), (32, 32, 32)]
    group_a = [normal(m, k, dtype=np.float16) for m, _, k in shapes]
    group_b = [normal(k, n, dtype=np.float16) for _, n, k in shapes]
    for got, want in zip(module.group_gemm(group_a, group_b, num_sm=3),
                         module.reference(group_a, group_b)):
        check(got, want, atol=5e-2, rtol=1e-2)


@pytest.mark.parametrize("m, n, k", [(200, 72, 96), (33, 70, 50)])
def test_matmul_descriptor(target, m, n, k):
    """Triton 3.9's tensor-descriptor matmul: blocks read and written
    through tl.make_tensor_descriptor, ragged edges padded and clipped."""
    if k * 2 % 16:
        not_in_triton(target, "a descriptor's strides are 16-byte aligned")
    module = corpus("matmul_descriptor")
    a, b = normal(m, k, dtype=np.float16), normal(k, n, dtype=np.float16)
    check(module.matmul(a, b, 32, 32, 32), module.reference(a, b),
          atol=2e-2, rtol=2e-2)


@pytest.mark.parametrize("m, n, k", [(200, 72, 96), (33, 70, 50)])
def test_matmul_host_descriptor(target, m, n, k):
    """The same matmul over host-side TensorDescriptor arguments."""
    if k * 2 % 16:
        not_in_triton(target, "a descriptor's strides are 16-byte aligned")
    module = corpus("matmul_host_descriptor")
    a, b = normal(m, k, dtype=np.float16), normal(k, n, dtype=np.float16)
    check(module.matmul(a, b, 32, 32, 32), module.reference(a, b),
          atol=2e-2, rtol=2e-2)


@pytest.mark.parametrize("epilogue_subtile", [False, True])
@pytest.mark.parametrize("warp_specialize", [False, True])
@pytest.mark.parametrize("m, n, k, programs", [(200, 72, 96, 3),
                                               (33, 70, 48, 2)])
def test_matmul_tma_persistent(target, m, n, k, programs, epilogue_subtile,
                               warp_specialize):
    """Triton's persistent TMA matmul: fewer programs than tiles walk them
    in a flattened loop, the epilogue finding its tile from the counter
    the loop carries; B K-major; C stored whole or in two halves."""
    if n * 2 % 16:
        not_in_triton(target, "a descriptor's strides are 16-byte aligned")
    module = corpus("matmul_tma_persistent")
    a, b = normal(m, k, dtype=np.float16), normal(n, k, dtype=np.float16)
    check(module.matmul(a, b, 32, 32, 16, num_sms=programs,
                        epilogue_subtile=epilogue_subtile,
                        warp_specialize=warp_specialize),
          module.reference(a, b), atol=2e-2, rtol=2e-2)


@pytest.mark.parametrize("group_size_m", [None, 4])
def test_layer_norm_backward(target, group_size_m):
    """Tutorial 05's backward: dx per row, dw and db summed through the
    partial-sum groups its atomic_cas lock serializes (4 groups: several
    rows share each)."""
    module = corpus("layer_norm")
    x = normal(21, 300, scale=2.0) + 1.5
    w, b, dy = normal(300), normal(300), normal(21, 300)
    _, mean, rstd = module.layer_norm(x, w, b, eps=1e-5)
    got = module.layer_norm_backward(dy, x, w, mean, rstd,
                                     group_size_m=group_size_m)
    for value, want in zip(got, module.reference_backward(dy, x, w)):
        check(value, want, atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_rms_norm(target, dtype):
    module = corpus("rms_norm")
    x, w = normal(23, 200, dtype=dtype), normal(200, dtype=dtype)
    check(module.rms_norm(x, w), module.reference(x, w), atol=1e-5,
          rtol=1e-5 if dtype == np.float32 else 2 * 2 ** -11)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_per_token_quant_fp8(target, dtype):
    not_in_triton(target, "Triton 3.9's interpreter narrows to float8e4nv "
                  "a binade too low where rounding carries into the "
                  "exponent (126.0 and 1.97 become 64.0 and 1.0; "
                  "cvt.rn.satfinite, which the reference matches, gives "
                  "128.0 and 2.0)")
    module = corpus("fp8_quant")
    x = normal(23, 300, dtype=dtype, scale=3.0)
    x[5, 7] = 0.0
    x[11] = 0.0  # a row of zeros: the scale is eps / fp8_max
    (y, scale), (want_y, want_scale) = (module.per_token_quant_fp8(x),
                                        module.reference(x))
    np.testing.assert_array_equal(scale, want_scale)
    np.testing.assert_array_equal(y.view(np.uint8), want_y.view(np.uint8))


def test_seeded_dropout(target):
    module = corpus("dropout")
    x = normal(3000)
    first = module.seeded_dropout(x, 0.3, seed=1234, block_size=512)
    np.testing.assert_array_equal(first, module.reference(x, 0.3, 1234))
    kept = np.count_nonzero(first) / x.size
    assert 0.6 < kept < 0.8, kept  # p = 0.3 of 3000 drawn
    again = module.seeded_dropout(x, 0.3, seed=1234, block_size=512)
    np.testing.assert_array_equal(first, again)
    other = module.seeded_dropout(x, 0.3, seed=99, block_size=512)
    assert not np.array_equal(first, other)


def test_swiglu(target):
    module = corpus("swiglu")
    a, b = normal(13, 300, dtype=np.float16), normal(13, 300, dtype=np.float16)
    # silu(a) rounded to float16, then the float16 product: two roundings.
    check(module.swiglu(a, b), module.reference(a, b), atol=1e-4,
          rtol=2 * 2 ** -10)


def test_rotary(target):
    module = corpus("rotary")
    q = normal(21, 5, 64)
    cos, sin = module.angles(21, 64)
    want = module.reference(q, cos, sin)
    got = module.rope_(q, cos, sin)
    assert got is q
    check(q, want, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("transposed", [False, True])
def test_sum_over_a_noncontiguous_axis(target, transposed):
    module = corpus("column_sum")
    x = normal(75, 91)
    x = x.T if transposed else x
    check(module.sum_axis0(x, block_m=16, block_n=32), module.reference(x),
          atol=1e-4, rtol=1e-5)


@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_flash_attention(target, causal, head_dim):
    module = corpus("flash_attention")
    q, k, v = (normal(1, 2, 75, head_dim, dtype=np.float16) for _ in range(3))
    sm_scale = head_dim ** -0.5
    out, lse = module.forward(q, k, v, causal, sm_scale)
    want, want_lse = attention_reference.forward(q, k, v, causal, sm_scale)
    # Probabilities rounded to float16 before meeting V, then the output.
    check(out, want, atol=2e-3, rtol=2e-3)
    check(lse, want_lse, atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_flash_attention_backward(target, causal, head_dim):
    module = corpus("flash_attention")
    q, k, v, do = (normal(1, 2, 75, head_dim, dtype=np.float16)
                   for _ in range(4))
    sm_scale = head_dim ** -0.5
    out, lse = module.forward(q, k, v, causal, sm_scale)
    got = module.backward(q, k, v, out, lse, do, causal, sm_scale)
    want = attention_reference.backward(q, k, v, do, causal, sm_scale)
    # dS rounded to float16 before its dots, then the gradients.
    for name, g, w in zip(("dq", "dk", "dv"), got, want):
        assert g.dtype == np.float16, name
        check(g, w, atol=5e-3, rtol=5e-3)


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_flash_attention_with_descriptors(target, causal):
    module = corpus("flash_attention_descriptor")
    q, k, v = (normal(2, 2, 96, 64, dtype=np.float16) for _ in range(3))
    out, lse = module.attention(q, k, v, causal, 0.125)
    want, want_lse = attention_reference.forward(q, k, v, causal, 0.125)
    check(out, want, atol=2e-3, rtol=2e-3)
    check(lse, want_lse, atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("split_k", [1, 3, 8])
def test_split_k_matmul(target, split_k):
    """kiln.ops.matmul's split-K kernel on a decode shape: 5 rows, K split
    so that some programs get fewer steps than others (and with 8, some
    none); 1 is whole tiles, stored in float16."""
    module = corpus("gemm")
    a = normal(5, 300, dtype=np.float16)
    b = normal(300, 70, dtype=np.float16)
    plan = module.Plan("tiles" if split_k == 1 else "split_k", 16, 32, 32,
                       split=split_k)
    got = module.run(a, b, plan)
    assert got.dtype == np.float16
    check(got, a.astype(np.float64) @ b.astype(np.float64), atol=1e-2,
          rtol=2 ** -10)


@pytest.mark.parametrize("programs", [1, 4, 7, 40])
def test_stream_k_matmul(target, programs):
    """kiln.ops.matmul's stream-K kernel: the 3 x 3 tiles' 10 K steps each
    shared among ``programs`` in even runs that start and end inside
    tiles (7: runs of 13 steps; 40: some programs get none)."""
    module = corpus("gemm")
    a = normal(40, 300, dtype=np.float16)
    b = normal(300, 70, dtype=np.float16)
    got = module.run(a, b, module.Plan("stream_k", 16, 32, 32,
                                       programs=programs))
    check(got, a.astype(np.float64) @ b.astype(np.float64), atol=1e-2,
          rtol=2 ** -10)
