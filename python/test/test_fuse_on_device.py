"""``kiln.fuse`` on device arrays: the plan run on the GPU through the
runtime's plan executor. Without a GPU: the refusals, and the whole path
(compile for the device's chip, load, allocate, launch, free) against the
stand-in driver, which launches kernels as no-ops; with a GPU, numerics
against numpy and PyTorch."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import kiln
import kiln.cuda

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("KILN_BUILD_DIR", ROOT / "build"))
FAKE = BUILD / "unittests" / "libKilnFakeCudaDriver.so"
HERE = str(Path(__file__).resolve())


class _Strided:
    """A device array of the CUDA array interface with a column stride."""

    __cuda_array_interface__ = {"shape": (4, 3), "typestr": "<f4",
                                "data": (0, False), "strides": (4, 16),
                                "version": 3}


class _BFloat16:
    __cuda_array_interface__ = {"shape": (8,), "typestr": "<V2",
                                "data": (0, False), "version": 3}


@pytest.mark.parametrize("array, match", [
    (_Strided(), r"argument 'x' is a strided device array \(strides "
                 r"\[4, 16\]\)"),
    (_BFloat16(), r"argument 'x' is a device array of \|V2"),
])
def test_device_arrays_it_cannot_read_are_named(array, match):
    with pytest.raises(kiln.KilnError, match=match):
        kiln.fuse(lambda x: x * 2)(array)


def _run(code: str, **env: str) -> subprocess.CompletedProcess:
    """``code`` in a fresh interpreter (the driver loads once per
    process)."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
        text=True, timeout=600,
        env={**os.environ, "PYTHONPATH": str(ROOT / "python"), **env})


def _run_on_stand_in(code: str, **env: str) -> subprocess.CompletedProcess:
    """``code`` run on the stand-in driver (without ptxas: the PTX is
    loaded), which reports at exit what is still held."""
    return _run(code, KILN_CUDA_DRIVER=str(FAKE),
                KILN_PTXAS="/nonexistent/ptxas", KILN_FAKE_CUDA_REPORT="1",
                **env)


def test_without_a_driver_a_device_array_says_so():
    result = _run("""
        import numpy as np, kiln
        class Device:
            __cuda_array_interface__ = {"shape": (4,), "typestr": "<f4",
                                        "data": (4096, False), "version": 3}
        kiln.fuse(lambda x: x + 1)(Device())
        """, KILN_CUDA_DRIVER="/nonexistent/libcuda.so.1")
    assert "kiln.errors.CudaError: no CUDA driver" in result.stderr


FAKE_RUN = """
    import ctypes, os, numpy as np, kiln
    driver = ctypes.CDLL(os.environ["KILN_CUDA_DRIVER"])
    x = kiln.DeviceArray.from_host(np.arange(6000, dtype=np.float32)
                                   .reshape(60, 100))
    w = kiln.DeviceArray.from_host(np.ones(100, np.float32))

    @kiln.fuse
    def program(x, w):
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True) * w, (x * 2).T

    for _ in range(2):
        soft, doubled = program(x, w)
    print(type(soft).__name__, soft.shape, soft.dtype, doubled.shape)
    print(soft.to_host().shape, doubled.to_host().dtype)
    try:
        program(x, np.ones(100, np.float32))
    except kiln.KilnError as exc:
        print("refused:", str(exc).splitlines()[0].split(": ", 2)[-1])
    print("live:", driver.fakeCudaLiveAllocations())  # x, w, 2 results
    del soft, doubled, x, w
    program.close()
    print("live:", driver.fakeCudaLiveAllocations())
    """


@pytest.mark.skipif(not FAKE.exists(), reason=f"{FAKE} is not built")
def test_plan_runs_through_the_stand_in_driver():
    result = _run_on_stand_in(FAKE_RUN)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "DeviceArray (60, 100) float32 (100, 60)"
    assert lines[1] == "(60, 100) float32"
    assert lines[2] == ("refused: program: argument 'w' is in host memory "
                        "while 'x' is on GPU 0; a fused function runs where "
                        "all its arguments are")
    # The plan's temporaries are freed by the time it returns; the results
    # and modules when they go.
    assert lines[3:] == ["live: 4", "live: 0"]
    assert "0 allocations (0 bytes), 0 modules, streams and events, 0 " \
        "references to the context" in result.stderr


FAKE_GRAPH = """
    import ctypes, os, numpy as np, kiln
    driver = ctypes.CDLL(os.environ["KILN_CUDA_DRIVER"])
    x = kiln.DeviceArray.from_host(np.ones((60, 100), np.float32))
    w = kiln.DeviceArray.from_host(np.ones(100, np.float32))

    @kiln.fuse
    def program(x, w):  # three kernels, one temporary between two
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        s = e / e.sum(axis=-1, keepdims=True) * w
        return s @ s.T, (x * 2).T

    program(x, w)  # compiled and run once: three launches
    launches = driver.fakeCudaLaunchCount()
    replay = program.capture(x, w)
    print("captured:", driver.fakeCudaLaunchCount() - launches,
          "launches,", driver.fakeCudaLiveAllocations(), "allocations")
    for _ in range(4):
        product, doubled = replay()
    print("replayed:", driver.fakeCudaLaunchCount() - launches,
          "launches,", driver.fakeCudaLiveAllocations(), "allocations")
    print(product.shape, doubled.shape, replay() is replay.outputs)
    try:
        program.capture(np.ones((60, 100), np.float32),
                        np.ones(100, np.float32))
    except kiln.KilnError as exc:
        print("refused:", str(exc).splitlines()[0].split(": ", 2)[-1])
    del replay, product, doubled
    program.close()
    print("closed:", driver.fakeCudaLiveAllocations(), "allocations")
    """


