"""bench/gpu_suite.py without a GPU: its command line, its answer where
PyTorch is missing, its launch overhead table, and its launch overhead
measurement (with and without CUDA graphs) run against the stand-in CUDA
driver and a stand-in for the few torch.cuda calls it makes, which checks
that Kiln's captured launches go on the capturing stream."""

from __future__ import annotations

import doctest
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("KILN_BUILD_DIR", ROOT / "build"))
FAKE_DRIVER = BUILD / "unittests" / "libKilnFakeCudaDriver.so"
SUITE = ROOT / "bench" / "gpu_suite.py"
sys.path.insert(0, str(ROOT / "bench"))

import gpu_suite  # noqa: E402


def run_python(code: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
        text=True, env={**os.environ, "PYTHONPATH": str(ROOT / "python"),
                        **env})


@pytest.fixture
def kiln_run(monkeypatch, tmp_path) -> str:
    """kiln-run on the stand-in driver, which loads PTX (not assembled:
    no ptxas) and runs no kernel."""
    if not FAKE_DRIVER.exists():
        pytest.skip("the stand-in driver is not built")
    monkeypatch.setenv("KILN_CUDA_DRIVER", str(FAKE_DRIVER))
    monkeypatch.setenv("KILN_PTXAS", str(tmp_path / "no-ptxas"))
    return str(BUILD / "bin" / "kiln-run")


def test_help():
    result = subprocess.run([sys.executable, str(SUITE), "--help"],
                            capture_output=True, text=True)
    assert result.returncode == 0
    assert "--out OUT" in result.stdout and "--kiln-run" in result.stdout


def test_sections_are_checked_before_anything_runs(tmp_path):
    for given in (["--sections", "overhead,matmull"], []):
        env = {**os.environ, "KILN_GPU_SUITE_SECTIONS": "kernels,nope"}
        result = subprocess.run([sys.executable, str(SUITE), "--out",
                                 str(tmp_path), *given],
                                capture_output=True, text=True, env=env)
        assert result.returncode == 2
        wrong = "matmull" if given else "nope"
        assert f"unknown sections: ['{wrong}']" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_without_pytorch_nothing_is_measured(tmp_path):
    # PyTorch made unimportable, whether or not this machine has it.
    result = run_python(f"""
        import runpy, sys
        sys.modules["torch"] = None
        sys.argv = ["gpu_suite.py", "--out", {str(tmp_path)!r}]
        runpy.run_path({str(SUITE)!r}, run_name="__main__")
        """)
    assert result.returncode == 2, result.stderr
    assert result.stdout == ("gpu_suite: PyTorch is not installed; nothing "
                             "measured\n")
    assert list(tmp_path.iterdir()) == []


def test_docstring_examples():
    result = doctest.testmod(gpu_suite)
    assert result.attempted and not result.failed


def test_overhead_table_marks_skipped_and_inapplicable_cells():
    times = {"kiln CudaModule.launch": {
        "empty": 3.0, "1-element add": 3.5, "empty, CUDA graph": 1.25,
        "1-element add, CUDA graph": 1.5},
        "torch x.add_(1)": {"1-element add": 4.0,
                            "1-element add, CUDA graph": 1.0}}
    skipped = {"kiln @jit": {"empty, CUDA graph": "default stream"},
               "triton @jit": dict.fromkeys(gpu_suite.OVERHEAD_COLUMNS,
                                            "Triton is not installed")}
    assert gpu_suite.overhead_table(times, skipped) == [
        "",
        "| launch from Python, us per launch | empty | 1-element add | "
        "empty, CUDA graph | 1-element add, CUDA graph |",
        "|---|---:|---:|---:|---:|",
        "| kiln CudaModule.launch | 3.00 | 3.50 | 1.25 | 1.50 |",
        "| torch x.add_(1) | - | 4.00 | - | 1.00 |",
        "| kiln @jit | - | - | skipped | - |",
        "| triton @jit | skipped | skipped | skipped | skipped |",
        "",
        "A CUDA graph holds 100 launches; its time per launch is a "
        "replay's over that.",
        "",
        "Skipped: kiln @jit, empty, CUDA graph: default stream.",
        "Skipped: triton @jit: Triton is not installed.",
    ]


