"""Kernels on the GPU from Python: compiling for a chip (no GPU needed),
launching through a stand-in driver (the whole host side, the kernel itself
a no-op), and, where PyTorch sees a GPU, numerics against PyTorch. A kernel
that faults and an array too large for the device end in clear errors, on
the stand-in and, where there is one, on a GPU."""

from __future__ import annotations

import ctypes
import json
import os
import re
import subprocess
import sys
import textwrap
import time
import warnings
from pathlib import Path
from typing import Sequence

import numpy as np
import pytest

import kiln
import kiln.language as kl
from kiln.errors import KilnCompileError
from kiln.errors import CompilationError, KilnError
from kiln.gpu import (GPUBinary, GPUOptions, device_array_element, device_chip,
                      is_device_array)

from test_kernel_semantics import welford_combine

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("KILN_BUILD_DIR", ROOT / "build"))
FAKE = BUILD / "unittests" / "libKilnFakeCudaDriver.so"
EXAMPLES = ROOT / "docs" / "examples"


class FakeDeviceArray:
    """A device array as PyTorch or CuPy present one; its memory is host
    memory, which the stand-in driver's "device" uses too."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array
        self.__cuda_array_interface__ = {
            "data": (array.ctypes.data, False), "shape": array.shape,
            "typestr": array.dtype.str, "version": 3}


@kiln.jit
def scale(x_ptr, out_ptr, n, factor, BLOCK: kl.constexpr):
    offsets = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK)
    mask = offsets < n
    x = kl.load(x_ptr + offsets, mask=mask)
    kl.store(out_ptr + offsets, x * factor, mask=mask)


def test_compiles_for_each_chip_without_a_gpu():
    with kiln.Context() as ctx:
        module = kiln.Module.parse(ctx, (EXAMPLES / "softmax.mlir").read_text())
        for chip in ("sm_80", "sm_90a"):
            with GPUBinary(module, chip, num_warps=8) as binary:
                assert f".target {chip}" in binary.ptx
                assert "shfl.sync.bfly" in binary.ptx
                assert "nvptx64-nvidia-cuda" in binary.llvm_ir
                assert binary.threads_per_block == 256
                if binary.cubin:  # ptxas was found
                    assert binary.cubin[:4] == b"\x7fELF"
                    assert "registers" in binary.ptxas_log


def test_compiling_twice_gives_the_same_ptx():
    with kiln.Context() as ctx:
        text = (EXAMPLES / "layer_norm.mlir").read_text()
        first = GPUBinary(kiln.Module.parse(ctx, text), "sm_90a")
        second = GPUBinary(kiln.Module.parse(ctx, text), "sm_90a")
        assert first.ptx == second.ptx
        assert first.llvm_ir == second.llvm_ir


def test_compile_errors_name_the_problem():
    with kiln.Context() as ctx:
        module = kiln.Module.parse(ctx, (EXAMPLES / "softmax.mlir").read_text())
        with pytest.raises(CompilationError, match="sm_42"):
            GPUBinary(module, "sm_42")
        with pytest.raises(CompilationError,
                           match="num_warps must be a power of two"):
            GPUBinary(module, "sm_80", num_warps=3)
        with pytest.raises(KilnError, match="num_stages must be 1 or more"):
            GPUBinary(module, "sm_80", num_stages=0)
        calls = kiln.Module.parse(ctx, """
func.func @caller(%x: i32) {
  func.call @helper(%x) : (i32) -> ()
  return
}
func.func private @helper(i32)""", "calls.mlir")
        with pytest.raises(CompilationError) as error:
            GPUBinary(calls, "sm_90a")
        located = [d for d in error.value.diagnostics if d.line]
        assert "kernels cannot call functions" in located[0].message
        assert (located[0].file, located[0].line) == ("calls.mlir", 3)


def test_device_arrays_specialize_like_numpy_arrays():
    x = FakeDeviceArray(np.zeros(4096, np.float32))
    out = FakeDeviceArray(np.zeros(4096, np.float32))
    ir = scale.ir(x, out, 4096, 2.0, BLOCK=1024)
    assert ir.count("{tile.divisibility = 16 : i64}") == 3


needs_stand_in = pytest.mark.skipif(
    not FAKE.exists(), reason=f"the stand-in driver is not built ({FAKE})")


def test_asm_shows_every_stage_without_a_gpu():
    x = np.zeros(4096, np.float32)
    stages = scale.asm(x, x, 4096, 2.0, BLOCK=1024, chip="sm_80")
    assert "tile.load" in stages["tile"]
    assert "nvptx64-nvidia-cuda" in stages["llvm"]
    assert ".target sm_80" in stages["ptx"]
    assert "ld.global.v4.b32" in stages["ptx"]  # aligned, n % 16 == 0
    if stages["cubin"]:
        assert stages["cubin"][:4] == b"\x7fELF"
    with pytest.raises(KilnError, match="sm_42"):
        scale.asm(x, x, 4096, 2.0, BLOCK=1024, chip="sm_42")


def test_warmup_reports_what_ptxas_said_and_the_sass():
    from kiln.gpu import find_cuobjdump
    x = np.zeros(4096, np.float32)
    compiled = scale.warmup(x, x, 4096, 2.0, BLOCK=1024, chip="sm_90a",
                            num_warps=8)
    if not compiled.asm["cubin"]:
        assert compiled.metadata is None
        with pytest.raises(KeyError):
            compiled.asm["sass"]
        pytest.skip("ptxas not found: no cubin, no metadata")
    meta = compiled.metadata
    assert (meta.name, meta.chip, meta.num_warps) == ("scale", "sm_90a", 8)
    assert 8 <= meta.registers <= 255
    assert meta.spill_stores == meta.spill_loads == 0
    # Its own report, parsed: the registers line of the log.
    assert f"Used {meta.registers} registers" in compiled.asm["ptxas-log"]
    if not find_cuobjdump():
        pytest.skip("cuobjdump not found: no SASS")
    assert "Function : scale" in compiled.asm["sass"]
    assert "LDG.E.128" in compiled.asm["sass"]  # the vector loads


def test_the_package_finds_the_toolkit_where_the_compiler_does(
        tmp_path, monkeypatch):
    from kiln.gpu import find_cuda_program, find_ptxas, ptx_assembler
    fake = tmp_path / "bin" / "ptxas"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("KILN_PTXAS", str(fake))
    assert find_ptxas() == str(fake)
    assert ptx_assembler() == str(fake)  # even with the PTX library
    # The compiler runs it: its failure is the compile's error.
    x = np.zeros(4096, np.float32)
    with pytest.raises(KilnError, match="ptxas"):
        scale.warmup(x, x, 4096, 2.0, BLOCK=1024, chip="sm_90a",
                     num_warps=2)
    # Set, it is the only place looked at, as for the compiler.
    monkeypatch.setenv("KILN_PTXAS", str(tmp_path / "missing"))
    assert find_ptxas() is None
    assert ptx_assembler() is None
    monkeypatch.delenv("KILN_PTXAS")
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setenv("CUDA_HOME", str(tmp_path))
    assert find_cuda_program("ptxas") == str(fake)  # before /usr/local
    assert find_cuda_program("kiln-no-such-program") is None


def test_cubins_are_assembled_in_process_where_kiln_has_the_ptx_library(
        monkeypatch, tmp_path):
    from kiln.gpu import find_ptxas, ptx_assembler
    monkeypatch.delenv("KILN_PTXAS", raising=False)
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path))
    assembler = ptx_assembler()
    if assembler is None or not assembler.endswith("in process"):
        pytest.skip("Kiln was built without the PTX compiler library "
                    f"(cubins from: {assembler})")
    assert re.fullmatch(r"ptxas \d+\.\d+, in process", assembler)
    x = np.zeros(4096, np.float32)
    compiled = scale.warmup(x, x, 4096, 2.0, BLOCK=1024, chip="sm_90a",
                            num_warps=2)
    # ptxas's report, read from the library's log as from the program's.
    assert compiled.metadata.registers > 0
    assert "Compiling entry function 'scale'" in compiled.asm["ptxas-log"]
    assert compiled.asm["cubin"][:4] == b"\x7fELF"
    if find_ptxas() is not None:
        assert ptx_assembler() != find_ptxas()


def run_python(code: str, **env: str) -> subprocess.CompletedProcess:
    """`code` in a fresh interpreter against the stand-in driver (loaded
    once per process), with PTX for it to load."""
    return run_python_on_gpu(code, KILN_CUDA_DRIVER=str(FAKE),
                             KILN_PTXAS="/nonexistent/ptxas", **env)


def run_python_on_gpu(code: str, **env: str) -> subprocess.CompletedProcess:
    """`code` in a fresh interpreter, against the driver the environment
    names (libcuda.so.1 by default)."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT / "python") + os.pathsep +
             str(Path(__file__).parent),
             "KILN_CACHE_DIR": os.environ.get(
                 "KILN_CACHE_DIR", str(BUILD / "test-kiln-cache")), **env})


