"""@kiln.jit kernels, written as a Triton user writes them, against numpy."""

from __future__ import annotations

import math

import numpy as np
import pytest

import kiln
import kiln.language as kl


@kiln.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: kl.constexpr):
    pid = kl.program_id(0)
    offsets = pid * BLOCK + kl.arange(0, BLOCK)
    mask = offsets < n
    x = kl.load(x_ptr + offsets, mask=mask)
    y = kl.load(y_ptr + offsets, mask=mask)
    kl.store(out_ptr + offsets, x + y, mask=mask)


@pytest.mark.parametrize("n, block", [(1, 16), (1000, 256), (4097, 1024)])
def test_vector_add(n, block):
    rng = np.random.default_rng(n)
    x, y = rng.standard_normal((2, n), dtype=np.float32)
    out = np.zeros(n, np.float32)
    add_kernel[(kl_cdiv(n, block),)](x, y, out, n, BLOCK=block)
    np.testing.assert_array_equal(out, x + y)


def kl_cdiv(a: int, b: int) -> int:
    return -(-a // b)


def test_specializations_are_cached_per_dtype_and_constexpr():
    x = np.ones(8, np.float64)
    out = np.zeros_like(x)
    add_kernel[(1,)](x, x, out, 8, BLOCK=8)
    np.testing.assert_array_equal(out, 2.0)
    before = len(add_kernel._cache)
    add_kernel[(1,)](x, x, out, 8, BLOCK=8)
    assert len(add_kernel._cache) == before
    xi = np.arange(8, dtype=np.int32)
    outi = np.zeros_like(xi)
    add_kernel[(2,)](xi, xi, outi, 8, BLOCK=4)
    np.testing.assert_array_equal(outi, 2 * xi)
    assert len(add_kernel._cache) == before + 1


@kiln.jit
def softmax_kernel(out_ptr, in_ptr, row_stride, n_cols, BLOCK: kl.constexpr):
    row = kl.program_id(0)
    cols = kl.arange(0, BLOCK)
    mask = cols < n_cols
    x = kl.load(in_ptr + row * row_stride + cols, mask=mask,
                other=-float("inf"))
    x = x - kl.max(x, axis=0)
    num = kl.exp(x)
    kl.store(out_ptr + row * row_stride + cols, num / kl.sum(num, axis=0),
             mask=mask)


@pytest.mark.parametrize("rows, cols", [(1, 1), (7, 100), (3, 128)])
def test_softmax(rows, cols):
    x = (np.random.default_rng(cols).standard_normal((rows, cols)) * 3
         ).astype(np.float32)
    out = np.zeros_like(x)
    softmax_kernel[(rows,)](out, x, cols, cols, BLOCK=128)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True),
                               rtol=1e-5, atol=1e-7)


@kiln.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk,
                  stride_cm, BLOCK_M: kl.constexpr, BLOCK_N: kl.constexpr,
                  BLOCK_K: kl.constexpr):
    pid_m = kl.program_id(0)
    pid_n = kl.program_id(1)
    rm = pid_m * BLOCK_M + kl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + kl.arange(0, BLOCK_N)
    rk = kl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :]
    acc = kl.zeros((BLOCK_M, BLOCK_N), dtype=kl.float32)
    for k in range(0, K, BLOCK_K):
        a = kl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < K - k),
                    other=0.0)
        b = kl.load(b_ptrs, mask=(rk[:, None] < K - k) & (rn[None, :] < N),
                    other=0.0)
        acc += kl.dot(a, b)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + rm[:, None] * stride_cm + rn[None, :]
    kl.store(c_ptrs, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@pytest.mark.parametrize("m, n, k", [(16, 16, 16), (33, 70, 50), (5, 3, 90)])
def test_matmul_with_a_loop_and_masks(m, n, k):
    rng = np.random.default_rng(m * n * k)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = np.zeros((m, n), np.float32)
    matmul_kernel[(kl_cdiv(m, 32), kl_cdiv(n, 32))](
        a, b, c, m, n, k, k, n, n, BLOCK_M=32, BLOCK_N=32, BLOCK_K=16)
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32),
                               rtol=1e-4, atol=1e-4)