#: The torch calls launch_overhead makes, recording which stream is
#: current and which one a graph captures; a "tensor" is host memory,
#: which the stand-in driver's no-op launches never touch.
FAKE_TORCH = """
    import contextlib, sys, types
    import numpy as np

    class Tensor:
        def __init__(self, n):
            self.host = np.zeros(n, np.float32)
            self.__cuda_array_interface__ = {
                "shape": (n,), "typestr": "<f4", "version": 3,
                "data": (self.host.ctypes.data, False)}

        def add_(self, value):
            return self

    class Stream:
        created = 0

        def __init__(self, handle=None):
            Stream.created += 1
            self.cuda_stream = (0x1000 + Stream.created if handle is None
                                else handle)

        def wait_stream(self, other):
            pass

    class CUDAGraph:
        replays = 0

        def replay(self):
            CUDAGraph.replays += 1

    state = types.SimpleNamespace(current=Stream(0), capturing=None)

    @contextlib.contextmanager
    def stream(s):
        previous, state.current = state.current, s
        try:
            yield
        finally:
            state.current = previous

    @contextlib.contextmanager
    def graph(g):
        capture = Stream()
        previous, state.current = state.current, capture
        state.capturing = capture.cuda_stream
        try:
            yield
        finally:
            state.current, state.capturing = previous, None

    torch = types.SimpleNamespace(
        zeros=lambda n, device: Tensor(n),
        cuda=types.SimpleNamespace(
            synchronize=lambda: None, Stream=Stream, stream=stream,
            CUDAGraph=CUDAGraph, graph=graph,
            current_stream=lambda: state.current),
        # What kiln.gpu.current_stream asks of PyTorch.
        _C=types.SimpleNamespace(
            _cuda_getCurrentRawStream=lambda ordinal:
                state.current.cuda_stream))
    sys.modules["torch"] = torch
"""


@pytest.mark.skipif(not FAKE_DRIVER.exists(),
                    reason=f"{FAKE_DRIVER} is not built")
