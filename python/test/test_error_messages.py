"""Errors a user can act on: an unknown keyword at launch is named with
the closest parameter and the kernel's parameters; a name a module lacks
suggests the closest ones; a call of a plain Python function says to
decorate it; a kernel's compile error is a kiln.CompilationError that
points at the user's line, with Kiln's own frames trimmed from its
traceback; an unsupported dtype names the argument."""

from __future__ import annotations

import numpy as np
import pytest

import kiln
import kiln.language as kl
import kiln.triton as triton
import kiln.triton.language as tl


@kiln.jit
def increment(x_ptr, n, BLOCK_SIZE: kl.constexpr):
    offsets = kl.arange(0, BLOCK_SIZE)
    mask = offsets < n
    kl.store(x_ptr + offsets, kl.load(x_ptr + offsets, mask=mask) + 1,
             mask=mask)


@triton.jit
def triton_increment(x_ptr, n, BLOCK_SIZE: tl.constexpr):
    offsets = tl.arange(0, BLOCK_SIZE)
    mask = offsets < n
    tl.store(x_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + 1,
             mask=mask)


@pytest.mark.parametrize("kernel", [increment, triton_increment])
def test_an_unknown_keyword_is_named_with_the_closest_parameter(kernel):
    x = np.zeros(16, np.float32)
    with pytest.raises(kiln.KilnError) as raised:
        kernel[(1,)](x, 16, BLOCK=16)
    name = kernel.__name__
    assert str(raised.value) == (
        f"{name}: unknown argument 'BLOCK' (did you mean 'BLOCK_SIZE'?); "
        f"{name} takes x_ptr, n, BLOCK_SIZE")
    # Launch options are not kernel arguments, and still work.
    kernel[(1,)](x, 16, BLOCK_SIZE=16, num_warps=2)
    np.testing.assert_array_equal(x, np.ones(16, np.float32))


def test_an_unknown_keyword_without_a_close_parameter():
    with pytest.raises(kiln.KilnError, match=r"^increment: unknown argument "
                       r"'zzz'; increment takes x_ptr, n, BLOCK_SIZE$"):
        increment[(1,)](np.zeros(4, np.float32), 4, BLOCK_SIZE=4, zzz=1)


@kiln.jit
def misspelled(x_ptr):
    offsets = kl.aranje(0, 16)
    kl.store(x_ptr + offsets, 1.0)


def helper(value):
    return value + 1


@kiln.jit
def calls_plain_function(x_ptr):
    offsets = kl.arange(0, 16)
    kl.store(x_ptr + offsets, helper(kl.load(x_ptr + offsets)))


def test_a_misspelled_name_suggests_the_closest():
    with pytest.raises(kiln.CompilationError) as raised:
        misspelled[(1,)](np.zeros(16, np.float32))
    error = raised.value
    assert isinstance(error, kiln.KilnCompileError)
    assert error.message == ("kiln.language has no 'aranje' (did you mean "
                             "'arange' or 'range'?)")
    assert str(error).splitlines()[1].strip() == "offsets = kl.aranje(0, 16)"
    [diagnostic] = error.diagnostics
    assert (diagnostic.file, diagnostic.line) == (__file__, error.line)
    assert diagnostic.severity == kiln.Severity.ERROR


def test_a_plain_function_call_suggests_jit():
    """On run-time values (on compile-time ones it runs as the kernel
    compiles, as in Triton: test_triton_semantics)."""
    with pytest.raises(kiln.CompilationError,
                       match="cannot call helper on run-time values in a "
                       "kernel: it is a plain Python function; decorate it "
                       "with @kiln.jit"):
        calls_plain_function[(1,)](np.zeros(16, np.float32))


def _ten_elements(x_ptr):
    offsets = kl.arange(0, 10)
    kl.store(x_ptr + offsets, 1.0)


ten_elements = kiln.jit(_ten_elements)
ten_elements_interpreted = kiln.jit(_ten_elements, interpret=True)


