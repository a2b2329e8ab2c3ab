"""Triton's ``tl.histogram``, ``tl.expect_zero``, ``tl.tensor`` (and
``isinstance`` in a kernel), ``tl.pi32_t`` and the tensor methods
``logical_and``, ``logical_or`` and ``item``: compiled for the host and in
the interpreter, against numpy, with Triton's semantics (a histogram drops
values outside its bins, as Triton's GPU code and interpreter do)."""

from __future__ import annotations

import numpy as np
import pytest

import kiln
import kiln.language as kl
import kiln.triton.language as tl

BOTH = pytest.mark.parametrize("interpret", [False, True],
                               ids=["host", "interpreter"])
RNG = np.random.default_rng(11)


@kiln.jit
def histogram_kernel(x_ptr, out_ptr, masked_ptr, N: kl.constexpr,
                     BINS: kl.constexpr):
    i = kl.arange(0, N)
    x = kl.load(x_ptr + i)
    kl.store(out_ptr + kl.arange(0, BINS), kl.histogram(x, BINS))
    kl.store(masked_ptr + kl.arange(0, BINS), x.histogram(BINS, mask=i % 2 == 0))


@BOTH
@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64])
def test_histogram(interpret, dtype):
    n, bins = 256, 16
    x = RNG.integers(-3, bins + 3, n).astype(dtype)  # some outside the bins
    out = np.zeros(bins, np.int32)
    masked = np.zeros(bins, np.int32)
    kiln.jit(histogram_kernel.fn, interpret=interpret)[(1,)](
        x, out, masked, N=n, BINS=bins)
    inside = (x >= 0) & (x < bins)
    np.testing.assert_array_equal(out, np.bincount(x[inside], minlength=bins))
    even = inside & (np.arange(n) % 2 == 0)
    np.testing.assert_array_equal(masked, np.bincount(x[even],
                                                      minlength=bins))


@kiln.jit
def histogram_of_floats(x_ptr, out_ptr):
    kl.store(out_ptr + kl.arange(0, 4),
             kl.histogram(kl.load(x_ptr + kl.arange(0, 4)), 4))


@BOTH
def test_histogram_takes_integers(interpret):
    x = np.zeros(4, np.float32)
    with pytest.raises(kiln.KilnError, match="1-D tile of integers"):
        kiln.jit(histogram_of_floats.fn, interpret=interpret)[(1,)](
            x, np.zeros(4, np.int32))


@kiln.jit
def expect_zero_kernel(x_ptr, out_ptr, N: kl.constexpr):
    i = kl.arange(0, N)
    x = kl.load(x_ptr + i)
    kl.store(out_ptr + i, kl.expect_zero(x * 1e-30, i < 4))


@BOTH
def test_expect_zero_keeps_x_and_checks_it_in_debug_mode(interpret):
    x = np.array([0, 0, 0, 0, 1, 2, 3, 4], np.float32)
    out = np.ones(8, np.float32)
    kiln.jit(expect_zero_kernel.fn, interpret=interpret)[(1,)](x, out, N=8)
    np.testing.assert_array_equal(out, x * np.float32(1e-30))
    x[2] = 5.0  # a masked-in element that did not underflow
    checked = kiln.jit(expect_zero_kernel.fn, interpret=interpret,
                       debug=True)
    with pytest.raises(kiln.KilnError, match="expected to be zero"):
        checked[(1,)](x, out, N=8)


@kiln.jit
def _describe(value) -> int:
    if isinstance(value, tl.tensor):
        return 1
    return 0


@kiln.jit
def methods_kernel(x_ptr, flags_ptr, out_ptr, bools_ptr, N: kl.constexpr):
    i = kl.arange(0, N)
    x = kl.load(x_ptr + i)
    flags = kl.load(flags_ptr + i) != 0
    kl.store(bools_ptr + i, flags.logical_and(x > 0))
    kl.store(bools_ptr + N + i, flags.logical_or(x > 0))
    kl.store(bools_ptr + 2 * N + i, (x > 0).logical_and(True))
    first = kl.sum(x[None, :], axis=1, keep_dims=True)  # shape [1, 1]
    kl.store(out_ptr, first.item())
    kl.store(out_ptr + 1, kl.load(x_ptr).item())
    # tl.tensor is what kernels' values are.
    count = _describe(x) + _describe(flags) + _describe(x_ptr) + \
        _describe(7) + _describe(kl.float32)
    kl.store(out_ptr + 2, count)
    addresses = x_ptr.to(tl.pi32_t, bitcast=True)
    kl.store(out_ptr + 3, kl.load(addresses + 1).to(kl.float32, bitcast=True))


@BOTH
def test_tensor_methods_and_tensor_class(interpret):
    n = 16
    x = RNG.standard_normal(n).astype(np.float32)
    flags = RNG.integers(0, 2, n).astype(np.int32)
    out = np.zeros(4, np.float32)
    bools = np.zeros(3 * n, np.bool_)
    kiln.jit(methods_kernel.fn, interpret=interpret)[(1,)](
        x, flags, out, bools, N=n)
    positive = x > 0
    np.testing.assert_array_equal(bools[:n], (flags != 0) & positive)
    np.testing.assert_array_equal(bools[n:2 * n], (flags != 0) | positive)
    np.testing.assert_array_equal(bools[2 * n:], positive)
    assert out[0] == np.float32(x.sum(dtype=np.float32))
    assert out[1] == x[0]
    assert out[2] == 3  # x, flags and the pointer; not 7 or a dtype
    assert out[3] == x[1]


@kiln.jit
def logical_of_ints(x_ptr, out_ptr):
    x = kl.load(x_ptr)
    kl.store(out_ptr, x.logical_and(x))


@kiln.jit
def item_of_many(x_ptr, out_ptr):
    kl.store(out_ptr, kl.load(x_ptr + kl.arange(0, 2)).item())


@BOTH
def test_logical_and_item_misuse(interpret):
    x = np.ones(2, np.int32)
    with pytest.raises(kiln.KilnError, match="logical_and takes booleans, "
                       "not i32 and i32"):
        kiln.jit(logical_of_ints.fn, interpret=interpret)[(1,)](x, x)
    with pytest.raises(kiln.KilnError, match=r"item\(\) takes a tile of one "
                       "number"):
        kiln.jit(item_of_many.fn, interpret=interpret)[(1,)](x, x)


def test_annotations_with_tl_tensor_and_pi32_t():
    """``def f(x: tl.tensor)`` evaluates its annotation when defined (this
    file's own annotations are strings: ``from __future__``)."""
    namespace = {"tl": tl}
    source = ("def helper(x: tl.tensor, p: tl.pi32_t) -> tl.tensor:\n"
              "    return x\n")
    exec(compile(source, "<helper>", "exec", dont_inherit=True), namespace)
    annotations = namespace["helper"].__annotations__
    assert annotations["x"] is kl.tensor
    assert annotations["p"] == kl.pointer_type(kl.int32)