@needs_stand_in
def test_jit_launches_device_arrays_through_the_driver():
    result = run_python("""
        import numpy as np
        import kiln.gpu
        from test_gpu import FakeDeviceArray, scale
        print(kiln.gpu.device_chip())
        x = FakeDeviceArray(np.arange(3000, dtype=np.float32))
        out = FakeDeviceArray(np.zeros(3000, np.float32))
        scale[(3,)](x, out, 3000, 2.0, BLOCK=1024)
        scale[(3,)](x, out, 3000, 2.0, BLOCK=1024, num_warps=8)
        scale[(0,)](x, out, 3000, 2.0, BLOCK=1024)
        kiln.gpu.synchronize()
        print(len(scale._gpu_cache), "specializations")
        try:
            scale[(3,)](x, np.zeros(3000, np.float32), 3000, 2.0, BLOCK=1024)
        except kiln.KilnError as error:
            print(error)
        """)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "sm_90a"  # the stand-in is compute capability 9.0
    # num_warps is part of the specialization; an empty grid launches
    # nothing and reuses one.
    assert lines[1] == "2 specializations"
    assert "all on the GPU (device arrays) or all on the host" in lines[2]


@kiln.jit
def add_pair(ptrs, out_ptr, n, BLOCK: kl.constexpr):
    offsets = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK)
    mask = offsets < n
    kl.store(out_ptr + offsets, kl.load(ptrs[0] + offsets, mask=mask) +
             kl.load(ptrs[1] + offsets, mask=mask), mask=mask)


def test_tuple_elements_are_the_ptx_parameters():
    x = np.zeros(64, np.float32)
    # Not the stand-in test's specialization: this one's cubin goes into
    # the disk cache, which the stand-in cannot load.
    ptx = add_pair.warmup((x, x), x, 64, BLOCK=32).asm["ptx"]
    parameters = re.findall(r"\.param \.(\w+)\b[^,]* add_pair_param_\d+",
                            ptx)
    assert parameters == ["u64", "u64", "u64", "u32"]


@needs_stand_in
def test_tuples_of_device_arrays_launch_through_the_driver():
    result = run_python("""
        import numpy as np
        import kiln
        from test_gpu import FakeDeviceArray, add_pair
        x = FakeDeviceArray(np.zeros(64, np.float32))
        for _ in range(2):
            add_pair[(1,)]((x, x), x, 64, BLOCK=64)
        print(len(add_pair._gpu_cache), "specialization")
        try:
            add_pair[(1,)]((x, np.zeros(64, np.float32)), x, 64, BLOCK=64)
        except kiln.KilnError as error:
            print(error)
        """)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "1 specialization"
    assert "all on the GPU (device arrays) or all on the host" in lines[1]


@kiln.jit
def añadir(x_ptr, n, BLOCK: kl.constexpr):
    offsets = kl.arange(0, BLOCK)
    mask = offsets < n
    kl.store(x_ptr + offsets, kl.load(x_ptr + offsets, mask=mask) + 1,
             mask=mask)


def test_a_unicode_kernel_name_is_spelled_in_ptx():
    """PTX names are ASCII (LLVM's NVPTX backend aborted the process on
    anything else): each other character is spelled $x<hex>$."""
    x = np.zeros(16, np.float32)
    for chip in ("sm_80", "sm_90a"):
        ptx = añadir.asm(x, 16, BLOCK=16, chip=chip)["ptx"]
        assert ".entry a$xf1$adir(" in ptx
    añadir[(1,)](x, 16, BLOCK=16)
    np.testing.assert_array_equal(x, 1)


