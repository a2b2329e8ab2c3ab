"""The CUDA runtime from Python: a clear answer without a GPU, and the
right calls against a stand-in driver library."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import kiln
import kiln.cuda

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("KILN_BUILD_DIR", ROOT / "build"))
FAKE = BUILD / "unittests" / "libKilnFakeCudaDriver.so"


def run_python(code: str, **env: str) -> subprocess.CompletedProcess:
    """`code` in a fresh interpreter: the driver is loaded once per process."""
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT / "python"), **env})


def test_missing_driver_is_a_clear_error():
    result = run_python(
        "import kiln.cuda\n"
        "print(kiln.cuda.is_available())\n"
        "print(kiln.cuda.unavailable_reason())\n"
        "kiln.cuda.device_count()\n",
        KILN_CUDA_DRIVER="/nonexistent/libcuda.so.1")
    lines = result.stdout.splitlines()
    assert lines[0] == "False"
    assert lines[1].startswith("no CUDA driver: cannot open "
                               "/nonexistent/libcuda.so.1")
    assert "kiln.errors.CudaError: no CUDA driver" in result.stderr


def test_a_library_that_is_not_a_driver_is_refused(tmp_path):
    lib = kiln._ffi.candidate_paths()[-1]
    result = run_python("import kiln.cuda\n"
                        "print(kiln.cuda.unavailable_reason())\n",
                        KILN_CUDA_DRIVER=str(lib))
    assert "is not a usable CUDA driver: it has no cuInit" in result.stdout


@pytest.mark.skipif(not FAKE.exists(), reason=f"{FAKE} is not built")
def test_devices_through_a_driver():
    result = run_python(
        "import kiln.cuda\n"
        "print(kiln.cuda.device_count())\n"
        "info = kiln.cuda.device_info(0)\n"
        "print(info.name, info.compute_capability, "
        "info.multiprocessor_count)\n"
        "kiln.cuda.device_info(5)\n",
        KILN_CUDA_DRIVER=str(FAKE))
    assert result.stdout.splitlines() == ["1", "Kiln Fake GPU 90 132"]
    assert ("cuDeviceGet(5) failed: CUDA_ERROR_INVALID_VALUE "
            "(invalid argument)") in result.stderr


def test_this_machine_answers_without_crashing():
    # Whatever this machine has, the question has an answer.
    reason = kiln.cuda.unavailable_reason()
    assert reason is None or isinstance(reason, str)