@pytest.mark.skipif(not FAKE.exists(), reason=f"{FAKE} is not built")
def test_a_captured_plan_replays_through_the_stand_in_driver():
    """Capture allocates the plan's temporary once and launches nothing;
    each replay is the plan's three launches (one graph launch), with no
    allocation; closing frees everything."""
    result = _run_on_stand_in(FAKE_GRAPH)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        # x, w, the two results and the temporary
        "captured: 0 launches, 5 allocations",
        "replayed: 12 launches, 5 allocations",
        "(60, 60) (100, 60) True",
        "refused: program.capture: CUDA graphs take device arrays; these "
        "arguments are in host memory",
        "closed: 2 allocations"]
    assert "0 allocations (0 bytes), 0 modules, streams and events, 0 " \
        "references to the context" in result.stderr


FAKE_AUTOMATIC_GRAPH = """
    import ctypes, os, sys, numpy as np, kiln
    sys.path.insert(0, os.environ["KILN_TEST_DIR"])
    from test_launch_keys import Launch
    driver = ctypes.CDLL(os.environ["KILN_CUDA_DRIVER"])
    driver.fakeCudaLastLaunch.restype = ctypes.POINTER(Launch)
    x = kiln.DeviceArray.from_host(np.ones((60, 100), np.float32))
    w = kiln.DeviceArray.from_host(np.ones(100, np.float32))

    def program(x, w):  # three kernels, one temporary between two
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        s = e / e.sum(axis=-1, keepdims=True) * w
        return s @ s.T, (x * 2).T

    for graphs in (True, False):
        fused, kept = kiln.fuse(program, cuda_graphs=graphs), []
        for call in range(4):
            counts = [driver.fakeCudaLaunchCount(),
                      driver.fakeCudaGraphLaunchCount(),
                      driver.fakeCudaNodeUpdates()]
            kept.append(fused(x, w))  # the results stay alive: new buffers
            counts = [driver.fakeCudaLaunchCount() - counts[0],
                      driver.fakeCudaGraphLaunchCount() - counts[1],
                      driver.fakeCudaNodeUpdates() - counts[2]]
            last = driver.fakeCudaLastLaunch().contents
            writes = [r.address in last.values[:last.params]
                      for r in kept[-1]]
            print(graphs, call, *counts, driver.fakeCudaLiveAllocations(),
                  writes)
        del kept
        fused.close()
    print("closed:", driver.fakeCudaLiveAllocations(), "allocations")
    """


@pytest.mark.skipif(not FAKE.exists(), reason=f"{FAKE} is not built")
def test_calls_after_the_first_replay_a_graph_with_their_buffers():
    """The first call launches kernel by kernel; the second captures the
    plan (allocating its temporary, held from then on) and launches the
    graph; later calls launch it too, after updating the kernels that
    write the new results: the last kernel run writes into this call's
    result. Without graphs every call launches kernel by kernel."""
    result = _run_on_stand_in(FAKE_AUTOMATIC_GRAPH,
                              KILN_TEST_DIR=str(Path(HERE).parent))
    assert result.returncode == 0, result.stderr
    # call, launches, graph launches, kernels updated, live allocations
    # (x and w, two results a call, the graph's temporary), and which of
    # the call's results the last kernel writes.
    assert result.stdout.splitlines() == [
        "True 0 3 0 0 4 [False, True]",
        "True 1 3 1 0 7 [False, True]",
        "True 2 3 1 2 9 [False, True]",
        "True 3 3 1 2 11 [False, True]",
        "False 0 3 0 0 4 [False, True]",
        "False 1 3 0 0 6 [False, True]",
        "False 2 3 0 0 8 [False, True]",
        "False 3 3 0 0 10 [False, True]",
        "closed: 2 allocations"]
    assert "0 allocations (0 bytes), 0 modules, streams and events, 0 " \
        "references to the context" in result.stderr


