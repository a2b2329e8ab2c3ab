"""The host target catches a kernel's bad accesses by default (issue 31):
a store past the end of one array that would land in its neighbour, a
write to a read-only array (numpy's writeable flag, a read-only memmap, a
bytes buffer) and a contiguous write through a negative-stride view each
end in a LaunchError naming the access and the array, and corrupt nothing;
kernels that stay in bounds, negative strides included, compute what numpy
does. Compiles leave nothing in $TMPDIR, and a full one is an error, not
an abort at exit."""

from __future__ import annotations

import contextlib
import subprocess
import sys

import numpy as np
import pytest

import kiln
import kiln.language as kl


@kiln.jit
def scale(x_ptr, out_ptr, n, BLOCK: kl.constexpr):
    offsets = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK)
    mask = offsets < n
    kl.store(out_ptr + offsets, kl.load(x_ptr + offsets, mask=mask) * 2,
             mask=mask)


@kiln.jit
def strided_scale(x_ptr, out_ptr, n, out_stride, BLOCK: kl.constexpr):
    offsets = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK)
    mask = offsets < n
    kl.store(out_ptr + offsets * out_stride,
             kl.load(x_ptr + offsets, mask=mask) * 2, mask=mask)


@kiln.jit
def walk(x_ptr, y_ptr, out_ptr, n, use_y, BLOCK: kl.constexpr):
    # Pointers carried through a loop and chosen between two arrays.
    offsets = kl.arange(0, BLOCK)
    src = kl.where(use_y != 0, y_ptr, x_ptr) + offsets
    dst = out_ptr + offsets
    for start in range(0, n, BLOCK):
        mask = start + offsets < n
        kl.store(dst, kl.load(src, mask=mask) + 1, mask=mask)
        src += BLOCK
        dst += BLOCK


def test_a_store_past_one_array_into_its_neighbour_is_caught():
    memory = np.zeros(228, np.float32)
    out, x = memory[:100], memory[100:]
    x[:] = np.arange(128)
    # n is wrong: 128 elements go to an array of 100; 28 would land in x,
    # which the launch was given too.
    with pytest.raises(kiln.LaunchError) as info:
        scale[(1,)](x, out, 128, BLOCK=128)
    message = str(info.value)
    assert message.startswith("out-of-bounds access at ")
    store_line = scale.fn.__code__.co_firstlineno + 4
    assert f"{__file__}:{store_line}:5: tile.store in program (0, 0, 0)" \
        in message
    assert "are outside 'out_ptr' (bytes [0x" in message
    np.testing.assert_array_equal(out, 2 * np.arange(100))
    np.testing.assert_array_equal(x, np.arange(128))


@kiln.jit
def fill(out_ptr, BLOCK: kl.constexpr):
    kl.store(out_ptr + kl.arange(0, BLOCK), 1.0)


def test_checks_are_on_without_debug_mode_and_can_be_turned_off(
        monkeypatch):
    memory = np.zeros(64, np.float32)
    with pytest.raises(kiln.LaunchError, match="out-of-bounds access at "):
        fill[(1,)](memory[:16], BLOCK=32)
    assert memory.sum() == 16
    # Unchecked, the store past the array happens (here inside `memory`).
    monkeypatch.setenv("KILN_HOST_CHECK_BOUNDS", "0")
    fill[(1,)](memory[:16], BLOCK=32)
    assert memory.sum() == 32


@pytest.mark.parametrize("make_read_only", [
    lambda a: a.setflags(write=False) or a,
    lambda a: np.frombuffer(a.tobytes(), a.dtype),
], ids=["writeable-false", "bytes"])
def test_a_write_to_a_read_only_array_is_refused(make_read_only):
    x = np.arange(64, dtype=np.float32)
    out = make_read_only(np.full(64, 7, np.float32))
    assert not out.flags.writeable
    with pytest.raises(kiln.LaunchError) as info:
        scale[(1,)](x, out, 64, BLOCK=64)
    message = str(info.value)
    assert message.startswith("write to a read-only array at ")
    assert "are in 'out_ptr' (bytes [0x" in message
    assert message.endswith("which is read-only; the access was skipped")
    np.testing.assert_array_equal(out, 7)
    # Reading a read-only array is fine.
    result = np.zeros(64, np.float32)
    scale[(1,)](out, result, 64, BLOCK=64)
    np.testing.assert_array_equal(result, 14)