def test_arange_of_a_size_not_a_power_of_two_is_refused_as_in_triton():
    x = np.zeros(16, np.float32)
    expected = ("kl.arange(0, 10) has 10 elements; its range must be a "
                "power of two, as in Triton (take the next one, 16, and "
                "mask the rest)")
    with pytest.raises(kiln.CompilationError) as raised:
        ten_elements[(1,)](x)
    assert raised.value.message == expected
    with pytest.raises(kiln.KilnError, match=r"has 10 elements; its range "
                       r"must be a power of two"):
        ten_elements_interpreted[(1,)](x)
    # Sizes of every power of two, and ranges that do not start at 0.
    for start, end in ((0, 1), (3, 5), (8, 72)):
        @kiln.jit
        def counted(x_ptr, START: kl.constexpr, END: kl.constexpr):
            offsets = kl.arange(START, END)
            kl.store(x_ptr + offsets - START, offsets.to(kl.float32))
        out = np.zeros(end - start, np.float32)
        counted[(1,)](out, START=start, END=end)
        np.testing.assert_array_equal(out, np.arange(start, end))


@pytest.mark.parametrize("dtype", [np.complex64, np.dtype("U4")])
def test_an_unsupported_dtype_names_the_argument(dtype):
    x = np.zeros(16, dtype)
    with pytest.raises(kiln.KilnError) as raised:
        increment[(1,)](x, 16, BLOCK_SIZE=16)
    assert str(raised.value).startswith(
        f"argument 'x_ptr': numpy dtype {np.dtype(dtype)} has no kiln type "
        "(kernels take bool, int8, ")


@kiln.jit
def undefined_name(x_ptr, BLOCK: kl.constexpr):
    offsets = kl.arange(0, BLOCK)
    kl.store(x_ptr + offsets, kl.load(x_ptr + offsets) + nowhere)  # noqa: F821


def _frames(error: BaseException) -> list[str]:
    frames = []
    tb = error.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame.f_code.co_filename)
        tb = tb.tb_next
    return frames


@pytest.mark.parametrize("entry", ["launch", "warmup", "ir"])
def test_a_compile_error_traceback_ends_at_the_users_call(entry,
                                                          monkeypatch):
    monkeypatch.delenv("KILN_FRONT_END_DEBUGGING", raising=False)
    x = np.zeros(16, np.float32)
    call = {"launch": lambda: undefined_name[(1,)](x, BLOCK=16),
            "warmup": lambda: undefined_name.warmup(x, BLOCK=16),
            "ir": lambda: undefined_name.ir(x, BLOCK=16)}[entry]
    with pytest.raises(kiln.CompilationError) as raised:
        call()
    # This file's frames only (the test, the lambda): none of Kiln's, none
    # of the ast module's visitors; the message points at the kernel.
    assert set(_frames(raised.value)) == {__file__}
    assert "'nowhere' is not defined" in str(raised.value)
    assert "+ nowhere)" in str(raised.value)
    monkeypatch.setenv("KILN_FRONT_END_DEBUGGING", "1")
    with pytest.raises(kiln.CompilationError) as raised:
        call()
    assert any(frame.endswith("walker.py") for frame in _frames(raised.value))


def test_a_compile_error_through_heuristics_is_trimmed_too(monkeypatch):
    monkeypatch.delenv("KILN_FRONT_END_DEBUGGING", raising=False)
    blocked = triton.heuristics({"BLOCK": lambda args: 16})(undefined_name)
    with pytest.raises(kiln.CompilationError) as raised:
        blocked[(1,)](np.zeros(16, np.float32))
    assert set(_frames(raised.value)) == {__file__}


def test_an_internal_error_keeps_its_frames():
    # Not a compile error: a bad launch argument keeps the whole traceback
    # (only compile errors, which point at the kernel, are trimmed).
    with pytest.raises(kiln.KilnError) as raised:
        increment[(1,)](np.zeros(16, np.complex64), 16, BLOCK_SIZE=16)
    assert any(frame.endswith("jit.py") for frame in _frames(raised.value))