FAKE_GRAPH_SIZES = """
    import numpy as np, kiln
    from kiln.compiler import Context, Module
    from kiln.fuse.on_device import DevicePlan
    from kiln.host import ARRAY_PIPELINE

    text = open(os.environ["KILN_PLAN"]).read()
    context = Context()
    module = Module.parse(context, text, "scale_rows.mlir")
    module.run_pipeline(ARRAY_PIPELINE)
    plan = DevicePlan(module, "scale_rows", 0)

    def inputs(rows):
        return [kiln.DeviceArray.from_host(np.ones((rows, 4), np.float32)),
                kiln.DeviceArray.from_host(np.ones(rows, np.float32))]

    # One graph per plan's sizes, each from its second call.
    for rows in (3, 1000, 3, 1000, 3):
        plan.run([(rows, 4), (rows,)], inputs(rows), False)
        print(rows, len(plan._graphs))
    # A graph replayed on sizes that change its grids is refused.
    _, _, arguments = plan._buffers([(1000, 4), (1000,)], inputs(1000),
                                    False)
    try:
        plan._graphs[0].launch(0, arguments)
    except kiln.KilnError as exc:
        print(str(exc).splitlines()[0])
    plan.close()
    module.close()
    context.close()
    """


@pytest.mark.skipif(not FAKE.exists(), reason=f"{FAKE} is not built")
def test_a_plan_keeps_a_graph_per_size_and_refuses_others():
    plan = ROOT / "test" / "tools" / "kiln-run" / "array-dynamic.mlir"
    result = _run_on_stand_in("import os\n" + textwrap.dedent(
        FAKE_GRAPH_SIZES), KILN_PLAN=str(plan))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[:5] == ["3 0", "1000 0", "3 1", "1000 2", "3 2"]
    assert lines[5].endswith(
        "plan 'scale_rows': these arguments' sizes are not the ones the "
        "graph was captured with"), lines[5]


@pytest.mark.skipif(not kiln.cuda.is_available(),
                    reason=f"no GPU: {kiln.cuda.unavailable_reason()}")
def test_numerics_on_the_gpu():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((300, 777)).astype(np.float32)

    @kiln.fuse
    def softmax(x):
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    got = softmax(kiln.DeviceArray.from_host(x)).to_host()
    np.testing.assert_allclose(got, softmax(x), rtol=1e-5, atol=1e-6)


@pytest.fixture
def cuda_torch():
    """PyTorch, on a machine where it and Kiln have a GPU."""
    if not kiln.cuda.is_available():
        pytest.skip(f"no GPU: {kiln.cuda.unavailable_reason()}")
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch has no CUDA")
    return torch


def test_torch_cuda_tensors_on_the_gpu(cuda_torch):
    torch = cuda_torch
    import torch.nn.functional as F

    def program(x, w, b):
        return F.gelu(x @ w + b), x.float().softmax(-1)
    fused, calls = kiln.fuse(program), []
    # New tensors each call: the first runs launch by launch, the second
    # captures a graph, the third updates its buffers; every result kept.
    for _ in range(3):
        x = torch.randn(64, 256, device="cuda", dtype=torch.float16)
        w = torch.randn(256, 128, device="cuda", dtype=torch.float16) / 16
        b = torch.randn(128, device="cuda", dtype=torch.float16)
        calls.append((fused(x, w, b), program(x, w, b)))
    for got, want in calls:
        assert got[0].device == x.device and got[0].dtype == torch.float16
        torch.testing.assert_close(got[0], want[0], rtol=2e-2, atol=2e-2)
        torch.testing.assert_close(got[1], want[1], rtol=1e-5, atol=1e-6)


def test_a_captured_call_reads_its_arguments_as_they_are_on_the_gpu(
        cuda_torch):
    torch = cuda_torch

    def program(x):
        return torch.softmax(x * 2, -1), x.sum(0)
    x = torch.randn(128, 1000, device="cuda")
    replay = kiln.fuse(program).capture(x)
    for _ in range(3):
        x.copy_(torch.randn_like(x))
        got = replay()
        want = program(x)
        torch.testing.assert_close(got[0], want[0], rtol=1e-5, atol=1e-6)
        torch.testing.assert_close(got[1], want[1], rtol=1e-4, atol=1e-4)


FAKE_DLPACK = """
    import ctypes, numpy as np, kiln
    from kiln.dlpack import _DLDataType, _DLDevice, _DLTensor

    class CudaDLPackOnly:
        # A CUDA array that offers only DLPack, over memory the stand-in
        # driver's device reads.
        def __init__(self, array):
            self.array = array
            self._shape = (ctypes.c_int64 * array.ndim)(*array.shape)
            self._tensor = _DLTensor(
                ctypes.c_void_p(array.ctypes.data), _DLDevice(2, 0),
                array.ndim, _DLDataType(2, 32, 1), self._shape, None, 0)

        def __dlpack_device__(self):
            return (2, 0)

        def __dlpack__(self, stream=None):
            new = ctypes.pythonapi.PyCapsule_New
            new.restype = ctypes.py_object
            new.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                            ctypes.c_void_p]
            return new(ctypes.addressof(self._tensor), b"dltensor", None)

    x = CudaDLPackOnly(np.ones((60, 100), np.float32))
    out = kiln.fuse(lambda x: np.exp(x) * 2)(x)
    print(type(out).__name__, out.shape, out.dtype)
    """


@pytest.mark.skipif(not FAKE.exists(), reason=f"{FAKE} is not built")
def test_a_cuda_array_offering_only_dlpack_runs_on_its_gpu():
    result = _run_on_stand_in(FAKE_DLPACK)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["DeviceArray (60, 100) float32"]