@needs_stand_in
def test_a_unicode_kernel_name_launches_through_the_driver():
    result = run_python("""
        import ctypes
        import numpy as np
        from test_gpu import FAKE, FakeDeviceArray, añadir
        x = FakeDeviceArray(np.zeros(16, np.float32))
        # (BLOCK=32: not the specialization whose cubin the test above may
        # have left in the disk cache, which the stand-in cannot load.)
        for _ in range(2):  # the full path, then a cache hit
            añadir[(1,)](x, 16, BLOCK=32)
        print(ctypes.CDLL(str(FAKE)).fakeCudaLaunchCount(), "launches")
        """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["2 launches"]


@needs_stand_in
def test_launch_limits_are_checked_before_the_driver():
    result = run_python("""
        import numpy as np
        import kiln
        from test_gpu import FakeDeviceArray, scale
        x = FakeDeviceArray(np.zeros(16, np.float32))
        try:
            scale[(1 << 31,)](x, x, 16, 2.0, BLOCK=16)
        except kiln.KilnError as error:
            print(error)
        """)
    assert result.returncode == 0, result.stderr
    assert "grid" in result.stdout and "2147483648" in result.stdout


@kiln.jit
def faulting(x_ptr, BLOCK: kl.constexpr):
    """Stores through ``x_ptr``, which faults where it points at no memory.
    (The stand-in driver faults on any launch of a kernel of this name.)"""
    offsets = kl.arange(0, BLOCK)
    kl.store(x_ptr + offsets, offsets.to(kl.float32))


class Nowhere:
    """A device array of 16 f32 at address 8, where a GPU has no memory."""

    __cuda_array_interface__ = {"data": (8, False), "shape": (16,),
                                "typestr": "<f4", "version": 3}


# A kernel faults; the process goes on, and every later use of the device
# raises a Kiln exception; the last one, uncaught, ends it with status 1.
FAULT = """
    import kiln, kiln.gpu
    from test_gpu import Nowhere, faulting, scale
    x = Nowhere()
    faulting[(1,)](x, BLOCK=16)  # accepted: launches are asynchronous
    print("launched")
    try:
        kiln.gpu.synchronize()
    except kiln.CudaError as error:
        print("synchronize:", error)
    launches = {  # one loaded before the fault, one loaded after it
        "faulting": lambda: faulting[(1,)](x, BLOCK=16),
        "scale": lambda: scale[(1,)](x, x, 16, 2.0, BLOCK=16)}
    for name, launch in launches.items():
        try:
            launch()
            print(name, "launched")
        except kiln.KilnError as error:
            print(f"{name}: {type(error).__name__}: {error}")
    kiln.gpu.synchronize()
    """

ILLEGAL_ADDRESS = ("failed: CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory "
                   "access was encountered) [700]")


def check_fault_reported(result: subprocess.CompletedProcess,
                         at_exit: Sequence[str] = ()) -> list[str]:
    """What FAULT printed of the launches after the fault, once its exit
    (status 1, not a signal) and the end of its stderr (the last error, then
    ``at_exit``) are checked."""
    assert result.returncode == 1, result.stderr
    errors = result.stderr.splitlines()
    assert errors[-1 - len(at_exit):] == [
        "kiln.errors.CudaError: waiting for the device (cuCtxSynchronize) "
        + ILLEGAL_ADDRESS, *at_exit]
    lines = result.stdout.splitlines()
    assert lines[:2] == [
        "launched",
        "synchronize: waiting for the device (cuCtxSynchronize) "
        + ILLEGAL_ADDRESS]
    return lines[2:]


@needs_stand_in
def test_a_fault_is_a_cuda_error_and_the_process_goes_on():
    result = run_python(FAULT, KILN_FAKE_CUDA_REPORT="1")
    # Nothing is left on the device: the interpreter released it all.
    nothing_held = ("fake CUDA driver at exit: 0 allocations (0 bytes), 0 "
                    "modules, streams and events, 0 references to the "
                    "context")
    assert check_fault_reported(result, [nothing_held]) == [
        f"faulting: LaunchError: launching 'faulting' {ILLEGAL_ADDRESS}",
        "scale: CudaError: loading a module (cuModuleLoadData) "
        + ILLEGAL_ADDRESS]


def real_gpu() -> None:
    """Skips unless a CUDA driver other than the stand-in sees a device."""
    import kiln.cuda
    reason = kiln.cuda.unavailable_reason()
    if reason is not None:
        pytest.skip(f"no GPU: {reason}")
    if kiln.cuda.device_info(0).name == "Kiln Fake GPU":
        pytest.skip("KILN_CUDA_DRIVER is the stand-in driver, not a GPU")


def test_a_fault_on_the_gpu_is_a_cuda_error(tmp_path):
    real_gpu()
    # In a process of its own: a faulted context is unusable for the rest
    # of the process.
    result = run_python_on_gpu(FAULT, KILN_CACHE_DIR=str(tmp_path))
    later = check_fault_reported(result)
    # What the driver answers after a fault may differ by call and version;
    # each launch must fail with a Kiln exception, not run.
    assert [line.split(":")[0] for line in later] == ["faulting", "scale"]
    assert all(re.match(r"\w+: (LaunchError|CudaError): ", line)
               for line in later), later


KILN_RUN = BUILD / "bin" / "kiln-run"

ONE_ARRAY = """
func.func @twice(%x: !tile.ptr<f32>) {
  %r = tile.range 0 to 8 : tensor<8xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<8x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<8x!tile.ptr<f32>>, tensor<8xi32>
  %v = tile.load %xp : tensor<8x!tile.ptr<f32>> -> tensor<8xf32>
  %w = arith.addf %v, %v : tensor<8xf32>
  tile.store %xp, %w : tensor<8x!tile.ptr<f32>>, tensor<8xf32>
  return
}"""


@pytest.mark.parametrize("driver", ["stand-in", "gpu"])
def test_kiln_run_an_array_too_large_for_memory(driver, tmp_path):
    if not KILN_RUN.exists():
        pytest.skip(f"kiln-run is not built ({KILN_RUN})")
    env = dict(os.environ)
    if driver == "stand-in":
        if not FAKE.exists():
            pytest.skip(f"the stand-in driver is not built ({FAKE})")
        env.update(KILN_CUDA_DRIVER=str(FAKE),
                   KILN_PTXAS="/nonexistent/ptxas")
    else:
        real_gpu()
    kernel = tmp_path / "twice.mlir"
    kernel.write_text(ONE_ARRAY)
    # 128 TiB: more than any GPU has, and more than a process can map, so
    # that even where the kernel overcommits memory, nothing is touched.
    count = 1 << 45
    result = subprocess.run(
        [str(KILN_RUN), str(kernel), "--target=gpu", "--kernel=twice",
         f"--arg=f32[{count}]=zeros", "--check=none"],
        capture_output=True, text=True, env=env, timeout=300)
    # kiln-run builds arrays in host memory before the device sees them:
    # this one is refused there, with an error rather than an abort. (A
    # device out of memory is test/tools/kiln-run/gpu-faults.mlir, on a
    # stand-in with less memory than the host.)
    assert (result.returncode, result.stdout, result.stderr) == (
        1, "", f"kiln-run: --arg=f32[{count}]=zeros: {4 * count} bytes do "
        "not fit in host memory\n")


def torch_cuda():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch sees no GPU")
    return torch


def test_scale_on_the_gpu_against_torch():
    torch = torch_cuda()
    n = 100_003
    x = torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    scale[(kiln.cdiv(n, 1024),)](x, out, n, 1.5, BLOCK=1024)
    torch.cuda.synchronize()
    torch.testing.assert_close(out, x * 1.5)


def test_launches_follow_pytorchs_stream_and_cuda_graphs():
    """@kiln.jit launches on PyTorch's current stream: after the PyTorch
    work queued there, and into a CUDA graph PyTorch captures."""
    torch = torch_cuda()
    n = 4096
    x = torch.randn(n, device="cuda")
    out = torch.full_like(x, float("nan"))
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        y = x * 3  # queued on the side stream, before the launch
        scale[(kiln.cdiv(n, 1024),)](y, out, n, 2.0, BLOCK=1024)
    side.synchronize()
    torch.testing.assert_close(out, x * 6)

    # Captured: the launch before the capture compiled the kernel (on a
    # side stream, as PyTorch asks), the captured one is a cache hit.
    static_in = torch.zeros(n, device="cuda")
    static_out = torch.full_like(static_in, float("nan"))
    warm = torch.cuda.Stream()
    warm.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(warm):
        scale[(kiln.cdiv(n, 1024),)](static_in, static_out, n, 0.5,
                                     BLOCK=1024)
    torch.cuda.current_stream().wait_stream(warm)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        scale[(kiln.cdiv(n, 1024),)](static_in, static_out, n, 0.5,
                                     BLOCK=1024)
    static_in.copy_(x)
    graph.replay()
    torch.cuda.synchronize()
    torch.testing.assert_close(static_out, x * 0.5)


def test_repeated_launches_on_the_gpu_take_each_launchs_arguments():
    """The cache-hit path (kiln.launch_keys, gpu.KernelLauncher): one
    specialization launched on new tensors and scalars each time."""
    torch = torch_cuda()
    for dtype, tolerance in ((torch.float32, 1e-6), (torch.bfloat16, 1e-2)):
        for i, n in enumerate((1001, 3003, 77, 100_003)):
            x = torch.randn(n, device="cuda").to(dtype)
            out = torch.full_like(x, float("nan"))
            factor = 0.5 + i
            scale[(kiln.cdiv(n, 1024),)](x, out, n, factor, BLOCK=1024)
            torch.cuda.synchronize()
            torch.testing.assert_close(out.float(), x.float() * factor,
                                       rtol=tolerance, atol=tolerance)


@kiln.jit
def softmax_rows(out_ptr, in_ptr, stride, n_cols, BLOCK: kl.constexpr):
    row = kl.program_id(0)
    cols = kl.arange(0, BLOCK)
    mask = cols < n_cols
    x = kl.load(in_ptr + row * stride + cols, mask=mask, other=-float("inf"))
    e = kl.exp(x - kl.max(x, axis=0))
    kl.store(out_ptr + row * stride + cols, e / kl.sum(e, axis=0), mask=mask)


def test_softmax_on_the_gpu_against_torch():
    torch = torch_cuda()
    x = torch.randn(123, 1000, device="cuda") * 3
    out = torch.empty_like(x)
    softmax_rows[(123,)](out, x, 1000, 1000, BLOCK=1024)
    torch.cuda.synchronize()
    torch.testing.assert_close(out, torch.softmax(x.double(), dim=1).float())


@kiln.jit
def cumsum_rows(out_ptr, in_ptr, n_cols, BLOCK: kl.constexpr):
    row = kl.program_id(0)
    cols = kl.arange(0, BLOCK)
    mask = cols < n_cols
    x = kl.load(in_ptr + row * n_cols + cols, mask=mask, other=0.0)
    kl.store(out_ptr + row * n_cols + cols, kl.cumsum(x, axis=0), mask=mask)


def test_cumsum_on_the_gpu_against_torch():
    torch = torch_cuda()
    x = torch.randn(37, 500, device="cuda")
    out = torch.empty_like(x)
    cumsum_rows[(37,)](out, x, 500, BLOCK=512)
    torch.cuda.synchronize()
    torch.testing.assert_close(out, torch.cumsum(x.double(), dim=1).float(),
                               rtol=1e-4, atol=1e-4)


@kiln.jit
def small_matmul(c_ptr, a_ptr, b_ptr, M, N, K, BLOCK: kl.constexpr):
    rows = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK)
    cols = kl.program_id(1) * BLOCK + kl.arange(0, BLOCK)
    acc = kl.zeros((BLOCK, BLOCK), kl.float32)
    for k in range(0, K, BLOCK):
        ks = k + kl.arange(0, BLOCK)
        a = kl.load(a_ptr + rows[:, None] * K + ks[None, :],
                    mask=(rows[:, None] < M) & (ks[None, :] < K), other=0.0)
        b = kl.load(b_ptr + ks[:, None] * N + cols[None, :],
                    mask=(ks[:, None] < K) & (cols[None, :] < N), other=0.0)
        acc += kl.dot(a, b)
    kl.store(c_ptr + rows[:, None] * N + cols[None, :], acc,
             mask=(rows[:, None] < M) & (cols[None, :] < N))


def test_matmul_on_the_gpu_against_torch():
    torch = torch_cuda()
    a = torch.randn(100, 70, device="cuda", dtype=torch.float16)
    b = torch.randn(70, 90, device="cuda", dtype=torch.float16)
    c = torch.empty(100, 90, device="cuda")
    small_matmul[(4, 3)](c, a, b, 100, 90, 70, BLOCK=32)
    torch.cuda.synchronize()
    torch.testing.assert_close(c, (a.double() @ b.double()).float(),
                               rtol=1e-3, atol=1e-3)


@kiln.jit
def tensor_core_matmul(c_ptr, a_ptr, b_ptr, M, N, K, stride_bk, stride_bn,
                       BM: kl.constexpr, BN: kl.constexpr, BK: kl.constexpr,
                       PRECISION: kl.constexpr):
    rows = kl.program_id(0) * BM + kl.arange(0, BM)
    cols = kl.program_id(1) * BN + kl.arange(0, BN)
    acc = kl.zeros((BM, BN), kl.int32 if PRECISION == "int" else kl.float32)
    for k in range(0, K, BK):
        ks = k + kl.arange(0, BK)
        a = kl.load(a_ptr + rows[:, None] * K + ks[None, :],
                    mask=(rows[:, None] < M) & (ks[None, :] < K), other=0)
        b = kl.load(b_ptr + ks[:, None] * stride_bk + cols[None, :] * stride_bn,
                    mask=(ks[:, None] < K) & (cols[None, :] < N), other=0)
        if PRECISION == "tf32":
            acc += kl.dot(a, b, input_precision="tf32")
        elif PRECISION == "tf32x3":
            acc += kl.dot(a, b, input_precision="tf32x3")
        else:
            acc += kl.dot(a, b)
    kl.store(c_ptr + rows[:, None] * N + cols[None, :], acc,
             mask=(rows[:, None] < M) & (cols[None, :] < N))


