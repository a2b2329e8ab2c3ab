"""kl.device_print and kl.device_assert, and debug mode: compiled for the
host target, in the interpreter, and to PTX for the GPU."""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest

import kiln
import kiln.language as kl


@kiln.jit
def show(x_ptr, n, BLOCK: kl.constexpr):
    offs = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK)
    x = kl.load(x_ptr + offs, mask=offs < n, other=0.0)
    kl.device_print("x", x)
    kl.device_print("n", n)
    kl.device_print("pair", offs, x > 1.0)
    kl.device_print("done")


def _expected_show(x: np.ndarray, n: int, block: int, grid: int) -> list[str]:
    """What `show` prints, program by program, worked out in Python."""
    lines = []
    for pid in range(grid):
        offs = pid * block + np.arange(block)
        values = np.where(offs < n, x[np.minimum(offs, n - 1)], 0)
        tag = f"pid ({pid}, 0, 0)"
        lines += [f"{tag} idx ({i}) x: {float(v):.9g}"
                  for i, v in enumerate(values.astype(np.float32))]
        lines.append(f"{tag} n: {n}")
        lines += [f"{tag} idx ({i}) pair (operand 0): {o}"
                  for i, o in enumerate(offs)]
        lines += [f"{tag} idx ({i}) pair (operand 1): {int(v > 1)}"
                  for i, v in enumerate(values)]
        lines.append(f"{tag} done")
    return lines


@pytest.mark.parametrize("interpret", [False, True],
                         ids=["host", "interpreter"])
def test_device_print_prints_every_element(capfd, interpret):
    x = np.array([0.25, 1.5, -3.0, 1e-7, 7.0], np.float32)
    kernel = kiln.jit(show.fn, interpret=interpret)
    kernel[(2,)](x, 5, BLOCK=4)
    printed = capfd.readouterr().out.splitlines()
    assert printed == _expected_show(x, 5, 4, 2)


def test_device_print_broadcasts_and_prints_integers_and_doubles(capfd):
    @kiln.jit
    def mixed(out_ptr):
        rows = kl.arange(0, 2)[:, None]
        cols = kl.arange(0, 4)[None, :]
        kl.device_print("rc", rows * 10 + cols, 0.1)
        kl.store(out_ptr + rows * 4 + cols, (rows + cols).to(kl.float64))

    out = np.zeros(8, np.float64)
    mixed[(1,)](out)
    printed = capfd.readouterr().out.splitlines()
    assert printed[:8] == [f"pid (0, 0, 0) idx ({r}, {c}) rc (operand 0): "
                           f"{r * 10 + c}" for r in range(2) for c in range(4)]
    assert printed[8:] == [f"pid (0, 0, 0) idx ({r}, {c}) rc (operand 1): "
                           f"{np.float32(0.1):.9g}"
                           for r in range(2) for c in range(4)]


def _bounded(x_ptr, n, BLOCK: kl.constexpr):
    offs = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK)
    x = kl.load(x_ptr + offs, mask=offs < n, other=0.0)
    kl.device_assert(x < 5.0)
    kl.device_assert(offs < 100, "offsets in range")


ASSERT_LINE = inspect.getsourcelines(_bounded)[1] + 3


@pytest.mark.parametrize("interpret", [False, True],
                         ids=["host", "interpreter"])
def test_device_assert_names_line_condition_program_and_element(interpret):
    kernel = kiln.jit(_bounded, interpret=interpret, debug=True)
    x = np.array([0, 1, 2, 3, 4, 9], np.float32)
    with pytest.raises(kiln.KilnError) as failure:
        kernel[(2,)](x, 6, BLOCK=4)
    message = str(failure.value)
    assert re.search(rf"assertion failed at .*test_debug\.py:{ASSERT_LINE}"
                     r"(:\d+)?: x < 5\.0 in program \(1, 0, 0\), "
                     r"element \(1\)", message), message
    # Where every element holds, the launch runs.
    x[5] = 4
    kernel[(2,)](x, 6, BLOCK=4)