def test_a_read_only_memmap_output_does_not_kill_the_process(tmp_path):
    path = tmp_path / "data.bin"
    np.full(64, 3, np.float32).tofile(path)
    out = np.memmap(path, np.float32, mode="r")
    with pytest.raises(kiln.LaunchError, match="read-only"):
        scale[(1,)](np.ones(64, np.float32), out, 64, BLOCK=64)
    np.testing.assert_array_equal(np.fromfile(path, np.float32), 3)


def test_negative_strides_are_followed_or_caught():
    x = np.arange(100, dtype=np.float32)
    base = np.zeros(100, np.float32)
    reversed_view = base[::-1]
    # Written with the view's stride (in elements), the kernel fills the
    # view as numpy would.
    strided_scale[(1,)](x, reversed_view, 100,
                        reversed_view.strides[0] // 4, BLOCK=128)
    np.testing.assert_array_equal(reversed_view, 2 * x)
    # Written as if contiguous, every element but the first lies past the
    # view's bytes: caught, and nothing outside the view is touched.
    memory = np.zeros(300, np.float32)
    view = memory[100:200][::-1]
    with pytest.raises(kiln.LaunchError, match="are outside 'out_ptr'"):
        scale[(1,)](x, view, 100, BLOCK=128)
    np.testing.assert_array_equal(memory[:100], 0)
    np.testing.assert_array_equal(memory[200:], 0)


@pytest.mark.parametrize("use_y", [0, 1])
def test_loop_carried_and_chosen_pointers_pass_the_checks(use_y):
    n = 1000
    x = np.arange(n, dtype=np.float32)
    y = -x
    out = np.zeros(n, np.float32)
    walk[(1,)](x, y, out, n, use_y, BLOCK=64)
    np.testing.assert_array_equal(out, (y if use_y else x) + 1)


def test_a_bytes_object_is_not_an_array():
    with pytest.raises(kiln.KilnError, match="cannot be passed to a kernel"):
        scale[(1,)](b"\0" * 256, np.zeros(64, np.float32), 64, BLOCK=64)


_COMPILE_IN_A_CHILD = '''
import numpy as np
import kiln, kiln.language as kl

@kiln.jit
def double(x_ptr, BLOCK: kl.constexpr):
    offsets = kl.arange(0, BLOCK)
    kl.store(x_ptr + offsets, kl.load(x_ptr + offsets) * 2)

x = np.ones(16, np.float32)
double[(1,)](x, BLOCK=16)
print("host", x.sum())
try:
    double.warmup(x, BLOCK=16, grid=(1,), chip="sm_90a")
    print("gpu compiled")
except kiln.KilnError as error:
    print("gpu error:", str(error).splitlines()[-1])
'''


def _run_child(tmp_path, temporary_folder) -> subprocess.CompletedProcess:
    import os
    package = os.path.dirname(os.path.dirname(kiln.__file__))
    env = {**os.environ, "TMPDIR": str(temporary_folder),
           "KILN_CACHE_DIR": str(tmp_path / "cache"),
           "PYTHONPATH": package}
    script = tmp_path / "child.py"
    script.write_text(_COMPILE_IN_A_CHILD)
    return subprocess.run([sys.executable, str(script)], capture_output=True,
                          text=True, env=env, timeout=300)


def test_compiles_leave_nothing_in_tmpdir(tmp_path):
    # The JIT's perf listener left $TMPDIR/.debug/jit/... for every process.
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    run = _run_child(tmp_path, temporary)
    assert run.returncode == 0, run.stderr
    assert "host 32.0" in run.stdout
    assert list(temporary.iterdir()) == []


@pytest.fixture
def full_folder(tmp_path):
    """A folder on a file system with no space left (a small tmpfs, which
    needs the right to mount)."""
    folder = tmp_path / "full"
    folder.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs",
                       str(folder)], capture_output=True).returncode != 0:
        pytest.skip("cannot mount a small tmpfs here (needs root)")
    try:
        with open(folder / "filler", "wb") as filler:
            with contextlib.suppress(OSError):
                filler.write(b"\0" * (1 << 20))
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], capture_output=True)


def test_a_full_tmpdir_is_an_error_not_an_abort(tmp_path, full_folder):
    run = _run_child(tmp_path, full_folder)
    # Before: "LLVM ERROR: IO failure on output stream: No space left on
    # device" and exit status 1, after the host launch had run.
    assert run.returncode == 0, run.stderr
    assert "LLVM ERROR" not in run.stderr
    assert "host 32.0" in run.stdout
    assert ("gpu compiled" in run.stdout or
            "cannot write the PTX for ptxas" in run.stdout and
            "No space left on device" in run.stdout), run.stdout
