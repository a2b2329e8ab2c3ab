"""`pip install .` gives a working package: the wheel holds the pure-Python
package and the C API library, and an installed copy compiles and runs a
kernel with no build tree in sight."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

KERNEL = textwrap.dedent("""\
    import numpy as np
    import kiln
    import kiln.language as kl
    from kiln import _ffi

    @kiln.jit
    def add(x_ptr, y_ptr, out_ptr, n, BLOCK: kl.constexpr):
        offs = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK)
        mask = offs < n
        x = kl.load(x_ptr + offs, mask=mask)
        y = kl.load(y_ptr + offs, mask=mask)
        kl.store(out_ptr + offs, x + y, mask=mask)

    x = np.random.default_rng(0).standard_normal(1000).astype(np.float32)
    y = np.random.default_rng(1).standard_normal(1000).astype(np.float32)
    out = np.zeros_like(x)
    add[(8,)](x, y, out, 1000, BLOCK=128)
    np.testing.assert_array_equal(out, x + y)
    print(_ffi.lib()._name)
    """)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps",
                    "--no-build-isolation", "-q", "-w", str(out), str(REPO)],
                   check=True)
    wheels = list(out.glob("kiln-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def test_wheel_holds_the_package_and_the_library(wheel):
    # ctypes, not the CPython ABI: one wheel for every CPython 3.10+.
    assert "-py3-none-" in wheel.name
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "kiln/_lib/libKilnCAPI.so" in names
    for module in ["__init__", "_ffi", "jit", "language", "codegen", "host",
                   "interpreter"]:
        assert f"kiln/{module}.py" in names
    assert not any(name.endswith(".a") or "/include/" in name
                   for name in names), sorted(names)


def test_installed_package_runs_a_kernel(wheel, tmp_path):
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps",
                    "-q", "--target", str(site), str(wheel)], check=True)
    script = tmp_path / "kernel.py"
    script.write_text(KERNEL)
    env = {k: v for k, v in os.environ.items()
           if k not in ("KILN_BUILD_DIR", "KILN_LIBRARY_PATH")}
    env["PYTHONPATH"] = str(site)
    result = subprocess.run([sys.executable, str(script)], cwd=tmp_path,
                            env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    # The installed library, not a build tree's.
    assert result.stdout.strip() == str(site / "kiln" / "_lib" /
                                        "libKilnCAPI.so")