def _asserting(x_ptr, n, BLOCK: kl.constexpr):
    offs = kl.arange(0, BLOCK)
    x = kl.load(x_ptr + offs, mask=offs < n, other=0.0)
    assert x < 5.0, "x stays below 5"
    assert n <= BLOCK


def test_an_assert_statement_is_a_device_assert():
    """``assert cond, msg`` in a kernel, as Triton compiles it: a
    ``device_assert`` (checked in debug mode); the condition's source is
    the message where there is none. Kiln refused the statement."""
    kernel = kiln.jit(_asserting, debug=True)
    kernel[(1,)](np.zeros(8, np.float32), 8, BLOCK=8)
    with pytest.raises(kiln.KilnError, match="x stays below 5"):
        kernel[(1,)](np.full(8, 9.0, np.float32), 8, BLOCK=8)
    with pytest.raises(kiln.KilnError, match="n <= BLOCK"):
        kernel[(1,)](np.zeros(16, np.float32), 16, BLOCK=8)
    kiln.jit(_asserting, debug=False)[(1,)](
        np.full(8, 9.0, np.float32), 8, BLOCK=8)


@pytest.mark.parametrize("variable", ["KILN_DEBUG", "TRITON_DEBUG"])
def test_device_assert_is_compiled_only_in_debug_mode(monkeypatch,
                                                      variable):
    """Debug mode from Kiln's variable or Triton's."""
    x = np.full(8, 9.0, np.float32)
    quiet = kiln.jit(_bounded)
    monkeypatch.delenv("KILN_DEBUG", raising=False)
    monkeypatch.delenv("TRITON_DEBUG", raising=False)
    assert "tile.assert" not in quiet.ir(x, 8, BLOCK=8)
    quiet[(1,)](x, 8, BLOCK=8)  # not checked: no error
    monkeypatch.setenv(variable, "1")
    ir = quiet.ir(x, 8, BLOCK=8)
    assert 'tile.assert' in ir and '"offsets in range"' in ir
    with pytest.raises(kiln.KilnError, match="x < 5.0"):
        quiet[(1,)](x, 8, BLOCK=8)
    assert not kiln.jit(_bounded, debug=False).debug


def test_debug_mode_checks_host_accesses():
    @kiln.jit(debug=True)
    def unmasked(x_ptr, out_ptr):
        offs = kl.arange(0, 8)
        kl.store(out_ptr + offs, kl.load(x_ptr + offs))

    x = np.ones(5, np.float32)
    out = np.zeros(8, np.float32)
    with pytest.raises(kiln.KilnError, match=r"out-of-bounds access at "
                       r".*test_debug\.py:\d+:\d+: tile.load"):
        unmasked[(1,)](x, out)


def test_debug_ops_reach_the_gpu_as_vprintf_and_assertfail():
    kernel = kiln.jit(_bounded, debug=True)
    x = np.zeros(64, np.float32)
    asm = kernel.asm(x, 64, BLOCK=64, chip="sm_90a")
    assert "__assertfail" in asm["ptx"]
    printing = kiln.jit(show.fn)
    assert "vprintf" in printing.asm(x, 64, BLOCK=64, chip="sm_80")["ptx"]


@pytest.mark.parametrize("body,message", [
    ("kl.device_print(n, n)", "constant string prefix"),
    ("kl.device_print('p', x_ptr)", "prints integers and floats, but "
     "argument 1 is !tile.ptr<f32>"),
    ("kl.device_assert(n)", "needs a boolean condition, not i32"),
])
def test_debug_op_errors_point_at_the_line(tmp_path, body, message):
    source = tmp_path / "bad_debug.py"
    source.write_text(
        "import kiln\nimport kiln.language as kl\n\n"
        "@kiln.jit(debug=True)\n"
        "def bad(x_ptr, n):\n"
        f"    {body}\n")
    namespace: dict = {}
    exec(compile(source.read_text(), str(source), "exec"), namespace)
    with pytest.raises(kiln.KilnError) as failure:
        namespace["bad"][(1,)](np.zeros(4, np.float32), 3)
    assert message in str(failure.value)
    assert "bad_debug.py:6" in str(failure.value)
