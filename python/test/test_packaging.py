"""`scripts/build-wheel.sh` makes a self-contained wheel: it holds the
pure-Python package, the C API library, the launch extension and the shared
libraries the library loads (libLLVM and its dependencies); a fresh virtual
environment that installs it compiles and runs a kernel with LLVM hidden
from the loader, and the same wheel runs in the other CPythons from 3.10
that the machine has (cp310-abi3)."""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import subprocess
import sys
import textwrap
import time
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("KILN_BUILD_DIR", REPO / "build"))

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
    print("library", _ffi.lib()._name)
    print("extension", _ffi.launch_extension().__file__)
    with open("/proc/self/maps") as maps:
        for path in sorted({line.split()[-1] for line in maps
                            if line.rstrip().endswith(".so")
                            or ".so." in line}):
            print("mapped", path)
    """)

# What a machine with LLVM 22 has where the loader would look for it.
LLVM_PATHS = [Path("/usr/lib/llvm-22"),
              *Path("/usr/lib").glob("*-linux-gnu/libLLVM*.so*"),
              *Path("/usr/lib").glob("*-linux-gnu/libMLIR*.so*")]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    # Each pytest-xdist worker running these tests builds the wheel, in the
    # one build folder ($KILN_BUILD_DIR/wheel): one at a time (two CMake
    # runs at once in a folder break each other); the second build only
    # repackages.
    BUILD.mkdir(parents=True, exist_ok=True)
    with open(BUILD / "wheel.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        subprocess.run([str(REPO / "scripts" / "build-wheel.sh"), str(out)],
                       check=True, stdout=subprocess.DEVNULL)
    wheels = list(out.glob("kiln-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def test_wheel_bundles_the_libraries_it_loads(wheel):
    # The C API through ctypes, and the launch extension on CPython's stable
    # ABI: one wheel for every CPython 3.10+, tagged for this machine's
    # glibc.
    glibc = "_".join(os.confstr("CS_GNU_LIBC_VERSION").split()[1].split("."))
    assert re.fullmatch(
        rf"kiln-[\d.]+-cp310-abi3-manylinux_{glibc}_\w+\.whl",
        wheel.name), wheel.name
    archive = zipfile.ZipFile(wheel)
    names = set(archive.namelist())
    assert "kiln/_lib/libKilnCAPI.so" in names
    assert "kiln/_lib/_launch.abi3.so" in names
    for module in ["__init__", "_ffi", "jit", "language", "host",
                   "interpreter", "frontend/walker", "frontend/ops/core"]:
        assert f"kiln/{module}.py" in names
    bundled = [name for name in names if name.startswith("kiln.libs/")]
    assert any("libLLVM" in name for name in bundled), sorted(names)
    assert not any(name.endswith(".a") or "/include/" in name
                   for name in names), sorted(names)


def _hide_llvm(command: list[str], empty: Path) -> list[str] | None:
    """`command` in a private mount namespace where LLVM's install folder
    and libraries are covered by `empty` (a folder) and /dev/null, or None
    where the machine does not allow that."""
    if not shutil.which("unshare"):
        return None
    mounts = []
    for path in LLVM_PATHS:
        if path.exists():
            cover = empty if path.is_dir() else "/dev/null"
            mounts.append(f"mount --bind {cover} {path}")
    script = " && ".join(mounts + ['exec "$@"'])
    probe = subprocess.run(["unshare", "--mount", "sh", "-c",
                            "mount --bind /dev/null /dev/null"],
                           capture_output=True)
    if probe.returncode != 0:
        return None
    return ["unshare", "--mount", "sh", "-c", script, "sh", *command]


def test_fresh_virtual_environment_runs_a_kernel_without_llvm(wheel,
                                                              tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    start = time.monotonic()
    subprocess.run([str(python), "-m", "pip", "install", "-q", str(wheel)],
                   check=True)
    print(f"wheel {wheel.stat().st_size / 2**20:.1f} MiB, installed in "
          f"{time.monotonic() - start:.1f} s")
    script = tmp_path / "kernel.py"
    script.write_text(KERNEL)
    env = {k: v for k, v in os.environ.items()
           if k not in ("KILN_BUILD_DIR", "KILN_LIBRARY_PATH", "PYTHONPATH",
                        "LD_LIBRARY_PATH", "LD_PRELOAD")}
    command = [str(python), str(script)]
    empty = tmp_path / "empty"
    empty.mkdir()
    hidden = _hide_llvm(command, empty)
    result = subprocess.run(hidden or command, cwd=tmp_path, env=env,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    site = next(venv.glob("lib/python*/site-packages"))
    # The installed library, not a build tree's ...
    assert f"library {site / 'kiln' / '_lib' / 'libKilnCAPI.so'}" in lines
    assert f"extension {site / 'kiln' / '_lib' / '_launch.abi3.so'}" in lines
    # ... and LLVM from the wheel: with the system's hidden where the
    # machine allows it, and never mapped from outside the environment.
    mapped = [line.split(" ", 1)[1] for line in lines
              if line.startswith("mapped ")]
    llvm = [path for path in mapped if "libLLVM" in path]
    assert llvm and all(path.startswith(str(site)) for path in llvm), mapped
    assert not any(path.startswith("/usr/lib/llvm-22") for path in mapped)
    if hidden is None:
        pytest.skip("ran with the system's LLVM visible: this machine does "
                    "not allow a private mount namespace (unshare --mount)")


# A launch through the stand-in CUDA driver, twice: the second is a cache
# hit of the launch extension (its key registered by the first).
STAND_IN_LAUNCH = textwrap.dedent("""\
    import sys
    import numpy as np
    import kiln
    import kiln.language as kl
    from kiln import _ffi

    class DeviceArray:
        def __init__(self, array):
            self.array = array
            self.__cuda_array_interface__ = {
                "data": (array.ctypes.data, False), "shape": array.shape,
                "typestr": array.dtype.str, "version": 3}

    @kiln.jit
    def scale(x_ptr, n, BLOCK: kl.constexpr):
        offs = kl.arange(0, BLOCK)
        kl.store(x_ptr + offs, kl.load(x_ptr + offs) * 2.0, mask=offs < n)

    x = DeviceArray(np.ones(64, np.float32))
    scale[(1,)](x, 64, BLOCK=64)
    scale[(1,)](x, 64, BLOCK=64)
    print(sys.version_info[:2], len(scale._launchers),
          _ffi.launch_extension().__file__)
    """)

#: The CPython versions besides this one the wheel is tried on, where a
#: pyenv installation (or python3.X on the PATH) has them.
OTHER_PYTHONS = ["3.10", "3.12", "3.13"]


def _interpreter(version: str) -> str | None:
    """A CPython ``version`` that runs (a pyenv shim may not)."""
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    candidates = [*sorted(map(str, pyenv.glob(
        f"versions/{version}.*/bin/python")), reverse=True),
        shutil.which(f"python{version}")]
    for candidate in filter(None, candidates):
        if subprocess.run([candidate, "--version"],
                          capture_output=True).returncode == 0:
            return candidate
    return None


@pytest.mark.parametrize("version", OTHER_PYTHONS)
def test_the_one_wheel_runs_on_other_cpythons(wheel, tmp_path, version):
    """cp310-abi3: the launch extension built once loads into every CPython
    from 3.10, and its cache hits launch (through the stand-in driver)."""
    if version == f"{sys.version_info[0]}.{sys.version_info[1]}":
        pytest.skip("the interpreter of the other tests")
    interpreter = _interpreter(version)
    if interpreter is None:
        pytest.skip(f"no CPython {version} on this machine (python{version} "
                    "or pyenv)")
    fake = Path(os.environ.get("KILN_BUILD_DIR", REPO / "build")).resolve() \
        / "unittests" / "libKilnFakeCudaDriver.so"
    if not fake.exists():
        pytest.skip(f"the stand-in driver is not built ({fake})")
    venv = tmp_path / "venv"
    subprocess.run([interpreter, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", str(wheel)],
                   check=True)
    env = {k: v for k, v in os.environ.items()
           if k not in ("KILN_BUILD_DIR", "KILN_LIBRARY_PATH", "PYTHONPATH",
                        "LD_LIBRARY_PATH", "LD_PRELOAD")}
    script = tmp_path / "launch.py"  # kernels are compiled from a file
    script.write_text(STAND_IN_LAUNCH)
    result = subprocess.run(
        [str(python), str(script)], cwd=tmp_path,
        env={**env, "KILN_CUDA_DRIVER": str(fake),
             "KILN_PTXAS": "/nonexistent", "KILN_CACHE_DIR":
             str(tmp_path / "cache")},
        capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    major, minor = version.split(".")
    site = next(venv.glob("lib/python*/site-packages"))
    assert result.stdout.split() == [
        f"({major},", f"{minor})", "1",
        str(site / "kiln" / "_lib" / "_launch.abi3.so")]
