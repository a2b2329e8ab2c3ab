"""kl.map_elementwise as Triton's: a @kiln.jit function of scalars, with
branches and loops of its own, applied to each element of tiles, pack
elements a call (argument i's j-th element its parameter i * pack + j,
results result-major), on the host target and in the interpreter against
numpy; and its PTX assembled for sm_90a. (Triton's interpreter cannot run
map_elementwise: its builder has no blocks.)"""

from __future__ import annotations

import numpy as np
import pytest

import kiln
import kiln.language as kl

BOTH = pytest.mark.parametrize("interpret", [False, True],
                               ids=["host", "interpreter"])
RNG = np.random.default_rng(11)


@kiln.jit
def selu_scalar(x, alpha):
    # Only the branch an element takes runs: exp is not computed for the
    # positive ones.
    if x > 0:
        return x
    else:
        return alpha * (kl.exp(x) - 1)


@kiln.jit
def selu_kernel(x_ptr, out_ptr, alpha, n, BLOCK: kl.constexpr):
    i = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK)
    mask = i < n
    x = kl.load(x_ptr + i, mask=mask)
    kl.store(out_ptr + i, kl.map_elementwise(selu_scalar, x, alpha),
             mask=mask)


@BOTH
def test_a_branch_per_element(interpret):
    x = RNG.standard_normal(1000).astype(np.float32)
    out = np.zeros_like(x)
    kiln.jit(selu_kernel.fn, interpret=interpret)[(4,)](
        x, out, 1.5, 1000, BLOCK=256)
    # In float32 as the kernel computes it (exp within an ulp).
    want = np.where(x > 0, x, np.float32(1.5) * (np.exp(x) - 1))
    np.testing.assert_allclose(out, want, rtol=1e-6, atol=3e-7)


@kiln.jit
def collatz_steps(n):
    # A loop whose trip count is each element's own.
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


@kiln.jit
def collatz_kernel(x_ptr, out_ptr, BLOCK: kl.constexpr):
    i = kl.arange(0, BLOCK)
    kl.store(out_ptr + i, kl.map_elementwise(collatz_steps,
                                             kl.load(x_ptr + i)))


def _collatz(n: int) -> int:
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


@BOTH
def test_a_loop_per_element(interpret):
    x = np.arange(1, 129, dtype=np.int32)
    out = np.zeros_like(x)
    kiln.jit(collatz_kernel.fn, interpret=interpret)[(1,)](x, out, BLOCK=128)
    np.testing.assert_array_equal(out, [_collatz(int(v)) for v in x])


@kiln.jit
def divmod_pair(n0, n1, d0, d1):
    # pack=2: two elements of each argument; two of each result, the
    # quotients first.
    return n0 // d0, n1 // d1, n0 % d0, n1 % d1


@kiln.jit
def divmod_kernel(n_ptr, d_ptr, q_ptr, r_ptr, BLOCK: kl.constexpr):
    i = kl.arange(0, BLOCK)
    q, r = kl.map_elementwise(divmod_pair, kl.load(n_ptr + i),
                              kl.load(d_ptr + i), pack=2)
    kl.store(q_ptr + i, q)
    kl.store(r_ptr + i, r)


@BOTH
def test_pack_two_with_two_results(interpret):
    n = RNG.integers(-1000, 1000, 256).astype(np.int32)
    d = RNG.integers(1, 30, 256).astype(np.int32) * RNG.choice([-1, 1], 256)
    q, r = np.zeros_like(n), np.zeros_like(n)
    kiln.jit(divmod_kernel.fn, interpret=interpret)[(1,)](n, d.astype(
        np.int32), q, r, BLOCK=256)
    # Triton's // and % truncate, as C's.
    np.testing.assert_array_equal(q, np.trunc(n / d).astype(np.int32))
    np.testing.assert_array_equal(r, n - np.trunc(n / d).astype(np.int32) * d)


@kiln.jit
def clamp3(a, b, c):
    # pack=3 on 128 elements: the last group is padded.
    lo = kl.minimum(a, 0.0)
    return lo, kl.maximum(b, 0.0), c * 2


@kiln.jit
def padded_kernel(x_ptr, out_ptr, BLOCK: kl.constexpr):
    i = kl.arange(0, BLOCK)
    (y,) = kl.map_elementwise(clamp3, kl.load(x_ptr + i), pack=3)
    kl.store(out_ptr + i, y)


@BOTH
def test_a_pack_that_does_not_divide_the_elements(interpret):
    x = RNG.standard_normal(128).astype(np.float32)
    out = np.zeros_like(x)
    kiln.jit(padded_kernel.fn, interpret=interpret)[(1,)](x, out, BLOCK=128)
    # Element j of a group of 3 goes to parameter j and comes back as the
    # j-th returned value.
    want = x.copy()
    want[0::3] = np.minimum(x[0::3], 0)
    want[1::3] = np.maximum(x[1::3], 0)
    want[2::3] = x[2::3] * 2
    np.testing.assert_array_equal(out, want)


def test_the_gpu_code_branches_per_element():
    x = np.zeros(1024, np.float32)
    compiled = selu_kernel.warmup(x, x, 1.5, 1024, BLOCK=1024,
                                  chip="sm_90a")
    ptx = compiled.asm["ptx"]
    assert "ex2.approx" in ptx  # tl.exp, inside the branch
    assert "bra" in ptx  # a branch, not a select of both sides
    if compiled.asm["cubin"]:
        assert compiled.metadata.spill_stores == 0


@kiln.jit
def returns_tile(x):
    return kl.zeros((4,), kl.float32) + x


@kiln.jit
def bad_map(x_ptr, CASE: kl.constexpr):
    i = kl.arange(0, 16)
    x = kl.load(x_ptr + i)
    if CASE == 0:
        y = kl.map_elementwise(selu_scalar, x, 1.0, pack=0)
    elif CASE == 1:
        y = kl.map_elementwise(kl.exp, x)
    elif CASE == 2:
        y = kl.map_elementwise(selu_scalar, x, pack=2)  # 1 result for 2
    elif CASE == 3:
        y = kl.map_elementwise(returns_tile, x)
    else:
        y = kl.map_elementwise(divmod_pair, x, x, pack=3)  # 6 for 4
    kl.store(x_ptr + i, y)


@pytest.mark.parametrize("case, message", [
    (0, "pack must be a constant int of at least 1"),
    (1, "maps a @kiln.jit function"),
    (2, r"returns 1 values, not a positive multiple of pack \(2\)"),
    (3, "maps scalars to scalars"),
    (4, r"divmod_pair\(\): too many positional arguments"),
])
def test_misuse_is_an_error_at_the_line(case, message):
    x = np.zeros(16, np.float32)
    with pytest.raises(kiln.KilnError, match=message) as raised:
        bad_map[(1,)](x, CASE=case)
    assert raised.value.line == bad_map.fn.__code__.co_firstlineno + \
        [5, 7, 9, 11, 13][case]