def test_launch_overhead_against_the_stand_in_driver(tmp_path):
    code = FAKE_TORCH + f"""
    import ctypes, json, sys
    sys.path.insert(0, {str(ROOT / "bench")!r})
    sys.path.insert(0, {str(ROOT / "python" / "test")!r})
    import gpu_suite
    import kiln.gpu
    from kiln.jit import JITFunction
    from test_launch_keys import Launch

    # Every launch that reached the driver, through a CudaModule (a first
    # @kiln.jit launch's too) and through @kiln.jit (its cache hits run
    # in C), with the stream the driver was given and the stream being
    # captured at the time.
    driver = ctypes.CDLL({str(FAKE_DRIVER)!r})
    driver.fakeCudaLastLaunch.restype = ctypes.POINTER(Launch)
    launches, inside_jit = [], []

    def record(name, count):
        if driver.fakeCudaLaunchCount() > count:
            stream = driver.fakeCudaLastLaunch().contents.stream or 0
            launches.append([name, stream, state.capturing])

    checked = kiln.gpu.CudaModule.launch
    bind = JITFunction.__getitem__

    def launch(self, kernel, grid, *args, stream=0):
        count = driver.fakeCudaLaunchCount()
        checked(self, kernel, grid, *args, stream=stream)
        if not inside_jit:
            record(kernel, count)

    def bound(self, grid):
        launch_on_grid = bind(self, grid)

        def call(*args, **kwargs):
            count = driver.fakeCudaLaunchCount()
            inside_jit.append(True)
            try:
                launch_on_grid(*args, **kwargs)
            finally:
                inside_jit.pop()
            record(self.__name__, count)
        return call

    kiln.gpu.CudaModule.launch = launch
    JITFunction.__getitem__ = bound
    times, skipped = gpu_suite.launch_overhead(torch)
    print(json.dumps({{"times": times, "skipped": skipped,
                      "launches": launches,
                      "replays": CUDAGraph.replays}}))
    """
    result = run_python(code, KILN_CUDA_DRIVER=str(FAKE_DRIVER),
                        KILN_PTXAS=str(tmp_path / "no-ptxas"),
                        KILN_CACHE_DIR=str(tmp_path / "cache"),
                        KILN_BUILD_DIR=str(BUILD))
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    times, skipped = report["times"], report["skipped"]
    assert set(times["kiln @jit"]) == set(gpu_suite.OVERHEAD_COLUMNS)
    assert set(times["kiln CudaModule.launch"]) == set(
        gpu_suite.OVERHEAD_COLUMNS)
    assert set(times["torch x.add_(1)"]) == {"1-element add",
                                             "1-element add, CUDA graph"}
    assert all(us > 0 for row in times.values() for us in row.values())
    assert "kiln @jit" not in skipped
    # Triton is there or is a skipped row, never a crash.
    assert "triton @jit" in times or set(skipped["triton @jit"]) == set(
        gpu_suite.OVERHEAD_COLUMNS)

    # While a graph was captured, Kiln launched only on the capturing
    # stream: GRAPH_LAUNCHES of each kernel, through @kiln.jit and through
    # its CudaModule.
    captured = [(kernel, stream) for kernel, stream, capturing
                in report["launches"] if capturing is not None]
    assert all(stream == capturing for _, stream, capturing
               in report["launches"] if capturing is not None)
    assert sorted(kernel for kernel, _ in captured) == sorted(
        ["empty", "add_one"] * 2 * gpu_suite.GRAPH_LAUNCHES)
    # Kiln's four graphs and PyTorch's: a first replay and the timed ones.
    graphs = 5 + ("triton @jit" in times and 2)
    assert report["replays"] == graphs * 51


# The Triton peers of the bandwidth examples: argument types, by name.
TRITON_SIGNATURES = {
    "vector_add": {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32",
                   "n": "i32"},
    "cos_cos": {"x": "*fp32", "out": "*fp32", "n": "i32"},
    "gelu": {"x": "*fp32", "out": "*fp32", "n": "i32"},
    "gelu_tanh": {"x": "*fp32", "out": "*fp32", "n": "i32"},
    "relu_axpb": {"x": "*fp32", "out": "*fp32", "a": "fp32", "b": "fp32",
                  "n": "i32"},
    "softmax": {"in_ptr": "*fp32", "out_ptr": "*fp32", "row_stride": "i32",
                "n_cols": "i32"},
    "layer_norm": {"x_ptr": "*fp32", "y_ptr": "*fp32", "w_ptr": "*fp32",
                   "b_ptr": "*fp32", "row_stride": "i32", "n_cols": "i32",
                   "eps": "fp32"},
}


def triton_peer(name: str):
    """Triton kernel `name` of bench/suite_kernels.py (a bandwidth peer by
    its suite name, else by its own); the test is skipped without Triton."""
    pytest.importorskip("triton", reason="Triton is not installed")
    sys.path.insert(0, str(ROOT / "python"))
    import suite_kernels
    return (suite_kernels.TRITON_BANDWIDTH.get(name) or
            getattr(suite_kernels, name))


