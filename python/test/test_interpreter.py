"""The interpreter mode runs the same kernels with numpy, and agrees with
the compiled host target."""

from __future__ import annotations

import numpy as np
import pytest

import kiln
import kiln.language as kl
from test_jit import (add_kernel, bools_kernel, control_kernel,
                      countdown_kernel, histogram_kernel, layer_norm_kernel,
                      matmul_kernel, reductions_kernel, softmax_kernel)


def interpreted(kernel: kiln.JITFunction) -> kiln.JITFunction:
    return kiln.JITFunction(kernel.fn, interpret=True)


def both(kernel, grid, make_args):
    """Runs `kernel` compiled and interpreted on fresh copies of the same
    arguments; returns both argument lists."""
    compiled_args, interpreted_args = make_args(), make_args()
    positional = [a for a in compiled_args if not isinstance(a, dict)]
    keywords = next((a for a in compiled_args if isinstance(a, dict)), {})
    kernel[grid](*positional, **keywords)
    positional2 = [a for a in interpreted_args if not isinstance(a, dict)]
    interpreted(kernel)[grid](*positional2, **keywords)
    return positional, positional2


def assert_same(compiled, interpreted_, rtol=1e-5, atol=1e-6):
    for c, i in zip(compiled, interpreted_):
        if isinstance(c, np.ndarray):
            np.testing.assert_allclose(c, i, rtol=rtol, atol=atol)


def test_vector_add():
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((2, 3000), dtype=np.float32)
    c, i = both(add_kernel, (3,), lambda: [x.copy(), y.copy(),
                                           np.zeros(3000, np.float32), 3000,
                                           {"BLOCK": 1024}])
    assert_same(c, i)
    np.testing.assert_array_equal(i[2], x + y)


def test_softmax_and_layer_norm():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((5, 100)).astype(np.float32)
    c, i = both(softmax_kernel, (5,), lambda: [np.zeros_like(x), x.copy(),
                                               100, 100, {"BLOCK": 128}])
    assert_same(c, i)
    w, b = rng.standard_normal((2, 100)).astype(np.float32)
    c, i = both(layer_norm_kernel, (5,), lambda: [
        x.copy(), np.zeros_like(x), w, b, 100, 1e-5, {"BLOCK": 128}])
    assert_same(c, i, rtol=1e-4, atol=1e-5)


def test_matmul_with_a_loop():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((33, 50)).astype(np.float16)
    b = rng.standard_normal((50, 70)).astype(np.float16)
    c, i = both(matmul_kernel, (2, 3), lambda: [
        a, b, np.zeros((33, 70), np.float32), 33, 70, 50, 50, 70, 70,
        {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 16}])
    assert_same(c, i, rtol=1e-4, atol=1e-4)


def test_reductions_control_flow_atomics_and_bools():
    x = np.random.default_rng(3).integers(-9, 9, size=(4, 8)).astype(np.int32)
    c, i = both(reductions_kernel, (1,), lambda: [
        x.copy(), np.zeros(4, np.int32), np.zeros(8, np.int32),
        np.zeros(4, np.int32), np.zeros(1, np.int32), np.zeros_like(x),
        {"ROWS": 4, "COLS": 8}])
    assert_same(c, i)
    for n, threshold in [(10, 5), (10, 100)]:
        c, i = both(control_kernel, (1,), lambda: [np.zeros(5, np.int32), n,
                                                   threshold])
        assert_same(c, i)
    c, i = both(countdown_kernel, (1,), lambda: [np.zeros(5, np.int32), 10])
    assert_same(c, i)
    v = np.random.default_rng(4).integers(0, 100, size=300).astype(np.int32)
    c, i = both(histogram_kernel, (3,), lambda: [v, np.zeros(4, np.int32),
                                                 300, {"BLOCK": 128}])
    assert_same(c, i)
    xb = np.array([0, 1, 2, 3, -1, 0, 5, 0], dtype=np.int32)
    c, i = both(bools_kernel, (1,), lambda: [xb, np.full(44, -9, np.int32),
                                             3])
    assert_same(c, i)


@kiln.jit(interpret=True)
def out_of_bounds(x_ptr, n):
    offs = kl.arange(0, 8)
    kl.store(x_ptr + offs, 1.0, mask=offs < n)


def test_the_interpreter_checks_bounds_where_the_mask_allows():
    x = np.zeros(4, np.float32)
    out_of_bounds[(1,)](x, 4)  # masked: fine
    np.testing.assert_array_equal(x, 1.0)
    with pytest.raises(kiln.KilnError, match="out-of-bounds access: offset 4 "
                                             "of an array of 4 elements"):
        out_of_bounds[(1,)](x, 8)


def test_environment_selects_the_interpreter(monkeypatch):
    kernel = kiln.jit(add_kernel.fn)
    monkeypatch.setenv("KILN_INTERPRET", "1")
    assert kernel.interpreted
    x = np.ones(8, np.float32)
    out = np.zeros(8, np.float32)
    kernel[(1,)](x, x, out, 8, BLOCK=8)
    np.testing.assert_array_equal(out, 2.0)
    assert not kernel._cache  # nothing was compiled
    monkeypatch.setenv("KILN_INTERPRET", "0")
    assert not kernel.interpreted
