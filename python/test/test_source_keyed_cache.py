"""A GPU binary on disk is found by the kernel's source fingerprint and
specialization, so a new process launches it without running the front end
or parsing IR; editing the kernel, a jit function it calls, a global it
reads, a Python function it runs as it compiles, or moving it in its file,
keys it anew. Launches go through the
stand-in CUDA driver (PTX only), each step in a fresh process."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("KILN_BUILD_DIR", ROOT / "build")).resolve()
FAKE = BUILD / "unittests" / "libKilnFakeCudaDriver.so"

pytestmark = pytest.mark.skipif(
    not FAKE.exists(), reason=f"the stand-in driver is not built ({FAKE})")

KERNELS = textwrap.dedent("""\
    import kiln
    import kiln.language as kl

    SCALE = 2.0


    def unit(block):
        return block // block


    @kiln.jit
    def scaled(x):
        return x * SCALE


    @kiln.jit
    def kernel(x_ptr, out_ptr, n, BLOCK: kl.constexpr):
        offs = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK) * unit(BLOCK)
        mask = offs < n
        kl.store(out_ptr + offs, scaled(kl.load(x_ptr + offs, mask=mask)),
                 mask=mask)
    """)

# Launches the kernel; with NO_FRONT_END set, generating or parsing IR is
# an error, so a launch that needs either fails.
LAUNCH = textwrap.dedent("""\
    import os
    import numpy as np
    import kiln.frontend.walker, kiln.compiler
    if os.environ.get("NO_FRONT_END"):
        def refuse(*args, **kwargs):
            raise AssertionError("the front end ran")
        kiln.frontend.walker.CodeGenerator.generate = refuse
        kiln.compiler.Module.parse = refuse
    from kernels import kernel

    class DeviceArray:
        def __init__(self, array):
            self.array = array
            self.__cuda_array_interface__ = {
                "data": (array.ctypes.data, False), "shape": array.shape,
                "typestr": array.dtype.str, "version": 3}

    x = DeviceArray(np.ones(1000, np.float32))
    out = DeviceArray(np.zeros(1000, np.float32))
    kernel[(4,)](x, out, 1000, BLOCK=256)
    kernel[(4,)](x, out, 1000, BLOCK=256)  # the in-memory hit
    print("launched")
    """)


def launch(folder: Path, code: str = LAUNCH,
           **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True,
        cwd=folder,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(
            [str(ROOT / "python"), str(folder)]),
             "KILN_BUILD_DIR": str(BUILD),
             "KILN_CUDA_DRIVER": str(FAKE), "KILN_PTXAS": "/nonexistent",
             "KILN_CACHE_DIR": str(folder / "cache"), **env})


def entries(folder: Path) -> set[str]:
    return {path.name for path in (folder / "cache").glob("*.kiln")}


def require_hit(folder: Path) -> subprocess.CompletedProcess:
    return launch(folder, KILN_REQUIRE_CACHE_HIT="1", NO_FRONT_END="1")


@pytest.fixture
def folder(tmp_path) -> Path:
    (tmp_path / "kernels.py").write_text(KERNELS)
    first = launch(tmp_path)
    assert first.returncode == 0, first.stderr
    assert len(entries(tmp_path)) == 1
    return tmp_path


def test_a_new_process_launches_from_disk_without_the_front_end(folder):
    hit = require_hit(folder)
    assert (hit.returncode, hit.stdout) == (0, "launched\n"), hit.stderr
    timed = launch(folder, KILN_TIMING="1")
    assert "from the disk cache, loaded on device 0" in timed.stderr
    assert "front end" not in timed.stderr


@pytest.mark.parametrize("edit", [
    ("x * SCALE", "x * SCALE + 1.0"),            # the callee's source
    ("SCALE = 2.0", "SCALE = 3.0"),              # a global it reads
    ("block // block", "block // block * 1"),    # a Python function it runs
    ("mask=mask)),", "mask=mask, other=0.0)),"),  # the kernel's source
    ("import kiln\n", "import kiln\n# a line above the kernels\n"),
])
def test_an_edit_keys_the_kernel_anew(folder, edit):
    kernels = folder / "kernels.py"
    before = entries(folder)
    kernels.write_text(kernels.read_text().replace(*edit))
    miss = launch(folder, KILN_REQUIRE_CACHE_HIT="1")
    assert miss.returncode != 0
    assert "KILN_REQUIRE_CACHE_HIT is set, but kernel 'kernel'" in \
        miss.stderr
    compiled = launch(folder)
    assert compiled.returncode == 0, compiled.stderr
    assert len(entries(folder) - before) == 1
    assert require_hit(folder).returncode == 0


def test_another_specialization_is_another_entry(folder):
    result = launch(folder, LAUNCH.replace("BLOCK=256", "BLOCK=512"))
    assert result.returncode == 0, result.stderr
    assert len(entries(folder)) == 2


def test_cached_binary_is_what_a_launch_would_load(tmp_path, monkeypatch):
    # In this process, without a GPU: warmup compiles into the cache, and
    # cached_binary finds it with the front end unable to run.
    import numpy as np

    import kiln.frontend.walker
    sys.path.insert(0, str(tmp_path))
    (tmp_path / "kernels_in_process.py").write_text(KERNELS)
    try:
        from kernels_in_process import kernel
    finally:
        sys.path.pop(0)
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path / "cache"))
    x, out = np.ones(1000, np.float32), np.zeros(1000, np.float32)
    assert kernel.cached_binary(x, out, 1000, BLOCK=256) is None
    ptx = kernel.warmup(x, out, 1000, BLOCK=256).asm["ptx"]

    def refuse(*args, **kwargs):
        raise AssertionError("the front end ran")

    monkeypatch.setattr(kiln.frontend.walker.CodeGenerator, "generate", refuse)
    with kernel.cached_binary(x, out, 1000, BLOCK=256) as binary:
        assert binary.ptx == ptx
        assert binary.kernel_argument_types("kernel") == [
            "!tile.ptr<f32>", "!tile.ptr<f32>", "i32"]
    # Another chip, warp count or specialization is not that entry.
    assert kernel.cached_binary(x, out, 1000, BLOCK=256, chip="sm_80") is None
    assert kernel.cached_binary(x, out, 1000, BLOCK=256, num_warps=8) is None
    assert kernel.cached_binary(x, out, 1000, BLOCK=512) is None