@kiln.jit
def layer_norm_kernel(x_ptr, y_ptr, w_ptr, b_ptr, n, eps,
                      BLOCK: kl.constexpr):
    row = kl.program_id(0)
    cols = kl.arange(0, BLOCK)
    mask = cols < n
    x = kl.load(x_ptr + row * n + cols, mask=mask, other=0.0)
    mean = kl.sum(x, axis=0) / n
    diff = kl.where(mask, x - mean, 0.0)
    var = kl.sum(diff * diff, axis=0) / n
    rstd = kl.rsqrt(var + eps)
    w = kl.load(w_ptr + cols, mask=mask)
    b = kl.load(b_ptr + cols, mask=mask)
    kl.store(y_ptr + row * n + cols, diff * rstd * w + b, mask=mask)


def test_layer_norm():
    rows, n = 6, 100
    rng = np.random.default_rng(0)
    x = rng.standard_normal((rows, n)).astype(np.float32)
    w, b = rng.standard_normal((2, n)).astype(np.float32)
    y = np.zeros_like(x)
    layer_norm_kernel[(rows,)](x, y, w, b, n, 1e-5, BLOCK=128)
    x64 = x.astype(np.float64)
    expected = ((x64 - x64.mean(1, keepdims=True))
                / np.sqrt(x64.var(1, keepdims=True) + 1e-5) * w + b)
    np.testing.assert_allclose(y, expected, rtol=1e-4, atol=1e-4)


@kiln.jit
def reductions_kernel(x_ptr, sums, maxes, argmaxes, mins, cums,
                      ROWS: kl.constexpr, COLS: kl.constexpr):
    r = kl.arange(0, ROWS)
    c = kl.arange(0, COLS)
    x = kl.load(x_ptr + r[:, None] * COLS + c[None, :])
    kl.store(sums + r, kl.sum(x, axis=1))
    kl.store(maxes + c, kl.max(x, axis=0))
    kl.store(argmaxes + r, kl.argmax(x, axis=1))
    kl.store(mins, kl.min(x))
    kl.store(cums + r[:, None] * COLS + c[None, :], kl.cumsum(x, axis=1))


def test_reductions_and_scans():
    x = np.random.default_rng(1).integers(-9, 9, size=(4, 8)).astype(np.int32)
    sums, argmaxes = np.zeros(4, np.int32), np.zeros(4, np.int32)
    maxes, mins = np.zeros(8, np.int32), np.zeros(1, np.int32)
    cums = np.zeros_like(x)
    reductions_kernel[(1,)](x, sums, maxes, argmaxes, mins, cums, ROWS=4,
                            COLS=8)
    np.testing.assert_array_equal(sums, x.sum(1))
    np.testing.assert_array_equal(maxes, x.max(0))
    np.testing.assert_array_equal(argmaxes, x.argmax(1))
    assert mins[0] == x.min()
    np.testing.assert_array_equal(cums, np.cumsum(x, axis=1))


@kiln.jit
def math_kernel(x_ptr, out_ptr, n, BLOCK: kl.constexpr):
    offs = kl.arange(0, BLOCK)
    mask = offs < n
    x = kl.load(x_ptr + offs, mask=mask, other=1.0)
    y = (kl.exp(x) + kl.log(kl.abs(x) + 1.0) + kl.sqrt(kl.abs(x))
         + kl.sin(x) * kl.cos(x) + kl.tanh(x) + kl.erf(x) + kl.sigmoid(x)
         + kl.exp2(x) + kl.log2(kl.abs(x) + 2.0)
         + kl.minimum(x, 0.5) + kl.maximum(x, -0.5) + kl.fma(x, x, x))
    kl.store(out_ptr + offs, y, mask=mask)


def test_math_functions():
    x = np.linspace(-2, 2, 37).astype(np.float32)
    out = np.zeros_like(x)
    math_kernel[(1,)](x, out, x.size, BLOCK=64)
    x64 = x.astype(np.float64)
    erf = np.vectorize(math.erf)
    expected = (np.exp(x64) + np.log(np.abs(x64) + 1) + np.sqrt(np.abs(x64))
                + np.sin(x64) * np.cos(x64) + np.tanh(x64) + erf(x64)
                + 1 / (1 + np.exp(-x64)) + np.exp2(x64)
                + np.log2(np.abs(x64) + 2) + np.minimum(x64, 0.5)
                + np.maximum(x64, -0.5) + x64 * x64 + x64)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)