# Element type, the PRECISION the kernel takes, the PTX instruction the
# tensor cores run it with, and the accumulator's numpy type.
TENSOR_CORE_CASES = {
    "f16": (np.float16, "ieee", "mma.sync.aligned.m16n8k16.row.col.f32.f16",
            np.float32),
    "tf32": (np.float32, "tf32", "mma.sync.aligned.m16n8k8.row.col.f32.tf32",
             np.float32),
    "tf32x3": (np.float32, "tf32x3",
               "mma.sync.aligned.m16n8k8.row.col.f32.tf32", np.float32),
    "i8": (np.int8, "int", "mma.sync.aligned.m16n8k32.row.col.s32.s8",
           np.int32),
}


@pytest.mark.parametrize("case", TENSOR_CORE_CASES)
def test_matmul_compiles_to_tensor_cores_without_a_gpu(case):
    element, precision, instruction, accumulator = TENSOR_CORE_CASES[case]
    a = np.zeros((128, 64), element)
    c = np.zeros((128, 128), accumulator)
    for chip in ("sm_80", "sm_90a"):
        stages = tensor_core_matmul.asm(
            c, a, a, 128, 128, 64, 128, 1, BM=64, BN=64, BK=32,
            PRECISION=precision, chip=chip)
        if chip == "sm_90a" and case in ("f16", "i8", "tf32"):
            # The pipelined f16, int8 and tf32 loops run on wgmma: one
            # m64n64k16 per K step of 16 (k32 per 32 for int8, B transposed
            # into a K-major buffer by byte stores; k8 per 8 for tf32, B
            # copied into a K-major slot 4 bytes at a time), nothing on
            # mma.sync.
            wgmma = {"f16": ("m64n64k16.f32.f16.f16", 2),
                     "i8": ("m64n64k32.s32.s8.s8", 1),
                     "tf32": ("m64n64k8.f32.tf32.tf32", 4)}[case]
            assert stages["ptx"].count(
                "wgmma.mma_async.sync.aligned." + wgmma[0]) == wgmma[1]
            assert "mma.sync" not in stages["ptx"]
            assert ("st.shared.b8" in stages["ptx"]) == (case == "i8")
            assert (re.search(r"cp\.async\.ca\.shared\.global \[[^]]*\], "
                              r"\[[^]]*\], 4,", stages["ptx"]) is not None
                    ) == (case == "tf32")
            continue
        assert instruction in stages["ptx"]
        assert "mma.sync" not in stages["tile"]
        # Three tf32 products per step for tf32x3.
        if case.startswith("tf32"):
            assert stages["ptx"].count(instruction) == \
                (3 if case == "tf32x3" else 1) * 4 * 8
        if element != np.float32:
            assert "fma.rn.f32" not in stages["ptx"]


@kiln.jit
def weight_only_int8_matmul(c_ptr, a_ptr, b_ptr, K, N: kl.constexpr):
    """f16 activations times int8 weights (N-major), widened in the loop."""
    rows = kl.arange(0, 64)
    cols = kl.arange(0, N)
    acc = kl.zeros((64, N), kl.float32)
    for k in range(0, K, 64):
        ks = k + kl.arange(0, 64)
        a = kl.load(a_ptr + rows[:, None] * K + ks[None, :])
        b = kl.load(b_ptr + ks[:, None] * N + cols[None, :])
        acc = kl.dot(a, b.to(kl.float16), acc)
    kl.store(c_ptr + rows[:, None] * N + cols[None, :], acc)


def test_int8_weights_widened_in_the_loop_reach_the_tensor_cores():
    """The host computes the product exactly; sm_80 widens B's fragments in
    registers and sm_90a writes the widened B into a buffer wgmma reads,
    as Triton does, where it ran on mma.sync."""
    rng = np.random.default_rng(5)
    a = rng.standard_normal((64, 256)).astype(np.float16)
    b = rng.integers(-128, 128, (256, 64)).astype(np.int8)
    c = np.zeros((64, 64), np.float32)
    weight_only_int8_matmul[(1,)](c, a, b, 256, N=64)
    np.testing.assert_allclose(
        c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-5,
        atol=1e-2)
    sm80 = weight_only_int8_matmul.asm(c, a, b, 256, N=64, chip="sm_80")
    assert "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" in sm80["ptx"]
    # The weights come back from shared memory as bytes, not as f16 staged
    # a second time.
    assert "st.shared.b16" not in sm80["ptx"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no remark: nothing falls back
        sm90 = weight_only_int8_matmul.asm(c, a, b, 256, N=64, chip="sm_90a")
    assert "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16" in \
        sm90["ptx"]
    assert "mma.sync" not in sm90["ptx"]


@kiln.jit
def staged_matmul(c_ptr, a_ptr, b_ptr, K, STAGES: kl.constexpr):
    rows = kl.arange(0, 64)
    cols = kl.arange(0, 64)
    acc = kl.zeros((64, 64), kl.float32)
    for k in range(0, K, 32, num_stages=STAGES):
        ks = k + kl.arange(0, 32)
        a = kl.load(a_ptr + rows[:, None] * K + ks[None, :])
        b = kl.load(b_ptr + ks[:, None] * 64 + cols[None, :])
        acc += kl.dot(a, b)
    kl.store(c_ptr + rows[:, None] * 64 + cols[None, :], acc)


@kiln.jit
def stepping_matmul(c_ptr, a_ptr, b_ptr, K, stride_bk):
    """Triton's tutorial form: the pointers step inside the loop."""
    rows = kl.arange(0, 64)
    cols = kl.arange(0, 64)
    ks = kl.arange(0, 32)
    a_ptrs = a_ptr + rows[:, None] * K + ks[None, :]
    b_ptrs = b_ptr + ks[:, None] * stride_bk + cols[None, :]
    acc = kl.zeros((64, 64), kl.float32)
    for k in range(0, K, 32):
        acc += kl.dot(kl.load(a_ptrs), kl.load(b_ptrs))
        a_ptrs += 32
        b_ptrs += 32 * stride_bk
    kl.store(c_ptr + rows[:, None] * 64 + cols[None, :], acc)


def test_pointers_stepped_inside_the_loop_are_still_pipelined():
    """The step's splat is computed in the loop body; hoisted before the
    loop, its alignment is known and the loads go through cp.async."""
    a = np.zeros((64, 128), np.float16)
    b = np.zeros((128, 64), np.float16)
    c = np.zeros((64, 64), np.float32)
    ptx = stepping_matmul.asm(c, a, b, 128, 64, chip="sm_80")["ptx"]
    assert "cp.async.cg.shared.global" in ptx
    assert "mma.sync.aligned.m16n8k16" in ptx


@pytest.mark.parametrize("stages", [1, 2, 3, 4])
def test_range_num_stages_sets_the_pipeline_depth(stages):
    a = np.random.default_rng(3).random((64, 128)).astype(np.float16)
    b = np.random.default_rng(4).random((128, 64)).astype(np.float16)
    c = np.zeros((64, 64), np.float32)
    ptx = staged_matmul.asm(c, a, b, 128, STAGES=stages, chip="sm_80")["ptx"]
    # Two operands of 64x32 / 32x64 f16: 2 x 16-byte copies each per thread
    # and stage, issued by the prologue (stages - 1) and the loop (1).
    assert ptx.count("cp.async.cg.shared.global") == (4 * stages
                                                     if stages > 1 else 0)
    if stages > 1:
        assert re.search(rf"cp\.async\.wait_group\s+{stages - 2};", ptx)
    # The host target runs the same kernel, stages or not.
    staged_matmul[(1,)](c, a, b, 128, STAGES=stages)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64),
                               rtol=1e-5)


def test_num_stages_of_a_compilation_is_the_default_depth():
    """`num_stages` of asm (and of a launch) applies to loops that do not
    set their own."""
    a = np.zeros((64, 128), np.float16)
    b = np.zeros((128, 64), np.float16)
    c = np.zeros((64, 64), np.float32)
    for stages in (1, 2, 4):
        ptx = small_matmul.asm(c, a, b, 64, 64, 128, BLOCK=32, chip="sm_80",
                               num_stages=stages)["ptx"]
        waits = re.findall(r"cp\.async\.wait_group\s+(\d+);", ptx)
        assert waits == ([] if stages == 1 else [str(stages - 2), "0"])


def test_range_num_stages_must_be_a_constant_of_at_least_0():
    """0, which Triton takes, is 1: not pipelined."""
    @kiln.jit
    def stages(x_ptr, n, STAGES: kl.constexpr):
        for i in range(0, n, num_stages=STAGES):
            kl.store(x_ptr + i, 1.0)

    x = np.zeros(4, np.float32)
    stages[(1,)](x, 4, STAGES=0)
    np.testing.assert_array_equal(x, 1.0)
    assert "tile.num_stages = 1" in stages.ir(x, 4, STAGES=0)
    with pytest.raises(KilnCompileError, match="num_stages must be a "
                                               "constant integer of at least "
                                               "0"):
        stages[(1,)](x, 4, STAGES=-1)


