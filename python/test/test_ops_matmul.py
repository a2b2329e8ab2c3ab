"""kiln.ops.matmul: the heuristic's choice among whole tiles, split-K and
stream-K for the shapes LLMs run (on an H100's 132 multiprocessors), the
plans tuning times, and the numerics of every kernel through the op on
numpy arrays and PyTorch CPU tensors on the host target, on shapes that
are not multiples of the blocks, against float64 products and
``torch.matmul``; CUDA tensors where PyTorch sees a GPU."""

from __future__ import annotations

import warnings

import ml_dtypes
import numpy as np
import pytest

import kiln
import kiln.ops
from kiln.ops import gemm
from test_gpu import torch_cuda

RNG = np.random.default_rng(25)
#: An H100's (and H200's) streaming multiprocessors.
H100 = 132


def normal(shape, dtype=np.float16):
    return RNG.standard_normal(shape).astype(dtype)


def exact(a, b):
    return a.astype(np.float64) @ b.astype(np.float64)


def check(got, a, b):
    """float32 sums rounded once to the inputs' type."""
    eps = 2.0 ** -10 if np.dtype(a.dtype) == np.float16 else 2.0 ** -7
    np.testing.assert_allclose(np.asarray(got, np.float64), exact(a, b),
                               atol=1e-2, rtol=eps)


@pytest.fixture
def torch():
    return pytest.importorskip("torch", reason="PyTorch is not installed")


@pytest.mark.parametrize("m, n, k, want", [
    # Full-size: 512 tiles of 128x256 in 4 waves of 132 (97% busy).
    (4096, 4096, 4096, ("tiles", 1, 0)),
    (8192, 8192, 8192, ("tiles", 1, 0)),
    # Decode, 16 rows: 64 tiles of 16x64 split twice over K.
    (16, 4096, 4096, ("split_k", 2, 0)),
    # 224 tiles: past one wave, shared evenly by stream-K instead.
    (1, 14336, 8192, ("stream_k", 1, H100)),
    (16, 14336, 4096, ("stream_k", 1, H100)),
    # Full-size rows whose 136 tiles spill 4 into a second wave.
    (2176, 4096, 4096, ("stream_k", 1, H100)),
    (64, 4096, 14336, ("split_k", 4, 0)),
    # Prefill: 56 tiles of 128x256, K split 7 ways fills 392 of 396.
    (128, 14336, 4096, ("split_k", 7, 0)),
    # 100 tiles and 8 K steps: no split keeps 90% busy, stream-K does.
    (1280, 2560, 512, ("stream_k", 1, H100)),
    # 32 tiles of 9 K steps: stream-K in runs of 4 steps, on 72 programs.
    (1000, 1000, 520, ("stream_k", 1, 72)),
    # 100 tiles and one K step each: nothing to share.
    (1280, 2560, 64, ("tiles", 1, 0)),
])
def test_heuristic_for_llm_shapes(m, n, k, want):
    plan = gemm.heuristic(m, n, k, H100)
    assert (plan.kernel, plan.split, plan.programs) == want
    assert plan == gemm.configs(m, n, k, H100)[0]


def test_heuristic_blocks_follow_rows():
    assert gemm.heuristic(1, 4096, 4096, H100).block_m == 16
    assert gemm.heuristic(30, 4096, 4096, H100).block_m == 32
    plan = gemm.heuristic(64, 4096, 4096, H100)
    assert (plan.block_m, plan.block_n, plan.block_k) == (64, 128, 64)
    plan = gemm.heuristic(4096, 4096, 4096, H100)
    assert (plan.block_m, plan.block_n, plan.num_warps) == (128, 256, 8)


@pytest.mark.parametrize("m, n, k, kernels", [
    (16, 4096, 4096, {"tiles", "split_k", "stream_k"}),
    (128, 14336, 4096, {"tiles", "split_k", "stream_k"}),
    # 512 tiles: 4 waves, the last short of 16.
    (4096, 4096, 4096, {"tiles", "stream_k"}),
    (4224, 4096, 4096, {"tiles"}),  # 528 tiles: 4 whole waves
    (1, 8, 64, {"tiles"}),
])
def test_configs_cut_only_where_tiles_leave_the_machine_idle(m, n, k,
                                                             kernels):
    plans = gemm.configs(m, n, k, H100)
    assert len(plans) == len(set(plans))
    assert {plan.kernel for plan in plans} == kernels
    for plan in plans:
        steps = -(-k // plan.block_k)
        assert plan.kernel != "split_k" or steps // plan.split >= \
            gemm.MIN_STEPS


def test_a_plan_that_cannot_run_is_refused():
    with pytest.raises(kiln.KilnError, match="one of"):
        gemm.Plan("tiled", 16, 32, 32)
    with pytest.raises(kiln.KilnError, match="programs >= 1"):
        gemm.Plan("stream_k", 16, 32, 32)
    with pytest.raises(kiln.KilnError, match="takes split 1"):
        gemm.Plan("tiles", 16, 32, 32, split=2)


PLANS = [gemm.Plan("tiles", 16, 32, 32),
         gemm.Plan("split_k", 16, 32, 32, split=3),
         gemm.Plan("stream_k", 32, 32, 32, programs=5)]


@pytest.mark.parametrize("plan", PLANS, ids=lambda plan: plan.kernel)
@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16],
                         ids=["float16", "bfloat16"])
