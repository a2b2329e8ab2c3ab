"""Kernels a hostile (or unlucky) user writes: each ends in a
KilnCompileError at the line, quickly, instead of a raw Python exception
or minutes of work; and a kernel in a file whose path has a quote, or with
a Unicode name, compiles and runs (a review found each failing)."""

from __future__ import annotations

import importlib.util
import textwrap
import time

import numpy as np
import pytest

import kiln
import kiln.language as kl


@kiln.jit
def compile_time_mistakes(out_ptr, CASE: kl.constexpr):
    if CASE == 0:
        kl.store(out_ptr, int("x"))
    if CASE == 1:
        kl.store(out_ptr, len(range(10**30)))
    if CASE == 2:
        kl.store(out_ptr, 2**2**40)
    if CASE == 3:
        kl.store(out_ptr, 1 << 10**9)
    if CASE == 4:
        acc = 0
        for i in kl.static_range(10**8):
            acc += i
        kl.store(out_ptr, acc)


@pytest.mark.parametrize("case, message", [
    (0, r"int\(\): invalid literal"), (1, r"len\(\): Python int too large"),
    (2, "takes more than 4096 bits"), (3, "takes more than 4096 bits"),
    (4, "unrolls at most 4096 iterations, not 100000000")])
def test_compile_time_work_is_bounded_and_errors_are_located(case, message):
    start = time.monotonic()
    with pytest.raises(kiln.KilnError, match=message) as caught:
        compile_time_mistakes.ir(np.zeros(1, np.int32), CASE=case)
    assert time.monotonic() - start < 10
    assert f"{__file__}:" in str(caught.value)


def test_static_range_is_bounded_in_the_interpreter():
    with pytest.raises(kiln.KilnError, match="unrolls at most 4096"):
        kiln.jit(compile_time_mistakes.fn, interpret=True)[(1,)](
            np.zeros(1, np.int32), CASE=4)


def test_a_quote_in_the_path_and_a_unicode_name(tmp_path):
    folder = tmp_path / 'with "quote" and \\ back'
    folder.mkdir()
    path = folder / "kernel.py"
    path.write_text(textwrap.dedent('''
        import kiln
        import kiln.language as kl


        @kiln.jit
        def añadir(x_ptr, out_ptr):
            i = kl.arange(0, 4)
            kl.store(out_ptr + i, kl.load(x_ptr + i) + 1)


        @kiln.jit
        def broken(x_ptr):
            kl.store(x_ptr, no_such_name)
        '''))
    spec = importlib.util.spec_from_file_location("quoted_kernel", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    x = np.arange(4, dtype=np.float32)
    out = np.zeros(4, np.float32)
    module.añadir[(1,)](x, out)
    np.testing.assert_array_equal(out, x + 1)
    # The path is escaped in the IR's locations (\22 is a quote).
    assert "with \\22quote\\22 and \\5C back" in module.añadir.ir(x, out)
    with pytest.raises(kiln.KilnError) as caught:
        module.broken[(1,)](x)
    assert f"{path}:14:" in str(caught.value)