@kiln.jit
def control_kernel(out_ptr, n, threshold):
    # A scalar loop with carried values and a branch on a scalar.
    total = 0
    count = 0
    for i in range(n):
        if i % 3 == 0:
            total += i
        else:
            count += 1
    if total > threshold:
        kl.store(out_ptr, total)
    else:
        kl.store(out_ptr, -total)
    kl.store(out_ptr + 1, count)
    for j in kl.static_range(3):
        kl.store(out_ptr + 2 + j, j * 10)


@pytest.mark.parametrize("n, threshold", [(10, 5), (10, 100), (0, -1)])
def test_loops_and_branches(n, threshold):
    out = np.zeros(5, np.int32)
    control_kernel[(1,)](out, n, threshold)
    total = sum(i for i in range(n) if i % 3 == 0)
    count = sum(1 for i in range(n) if i % 3)
    assert out[0] == (total if total > threshold else -total)
    assert out[1] == count
    np.testing.assert_array_equal(out[2:], [0, 10, 20])


@kiln.jit
def while_kernel(x_ptr, out_ptr, steps_ptr, n, limit,
                 BLOCK: kl.constexpr):
    # Collatz steps of n (a scalar while), and halving a tile until its
    # largest magnitude is below `limit` (a while carrying a tile).
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    kl.store(steps_ptr, steps)
    offs = kl.arange(0, BLOCK)
    x = kl.load(x_ptr + offs)
    halvings = 0
    while kl.max(kl.abs(x), axis=0) >= limit:
        x = x * 0.5
        halvings += 1
    kl.store(out_ptr + offs, x)
    kl.store(steps_ptr + 1, halvings)