def tensor_core_inputs(torch, element, m, n, k, b_column_major):
    """Random operands (small integers for i8) and B's strides."""
    if element == np.int8:
        a = torch.randint(-8, 8, (m, k), device="cuda", dtype=torch.int8)
        b = torch.randint(-8, 8, (k, n), device="cuda", dtype=torch.int8)
    else:
        dtype = torch.float16 if element == np.float16 else torch.float32
        a = torch.randn(m, k, device="cuda", dtype=dtype)
        b = torch.randn(k, n, device="cuda", dtype=dtype)
    if b_column_major:
        stored = b.t().contiguous()  # N x K in memory
        return a, stored, b, (1, k)
    return a, b, b, (n, 1)


@pytest.mark.parametrize("b_column_major", [False, True])
@pytest.mark.parametrize("case", TENSOR_CORE_CASES)
def test_tensor_core_matmul_on_the_gpu_against_float64(case, b_column_major):
    torch = torch_cuda()
    element, precision, _, _ = TENSOR_CORE_CASES[case]
    # Ragged sizes: every block edge is masked.
    m, n, k = 157, 203, 91
    a, stored_b, b, (stride_bk, stride_bn) = tensor_core_inputs(
        torch, element, m, n, k, b_column_major)
    out_dtype = torch.int32 if element == np.int8 else torch.float32
    c = torch.empty(m, n, device="cuda", dtype=out_dtype)
    grid = (kiln.cdiv(m, 64), kiln.cdiv(n, 64))
    tensor_core_matmul[grid](c, a, stored_b, m, n, k, stride_bk, stride_bn,
                             BM=64, BN=64, BK=32, PRECISION=precision)
    torch.cuda.synchronize()
    expected = a.double() @ b.double()
    if element == np.int8:
        assert torch.equal(c.long(), expected.long())
        return
    # fp16 products are exact in fp32; tf32 keeps 10 mantissa bits, and
    # tf32x3 recovers nearly all of f32's 23.
    tolerance = {"f16": 2e-3, "tf32": 2e-2, "tf32x3": 1e-5}[case]
    scale = expected.abs().max().item()
    error = (c.double() - expected).abs().max().item()
    assert error <= tolerance * scale, (error, scale)


@kiln.jit
def cast_matmul(c_ptr, a_ptr, b_ptr, M, N, K, BM: kl.constexpr,
                BN: kl.constexpr, BK: kl.constexpr):
    # A is f32 in memory and cast to f16 before the product: a prologue,
    # which leaves A in registers (what kiln-fuse makes of a cast feeding
    # a matmul).
    rows = kl.program_id(0) * BM + kl.arange(0, BM)
    cols = kl.program_id(1) * BN + kl.arange(0, BN)
    acc = kl.zeros((BM, BN), kl.float32)
    for k in range(0, K, BK):
        ks = k + kl.arange(0, BK)
        a = kl.load(a_ptr + rows[:, None] * K + ks[None, :],
                    mask=(rows[:, None] < M) & (ks[None, :] < K), other=0.0)
        b = kl.load(b_ptr + ks[:, None] * N + cols[None, :],
                    mask=(ks[:, None] < K) & (cols[None, :] < N), other=0.0)
        acc += kl.dot(a.to(kl.float16), b)
    kl.store(c_ptr + rows[:, None] * N + cols[None, :], acc,
             mask=(rows[:, None] < M) & (cols[None, :] < N))


def test_a_prologue_keeps_a_in_registers_for_wgmma():
    m, n, k = 200, 144, 256
    rng = np.random.default_rng(7)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = np.zeros((m, n), np.float32)
    args = (c, a, b, m, n, k)
    ptx = cast_matmul.asm(*args, BM=64, BN=64, BK=32, chip="sm_90a")["ptx"]
    # B from its slot, A (cast in registers) as four 32-bit registers per
    # thread: one m64n64k16 per K step of 16.
    with_a_in_registers = re.findall(
        r"wgmma\.mma_async\.sync\.aligned\.m64n64k16\.f32\.f16\.f16 "
        r"\{[^}]*\}, \{%r\d+, %r\d+, %r\d+, %r\d+\}, %rd\d+, p, 1, 1, 1;",
        ptx)
    assert len(with_a_in_registers) == 2, ptx
    assert "mma.sync" not in ptx
    # The kernel itself, on the host target.
    cast_matmul[(kiln.cdiv(m, 64), kiln.cdiv(n, 64))](
        *args, BM=64, BN=64, BK=32)
    expected = a.astype(np.float16).astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c, expected, rtol=1e-4, atol=1e-3)


# wgmma on the GPU: aligned operands (so the K loop is pipelined), ragged
# M and N, in the default blocking and in 128x128x64 with two warpgroups
# (dynamic shared memory), and with A cast in registers.
WGMMA_CASES = {
    "f16 64x64x32": ("f16", dict(BM=64, BN=64, BK=32)),
    "bf16 64x64x32": ("bf16", dict(BM=64, BN=64, BK=32)),
    "f16 128x128x64, 8 warps": ("f16", dict(BM=128, BN=128, BK=64,
                                           num_warps=8)),
    "cast A 64x64x32": ("cast", dict(BM=64, BN=64, BK=32)),
}


@pytest.mark.parametrize("case", WGMMA_CASES)
def test_wgmma_matmuls_on_the_gpu_against_float64(case):
    torch = torch_cuda()
    element, meta = WGMMA_CASES[case]
    m, n, k = 200, 144, 256
    dtype = {"f16": torch.float16, "bf16": torch.bfloat16,
             "cast": torch.float32}[element]
    a = torch.randn(m, k, device="cuda", dtype=dtype)
    b = torch.randn(k, n, device="cuda",
                    dtype=torch.bfloat16 if element == "bf16"
                    else torch.float16)
    c = torch.empty(m, n, device="cuda")
    grid = (kiln.cdiv(m, meta["BM"]), kiln.cdiv(n, meta["BN"]))
    if element == "cast":
        cast_matmul[grid](c, a, b, m, n, k, **meta)
        a = a.half()
    else:
        tensor_core_matmul[grid](c, a, b, m, n, k, n, 1, PRECISION="ieee",
                                 **meta)
    torch.cuda.synchronize()
    expected = a.double() @ b.double()
    error = (c.double() - expected).abs().max().item()
    assert error <= 2e-3 * expected.abs().max().item(), error


BLOCK_COPY = """
func.func @block_copy(%a: !tile.ptr<f32>, %out: !tile.ptr<f32>, %m: i64, %n: i64) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i64
  %c16 = arith.constant 16 : i32
  %c32 = arith.constant 32 : i32
  %pm = tile.program_id x
  %pn = tile.program_id y
  %om = arith.muli %pm, %c16 : i32
  %on = arith.muli %pn, %c32 : i32
  %src = tile.make_block_ptr %a, [%m, %n], [%n, %c1], [%om, %c0] {order = array<i32: 1, 0>} : !tile.ptr<f32> -> !tile.block_ptr<16x32xf32>
  %moved = tile.advance %src, [%c0, %on] : !tile.block_ptr<16x32xf32>
  %dst = tile.make_block_ptr %out, [%m, %n], [%n, %c1], [%om, %on] {order = array<i32: 1, 0>} : !tile.ptr<f32> -> !tile.block_ptr<16x32xf32>
  %t = tile.block_load %moved boundary_check = [0, 1] : !tile.block_ptr<16x32xf32> -> tensor<16x32xf32>
  %two = arith.constant dense<2.0> : tensor<16x32xf32>
  %d = arith.mulf %t, %two : tensor<16x32xf32>
  tile.block_store %dst, %d boundary_check = [0, 1] : !tile.block_ptr<16x32xf32>, tensor<16x32xf32>
  return
}"""


def block_copy_inputs() -> tuple[np.ndarray, tuple[int, int]]:
    """A 50x70 matrix, and the grid of 16x32 blocks covering it (the last
    ones overhang)."""
    return (np.random.default_rng(6).standard_normal((50, 70))
            .astype(np.float32), (4, 3))


def test_block_pointers_on_the_host_and_compiled_for_the_gpu():
    from kiln.host import HostExecutable
    a, grid = block_copy_inputs()
    out = np.zeros_like(a)
    with kiln.Context() as ctx:
        module = kiln.Module.parse(ctx, BLOCK_COPY)
        with HostExecutable(module) as exe:
            exe.launch("block_copy", grid, a, out, 50, 70)
        np.testing.assert_array_equal(out, 2 * a)
        with GPUBinary(module, "sm_90a") as binary:
            assert "@%p" in binary.ptx  # bounds become predicates


def test_block_pointers_on_the_gpu_against_torch():
    torch = torch_cuda()
    a, grid = block_copy_inputs()
    ta = torch.from_numpy(a).cuda()
    tout = torch.zeros_like(ta)
    with kiln.Context() as ctx:
        module = kiln.Module.parse(ctx, BLOCK_COPY)
        with GPUBinary(module, device_chip()) as binary, \
                binary.load() as loaded:
            loaded.launch("block_copy", grid, ta, tout, 50, 70)
            torch.cuda.synchronize()
    torch.testing.assert_close(tout, 2 * ta)