@pytest.mark.parametrize("m, n, k", [(1, 70, 300), (37, 40, 129)])
def test_numpy_arrays(plan, dtype, m, n, k):
    a, b = normal((m, k), dtype), normal((k, n), dtype)
    got = kiln.ops.matmul(a, b, plan=plan)
    assert got.dtype == dtype and got.shape == (m, n)
    check(got, a, b)


def test_heuristic_plan_on_the_host_and_a_transposed_operand():
    """``x @ w.T`` with w stored N x K (a linear layer's weight), the plan
    the heuristic picks for this host's cores."""
    x, w = normal((9, 200)), normal((50, 200))
    check(kiln.ops.matmul(x, w.T), x, w.T)


@pytest.mark.parametrize("plan", PLANS, ids=lambda plan: plan.kernel)
def test_torch_cpu_tensors_against_torch_matmul(torch, plan):
    a = torch.randn(33, 150, dtype=torch.float16)
    b = torch.randn(90, 150, dtype=torch.float16).T
    got = kiln.ops.matmul(a, b, plan=plan)
    assert isinstance(got, torch.Tensor) and got.dtype == torch.float16
    want = (a.float() @ b.float()).half()
    torch.testing.assert_close(got, want, atol=1e-2, rtol=2 ** -10)


@pytest.mark.parametrize("shape", [(0, 5, 8), (4, 0, 8), (4, 5, 0)])
def test_empty_sizes(shape):
    m, n, k = shape
    for plan in [None, *PLANS]:
        got = kiln.ops.matmul(normal((m, k)), normal((k, n)), plan=plan)
        assert got.shape == (m, n) and got.dtype == np.float16
        assert not got.any()


def test_tuning_picks_a_config_once_per_shape(monkeypatch):
    timed = []

    def do_bench(fn, warmup, rep):
        fn()
        timed.append(fn)
        return float(len(timed) % 3)  # the third config is the fastest

    monkeypatch.setattr(gemm.triton.testing, "do_bench", do_bench)
    monkeypatch.setattr(gemm, "_TUNED", {})
    # Eight cores: the two tiles leave six idle, so there is a choice.
    monkeypatch.setattr(gemm, "multiprocessors", lambda x: 8)
    a, b = normal((20, 300)), normal((300, 40))
    candidates = gemm.configs(20, 40, 300, 8, False)
    assert [plan.kernel for plan in candidates] == ["stream_k", "tiles",
                                                    "split_k"]
    check(kiln.ops.matmul(a, b, tune=True), a, b)
    assert len(timed) == len(candidates)
    assert gemm.tuned_plan(a, b) == candidates[2]
    check(kiln.ops.matmul(a, b, tune=True), a, b)
    assert len(timed) == len(candidates)  # remembered, not timed again


FP8 = [ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2]


@pytest.mark.parametrize("plan", PLANS, ids=lambda plan: plan.kernel)
@pytest.mark.parametrize("formats", [(0, 0), (0, 1), (1, 1)],
                         ids=["e4m3-e4m3", "e4m3-e5m2", "e5m2-e5m2"])
@pytest.mark.parametrize("out", ["float16", "bfloat16", "float32"])
def test_8bit_floats_with_per_tensor_scales(plan, formats, out):
    """Exact products of 8-bit floats summed in float32, times both
    scales, rounded once to out_dtype (torch._scaled_mm's contract)."""
    a = normal((37, 150), FP8[formats[0]])
    b = normal((150, 40), FP8[formats[1]])
    got = kiln.ops.matmul(a, b, plan=plan, scale_a=0.5, scale_b=3.0,
                          out_dtype=out)
    assert str(got.dtype) == out
    want = exact(a, b) * 1.5
    eps = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7,
           "float32": 1e-6}[out]
    np.testing.assert_allclose(np.asarray(got, np.float64), want,
                               atol=1e-4, rtol=eps)


def test_scales_and_out_dtype_of_16_bit_floats(torch):
    a = torch.randn(20, 70, dtype=torch.bfloat16)
    b = torch.randn(70, 30, dtype=torch.bfloat16)
    got = kiln.ops.matmul(a, b, scale_a=torch.tensor([2.0]), scale_b=0.25,
                          out_dtype=torch.float32)
    assert got.dtype == torch.float32
    torch.testing.assert_close(got, (a.float() @ b.float()) * 0.5,
                               atol=1e-4, rtol=1e-5)