def hopper_ptx(kernel, signature: dict, constants: dict) -> str:
    """What Triton compiles `kernel` to for sm_90, without a GPU."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    return triton.compile(ASTSource(kernel, signature, constants),
                          target=GPUTarget("cuda", 90, 32)).asm["ptx"]


@pytest.mark.parametrize("kernel", TRITON_SIGNATURES)
def test_the_triton_peers_compile_for_hopper(kernel):
    # Triton compiles without a GPU: each peer the suite times must be a
    # valid Triton kernel for sm_90 (the suite checks its results against
    # PyTorch on the GPU before timing it).
    peer = triton_peer(kernel)
    signature = {**TRITON_SIGNATURES[kernel], "BLOCK": "constexpr"}
    assert ".entry" in hopper_ptx(peer, signature, {"BLOCK": 1024})


def test_a_kiln_kernel_that_fails_its_check_is_not_timed(kiln_run):
    # The stand-in driver runs no kernel, so vector_add's output stays
    # zero on the "GPU" and differs from the host target's: the suite's
    # check refuses the time; unchecked, the launches are timed.
    args = ["f32[64]=rand", "f32[64]=rand", "f32[64]=zeros", "i32=64"]
    with pytest.raises(RuntimeError, match="WRONG"):
        gpu_suite.kiln_time(kiln_run, "vector_add", (1,), args)
    assert gpu_suite.kiln_time(kiln_run, "vector_add", (1,), args,
                               tolerance=None) > 0


def test_the_fused_mlp_peer_compiles_for_hopper():
    signature = {"x": "*fp32", "w": "*fp16", "b": "*fp32", "y": "*fp16",
                 "M": "i32", "N": "i32", "K": "i32", "BM": "constexpr",
                 "BN": "constexpr", "BK": "constexpr"}
    ptx = hopper_ptx(triton_peer("triton_mlp"), signature,
                     {"BM": 64, "BN": 64, "BK": 32})
    assert "wgmma" in ptx or "mma" in ptx


@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
def test_the_triton_matmul_peer_compiles_for_hopper(dtype):
    signature = {"a": f"*{dtype}", "b": f"*{dtype}", "c": "*fp32",
                 "M": "i32", "N": "i32", "K": "i32", "BM": "constexpr",
                 "BN": "constexpr", "BK": "constexpr"}
    ptx = hopper_ptx(triton_peer("triton_matmul"), signature,
                     {"BM": 128, "BN": 128, "BK": 64})
    ptx_type = {"fp16": "f16", "bf16": "bf16"}[dtype]
    assert f"wgmma.mma_async.sync.aligned.m64n128k16.f32.{ptx_type}" in ptx


def test_the_mlp_array_program_at_other_sizes(kiln_run, tmp_path):
    # The suite resizes the array example and times its launch plan; on
    # the stand-in driver (no kernel runs) the check against the host
    # fails at the example's size and the resized plan is timed unchecked.
    source = gpu_suite.mlp_source(tmp_path, 256, 128, 64)
    text = source.read_text()
    assert "tensor<256x64xf32>" in text and "tensor<64x128xf16>" in text
    assert "tensor<128xf32>" in text and "tensor<256x128xf16>" in text
    with pytest.raises(RuntimeError, match="WRONG"):
        gpu_suite.kiln_time(kiln_run, "mlp", (), [], ROOT / "docs" /
                            "examples" / "matmul_bias_gelu_array.mlir",
                            tolerance=2e-3)
    assert gpu_suite.kiln_time(kiln_run, "mlp", (), [], source,
                               tolerance=None) > 0
    lines = gpu_suite.mlp_table({"flops": 2e12, "torch_s": 2e-3,
                                 "kiln_s": 1e-3,
                                 "compiled_error": "no inductor"})
    assert lines[-1] == ("| fused | 1.000 ms, 2000.0 TFLOP/s | 2.000 ms, "
                         "1000.0 TFLOP/s | failed | skipped | 0.50 |")


@pytest.mark.parametrize("program", gpu_suite.ROW_PROGRAMS,
                         ids=[p[0] for p in gpu_suite.ROW_PROGRAMS])
def test_the_programs_over_rows_of_dynamic_length(kiln_run, program):
    # The suite times each example's plan at each shape through --dims; on
    # the stand-in driver the check at 7 x 3000 fails (no kernel runs) and
    # the unchecked plan is timed.
    kernel, example, dims, moved, _ = program
    assert moved(64, 5000) >= 4 * 64 * 5000
    source = ROOT / "docs" / "examples" / example
    with pytest.raises(RuntimeError, match="WRONG"):
        gpu_suite.kiln_time(kiln_run, kernel, (), [], source,
                            dims=dims(7, 3000))
    assert gpu_suite.kiln_time(kiln_run, kernel, (), [], source,
                               tolerance=None, dims=dims(64, 5000)) > 0


def test_the_rows_table():
    lines = gpu_suite.row_table([
        {"program": "softmax", "shape": [4096, 8192],
         "bytes": 8 * 4096 * 8192, "torch_s": 1e-4, "kiln_s": 2e-4},
        {"program": "layer_norm", "shape": [512, 65536],
         "bytes": 8 * 512 * 65536, "torch_s": 1e-4, "kiln_error": "no GPU"}])
    assert lines[-2] == ("| softmax | 4096 x 8192 | 200.0 | 1342 | 100.0 | "
                         "2684 | 2.00 |")
    assert lines[-1] == "| layer_norm | 512 x 65536 | failed | | 100.0 | 2684 | |"


def test_the_fuse_table():
    import fuse_programs
    lines = fuse_programs.fuse_table([
        {"program": "softmax", "eager_s": 3e-4, "compiled_s": 2e-4,
         "kiln_s": 1e-4, "dynamo_s": 1.5e-4},
        {"program": "gelu", "eager_s": 3e-4, "kiln_error": "no GPU",
         "compiled_s": 2e-4, "dynamo_error": "no GPU"}])
    assert lines[-2] == ("| softmax | 300.0 | 200.0 | 100.0 | 150.0 | "
                         "3.00 | 2.00 |")
    assert lines[-1] == "| gelu | 300.0 | 200.0 | failed | failed | - | - |"


def test_the_fuse_section_checks_before_it_times():
    """A Kiln result that differs from eager is a failed cell, not a
    time."""
    import fuse_programs
    torch = pytest.importorskip("torch")
    want = torch.ones(3)
    fuse_programs._checked(torch, lambda: torch.ones(3), want, 1e-6)
    with pytest.raises(AssertionError, match="wrong result"):
        fuse_programs._checked(torch, lambda: torch.zeros(3), want, 1e-6)


def test_the_matmul_table_has_every_peer():
    row = {"size": 1024, "dtype": "f16", "blocks": "64x64x32, 4 warps",
           "flops": 2e12, "kiln_s": 2.0, "torch_s": 1.0, "compiled_s": 1.0,
           "triton_error": "no Triton"}
    assert gpu_suite.matmul_table([row])[-1] == (
        "| f16 1024³ | 64x64x32, 4 warps | 1.0 | 2.0 | 2.0 | - | 0.50 |")


@pytest.mark.parametrize("blocking", gpu_suite.MATMUL_BLOCKINGS,
                         ids=[b[0] for b in gpu_suite.MATMUL_BLOCKINGS])
@pytest.mark.parametrize("dtype", ["f16", "bf16"])
def test_the_matmul_kernels_take_the_tensor_cores_on_hopper(blocking, dtype,
                                                             tmp_path):
    # What the suite times at 4096³ and 8192³ on sm_90a, as kiln-run
    # specializes it there (every argument a multiple of 16): wgmma, and
    # TMA for the block-pointer kernel.
    kernel, _, _, warps = blocking
    source = tmp_path / f"{kernel}_{dtype}.mlir"
    source.write_text((ROOT / "docs" / "examples" / f"{kernel}.mlir")
                      .read_text().replace("f16", dtype))
    specialized = subprocess.run(
        [str(BUILD / "bin" / "kiln-opt"), str(source),
         "-tile-specialize-arguments=divisible=0,1,2,3,4,5"],
        capture_output=True, text=True, check=True).stdout
    ptx = subprocess.run(
        [str(BUILD / "bin" / "kiln-translate"), "--chip=sm_90a",
         f"--num-warps={warps}"], input=specialized, capture_output=True,
        text=True, check=True).stdout
    assert "wgmma.mma_async.sync.aligned.m64n" in ptx
    assert f".f32.{dtype}.{dtype}" in ptx
    assert ("cp.async.bulk.tensor.2d" in ptx) == (kernel == "matmul_tma")


def test_the_shapes_section_covers_the_llm_shapes():
    import matmul_shapes
    shapes = {tuple(shape[:3]) for shape in matmul_shapes.LLM}
    assert shapes == {(m, n, k) for m in (1, 16, 64, 128)
                      for n in (4096, 8192, 14336)
                      for k in (4096, 8192, 14336)}
    assert {(shape[0], shape[3]) for shape in matmul_shapes.SQUARE} == {
        (size, dtype) for size in (4096, 8192)
        for dtype in ("float16", "bfloat16")}
    assert {shape[3] for shape in matmul_shapes.FP8} == {"float8_e4m3fn"}
    assert set(matmul_shapes.SHAPES) == set(
        matmul_shapes.SQUARE + matmul_shapes.FP8 + matmul_shapes.LLM)


def test_the_shapes_table_and_the_fastest_config():
    import matmul_shapes
    from kiln.ops import gemm
    plans = [gemm.Plan("tiles", 16, 64, 128),
             gemm.Plan("split_k", 16, 64, 128, split=4),
             gemm.Plan("stream_k", 16, 64, 128, programs=132)]
    times = {plans[0]: 3.0, plans[2]: 1.0}

    def time(fn):
        return fn()

    def run(plan):
        if plan not in times:
            raise RuntimeError("this config does not build")
        return times[plan]

    def check(result):
        pass

    def reject_fast(result):
        if result < 2:
            raise AssertionError("wrong result")

    assert matmul_shapes._fastest(time, run, plans, check) == (1.0,
                                                               plans[2])
    assert matmul_shapes._fastest(time, run, plans[1:2], check) == (None,
                                                                    None)
    # A fast plan whose result is wrong is left out.
    assert matmul_shapes._fastest(time, run, plans, reject_fast) == (
        3.0, plans[0])
    lines = matmul_shapes.shape_table([
        {"shape": [16, 4096, 4096], "dtype": "float16", "flops": 2e12,
         "torch_s": 1.0, "kiln_plan": matmul_shapes.describe(plans[1]),
         "kiln_s": 2.0, "tuned_s": 0.5,
         "tuned_plan": matmul_shapes.describe(plans[2]), "triton_s": 1.0,
         "triton_plan": matmul_shapes.describe(plans[0])},
        {"shape": [1, 4096, 4096], "dtype": "float16", "flops": 2e12,
         "torch_s": 1.0, "kiln_error": "no GPU"}])
    assert lines[-4] == (
        "| 16 x 4096 x 4096 | float16 | split_k 4, 16x64x128 | 1.0 | "
        "4.0 (stream_k 132, 16x64x128) | 2.0 | 2.0 (tiles, 16x64x128) | "
        "0.50 | 2.00 |")
    assert lines[-3] == ("| 1 x 4096 x 4096 | float16 | failed | - | - | "
                         "2.0 | failed | failed | failed |")
    assert lines[-1] == "- 1 x 4096 x 4096: no GPU"


def test_the_shapes_section_runs_on_cpu_tensors():
    """The section's whole path on PyTorch CPU tensors (Kiln on the host
    target; Triton, which needs a GPU, a failed cell): a 16-bit and an
    8-bit shape, every plan checked against PyTorch's result."""
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    import matmul_shapes
    calls = []

    def time(fn):
        calls.append(fn())
        return 1e-3

    rows = matmul_shapes.shape_rows(
        torch, time, [(20, 40, 96, "float16"), (16, 32, 64,
                                                "float8_e4m3fn")],
        device="cpu")
    for row in rows:
        assert "kiln_error" not in row, row
        assert row["kiln_s"] == row["tuned_s"] == row["torch_s"] == 1e-3
        assert "triton_s" not in row
    assert rows[1]["kiln_plan"].startswith("tiles")
    lines = matmul_shapes.shape_table(rows)
    assert lines[-1].startswith("| 16 x 32 x 64 | float8_e4m3fn | tiles")