def test_disk_cache_entries_are_whole_or_ignored(tmp_path, monkeypatch):
    from kiln import cache
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path / "cache"))
    name = cache.key("module {}", "sm_90a", GPUOptions())
    assert name != cache.key("module {}", "sm_80", GPUOptions())
    for options in (GPUOptions(num_stages=2), GPUOptions(maxnreg=128),
                    GPUOptions(enable_fp_fusion=False)):
        assert name != cache.key("module {}", "sm_90a", options)
    assert cache.load(name) is None
    maps = "k 3 6 2 64 64 128 0 8 -1 64 1 4 1 4\n"
    arguments = {"k": ["!tile.ptr<f16>", "i32"]}
    assert cache.store(name, ".version 8.0", b"\x7fELF-ish", 128, 98304,
                       maps, arguments)
    assert cache.load(name) == (".version 8.0", b"\x7fELF-ish", 128, 98304,
                                maps, arguments)
    assert [p.name for p in (tmp_path / "cache").iterdir()] == \
        [f"{name}.kiln"]  # no temporary left behind
    # A truncated entry (a crash mid-write elsewhere), a garbled one and
    # one with a byte flipped in its body are reported and not used.
    path = tmp_path / "cache" / f"{name}.kiln"
    whole = path.read_bytes()
    flipped = whole[:-1] + bytes([whole[-1] ^ 1])
    other_map = whole.replace(b"k 3 6 2 64 64", b"k 3 6 2 64 32")
    other_types = whole.replace(b"!tile.ptr<f16>", b"!tile.ptr<f32>")
    for damaged in (whole[:-3], b"garbage", flipped, other_map, other_types):
        path.write_bytes(damaged)
        with pytest.warns(RuntimeWarning, match="is damaged"):
            assert cache.load(name) is None
    # A cache that cannot be written is no cache, not an error.
    monkeypatch.setenv("KILN_CACHE_DIR", str(path / "under-a-file"))
    assert not cache.store(name, ".version 8.0", b"", 128)
    assert cache.load(name) is None


def test_disk_cache_reads_only_regular_entries_of_bounded_size(
        tmp_path, monkeypatch, deadline):
    """A FIFO (which blocked the launch), a link to /dev/zero (which read
    until MemoryError), a folder and an entry larger than MAX_ENTRY_BYTES
    are damaged entries; a link to a whole entry is that entry."""
    from kiln import cache
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path / "cache"))
    name = cache.key("module {}", "sm_90a", GPUOptions())
    entry = (".version 8.0", b"\x7fELF-ish", 128, 0, "", {})
    assert cache.store(name, *entry)
    path = tmp_path / "cache" / f"{name}.kiln"
    whole = tmp_path / "whole.kiln"
    os.replace(path, whole)
    path.symlink_to(whole)
    assert cache.load(name) == entry
    path.unlink()
    for make, remove in ((os.mkfifo, os.unlink),
                         (lambda p: p.symlink_to("/dev/zero"), os.unlink),
                         (os.mkdir, os.rmdir)):
        make(path)
        with pytest.warns(RuntimeWarning, match="not a regular file"):
            assert cache.load(name) is None
        remove(path)
    # The compilation that follows replaces a FIFO with the entry.
    os.mkfifo(path)
    assert cache.store(name, *entry)
    assert cache.load(name) == entry
    monkeypatch.setattr(cache, "MAX_ENTRY_BYTES", path.stat().st_size - 1)
    with pytest.warns(RuntimeWarning, match="more than the"):
        assert cache.load(name) is None


def test_disk_cache_headers_no_compilation_writes_are_damaged(
        tmp_path, monkeypatch):
    """A header nested 100,000 deep (a RecursionError), fields of the
    wrong type (a str tensor_maps was an AttributeError), and metadata no
    launch can use under a matching SHA-256 (a crafted entry, which failed
    every launch until removed by hand) are reported and compiled again."""
    from kiln import cache
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path / "cache"))
    name = cache.key("module {}", "sm_90a", GPUOptions())
    entry = (".version 8.0", b"\x7fELF-ish", 128, 98304, "", {"k": ["i32"]})
    assert cache.store(name, *entry)
    path = tmp_path / "cache" / f"{name}.kiln"
    data = path.read_bytes()
    size = int.from_bytes(data[:4], "little")
    header, body = json.loads(data[4:4 + size]), data[4 + size:]
    bad = [{"tensor_maps": 5}, {"threads": "128"}, {"threads": True},
           {"sha256": None}, {"ptx": -1, "cubin": len(body) + 1},
           {"threads": 0}, {"threads": 2**40}, {"threads": 100},
           {"threads": 2048}, {"shared": -1}, {"shared": 228 * 1024},
           {"arguments": None}, {"arguments": ["i32"]},
           {"arguments": {"k": "i32"}}, {"arguments": {"k": [32]}}]
    for text in [b"[" * 100_000, b"[1, 2]",
                 *(json.dumps({**header, **change}).encode()
                   for change in bad)]:
        path.write_bytes(len(text).to_bytes(4, "little") + text + body)
        with pytest.warns(RuntimeWarning, match="is damaged"):
            assert cache.load(name) is None, text[:80]
    assert cache.store(name, *entry)
    assert cache.load(name) == entry


def test_disk_cache_removes_temporaries_dead_writers_left(tmp_path,
                                                          monkeypatch):
    """A writer killed between writing its temporary and renaming it
    leaves the temporary; the next write to the folder removes those over
    an hour old, never a live writer's nor a file not named as ours."""
    from kiln import cache
    folder = tmp_path / "cache"
    folder.mkdir()
    monkeypatch.setenv("KILN_CACHE_DIR", str(folder))
    name = cache.key("module {}", "sm_90a", GPUOptions())
    dead = [folder / f".{name}.kiln.k1lled00", folder / ".0a1b.kiln.k1lled01"]
    live = folder / f".{name}.kiln.wr1ting0"
    notes = folder / "notes.txt"
    two_hours_ago = time.time() - 2 * 3600
    for file in (*dead, live, notes):
        file.write_bytes(b"half an entry")
    for file in (*dead, notes):
        os.utime(file, (two_hours_ago, two_hours_ago))
    assert cache.store(name, ".version 8.0", b"", 128)
    assert sorted(p.name for p in folder.iterdir()) == \
        sorted([f"{name}.kiln", live.name, notes.name])


def aligned_tma_matmul() -> str:
    """docs/examples/matmul_tma.mlir with its pointers and sizes known to be
    multiples of 16, as a launch with such arguments specializes it."""
    text = (EXAMPLES / "matmul_tma.mlir").read_text()
    for arg in ("%a: !tile.ptr<f16>", "%b: !tile.ptr<f16>",
                "%c: !tile.ptr<f32>", "%M: i32", "%N: i32", "%K: i32"):
        text = text.replace(arg, arg + " {tile.divisibility = 16 : i64}")
    return text


# The maps of A (128x64 boxes) and B (64x64 boxes, two per 64x128 block):
# parameter, data type (f16), element bytes, box, swizzle, then base, rows,
# columns and row stride as (argument, bytes) pairs.
TMA_MATMUL_MAPS = ("matmul_tma 6 6 2 128 64 128 0 8 3 4 5 4 5 4\n"
                   "matmul_tma 7 6 2 64 64 128 1 8 5 4 4 4 4 4\n"
                   "matmul_tma 8 7 4 128 32 128 2 8 3 4 4 4 4 4\n")


def test_a_tma_binary_records_how_launches_build_its_tensor_maps():
    with kiln.Context() as ctx:
        module = kiln.Module.parse(ctx, aligned_tma_matmul())
        with GPUBinary(module, "sm_90a", num_warps=8) as binary:
            assert binary.tensor_maps == TMA_MATMUL_MAPS
            assert "cp.async.bulk.tensor.2d" in binary.ptx
            assert ".param .align 64 .b8 matmul_tma_param_7[128]" in \
                binary.ptx
            with GPUBinary.from_artifacts(
                    module, "sm_90a", binary.ptx, binary.cubin, 256,
                    binary.dynamic_shared_bytes,
                    binary.tensor_maps) as cached:
                assert cached.tensor_maps == TMA_MATMUL_MAPS
        with pytest.raises(KilnError, match="tensor map line 1 is not"):
            GPUBinary.from_artifacts(module, "sm_90a", ".version 8.0", b"",
                                     256, 0, "matmul_tma 6")
        # Before sm_90 there is no TMA: no maps.
        with GPUBinary(module, "sm_80", num_warps=8) as binary:
            assert binary.tensor_maps == ""
            assert "cp.async.bulk" not in binary.ptx


