"""A launch runs on the GPU its arrays are on, whatever the ordinal: in that
device's primary context, with the binary loaded there once; arrays on two
GPUs are an error naming them. Against the stand-in CUDA driver with two
devices (KILN_FAKE_CUDA_DEVICES=2), whose launches fail unless the kernel's
module was loaded in the current context, and which records the device of
each launch."""

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

PRELUDE = textwrap.dedent("""\
    import ctypes
    import numpy as np
    import kiln
    import kiln.language as kl
    from test_gpu import FAKE, FakeDeviceArray

    device_of_last_launch = ctypes.CDLL(str(FAKE)).fakeCudaLastLaunchDevice
    launches = ctypes.CDLL(str(FAKE)).fakeCudaLaunchCount

    class OnGpu(FakeDeviceArray):
        def __init__(self, array, ordinal):
            super().__init__(array)
            self.device = type("device", (), {"id": ordinal})

    @kiln.jit
    def add(x_ptr, y_ptr, out_ptr, n, BLOCK: kl.constexpr):
        offs = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK)
        mask = offs < n
        x = kl.load(x_ptr + offs, mask=mask)
        kl.store(out_ptr + offs, x + kl.load(y_ptr + offs, mask=mask),
                 mask=mask)

    def arrays(ordinal):
        return [OnGpu(np.zeros(256, np.float32), ordinal) for _ in range(3)]
    """)


@pytest.fixture
def run(tmp_path):
    """Runs code after PRELUDE (a module: @kiln.jit reads its source) in a
    fresh process, against the stand-in with `devices` devices."""
    (tmp_path / "prelude.py").write_text(PRELUDE)

    def run_code(code: str, devices: int) -> subprocess.CompletedProcess:
        return _run("from prelude import *\n" + textwrap.dedent(code),
                    devices, tmp_path)

    return run_code


def _run(code: str, devices: int, folder: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(
            [str(ROOT / "python"), str(Path(__file__).parent), str(folder)]),
             "KILN_CACHE_DIR": str(folder / "cache"),
             "KILN_BUILD_DIR": str(BUILD), "KILN_CUDA_DRIVER": str(FAKE),
             "KILN_PTXAS": "/nonexistent",
             "KILN_FAKE_CUDA_DEVICES": str(devices)})


def test_each_launch_runs_on_its_arrays_gpu(run):
    result = run("""
        print(kiln.cuda.device_count())
        for ordinal in (1, 0, 1, 1, 0):
            add[(1,)](*arrays(ordinal), 256, BLOCK=256)
            print(device_of_last_launch())
        # One compilation and one load per device, in its context, and a
        # cache-hit path for each device.
        print(len(add._gpu_cache), len(add._launchers), launches())
        """, devices=2)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["2", "1", "0", "1", "1", "0", "2", "2",
                                     "5"]


def test_arrays_on_two_gpus_are_named(run):
    result = run("""
        x, y, out = arrays(0)
        try:
            add[(1,)](x, arrays(1)[0], out, 256, BLOCK=256)
        except kiln.KilnError as error:
            print(error)
        """, devices=2)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == (
        "add: a launch takes its arrays on one GPU, and these are on 2: "
        "'x_ptr', 'out_ptr' on GPU 0; 'y_ptr' on GPU 1")


def test_a_gpu_the_machine_lacks_is_a_cuda_error(run):
    result = run("""
        try:
            add[(1,)](*arrays(1), 256, BLOCK=256)
        except kiln.CudaError as error:
            print(error)
        """, devices=1)
    assert result.returncode == 0, result.stderr
    assert "cuDeviceGet(1)" in result.stdout, result.stdout