def test_torch_8bit_floats_against_scaled_mm(torch):
    """CPU tensors of e4m3fn against PyTorch's own scaled matmul (B
    column-major, as torch._scaled_mm takes it)."""
    a = torch.randn(32, 64).to(torch.float8_e4m3fn)
    b = torch.randn(48, 64).to(torch.float8_e4m3fn).T
    scale_a, scale_b = torch.tensor(0.5), torch.tensor(2.0)
    got = kiln.ops.matmul(a, b, scale_a=scale_a, scale_b=scale_b,
                          out_dtype=torch.bfloat16)
    try:
        want = torch._scaled_mm(a, b, scale_a=scale_a, scale_b=scale_b,
                                out_dtype=torch.bfloat16)
    except (RuntimeError, NotImplementedError) as error:
        want = ((a.float() @ b.float()) * 1.0).to(torch.bfloat16)
        print(f"torch._scaled_mm is not on the CPU here ({error}); "
              "compared with float32 products")
    torch.testing.assert_close(got.float(), want.float(), atol=1e-2,
                               rtol=2 ** -7)


@pytest.mark.parametrize("kwargs, message", [
    ({}, r"8-bit floats needs out_dtype, one of \('float16', 'bfloat16', "
         r"'float32'\)"),
    ({"out_dtype": "float8_e4m3fn"}, "out_dtype is one of"),
    ({"out_dtype": "float16", "scale_a": float("nan")},
     "scale_a must be finite"),
    ({"out_dtype": "float16", "scale_b": np.ones(3)},
     r"scale_b is a number or a one-element array, not ndarray of shape "
     r"\(3,\)"),
])
def test_8bit_refusals(kwargs, message):
    a, b = normal((4, 32), FP8[0]), normal((32, 8), FP8[0])
    with pytest.raises(kiln.KilnError, match=message):
        kiln.ops.matmul(a, b, **kwargs)


def test_8bit_floats_compile_to_wgmma_on_hopper():
    """The whole-tile kernel on e4m3 A and e5m2 B at 64-row blocks:
    wgmma on the 8-bit types as they are."""
    a, b = normal((64, 128), FP8[0]), normal((128, 64), FP8[1])
    c = np.zeros((64, 64), np.float16)
    ptx = gemm.matmul_split_k_kernel.warmup(
        a, b, c, 64, 64, 128, 128, 1, 64, 1, 64, 1, 1.0, BLOCK_M=64,
        BLOCK_N=64, BLOCK_K=64, SPLIT_K=1, GROUP_M=8, chip="sm_90a",
        num_warps=4).asm["ptx"]
    assert "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e5m2" in ptx


@pytest.mark.parametrize("a_shape, b_shape, dtype, message", [
    ((4, 5), (6, 3), np.float16, r"M x K and a K x N matrix, not \(4, 5\)"),
    ((2, 4, 5), (5, 3), np.float16, "M x K and a K x N"),
    ((4, 5), (5, 3), np.float32, "both bfloat16 or both 8-bit floats "
     r"\(float8_e4m3fn, float8_e5m2\), not float32"),
])
def test_refusals(a_shape, b_shape, dtype, message):
    with pytest.raises(kiln.KilnError, match=message):
        kiln.ops.matmul(normal(a_shape, dtype), normal(b_shape, dtype))


def test_device_arrays_other_than_torch_tensors_are_refused():
    class CupyLike:
        __cuda_array_interface__ = {"shape": (4, 4), "typestr": "<f2",
                                    "data": (4096, False), "version": 3}
        shape, dtype = (4, 4), np.dtype(np.float16)

    with pytest.raises(kiln.KilnError,
                       match="PyTorch tensors .* b is a CupyLike"):
        kiln.ops.matmul(normal((4, 4)), CupyLike())


def test_mixed_types_are_refused():
    with pytest.raises(kiln.KilnError, match="float16 and bfloat16"):
        kiln.ops.matmul(normal((4, 5)), normal((5, 3), ml_dtypes.bfloat16))
    with pytest.raises(kiln.KilnError, match="float8_e4m3fn and float16"):
        kiln.ops.matmul(normal((4, 5), ml_dtypes.float8_e4m3fn),
                        normal((5, 3)))


@pytest.mark.parametrize("m, n, k", [(1, 4096, 4096), (16, 14336, 4096),
                                     (128, 4096, 14336), (1000, 1000, 520)])
def test_cuda_tensors_against_torch(m, n, k):
    torch = torch_cuda()
    a = torch.randn(m, k, dtype=torch.float16, device="cuda")
    b = torch.randn(k, n, dtype=torch.float16, device="cuda")
    want = (a.float() @ b.float()).half()
    for plan in [None, *gemm.configs(m, n, k, gemm.multiprocessors(a))]:
        with warnings.catch_warnings():
            # The op's own kernels' remarks are not its caller's.
            warnings.simplefilter("error", kiln.CompilerRemark)
            got = kiln.ops.matmul(a, b, plan=plan)
        torch.testing.assert_close(got, want, atol=5e-2, rtol=1e-2)
