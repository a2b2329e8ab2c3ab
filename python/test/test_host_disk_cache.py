"""Host-target compilations are kept on disk too: a host executable is an
object file and the description of its kernels, which another process links
without compiling (issue 28). Keyed as GPU binaries are (the kernel's
source fingerprint and specialization), with the bounds checks and this
machine's CPU."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import kiln
import kiln.language as kl
from kiln import cache
from kiln.host import HostExecutable

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("KILN_BUILD_DIR", ROOT / "build")).resolve()

KERNELS = textwrap.dedent("""\
    import kiln
    import kiln.language as kl


    @kiln.jit
    def kernel(x_ptr, out_ptr, n, BLOCK: kl.constexpr):
        offs = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK)
        mask = offs < n
        kl.store(out_ptr + offs, kl.exp(kl.load(x_ptr + offs, mask=mask)),
                 mask=mask)
    """)

# Launches the kernel and checks it; with NO_COMPILE set, generating IR or
# compiling for the host is an error.
LAUNCH = textwrap.dedent("""\
    import os
    import numpy as np
    import kiln.frontend.walker, kiln.host
    if os.environ.get("NO_COMPILE"):
        def refuse(*args, **kwargs):
            raise AssertionError("compiled")
        kiln.frontend.walker.CodeGenerator.generate = refuse
        kiln.host.HostExecutable.__init__ = refuse
    from kernels import kernel
    x = np.linspace(-2, 2, 1000, dtype=np.float32)
    out = np.zeros_like(x)
    kernel[(4,)](x, out, 1000, BLOCK=256)
    np.testing.assert_allclose(out, np.exp(x), rtol=1e-6)
    print("ok")
    """)


def launch(folder: Path, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", LAUNCH], capture_output=True, text=True,
        cwd=folder,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(
            [str(ROOT / "python"), str(folder)]),
             "KILN_BUILD_DIR": str(BUILD),
             "KILN_CACHE_DIR": str(folder / "cache"), **env})


@pytest.fixture
def folder(tmp_path) -> Path:
    (tmp_path / "kernels.py").write_text(KERNELS)
    first = launch(tmp_path)
    assert (first.returncode, first.stdout) == (0, "ok\n"), first.stderr
    assert len(list((tmp_path / "cache").glob("*.host"))) == 1
    return tmp_path


def test_a_second_process_links_without_compiling(folder):
    second = launch(folder, NO_COMPILE="1")
    assert (second.returncode, second.stdout) == (0, "ok\n"), second.stderr


def test_bounds_checks_and_edits_are_other_entries(folder):
    unchecked = launch(folder, KILN_HOST_CHECK_BOUNDS="0")
    assert unchecked.returncode == 0, unchecked.stderr
    assert len(list((folder / "cache").glob("*.host"))) == 2
    kernels = folder / "kernels.py"
    kernels.write_text(kernels.read_text().replace("kl.exp(", "kl.exp2("))
    assert launch(folder, NO_COMPILE="1").returncode != 0
    edited = subprocess.run(
        [sys.executable, "-c", LAUNCH.replace("np.exp(x)", "np.exp2(x)")],
        capture_output=True, text=True, cwd=folder,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(
            [str(ROOT / "python"), str(folder)]), "KILN_BUILD_DIR": str(BUILD),
            "KILN_CACHE_DIR": str(folder / "cache")})
    assert edited.returncode == 0, edited.stderr


def test_a_damaged_entry_is_compiled_again_with_a_warning(folder):
    (entry,) = (folder / "cache").glob("*.host")
    data = bytearray(entry.read_bytes())
    data[-100] ^= 0xFF  # a byte of the object
    entry.write_bytes(bytes(data))
    again = launch(folder, PYTHONWARNINGS="always")
    assert (again.returncode, again.stdout) == (0, "ok\n"), again.stderr
    assert "is damaged (its contents do not match its header)" in \
        again.stderr
    assert launch(folder, NO_COMPILE="1").returncode == 0


@kiln.jit
def checked(x_ptr, n, BLOCK: kl.constexpr):
    offs = kl.arange(0, BLOCK)
    kl.device_assert(offs < n, "offs < n")
    kl.store(x_ptr + offs, kl.load(x_ptr + offs) + 1)


def test_artifacts_make_the_same_executable(monkeypatch):
    # The description carries the checked accesses and the asserts: a
    # linked executable reports them as the compiled one does.
    monkeypatch.setenv("KILN_DEBUG", "1")
    x = np.zeros(16, np.float32)
    types, constants = checked.specialize(checked.bind((x, 16),
                                                       {"BLOCK": 16}))
    compiled = checked.compile(types, constants)
    object_file, description = compiled.artifacts()
    assert object_file[:4] == b"\x7fELF"
    linked = HostExecutable.from_artifacts(
        object_file, description,
        {"checked": compiled.kernel_argument_types("checked")})
    for executable in (compiled, linked):
        y = np.zeros(16, np.float32)
        executable.launch("checked", (1,), y, 16)
        np.testing.assert_array_equal(y, 1)
        with pytest.raises(kiln.LaunchError,
                           match=r"assertion failed at .*test_host_disk_"
                                 r"cache.py:\d+:\d+: offs < n"):
            executable.launch("checked", (1,), np.zeros(16, np.float32), 8)
        with pytest.raises(kiln.LaunchError, match="out-of-bounds access"):
            executable.launch("checked", (1,), np.zeros(8, np.float32), 16)
    linked.close()


@pytest.mark.parametrize("description", [
    "", "[]", '{"functions": {}}', '{"functions": {"k": {"arguments": -1, '
    '"plan": false}}, "access_sites": [], "debug_sites": []}',
    '{"functions": {}, "access_sites": [["x", 1]], "debug_sites": []}'])
def test_a_description_no_compilation_writes_is_refused(description):
    x = np.zeros(16, np.float32)
    types, constants = checked.specialize(checked.bind((x, 16),
                                                       {"BLOCK": 16}))
    object_file, _ = checked.compile(types, constants).artifacts()
    with pytest.raises(kiln.KilnError, match="its description"):
        HostExecutable.from_artifacts(object_file, description, {})


def test_an_object_that_is_not_one_is_refused():
    with pytest.raises(kiln.KilnError, match="loading a host executable"):
        HostExecutable.from_artifacts(b"not an object", '{"functions": {}, '
                                      '"access_sites": [], "debug_sites": '
                                      '[]}', {})


def test_host_entries_keep_what_they_were_given(tmp_path, monkeypatch):
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path))
    name = cache.host_key("origin", check_bounds=True)
    assert name != cache.host_key("origin", check_bounds=False)
    assert cache.load_host(name) is None
    entry = cache.HostEntry(b"\x7fELF...", "{}", {"k": ["i32"]})
    assert cache.store_host(name, *entry)
    assert cache.load_host(name) == entry


# Edits the kernel's file while the process runs, then compiles another
# specialization: it is compiled from the source the process read first
# (as Triton reads a kernel's at decoration), which is also the source its
# disk entry is keyed by; a new process reads the edited file.
EDIT_WHILE_RUNNING = textwrap.dedent("""\
    from pathlib import Path
    import numpy as np
    from kernels import kernel
    x = np.full(64, 0.5, np.float32)
    out = np.zeros_like(x)
    kernel[(1,)](x, out, 64, BLOCK=64)
    source = Path("kernels.py")
    source.write_text(source.read_text().replace("kl.exp(", "-kl.exp("))
    kernel[(2,)](x, out, 64, BLOCK=32)
    print(out[0] > 0)
    """)


def test_a_file_edited_under_a_running_process_compiles_what_it_read(
        tmp_path):
    (tmp_path / "kernels.py").write_text(KERNELS)
    running = subprocess.run(
        [sys.executable, "-c", EDIT_WHILE_RUNNING], capture_output=True,
        text=True, cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(
            [str(ROOT / "python"), str(tmp_path)]),
             "KILN_BUILD_DIR": str(BUILD),
             "KILN_CACHE_DIR": str(tmp_path / "cache")})
    assert running.returncode == 0, running.stderr
    assert running.stdout.split() == ["True"]
    # A new process compiles the edited kernel (its key is new): the
    # launch's check of exp fails on the negated values.
    edited = launch(tmp_path)
    assert edited.returncode != 0
    assert "Mismatched elements" in edited.stderr