@needs_stand_in
def test_tma_launches_build_their_maps_from_the_arguments():
    # The stand-in refuses a launch whose 128-byte parameters hold no
    # tensor map, and records the maps it was given.
    result = run_python("""
        import ctypes
        import numpy as np
        import kiln
        from kiln.gpu import GPUBinary
        from test_gpu import FAKE, FakeDeviceArray, aligned_tma_matmul

        class Map(ctypes.Structure):
            _fields_ = [("magic", ctypes.c_char * 8),
                        ("base", ctypes.c_ulonglong),
                        ("dims", ctypes.c_ulonglong * 2),
                        ("row_bytes", ctypes.c_ulonglong),
                        ("box", ctypes.c_uint * 2), ("data_type", ctypes.c_int),
                        ("swizzle", ctypes.c_int)]

        class Launch(ctypes.Structure):
            _fields_ = [("grid", ctypes.c_uint * 3), ("block", ctypes.c_uint * 3),
                        ("shared", ctypes.c_uint), ("max_shared", ctypes.c_int),
                        ("args", ctypes.c_void_p), ("maps", ctypes.c_int),
                        ("map", Map * 4)]
        last = ctypes.CDLL(str(FAKE)).fakeCudaLastLaunch
        last.restype = ctypes.POINTER(Launch)
        m, n, k = 256, 192, 352
        a = FakeDeviceArray(np.zeros((m, k), np.float16))
        b = FakeDeviceArray(np.zeros((k, n), np.float16))
        c = FakeDeviceArray(np.zeros((m, n), np.float32))
        with kiln.Context() as ctx:
            module = kiln.Module.parse(ctx, aligned_tma_matmul())
            with GPUBinary(module, "sm_90a", num_warps=8) as binary, \
                    binary.load() as loaded:
                loaded.launch("matmul_tma", (2, 2), a, b, c, m, n, k)
                launch = last().contents
                print(launch.maps)
                for i in range(launch.maps):
                    t = launch.map[i]
                    print(t.base == (a, b, c)[i].__cuda_array_interface__["data"][0],
                          list(t.dims), t.row_bytes, list(t.box), t.swizzle)
                try:
                    loaded.launch("matmul_tma", (2, 2), a, b, c, m, n, k + 1)
                except kiln.KilnError as error:
                    print(error)
        """)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "3"
    # Innermost dimension first; rows K (for A) and N (for B and C) apart;
    # C's f32 block stored in 32-column slabs of the 128-byte swizzle.
    assert lines[1] == "True [352, 256] 704 [64, 128] 128"
    assert lines[2] == "True [192, 352] 384 [64, 64] 128"
    assert lines[3] == "True [192, 256] 768 [32, 128] 128"
    assert "cannot build the tensor map of parameter 6 of 'matmul_tma'" in \
        lines[4]
    assert "the row stride is not a multiple of 16 bytes" in lines[4]


@needs_stand_in
def test_a_second_process_loads_the_binary_from_disk(tmp_path):
    code = """
        import numpy as np, kiln.gpu, kiln.jit
        from test_gpu import FakeDeviceArray, scale
        compiled = []
        original = kiln.gpu.GPUBinary.__init__
        def counting(self, *args, **kwargs):
            compiled.append(1)
            original(self, *args, **kwargs)
        kiln.gpu.GPUBinary.__init__ = counting
        x = FakeDeviceArray(np.zeros(3000, np.float32))
        scale[(3,)](x, x, 3000, 2.0, BLOCK=1024)
        print("compiled", len(compiled))
        """
    env = {"KILN_CACHE_DIR": str(tmp_path / "cache")}
    first = run_python(code, **env)
    second = run_python(code, **env)
    assert first.returncode == 0, first.stderr
    assert second.returncode == 0, second.stderr
    assert first.stdout.split() == ["compiled", "1"]
    assert second.stdout.split() == ["compiled", "0"]
    assert len(list((tmp_path / "cache").glob("*.kiln"))) == 1


@needs_stand_in
def test_require_cache_hit_turns_a_miss_into_an_error(tmp_path):
    code = """
        import numpy as np, kiln
        from test_gpu import FakeDeviceArray, scale
        x = FakeDeviceArray(np.zeros(3000, np.float32))
        try:
            scale[(3,)](x, x, 3000, 2.0, BLOCK=1024)
            print("launched")
        except kiln.KilnError as exc:
            print("refused:", exc)
        """
    env = {"KILN_CACHE_DIR": str(tmp_path / "cache")}
    refused = run_python(code, KILN_REQUIRE_CACHE_HIT="1", **env)
    assert refused.returncode == 0, refused.stderr
    assert "refused: KILN_REQUIRE_CACHE_HIT is set, but kernel 'scale' " \
        "for" in refused.stdout
    assert not list((tmp_path / "cache").glob("*.kiln"))
    assert run_python(code, **env).stdout.strip() == "launched"
    hit = run_python(code, KILN_REQUIRE_CACHE_HIT="1", **env)
    assert hit.stdout.strip() == "launched", hit.stdout + hit.stderr


@needs_stand_in
def test_warmup_fills_the_cache_a_later_launch_loads(tmp_path):
    """Compiled ahead, without a device, for the chip a later process
    launches on: that launch compiles nothing."""
    env = {"KILN_CACHE_DIR": str(tmp_path / "cache")}
    ahead = run_python("""
        import numpy as np
        from test_gpu import scale
        x = np.zeros(3000, np.float32)
        scale.warmup(x, x, 3000, 2.0, BLOCK=1024, chip="sm_90a")
        print("compiled")
        """, **env)
    assert ahead.stdout.strip() == "compiled", ahead.stderr
    launch = run_python("""
        import numpy as np
        from test_gpu import FakeDeviceArray, scale
        x = FakeDeviceArray(np.zeros(3000, np.float32))
        scale[(3,)](x, x, 3000, 2.0, BLOCK=1024)
        print("launched")
        """, KILN_REQUIRE_CACHE_HIT="1", **env)
    assert launch.stdout.strip() == "launched", launch.stdout + launch.stderr