def collatz_steps(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


@pytest.mark.parametrize("interpret", [False, True])
@pytest.mark.parametrize("n, limit", [(1, 100.0), (27, 1.0), (6, 0.01)])
def test_while_loops(n, limit, interpret):
    x = (np.random.default_rng(n).standard_normal(64) * 40).astype(np.float32)
    out = np.zeros_like(x)
    steps = np.zeros(2, np.int32)
    kernel = kiln.JITFunction(while_kernel.fn, interpret=interpret)
    kernel[(1,)](x, out, steps, n, limit, BLOCK=64)
    halvings = 0
    expected = x.copy()
    while np.abs(expected).max() >= limit:
        expected *= np.float32(0.5)
        halvings += 1
    assert steps[0] == collatz_steps(n)
    assert steps[1] == halvings
    np.testing.assert_array_equal(out, expected)


def test_while_loop_lowers_to_scf_while():
    ir = while_kernel.ir(np.zeros(64, np.float32), np.zeros(64, np.float32),
                         np.zeros(2, np.int32), 27, 1.0, BLOCK=64)
    assert ir.count("scf.while") == 2
    assert "scf.condition" in ir


@kiln.jit
def scale(x, factor):
    return x * factor


@kiln.jit
def casts_kernel(x_ptr, y_ptr, out_ptr, BLOCK: kl.constexpr):
    offs = kl.arange(0, BLOCK)
    x = kl.load(x_ptr + offs)                   # f16
    y = kl.load(y_ptr + offs)                   # i32
    z = scale(x.to(kl.float32), 2.0) + y       # nested kernel, promotion
    kl.static_assert(BLOCK % 4 == 0, "BLOCK must be a multiple of 4")
    kl.store(out_ptr + offs, kl.reshape(kl.trans(kl.reshape(z, (4, BLOCK // 4))),
                                        (BLOCK,)))


def test_casts_nested_calls_and_shape_ops():
    x = np.arange(8, dtype=np.float16) / 4
    y = np.arange(8, dtype=np.int32)
    out = np.zeros(8, np.float32)
    casts_kernel[(1,)](x, y, out, BLOCK=8)
    z = x.astype(np.float32) * 2 + y
    np.testing.assert_array_equal(out, z.reshape(4, 2).T.reshape(8))


@kiln.jit
def histogram_kernel(x_ptr, bins_ptr, n, BLOCK: kl.constexpr):
    offs = kl.program_id(0) * BLOCK + kl.arange(0, BLOCK)
    mask = offs < n
    x = kl.load(x_ptr + offs, mask=mask)
    kl.atomic_add(bins_ptr + x % 4, 1, mask=mask)


def test_atomics():
    x = np.random.default_rng(5).integers(0, 100, size=300).astype(np.int32)
    bins = np.zeros(4, np.int32)
    histogram_kernel[(3,)](x, bins, x.size, BLOCK=128)
    np.testing.assert_array_equal(bins, np.bincount(x % 4, minlength=4))


@kiln.jit
def bad_shapes(x_ptr, BLOCK: kl.constexpr):
    a = kl.arange(0, BLOCK)
    b = kl.arange(0, 2 * BLOCK)
    kl.store(x_ptr + a, a + b)


def test_frontend_errors_point_at_the_python_line():
    with pytest.raises(kiln.KilnCompileError) as info:
        bad_shapes[(1,)](np.zeros(8, np.int32), BLOCK=8)
    error = info.value
    assert error.filename == __file__
    assert "shapes [8], [16] do not broadcast" in error.message
    lines = str(error).splitlines()
    assert lines[0].startswith(f"{__file__}:{error.line}:")
    assert lines[1].strip() == "kl.store(x_ptr + a, a + b)"
    assert lines[2].index("^") == lines[1].index("a + b")


@kiln.jit
def bad_dot(a_ptr, BLOCK: kl.constexpr):
    r = kl.arange(0, BLOCK)
    a = kl.load(a_ptr + r[:, None] * BLOCK + r[None, :])
    d = kl.dot(a, a)
    kl.store(a_ptr + r[:, None] * BLOCK + r[None, :], d)


def test_compiler_errors_point_at_the_python_line():
    # i16 is not a dot input type: the tile dialect's verifier rejects it,
    # and the error comes back at the kl.dot line.
    with pytest.raises(kiln.KilnCompileError) as info:
        bad_dot[(1,)](np.zeros(16, np.int16), BLOCK=4)
    assert "'tile.dot' op operand element type 'i16'" in info.value.message
    assert "d = kl.dot(a, a)" in str(info.value)


@kiln.jit
def batched_dot(a_ptr, b_ptr, o_ptr):
    i = (kl.arange(0, 2)[:, None, None] * 256 +
         kl.arange(0, 16)[None, :, None] * 16 +
         kl.arange(0, 16)[None, None, :])
    kl.store(o_ptr + i, kl.dot(kl.load(a_ptr + i), kl.load(b_ptr + i)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_batched_dot_default_accumulator(dtype):
    """kl.dot of [2, 16, 16] tiles: the default accumulator is [2, 16, 16]
    (found in review: it was [2, 16])."""
    rng = np.random.default_rng(4)
    a, b = (rng.standard_normal((2, 16, 16)).astype(dtype) for _ in "ab")
    for kernel in (batched_dot,
                   kiln.JITFunction(batched_dot.fn, interpret=True)):
        out = np.zeros((2, 16, 16), dtype)
        kernel[(1,)](a, b, out)
        np.testing.assert_allclose(out, a.astype(np.float64) @ b,
                                   rtol=1e-5, atol=1e-5)


def test_float64_dot_accumulates_in_float64():
    """kl.dot of f64 tiles: an f64 accumulator by default, the product as
    numpy's in float64, on the host target and in the interpreter."""
    a = np.random.default_rng(3).standard_normal(16)
    square = a.reshape(4, 4) @ a.reshape(4, 4)
    for kernel in (bad_dot, kiln.JITFunction(bad_dot.fn, interpret=True)):
        out = a.copy()
        kernel[(1,)](out, BLOCK=4)
        np.testing.assert_allclose(out.reshape(4, 4), square, rtol=1e-14)
    # An f32 accumulator for them is refused alike, compiled or not.
    for kernel in (f32_accumulator,
                   kiln.JITFunction(f32_accumulator.fn, interpret=True)):
        with pytest.raises(kiln.KilnError, match="f64|float64"):
            kernel[(1,)](a.copy(), BLOCK=4)


@kiln.jit
def f32_accumulator(a_ptr, BLOCK: kl.constexpr):
    r = kl.arange(0, BLOCK)
    a = kl.load(a_ptr + r[:, None] * BLOCK + r[None, :])
    d = kl.dot(a, a, kl.zeros((BLOCK, BLOCK), kl.float32))
    kl.store(a_ptr + r[:, None] * BLOCK + r[None, :], d)


def test_kernels_need_their_source():
    namespace = {}
    exec("def k(x_ptr):\n    kl.store(x_ptr, 1)\n", {"kl": kl}, namespace)
    kernel = kiln.jit(namespace["k"])
    with pytest.raises(kiln.KilnError, match="cannot read the source of "
                                             "kernel 'k'"):
        kernel[(1,)](np.zeros(1, np.int32))


def test_misuse_is_reported():
    with pytest.raises(kiln.KilnError, match="only be called inside"):
        kl.load(None)
    with pytest.raises(kiln.KilnError, match=r"launch a kernel with"):
        add_kernel(1, 2, 3, 4)
    with pytest.raises(kiln.KilnError, match="missing a required argument"):
        add_kernel[(1,)](np.zeros(4, np.float32), BLOCK=4)
    with pytest.raises(kiln.KilnError, match="cannot be passed to a kernel"):
        add_kernel[(1,)]("x", "y", "z", 4, BLOCK=4)


# Regressions of review findings: booleans, returns, casts, narrow sums,
# negative steps and mixed float types.

@kiln.jit
def bools_kernel(x_ptr, out_ptr, n):
    i = kl.arange(0, 8)
    v = kl.load(x_ptr + i)
    m = i < n
    kl.store(out_ptr + i, 7, mask=~m)             # elementwise not
    kl.store(out_ptr + 8 + i, (v > 0) * 2)          # int meets bool: 0 or 2
    kl.store(out_ptr + 16 + i, (v > 0) + 1)         # 1 or 2
    kl.store(out_ptr + 24 + i, v.to(kl.int1).to(kl.int32))  # v != 0
    kl.store(out_ptr + 32 + i, kl.load(x_ptr + 1 + (i >= 0)))  # offset 1
    kl.store(out_ptr + 40, kl.sum(v > 0))           # counts
    kl.store(out_ptr + 41, kl.max(v > 0).to(kl.int32))
    kl.store(out_ptr + 42, kl.min(v > 0).to(kl.int32))
    kl.store(out_ptr + 43, not n)


def test_booleans_mix_with_numbers():
    x = np.array([0, 1, 2, 3, -1, 0, 5, 0], dtype=np.int32)
    out = np.full(44, -9, np.int32)
    bools_kernel[(1,)](x, out, 3)
    i = np.arange(8)
    np.testing.assert_array_equal(out[:8], np.where(i < 3, -9, 7))
    np.testing.assert_array_equal(out[8:16], (x > 0) * 2)
    np.testing.assert_array_equal(out[16:24], (x > 0) + 1)
    np.testing.assert_array_equal(out[24:32], (x != 0).astype(np.int32))
    np.testing.assert_array_equal(out[32:40], np.full(8, x[2]))
    assert out[40] == np.sum(x > 0)
    assert out[41] == 1 and out[42] == 0
    assert out[43] == 0


@kiln.jit
def float_to_bool_kernel(x_ptr, out_ptr):
    i = kl.arange(0, 4)
    kl.store(out_ptr + i, kl.load(x_ptr + i).to(kl.int1).to(kl.int32))


def test_float_to_bool_is_not_zero():
    x = np.array([0.0, 1.0, 0.5, -2.0], np.float32)
    out = np.zeros(4, np.int32)
    float_to_bool_kernel[(1,)](x, out)
    np.testing.assert_array_equal(out, [0, 1, 1, 1])


@kiln.jit
def narrow_sum_kernel(x_ptr, out_ptr):
    i = kl.arange(0, 64)
    x = kl.load(x_ptr + i)              # int8
    kl.store(out_ptr, kl.sum(x))        # accumulated in int32
    kl.store(out_ptr + 1 + i, kl.cumsum(x))


def test_narrow_integer_sums_widen():
    x = np.full(64, 100, np.int8)
    out = np.zeros(65, np.int32)
    narrow_sum_kernel[(1,)](x, out)
    assert out[0] == 6400
    np.testing.assert_array_equal(out[1:], np.cumsum(x.astype(np.int32)))


@kiln.jit
def countdown_kernel(out_ptr, n):
    total = 0
    for i in range(n, 0, -1):
        total += i
    kl.store(out_ptr, total)
    last = -1
    for j in range(10, 1, -3):          # 10, 7, 4
        kl.store(out_ptr + 1 + (10 - j) // 3, j)
        last = j
    kl.store(out_ptr + 4, last)


def test_negative_steps():
    out = np.zeros(5, np.int32)
    countdown_kernel[(1,)](out, 10)
    np.testing.assert_array_equal(out, [55, 10, 7, 4, 4])
    countdown_kernel[(1,)](out, 0)
    assert out[0] == 0


@kiln.jit
def pick(v, FAST: kl.constexpr):
    if FAST:
        return v
    return v * 2


@kiln.jit
def early_return_kernel(out_ptr, FAST: kl.constexpr):
    kl.store(out_ptr, pick(3, FAST))
    return
    kl.store(out_ptr, 99)  # never runs


def test_returns_end_the_function():
    out = np.zeros(1, np.int32)
    early_return_kernel[(1,)](out, FAST=True)
    assert out[0] == 3
    early_return_kernel[(1,)](out, FAST=False)
    assert out[0] == 6


@kiln.jit
def runtime_return_kernel(out_ptr, n):
    pid = kl.program_id(0)
    if pid >= n:
        return
    kl.store(out_ptr + pid, 1)


@kiln.jit
def not_tile_kernel(x_ptr):
    i = kl.arange(0, 4)
    kl.store(x_ptr + i, 1, mask=not i)


def test_not_takes_scalars_and_tiles_of_booleans():
    """As Triton's, which inverts a tile of booleans but cannot make one
    of integers boolean (test_triton_semantics tests the booleans)."""
    with pytest.raises(kiln.KilnCompileError, match="'not' takes a scalar "
                       "or a tile of booleans"):
        not_tile_kernel[(1,)](np.zeros(4, np.int32))


@pytest.mark.parametrize("interpret", [False, True])
def test_return_under_a_runtime_if(interpret):
    """`if pid >= n: return` ends the programs past n; what follows runs
    in the others."""
    out = np.zeros(8, np.int32)
    kiln.jit(runtime_return_kernel.fn, interpret=interpret)[(8,)](out, 3)
    np.testing.assert_array_equal(out, [1, 1, 1, 0, 0, 0, 0, 0])


@kiln.jit
def sign_of(v):
    if v < 0:
        return -1
    elif v == 0:
        return 0
    return 1


@kiln.jit
def returns_on_paths_kernel(x_ptr, out_ptr, n):
    pid = kl.program_id(0)
    x = kl.load(x_ptr + pid)
    if pid < n:
        if x > 10:
            kl.store(out_ptr + pid, 100)
            return
        x = x * 2
    kl.store(out_ptr + pid, x + sign_of(x))


@pytest.mark.parametrize("interpret", [False, True])
def test_returns_on_some_paths(interpret):
    """A return nested in ifs, and an inlined function returning a value
    on three paths: the statements after each if run on the paths that
    did not return."""
    x = np.array([20, -3, 0, 5, 20, -7], np.int32)
    out = np.zeros(6, np.int32)
    kernel = kiln.jit(returns_on_paths_kernel.fn, interpret=interpret)
    kernel[(6,)](x, out, 4)
    want = []
    for pid, v in enumerate(x):
        if pid < 4:
            if v > 10:
                want.append(100)
                continue
            v = v * 2
        want.append(v + int(np.sign(v)))
    np.testing.assert_array_equal(out, want)


@kiln.jit
def return_in_loop_kernel(out_ptr, n):
    for i in range(n):
        if i == 2:
            return
        kl.store(out_ptr + i, i)


@kiln.jit
def returns_value_on_one_path(v):
    if v > 0:
        return v
    kl.static_assert(True)


@kiln.jit
def one_path_kernel(out_ptr, n):
    kl.store(out_ptr, returns_value_on_one_path(n))


def test_returns_that_cannot_be_compiled():
    with pytest.raises(kiln.KilnCompileError,
                       match="return inside an if on a run-time value in a "
                             "loop is not supported"):
        return_in_loop_kernel[(1,)](np.zeros(4, np.int32), 4)
    with pytest.raises(kiln.KilnCompileError,
                       match="must return one on every path"):
        one_path_kernel[(1,)](np.zeros(1, np.int32), 3)


@kiln.jit
def mixed_fma_kernel(x_ptr, y_ptr, out_ptr):
    i = kl.arange(0, 4)
    x = kl.load(x_ptr + i)   # f16
    y = kl.load(y_ptr + i)   # f32
    kl.store(out_ptr + i, kl.fma(x, x, y))


def test_mixed_precision_fma():
    x = np.array([1, 2, 3, 4], np.float16)
    y = np.array([0.5, 0.5, 0.5, 0.5], np.float32)
    out = np.zeros(4, np.float32)
    mixed_fma_kernel[(1,)](x, y, out)
    np.testing.assert_array_equal(out, x.astype(np.float32) ** 2 + y)


def test_arguments_are_specialized_on_divisibility_and_one():
    x = np.zeros(64, np.float32)  # numpy aligns allocations to 16 bytes
    assert x.ctypes.data % 16 == 0
    ir = add_kernel.ir(x, x, x, 64, BLOCK=64)
    assert "%arg0: !tile.ptr<f32> {tile.divisibility = 16 : i64}" in ir
    assert "%arg3: i32 {tile.divisibility = 16 : i64}" in ir
    unaligned = add_kernel.ir(x[1:], x, x, 63, BLOCK=64)
    assert "%arg0: !tile.ptr<f32> loc" in unaligned
    assert "%arg3: i32 loc" in unaligned
    # n == 1 is compiled as the constant 1: no splat of the argument.
    one = add_kernel.ir(x, x, x, 1, BLOCK=64)
    assert "tile.splat %arg3" not in one
    # Each specialization is its own compiled kernel, with the same results.
    out = np.zeros(64, np.float32)
    y = np.arange(64, dtype=np.float32)
    for n in (64, 63, 1):
        out[:] = 0
        add_kernel[(1,)](y, y, out, n, BLOCK=64)
        np.testing.assert_array_equal(out[:n], 2 * y[:n])
        np.testing.assert_array_equal(out[n:], 0)


@kiln.jit
def double_strided(x_ptr, n, stride):
    i = kl.arange(0, 8)
    mask = i < n
    v = kl.load(x_ptr + i * stride, mask=mask)
    kl.store(x_ptr + i * stride, v * 2, mask=mask)


@pytest.mark.parametrize("interpret", [False, True],
                         ids=["host", "interpreter"])
def test_strided_views_are_addressed_through_their_strides(interpret):
    """A column of a matrix: the kernel steps over it with the stride it is
    given, in place, in both modes; its neighbours are untouched."""
    matrix = np.arange(24, dtype=np.float32).reshape(6, 4)
    expected = matrix.copy()
    expected[:, 1] *= 2
    kernel = kiln.jit(double_strided.fn, interpret=interpret)
    kernel[(1,)](matrix[:, 1], 6, 4)
    np.testing.assert_array_equal(matrix, expected)


class DLPackOnly:
    """An array library's CPU array that offers only DLPack."""

    def __init__(self, array):
        self.array = array

    def __dlpack__(self, **kwargs):
        return self.array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


def test_cpu_dlpack_arrays_run_on_the_host_in_place():
    data = np.arange(8, dtype=np.float32)
    double_strided[(1,)](DLPackOnly(data), 8, 1)
    np.testing.assert_array_equal(data, 2 * np.arange(8, dtype=np.float32))


def test_cpu_bfloat16_dlpack_arrays_run_on_the_host_in_place():
    """numpy's DLPack import refuses bfloat16: a PyTorch CPU tensor of it
    is viewed as ml_dtypes' bfloat16 over the same memory, strides and
    all (every other element of a column)."""
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    data = torch.arange(16, dtype=torch.bfloat16).reshape(8, 2)
    double_strided[(1,)](data[:, 0], 8, 2)
    expected = torch.arange(16, dtype=torch.bfloat16).reshape(8, 2)
    expected[:, 0] *= 2
    assert torch.equal(data, expected)
