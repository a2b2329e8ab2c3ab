"""@kiln.autotune: picking the fastest config, without changing what a
launch computes, remembered per key in this process and on disk.

Everything runs on the host target with numpy, except the last tests: one
through the stand-in CUDA driver (the host side of a GPU launch) and one
against PyTorch where it sees a GPU (skipped, with the reason, elsewhere).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import kiln
import kiln.language as kl
from kiln.errors import KilnError

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("KILN_BUILD_DIR", ROOT / "build"))
FAKE_DRIVER = BUILD / "unittests" / "libKilnFakeCudaDriver.so"

# A warning no test expects (a config skipped, a cache file ignored) fails
# the test.
pytestmark = pytest.mark.filterwarnings("error")

CONFIGS = [kiln.Config({"BLOCK": 64}), kiln.Config({"BLOCK": 256}),
           kiln.Config({"BLOCK": 1024}, num_warps=8, num_stages=2)]


@pytest.fixture(autouse=True)
def cache_dir(tmp_path, monkeypatch) -> Path:
    """Each test gets its own, empty, on-disk cache."""
    directory = tmp_path / "kiln-cache"
    monkeypatch.setenv("KILN_CACHE_DIR", str(directory))
    return directory


@kiln.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: kl.constexpr):
    offsets = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK)
    mask = offsets < n
    x = kl.load(x_ptr + offsets, mask=mask)
    y = kl.load(y_ptr + offsets, mask=mask)
    kl.store(out_ptr + offsets, x + y, mask=mask)


@kiln.jit
def small_block_add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: kl.constexpr):
    kl.static_assert(BLOCK <= 512, "BLOCK is at most 512")
    add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK)


@kiln.jit
def increment_kernel(x_ptr, n, BLOCK: kl.constexpr):
    offsets = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK)
    mask = offsets < n
    kl.store(x_ptr + offsets, kl.load(x_ptr + offsets, mask=mask) + 1,
             mask=mask)


@kiln.jit
def accumulate_kernel(x_ptr, out_ptr, n, BLOCK: kl.constexpr):
    offsets = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK)
    mask = offsets < n
    total = kl.load(out_ptr + offsets, mask=mask)
    kl.store(out_ptr + offsets, total + kl.load(x_ptr + offsets, mask=mask),
             mask=mask)


def tuned(kernel, configs=CONFIGS, key=("n",), **options):
    """A new autotuner (nothing tuned yet in this process) over ``kernel``,
    each config run only a few times."""
    options = {"warmup": 0, "rep": 0, **options}
    return kiln.autotune(configs, list(key), **options)(kernel)


class CountingGrid:
    """A grid function that records the meta-parameters of each launch;
    one call per launch, so it also counts launches."""

    def __init__(self) -> None:
        self.metas: list[dict] = []

    def __call__(self, meta: dict) -> tuple[int]:
        self.metas.append(meta)
        return (kiln.cdiv(meta["n"], meta["BLOCK"]),)


def add_arrays(n: int, dtype=np.float32):
    rng = np.random.default_rng(n)
    x, y = rng.standard_normal((2, n)).astype(dtype)
    return x, y, np.zeros(n, dtype)


def test_winner_is_the_fastest_config_and_the_result_matches_numpy():
    kernel = tuned(add_kernel)
    x, y, out = add_arrays(5000)
    kernel[CountingGrid()](x, y, out, 5000)
    np.testing.assert_array_equal(out, x + y)
    assert kernel.best_config in CONFIGS
    assert set(kernel.timings) == set(CONFIGS)
    assert all(t > 0 for t in kernel.timings.values())
    assert kernel.best_config == min(kernel.timings,
                                     key=kernel.timings.get)


def test_grid_gets_the_arguments_and_the_config():
    kernel = tuned(add_kernel)
    x, y, out = add_arrays(100)
    grid = CountingGrid()
    kernel[grid](x, y, out, 100)
    seen = {(m["BLOCK"], m["num_warps"], m["num_stages"])
            for m in grid.metas}
    assert seen == {(64, 4, 3), (256, 4, 3), (1024, 8, 2)}
    assert all(m["n"] == 100 and m["x_ptr"] is x for m in grid.metas)
    last = grid.metas[-1]  # the launch asked for, with the winner
    assert {k: last[k] for k in ("BLOCK", "num_warps", "num_stages")} == \
        kernel.best_config.all_kwargs()


def test_restore_value_gives_the_result_of_one_launch(cache_dir):
    start = np.arange(3000, dtype=np.float32)
    once = start.copy()
    increment_kernel[(3,)](once, 3000, BLOCK=1024)

    x = start.copy()
    tuned(increment_kernel, restore_value=["x_ptr"])[CountingGrid()](x, 3000)
    np.testing.assert_array_equal(x, once)

    # Without restore_value, every run while timing increments x again
    # (tuning again: restore_value does not change the winner on disk).
    shutil.rmtree(cache_dir)
    x = start.copy()
    grid = CountingGrid()
    tuned(increment_kernel)[grid](x, 3000)
    np.testing.assert_array_equal(x, start + len(grid.metas))
    assert len(grid.metas) > 1


def test_dlpack_arrays_are_tuned_like_numpy_arrays(cache_dir):
    from test_jit import DLPackOnly
    start = np.arange(3000, dtype=np.float32)
    x = start.copy()
    kernel = tuned(increment_kernel, restore_value=["x_ptr"])
    kernel[CountingGrid()](DLPackOnly(x), 3000)
    np.testing.assert_array_equal(x, start + 1)  # restored, then one launch


def test_reset_to_zero_zeroes_each_timed_run_and_the_launch():
    """As Triton's: after timing, the arrays are zeroed again, and the
    launch asked for starts from zeros (Kiln put the original contents
    back); a launch whose winner is known starts from what it is given."""
    x = np.arange(2000, dtype=np.float32)
    out = np.full(2000, 5, np.float32)
    grid = CountingGrid()
    outputs = []  # out_ptr as each launch finds it

    def record(meta: dict) -> tuple[int]:
        outputs.append(meta["out_ptr"].copy())  # before the launch runs
        return grid(meta)

    kernel = tuned(accumulate_kernel, reset_to_zero=["out_ptr"])
    kernel[record](x, out, 2000)
    np.testing.assert_array_equal(out, x)
    assert len(outputs) > 2
    assert all(np.array_equal(o, 0 * x) for o in outputs)
    kernel[record](x, out, 2000)
    np.testing.assert_array_equal(out, 2 * x)


def test_one_config_is_not_timed():
    """As Triton's: a kernel with one config launches once (Kiln timed it,
    running its atomics hundreds of times)."""
    x = np.arange(2000, dtype=np.float32)
    out = np.zeros(2000, np.float32)
    grid = CountingGrid()
    tuned(accumulate_kernel, configs=CONFIGS[:1])[grid](x, out, 2000)
    np.testing.assert_array_equal(out, x)
    assert len(grid.metas) == 1


def test_warmup_compiles_each_config():
    x, y, out = add_arrays(1000)
    kernel = tuned(add_kernel)
    compiled = kernel.warmup(x, y, out, 1000, grid=(1,))
    assert len(compiled) == len(CONFIGS)
    assert all("ld.global" in c.asm["ptx"] for c in compiled)


def test_a_config_that_does_not_compile_is_skipped_with_a_warning():
    kernel = tuned(small_block_add_kernel, configs=CONFIGS)
    x, y, out = add_arrays(1000)
    with pytest.warns(UserWarning, match=r"skipping Config\(\{'BLOCK': 1024\}"
                      r".* of 'small_block_add_kernel': .*static assertion "
                      "failed: BLOCK is at most 512"):
        kernel[CountingGrid()](x, y, out, 1000)
    np.testing.assert_array_equal(out, x + y)
    assert kernel.best_config in CONFIGS[:2]
    assert set(kernel.timings) == set(CONFIGS[:2])


def test_every_config_failing_is_an_error_naming_them():
    configs = [kiln.Config({"BLOCK": 1024}), kiln.Config({"BLOCK": 2048})]
    kernel = tuned(small_block_add_kernel, configs=configs)
    x, y, out = add_arrays(100)
    with pytest.warns(UserWarning, match="skipping"), \
            pytest.raises(KilnError, match="every config of "
                          "'small_block_add_kernel' failed") as error:
        kernel[CountingGrid()](x, y, out, 100)
    for config in configs:
        assert f"{config}: " in str(error.value)
    assert "static assertion failed: BLOCK is at most 512" in \
        str(error.value)
    np.testing.assert_array_equal(out, 0)


def test_second_launch_with_the_key_does_not_time():
    kernel = tuned(add_kernel)
    x, y, out = add_arrays(3000)
    kernel[CountingGrid()](x, y, out, 3000)
    winner = kernel.best_config
    out[:] = 0
    grid = CountingGrid()
    kernel[grid](x, y, out, 3000)
    assert kernel.timings == {}
    assert kernel.best_config == winner
    assert len(grid.metas) == 1
    np.testing.assert_array_equal(out, x + y)


def test_a_new_key_value_or_dtype_tunes_again():
    kernel = tuned(add_kernel)
    for n, dtype, tunes in [(1000, np.float32, True), (2000, np.float32, True),
                            (1000, np.float32, False),
                            (1000, np.float64, True)]:
        x, y, out = add_arrays(n, dtype)
        kernel[CountingGrid()](x, y, out, n)
        np.testing.assert_array_equal(out, x + y)
        assert bool(kernel.timings) == tunes, (n, dtype)


def test_winner_is_read_from_disk_by_a_new_autotuner(cache_dir):
    x, y, out = add_arrays(3000)
    first = tuned(add_kernel)
    first[CountingGrid()](x, y, out, 3000)
    files = list((cache_dir / "autotune").glob("*.json"))
    assert len(files) == 1
    assert json.loads(files[0].read_text())["description"] == \
        repr(first.best_config)

    second = tuned(add_kernel)
    grid = CountingGrid()
    out[:] = 0
    second[grid](x, y, out, 3000)
    assert second.timings == {} and len(grid.metas) == 1
    assert second.best_config == first.best_config
    np.testing.assert_array_equal(out, x + y)

    # Other configs are another tuning, with a file of their own.
    third = tuned(add_kernel, configs=CONFIGS[:2])
    third[CountingGrid()](x, y, out, 3000)
    assert set(third.timings) == set(CONFIGS[:2])
    assert len(list((cache_dir / "autotune").glob("*.json"))) == 2


@pytest.mark.parametrize("content", [
    "{not json", json.dumps({"format": 1, "config": 7,
                             "description": "Config({})"}),
    json.dumps({"format": 1, "config": 0,
                "description": "Config({'BLOCK': 8})"}),
    "[" * 100_000, "[1, 2]"])
def test_an_unreadable_cache_file_is_ignored_with_a_warning(cache_dir,
                                                            content):
    x, y, out = add_arrays(3000)
    tuned(add_kernel)[CountingGrid()](x, y, out, 3000)
    [path] = (cache_dir / "autotune").glob("*.json")
    path.write_text(content)

    kernel = tuned(add_kernel)
    out[:] = 0
    with pytest.warns(UserWarning, match="ignoring the unreadable tuning "
                      "result"):
        kernel[CountingGrid()](x, y, out, 3000)
    assert set(kernel.timings) == set(CONFIGS)
    np.testing.assert_array_equal(out, x + y)
    # The new tuning replaced the file.
    assert json.loads(path.read_text())["description"] == \
        repr(kernel.best_config)


@pytest.mark.parametrize("make", [
    os.mkfifo, lambda path: path.symlink_to("/dev/zero")],
    ids=["fifo", "link-to-dev-zero"])
def test_a_cache_file_that_is_not_a_regular_file_is_ignored(cache_dir, make,
                                                           deadline):
    """A FIFO (which hung the launch) or a link to /dev/zero (which read
    until MemoryError) in place of the winner: a warning, a tuning, and a
    file in its place."""
    x, y, out = add_arrays(3000)
    tuned(add_kernel)[CountingGrid()](x, y, out, 3000)
    [path] = (cache_dir / "autotune").glob("*.json")
    path.unlink()
    make(path)

    kernel = tuned(add_kernel)
    with pytest.warns(UserWarning, match="not a regular file"):
        kernel[CountingGrid()](x, y, out, 3000)
    assert set(kernel.timings) == set(CONFIGS)
    assert path.is_file() and not path.is_symlink()


def test_a_cache_directory_that_cannot_be_written_is_no_error(tmp_path,
                                                              monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("KILN_CACHE_DIR", str(blocker / "cache"))
    kernel = tuned(add_kernel)
    x, y, out = add_arrays(1000)
    kernel[CountingGrid()](x, y, out, 1000)
    np.testing.assert_array_equal(out, x + y)
    assert kernel.timings


KERNEL_MODULE = '''
import kiln
import kiln.language as kl

@kiln.autotune(configs=[kiln.Config({"BLOCK": 128}),
                        kiln.Config({"BLOCK": 512})],
               key=["n"], warmup=0, rep=0)
@kiln.jit
def double(x_ptr, out_ptr, n, BLOCK: kl.constexpr):
    offsets = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK)
    mask = offsets < n
    kl.store(out_ptr + offsets, 2 * kl.load(x_ptr + offsets, mask=mask),
             mask=mask)
'''

LAUNCH = '''
import json
import numpy as np
import kiln
from tuned_kernel import double
x = np.arange(1000, dtype=np.float32)
out = np.zeros_like(x)
launches = []
def grid(meta):
    launches.append(meta["BLOCK"])
    return (kiln.cdiv(meta["n"], meta["BLOCK"]),)
double[grid](x, out, 1000)
assert (out == 2 * x).all()
print(json.dumps({"best": repr(double.best_config),
                  "timed": len(double.timings), "launches": len(launches)}))
'''


def test_a_second_process_uses_the_winner_without_timing(tmp_path,
                                                         cache_dir):
    (tmp_path / "tuned_kernel.py").write_text(KERNEL_MODULE)
    env = {**os.environ, "KILN_CACHE_DIR": str(cache_dir),
           "PYTHONPATH": os.pathsep.join([str(tmp_path),
                                          str(ROOT / "python")])}

    def launch() -> dict:
        done = subprocess.run([sys.executable, "-c", LAUNCH], env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    first, second = launch(), launch()
    assert first["timed"] == 2 and first["launches"] > 2
    assert second == {"best": first["best"], "timed": 0, "launches": 1}


def test_interpreted_kernels_are_tuned_too():
    kernel = tuned(kiln.jit(add_kernel.fn, interpret=True),
                   configs=CONFIGS[:2])
    x, y, out = add_arrays(300)
    kernel[CountingGrid()](x, y, out, 300)
    np.testing.assert_array_equal(out, x + y)
    assert set(kernel.timings) == set(CONFIGS[:2])


def test_config_equality_and_repr():
    assert kiln.Config({"A": 1, "B": 2}) == kiln.Config({"B": 2, "A": 1})
    assert len({kiln.Config({"A": 1}), kiln.Config({"A": 1})}) == 1
    assert kiln.Config({"A": 1}) != kiln.Config({"A": 1}, num_warps=8)
    assert repr(kiln.Config({"BLOCK": 64}, num_stages=1)) == \
        "Config({'BLOCK': 64}, num_warps=4, num_stages=1)"
    assert kiln.Config({"A": 1}, num_warps=2).all_kwargs() == \
        {"A": 1, "num_warps": 2, "num_stages": 3}


@pytest.mark.parametrize("make, message", [
    (lambda: kiln.autotune([], key=["n"])(add_kernel),
     "needs at least one Config"),
    (lambda: kiln.autotune(CONFIGS, key=["m"])(add_kernel),
     "key names 'm', which is not an argument of 'add_kernel'"),
    (lambda: kiln.autotune(CONFIGS, key="n")(add_kernel),
     "key must be a list of argument names"),
    (lambda: kiln.autotune(CONFIGS, key=["BLOCK"])(add_kernel),
     "key names 'BLOCK', which the configs of 'add_kernel' set"),
    (lambda: kiln.autotune([kiln.Config({"BLOCKK": 64})], key=["n"])(
        add_kernel), "sets 'BLOCKK', which is not a constexpr parameter"),
    (lambda: kiln.autotune([kiln.Config({"n": 64})], key=[])(add_kernel),
     "sets 'n', which is not a constexpr parameter"),
    (lambda: kiln.autotune(CONFIGS, key=["n"], restore_value=["z_ptr"])(
        add_kernel), "restore_value names 'z_ptr'"),
    (lambda: kiln.autotune(CONFIGS, key=["n"], reset_to_zero=["z_ptr"])(
        add_kernel), "reset_to_zero names 'z_ptr'"),
    (lambda: kiln.autotune(CONFIGS, key=["n"], rep=-1)(add_kernel),
     "rep is a time in ms, not -1"),
    (lambda: kiln.autotune(CONFIGS, key=["n"])(add_kernel.fn),
     "put @kiln.autotune"),
    (lambda: kiln.autotune([{"BLOCK": 64}], key=["n"])(add_kernel),
     "takes kiln.Config objects"),
    (lambda: kiln.Config([("BLOCK", 64)]), "dict of constexpr values"),
    (lambda: kiln.Config({"BLOCK": 64}, num_warps=0),
     "num_warps must be an integer of at least 1, not 0"),
])
def test_bad_autotune_arguments_are_named(make, message):
    with pytest.raises(KilnError, match=message.replace("(", r"\(")):
        make()


@pytest.mark.parametrize("args, kwargs", [
    ((1000,), {"BLOCK": 64}),
    ((1000, 64), {}),
    ((1000,), {"num_warps": 8}),
])
def test_a_launch_may_not_pass_what_the_configs_set(args, kwargs):
    kernel = tuned(add_kernel)
    x, y, out = add_arrays(1000)
    name = "num_warps" if "num_warps" in kwargs else "BLOCK"
    with pytest.raises(KilnError, match=f"'{name}' is set by the "
                       "kiln.autotune configs"):
        kernel[(1,)](x, y, out, *args, **kwargs)


def test_a_missing_key_argument_is_named():
    kernel = tuned(add_kernel)
    x, y, out = add_arrays(10)
    with pytest.raises(KilnError, match="missing a required argument: 'n'"):
        kernel[(1,)](x, y, out)


STAND_IN_LAUNCH = '''
import json, os
import numpy as np
import kiln
from test_gpu import FakeDeviceArray, scale
kernel = kiln.autotune([kiln.Config({"BLOCK": 256}),
                        kiln.Config({"BLOCK": 1024}, num_warps=8)],
                       key=["n"], warmup=0, rep=0)(scale)
x = FakeDeviceArray(np.zeros(4096, np.float32))
kernel[lambda meta: (4096 // meta["BLOCK"],)](x, x, 4096, 2.0)
[name] = os.listdir(os.path.join(os.environ["KILN_CACHE_DIR"], "autotune"))
entry = json.load(open(os.path.join(os.environ["KILN_CACHE_DIR"],
                                    "autotune", name)))
print(json.dumps({"timed": len(kernel.timings), "key": entry["key"]}))
'''


@pytest.mark.skipif(not FAKE_DRIVER.exists(),
                    reason=f"the stand-in driver is not built ({FAKE_DRIVER})")
def test_device_arrays_are_tuned_per_gpu_through_the_stand_in_driver(
        cache_dir):
    env = {**os.environ, "KILN_CACHE_DIR": str(cache_dir),
           "KILN_CUDA_DRIVER": str(FAKE_DRIVER),
           "KILN_PTXAS": "/nonexistent/ptxas",
           "PYTHONPATH": os.pathsep.join([str(ROOT / "python"),
                                          str(Path(__file__).parent)])}
    done = subprocess.run([sys.executable, "-c", STAND_IN_LAUNCH], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["timed"] == 2
    assert "'cuda'" in result["key"] and "Kiln Fake GPU" in result["key"]


def test_on_the_gpu_against_torch():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch sees no GPU")
    n = 1 << 20
    x = torch.randn(n, device="cuda")
    y = torch.randn(n, device="cuda")
    out = torch.zeros(n, device="cuda")
    kernel = tuned(add_kernel, rep=20, restore_value=["out_ptr"])
    kernel[CountingGrid()](x, y, out, n)
    torch.cuda.synchronize()
    torch.testing.assert_close(out, x + y)
    assert set(kernel.timings) == set(CONFIGS)
    assert all(t > 0 for t in kernel.timings.values())


def test_print_autotuning_reports_each_key_once_tuned_and_once_cached(
        capsys, monkeypatch):
    monkeypatch.setenv("KILN_PRINT_AUTOTUNING", "1")
    x, y, out = add_arrays(3000)
    kernel = tuned(add_kernel)
    kernel[CountingGrid()](x, y, out, 3000)
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == 1
    line = printed[0]
    assert line.startswith("kiln.autotune: 'add_kernel' ")
    assert f": {kernel.best_config} in " in line
    assert "over 3 configs (" in line
    for config in CONFIGS:
        assert f"{config}: " in line
    # A new tuner finds the winner on disk, and says so.
    again = tuned(add_kernel)
    again[CountingGrid()](x, y, out, 3000)
    key = line[:line.index(f": {kernel.best_config} in ")]
    assert capsys.readouterr().out.splitlines() == [
        f"{key}: {kernel.best_config} (from the disk cache)"]


def test_nothing_is_printed_without_print_autotuning(capsys, monkeypatch):
    monkeypatch.delenv("KILN_PRINT_AUTOTUNING", raising=False)
    x, y, out = add_arrays(3000)
    tuned(add_kernel)[CountingGrid()](x, y, out, 3000)
    assert capsys.readouterr().out == ""


class TerminalStderr:
    """Standard error as a terminal: what is written, kept."""

    def __init__(self) -> None:
        self.text = ""

    def isatty(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.text += text
        return len(text)

    def flush(self) -> None:
        pass


def test_tuning_on_a_terminal_counts_the_configs(monkeypatch):
    # Without tqdm: a line rewritten in place, ended when tuning ends.
    monkeypatch.setitem(sys.modules, "tqdm", None)
    stderr = TerminalStderr()
    monkeypatch.setattr(sys, "stderr", stderr)
    x, y, out = add_arrays(3000)
    tuned(add_kernel)[CountingGrid()](x, y, out, 3000)
    name = "kiln.autotune: 'add_kernel'"
    assert stderr.text == "".join(f"\r{name}: config {i} of 3"
                                  for i in (1, 2, 3)) + "\n"
    np.testing.assert_array_equal(out, x + y)


def test_tuning_on_a_terminal_uses_tqdm_where_installed(monkeypatch):
    bars = []

    class Bar:
        def __init__(self, **options) -> None:
            self.options, self.steps, self.closed = options, 0, False
            bars.append(self)

        def update(self, steps: int) -> None:
            self.steps += steps

        def close(self) -> None:
            self.closed = True

    monkeypatch.setitem(sys.modules, "tqdm",
                        type(sys)("tqdm"))
    sys.modules["tqdm"].tqdm = Bar
    stderr = TerminalStderr()
    monkeypatch.setattr(sys, "stderr", stderr)
    x, y, out = add_arrays(3000)
    tuned(add_kernel)[CountingGrid()](x, y, out, 3000)
    assert [(bar.options["total"], bar.options["desc"], bar.steps,
             bar.closed) for bar in bars] == [
        (3, "kiln.autotune: 'add_kernel'", 3, True)]
    assert stderr.text == ""


def test_tuning_off_a_terminal_prints_nothing(capfd):
    x, y, out = add_arrays(3000)
    tuned(add_kernel)[CountingGrid()](x, y, out, 3000)
    assert capfd.readouterr().err == ""