@needs_stand_in
def test_two_processes_compiling_at_once_share_one_whole_entry(tmp_path):
    code = textwrap.dedent("""
        import numpy as np
        from test_gpu import FakeDeviceArray, scale
        x = FakeDeviceArray(np.zeros(3000, np.float32))
        scale[(3,)](x, x, 3000, 2.0, BLOCK=1024)
        print("ok")
        """)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python") + os.pathsep +
           str(Path(__file__).parent), "KILN_CUDA_DRIVER": str(FAKE),
           "KILN_PTXAS": "/nonexistent/ptxas",
           "KILN_CACHE_DIR": str(tmp_path / "cache")}
    processes = [subprocess.Popen([sys.executable, "-c", code], env=env,
                                  stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
                 for _ in range(2)]
    for process in processes:
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0 and out.strip() == "ok", err
    entries = list((tmp_path / "cache").iterdir())
    assert [e.suffix for e in entries] == [".kiln"]  # no temporaries
    assert b".entry scale" in entries[0].read_bytes()


class DLPackCudaArray:
    """A CUDA array that offers only DLPack, as a library without
    __cuda_array_interface__ would: a DLManagedTensor in a "dltensor"
    capsule over host memory, which the stand-in driver's "device" uses."""

    def __init__(self, array: np.ndarray, offset: int = 0,
                 code: int | None = None) -> None:
        """`code`: the DLPack type code, if not `array`'s (4 makes 2-byte
        elements bfloat16)."""
        from kiln.dlpack import _DLDataType, _DLDevice, _DLTensor
        self.array = array
        self._shape = (ctypes.c_int64 * array.ndim)(*array.shape)
        if code is None:
            code = {"f": 2, "i": 0}[array.dtype.kind]
        self._tensor = _DLTensor(
            ctypes.c_void_p(array.ctypes.data - offset), _DLDevice(2, 0),
            array.ndim, _DLDataType(code, array.dtype.itemsize * 8, 1),
            self._shape, None, offset)

    def __dlpack_device__(self):
        return (2, 0)

    def __dlpack__(self, stream=None):
        self.stream = stream
        new = ctypes.pythonapi.PyCapsule_New
        new.restype = ctypes.py_object
        new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        return new(ctypes.addressof(self._tensor), b"dltensor", None)


def test_dlpack_cuda_arrays_are_device_arrays():
    from kiln import dlpack
    data = np.arange(12, dtype=np.float32)
    producer = DLPackCudaArray(data, offset=64)
    adapted = dlpack.adapt(producer)
    # The producer is told the stream Kiln launches on (without a CUDA
    # PyTorch, the legacy default stream: DLPack's 1).
    assert producer.stream == (kiln.gpu.current_stream(0) or 1)
    interface = adapted.__cuda_array_interface__
    assert interface["data"][0] == data.ctypes.data  # data + byte_offset
    assert interface["shape"] == (12,) and interface["typestr"] == "<f4"
    assert is_device_array(adapted)
    assert scale.ir(adapted, adapted, 12, 2.0, BLOCK=16).count(
        "!tile.ptr<f32>") >= 2

    class OnAnotherDevice:
        def __dlpack_device__(self):
            return (4, 0)  # OpenCL

        def __dlpack__(self, stream=None):
            raise AssertionError("not asked for")
    with pytest.raises(KilnError, match="device type 4 cannot be passed"):
        scale.ir(OnAnotherDevice(), adapted, 12, 2.0, BLOCK=16)


class TorchBfloat16Like:
    """What a bfloat16 CUDA tensor of PyTorch offers: numpy has no
    bfloat16, so its interface says two bytes of no type ("<V2")."""
    dtype = "torch.bfloat16"

    def __init__(self, typestr: str = "<V2") -> None:
        self.__cuda_array_interface__ = {
            "shape": (16,), "typestr": typestr, "data": (4096, False),
            "strides": None, "version": 3}


def test_bfloat16_device_arrays_specialize_to_bf16():
    torch_like = TorchBfloat16Like()
    assert device_array_element(torch_like) == "bf16"
    dlpack_bf16 = kiln.dlpack.adapt(
        DLPackCudaArray(np.zeros(16, np.uint16), code=4))
    assert device_array_element(dlpack_bf16) == "bf16"
    for array in (torch_like, dlpack_bf16):
        assert scale.ir(array, array, 16, 2.0, BLOCK=16).count(
            "!tile.ptr<bf16>") >= 2
    # Two bytes of no type are bfloat16 only when the array says so.
    anonymous = TorchBfloat16Like()
    anonymous.dtype = "void16"
    with pytest.raises(KilnError, match="numpy dtype |V2 has no kiln type"):
        device_array_element(anonymous)
    with pytest.raises(KilnError, match="type code 4, 32 bits"):
        kiln.dlpack.adapt(DLPackCudaArray(np.zeros(4, np.float32), code=4))


@needs_stand_in
def test_a_bf16_kernel_takes_only_bfloat16_device_arrays():
    result = run_python("""
        import numpy as np
        from kiln import dlpack
        from kiln.errors import KilnError
        from test_gpu import DLPackCudaArray, TorchBfloat16Like, scale
        bound = scale.bind((TorchBfloat16Like(), TorchBfloat16Like(), 16,
                            2.0), {"BLOCK": 16})
        module = scale.compile_gpu(*scale.specialize(bound))
        floats = dlpack.adapt(DLPackCudaArray(np.zeros(16, np.float32)))
        try:
            module.launch("scale", (1,), TorchBfloat16Like(), floats, 16,
                          2.0)
        except KilnError as error:
            print(error)
        """)
    assert result.returncode == 0, result.stderr
    assert "must be an array of bfloat16, not float32" in result.stdout


@needs_stand_in
def test_dlpack_cuda_arrays_launch_through_the_driver():
    result = run_python("""
        import numpy as np
        from test_gpu import DLPackCudaArray, scale
        x = DLPackCudaArray(np.arange(3000, dtype=np.float32))
        out = DLPackCudaArray(np.zeros(3000, np.float32))
        scale[(3,)](x, out, 3000, 2.0, BLOCK=1024)
        print(len(scale._gpu_cache), "on the GPU,", len(scale._cache),
              "on the host")
        """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["1", "on", "the", "GPU,", "0", "on",
                                     "the", "host"]


@needs_stand_in
def test_big_tiles_launch_with_dynamic_shared_memory():
    # 128x128x64 f16 blocks, three stages: 96 KiB of slots, more than the
    # static 48 KiB. The kernel declares its shared memory `.extern`, the
    # binary says how much, and every launch gives it (the runtime raises
    # the kernel's limit first); from the cache too.
    result = run_python("""
        import ctypes
        import numpy as np
        import kiln
        import kiln.language as kl
        from test_gpu import FAKE, FakeDeviceArray, tensor_core_matmul

        class Launch(ctypes.Structure):
            _fields_ = [("grid", ctypes.c_uint * 3), ("block", ctypes.c_uint * 3),
                        ("shared", ctypes.c_uint), ("max_shared", ctypes.c_int),
                        ("args", ctypes.c_void_p)]
        last = ctypes.CDLL(str(FAKE)).fakeCudaLastLaunch
        last.restype = ctypes.POINTER(Launch)
        a = FakeDeviceArray(np.zeros((256, 256), np.float16))
        c = FakeDeviceArray(np.zeros((256, 256), np.float32))
        args = (c, a, a, 256, 256, 256, 256, 1)
        meta = dict(BM=128, BN=128, BK=64, PRECISION="ieee", num_warps=8,
                    num_stages=3)
        ptx = tensor_core_matmul.asm(*args, chip="sm_90a", **meta)["ptx"]
        print(".extern .shared .align 1024 .b8 __kiln_shared[];" in ptx,
              ptx.count("wgmma.mma_async.sync.aligned.m64n128k16"))
        tensor_core_matmul[(2, 2)](*args, **meta)
        launch = last().contents
        print(launch.shared, launch.max_shared, list(launch.block))
        tensor_core_matmul._gpu_cache.clear()
        import os
        os.environ["KILN_REQUIRE_CACHE_HIT"] = "1"
        tensor_core_matmul[(2, 2)](*args, **meta)
        print(last().contents.shared)
        """)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "True 4"
    slots = 3 * (128 * 64 + 64 * 128) * 2
    shared, limit, block = lines[1].split(" ", 2)
    assert int(shared) >= slots and int(limit) == int(shared)
    assert block == "[256, 1, 1]"
    assert lines[2] == shared


@kiln.jit
def random_bits(ints_ptr, uniform_ptr, seed, n, BLOCK: kl.constexpr):
    offsets = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK)
    mask = offsets < n
    kl.store(ints_ptr + offsets, kl.randint(seed, offsets), mask=mask)
    kl.store(uniform_ptr + offsets, kl.rand(seed, offsets), mask=mask)


def test_random_numbers_on_the_gpu_are_the_hosts():
    """Philox on the GPU (mul.hi.u32) draws the host's bits."""
    n = 10_000
    ints, uniform = np.zeros(n, np.int32), np.zeros(n, np.float32)
    random_bits[(kiln.cdiv(n, 1024),)](ints, uniform, 1234, n, BLOCK=1024)
    torch = torch_cuda()
    gpu_ints = torch.empty(n, dtype=torch.int32, device="cuda")
    gpu_uniform = torch.empty(n, dtype=torch.float32, device="cuda")
    random_bits[(kiln.cdiv(n, 1024),)](gpu_ints, gpu_uniform, 1234, n,
                                      BLOCK=1024)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(gpu_ints.cpu().numpy(), ints)
    np.testing.assert_array_equal(gpu_uniform.cpu().numpy(), uniform)


@kiln.jit
def guarded_division(out_ptr, x_ptr, y_ptr, BLOCK: kl.constexpr):
    i = kl.arange(0, BLOCK)
    x, y = kl.load(x_ptr + i), kl.load(y_ptr + i)
    kl.store(out_ptr + i, x // y)
    kl.store(out_ptr + BLOCK + i, x % y)


def test_integer_division_by_zero_on_the_gpu_is_the_hosts():
    x = np.array([7, -7, -2**31, 5, -2**31, 0, 9, -9], np.int32)
    y = np.array([2, 2, -1, 0, 0, 0, -4, -4], np.int32)
    out = np.zeros(16, np.int32)
    guarded_division[(1,)](out, x, y, BLOCK=8)
    torch = torch_cuda()
    gpu = torch.empty(16, dtype=torch.int32, device="cuda")
    guarded_division[(1,)](gpu, torch.from_numpy(x).cuda(),
                           torch.from_numpy(y).cuda(), BLOCK=8)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(gpu.cpu().numpy(), out)


@kiln.jit
def row_moments(mean_ptr, var_ptr, x_ptr, n_cols, BLOCK: kl.constexpr):
    row = kl.program_id(0)
    cols = kl.arange(0, BLOCK)
    mask = cols < n_cols
    x = kl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    count = kl.where(mask, 1.0, 0.0)
    mean, m2, n = kl.reduce((x, kl.zeros_like(x), count), 0,
                            welford_combine)
    kl.store(mean_ptr + row, mean)
    kl.store(var_ptr + row, m2 / n)


def test_reduce_with_a_combining_function_on_the_gpu_against_torch():
    """Welford's combination through kl.reduce: shuffles and shared
    memory on the GPU combine in another order than the host."""
    x = np.random.default_rng(3).standard_normal((37, 1000)).astype(
        np.float32)
    mean, var = np.zeros(37, np.float32), np.zeros(37, np.float32)
    row_moments[(37,)](mean, var, x, 1000, BLOCK=1024)
    np.testing.assert_allclose(mean, x.mean(1), atol=1e-5)
    np.testing.assert_allclose(var, x.var(1), rtol=1e-4)
    torch = torch_cuda()
    gpu_x = torch.from_numpy(x).cuda()
    gpu_mean = torch.empty(37, device="cuda")
    gpu_var = torch.empty(37, device="cuda")
    row_moments[(37,)](gpu_mean, gpu_var, gpu_x, 1000, BLOCK=1024)
    torch.cuda.synchronize()
    want_var, want_mean = torch.var_mean(gpu_x.double(), dim=1,
                                         unbiased=False)
    torch.testing.assert_close(gpu_mean, want_mean.float(), atol=1e-5,
                               rtol=1e-5)
    torch.testing.assert_close(gpu_var, want_var.float(), rtol=1e-4,
                               atol=1e-5)
