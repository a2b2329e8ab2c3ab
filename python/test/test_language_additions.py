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
    # Halves: their sum is exact in any order.
    x = (RNG.integers(-16, 17, n) / 2).astype(np.float32)
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


@kiln.jit
def atomics_kernel(x_ptr, f_ptr, flag_ptr, out_ptr, f_out_ptr,
                   N: kl.constexpr):
    i = kl.arange(0, N)
    kl.store(out_ptr + i, kl.atomic_load(x_ptr + i, mask=i < N - 2))
    kl.store(f_out_ptr + i, (f_ptr + i).atomic_load(sem="relaxed"))
    kl.atomic_store(f_ptr + i, kl.load(f_ptr + i) * 2, mask=i % 2 == 0)
    kl.atomic_store(flag_ptr, 7)
    done = kl.atomic_poll(flag_ptr + i * 0, 7)
    kl.store(out_ptr + N + i, done.to(kl.int32))


@BOTH
def test_atomic_load_store_and_poll(interpret):
    n = 8
    x = np.arange(n, dtype=np.int64) * 3 - 5
    f = np.linspace(-2, 2, n).astype(np.float32)
    f[1] = -0.0
    flag = np.zeros(1, np.int32)
    out = np.full(2 * n, -1, np.int64)
    f_out = np.zeros(n, np.float32)
    before = f.copy()
    kiln.jit(atomics_kernel.fn, interpret=interpret)[(1,)](
        x, f, flag, out, f_out, N=n)
    np.testing.assert_array_equal(out[:n - 2], x[:n - 2])
    np.testing.assert_array_equal(f_out.view(np.int32),
                                  before.view(np.int32))  # -0.0 kept
    np.testing.assert_array_equal(
        f, np.where(np.arange(n) % 2 == 0, before * 2, before))
    assert flag[0] == 7
    np.testing.assert_array_equal(out[n:], 1)


@kiln.jit
def bad_order_kernel(x_ptr, CASE: kl.constexpr):
    if CASE == 0:
        kl.atomic_load(x_ptr, sem="release")
    elif CASE == 1:
        kl.atomic_store(x_ptr, 1, sem="acquire")
    else:
        kl.atomic_poll(x_ptr, 0, timeout_ns=1000)


@BOTH
@pytest.mark.parametrize("case, message", [
    (0, r"atomic_load: sem is one of \('acquire', 'relaxed'\), not "
        "'release'"),
    (1, r"atomic_store: sem is one of \('release', 'relaxed'\)"),
    (2, "timeout_ns is not supported"),
])
def test_atomic_orders_are_tritons(interpret, case, message):
    x = np.zeros(1, np.int32)
    with pytest.raises(kiln.KilnError, match=message):
        kiln.jit(bad_order_kernel.fn, interpret=interpret)[(1,)](x, CASE=case)


def test_poll_that_cannot_match_in_the_interpreter_is_an_error():
    @kiln.jit(interpret=True)
    def wait(flag_ptr):
        kl.atomic_poll(flag_ptr, 1)
    with pytest.raises(kiln.KilnError, match="would wait forever"):
        wait[(1,)](np.zeros(1, np.int32))


def test_atomic_loads_and_stores_on_the_gpu_are_tritons():
    """ld.acquire / ld.relaxed / st.release, as Triton's PTX has them."""
    n = 128
    args = (np.zeros(n, np.int64), np.zeros(n, np.float32),
            np.zeros(1, np.int32), np.zeros(2 * n, np.int64),
            np.zeros(n, np.float32))
    ptx = atomics_kernel.asm(*args, chip="sm_90a", N=n)["ptx"]
    assert "ld.acquire.gpu.global.b64" in ptx
    assert "ld.relaxed.gpu.global.b32" in ptx
    assert "st.release.gpu.global.b32" in ptx
    assert "atom." not in ptx and "fence" not in ptx


@kiln.jit
def ordered_add_kernel(x_ptr, lock_ptr):
    kl.atomic_add(x_ptr + kl.arange(0, 128), 1.0)  # acq_rel by default
    kl.atomic_xchg(lock_ptr, 0, sem="release")


def test_ordered_read_modify_writes_keep_their_order_on_the_gpu():
    """NVPTX emits a relaxed atom for an ordered atomicrmw: fences around
    it keep the order (a lock's release after the stores it guards)."""
    ptx = ordered_add_kernel.asm(np.zeros(128, np.float32),
                                 np.zeros(1, np.int32), chip="sm_90a")["ptx"]
    lines = [line.strip() for line in ptx.splitlines()]
    add = next(i for i, t in enumerate(lines) if "atom.global.add.f32" in t)
    assert "fence.acq_rel.gpu" in lines[add - 1]
    assert "fence.acq_rel.gpu" in lines[add + 1]
    exchange = next(i for i, t in enumerate(lines)
                    if t.startswith(("atom.global.exch", "st.release")))
    assert "st.release.gpu.global.b32" in lines[exchange]


@kiln.jit
def gather_kernel(src_ptr, idx_ptr, out_ptr, rows_out_ptr, K: kl.constexpr,
                  M: kl.constexpr, N: kl.constexpr):
    k = kl.arange(0, K)
    m = kl.arange(0, M)
    n = kl.arange(0, N)
    table = kl.load(src_ptr + k[:, None] * M + m[None, :])  # K x M
    picks = kl.load(idx_ptr + n[:, None] * M + m[None, :])  # N x M
    kl.store(out_ptr + n[:, None] * M + m[None, :], kl.gather(table, picks, 0))
    # Along axis 1 (the last), with the method spelling: row r of the
    # result picks from row r of the table.
    rows = table.gather(kl.load(idx_ptr + k[:, None] * M + m[None, :]) % M,
                        axis=-1)
    kl.store(rows_out_ptr + k[:, None] * M + m[None, :], rows)


@BOTH
@pytest.mark.parametrize("dtype", [np.float32, np.int16, np.float16])
def test_gather(interpret, dtype):
    k, m, n = 8, 4, 16
    src = (RNG.standard_normal((k, m)) * 10).astype(dtype)
    idx = RNG.integers(0, k, (n, m)).astype(np.int32)
    out = np.zeros((n, m), dtype)
    rows = np.zeros((k, m), dtype)
    kiln.jit(gather_kernel.fn, interpret=interpret)[(1,)](
        src, idx, out, rows, K=k, M=m, N=n)
    np.testing.assert_array_equal(out, np.take_along_axis(src, idx, 0))
    np.testing.assert_array_equal(
        rows, np.take_along_axis(src, idx[:k] % m, 1))


@kiln.jit
def gather_out_of_range(src_ptr, idx_ptr, out_ptr):
    i = kl.arange(0, 8)
    picked = kl.gather(kl.load(src_ptr + i), kl.load(idx_ptr + i), 0)
    kl.store(out_ptr + i, picked)


def test_gather_out_of_range():
    """Compiled, an index outside the axis reads its nearest end (never
    outside the tile); the interpreter reports it."""
    src = np.arange(8, dtype=np.float32)
    idx = np.array([-5, 0, 3, 7, 2**32 + 1, 100, -2**40, 2], np.int64)
    out = np.zeros(8, np.float32)
    gather_out_of_range[(1,)](src, idx, out)
    np.testing.assert_array_equal(out, src[np.clip(idx, 0, 7)])
    with pytest.raises(kiln.KilnError, match=r"index outside \[0, 8\)"):
        kiln.jit(gather_out_of_range.fn, interpret=True)[(1,)](src, idx, out)


@kiln.jit
def gather_kinds_kernel(src_ptr, idx_ptr, out_ptr, flags_ptr, ptr_out_ptr):
    a = (kl.arange(0, 2)[:, None, None] * 16 +
         kl.arange(0, 4)[None, :, None] * 4 + kl.arange(0, 4)[None, None, :])
    # 3-D, along the middle axis, with an int8 index.
    table = kl.load(src_ptr + a)
    kl.store(out_ptr + a, kl.gather(table, kl.load(idx_ptr + a).to(kl.int8),
                                    1))
    # A boolean index is 0 or 1; a tile of pointers gathers too.
    r = kl.arange(0, 8)
    flags = kl.load(src_ptr + r) > 3
    picked = kl.gather(flags, r % 3 == 0, 0)
    kl.store(flags_ptr + r, picked.to(kl.int32))
    pointers = kl.gather(src_ptr + r, 7 - r, 0)
    kl.store(ptr_out_ptr + r, kl.load(pointers))


@BOTH
def test_gather_3d_boolean_index_and_pointers(interpret):
    src = np.arange(32, dtype=np.float32)
    idx = RNG.integers(0, 4, 32).astype(np.int32)
    out = np.zeros(32, np.float32)
    flags = np.zeros(8, np.int32)
    ptr_out = np.zeros(8, np.float32)
    kiln.jit(gather_kinds_kernel.fn, interpret=interpret)[(1,)](
        src, idx, out, flags, ptr_out)
    np.testing.assert_array_equal(
        out.reshape(2, 4, 4),
        np.take_along_axis(src.reshape(2, 4, 4), idx.reshape(2, 4, 4), 1))
    np.testing.assert_array_equal(flags, (src[:8] > 3)[(np.arange(8) % 3
                                                        == 0).astype(int)])
    np.testing.assert_array_equal(ptr_out, src[7 - np.arange(8)])


@kiln.jit
def gather_mismatch(src_ptr, out_ptr):
    t = kl.load(src_ptr + kl.arange(0, 4)[:, None] * 4 +
                kl.arange(0, 4)[None, :])
    kl.store(out_ptr, kl.sum(kl.gather(t, kl.zeros((8, 2), kl.int32), 0)))


@BOTH
def test_gather_shapes_must_agree(interpret):
    x = np.zeros(16, np.float32)
    with pytest.raises(kiln.KilnError, match="the index's dimension 1 has "
                       "size 2 but the source's has 4"):
        kiln.jit(gather_mismatch.fn, interpret=interpret)[(1,)](x, x)


@pytest.mark.parametrize("chip", ["sm_80", "sm_90a"])
def test_gather_on_the_gpu_goes_through_shared_memory(chip):
    k, m, n = 8, 4, 16
    args = (np.zeros((k, m), np.float32), np.zeros((n, m), np.int32),
            np.zeros((n, m), np.float32), np.zeros((k, m), np.float32))
    ptx = gather_kernel.asm(*args, chip=chip, K=k, M=m, N=n)["ptx"]
    assert "st.shared" in ptx and "ld.shared" in ptx and "bar.sync" in ptx


@kiln.jit
def _pair(x):
    return tl.tuple((x, x * 2))


@kiln.jit
def tuple_kernel(x_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    pair = _pair(tl.load(x_ptr + i))
    both = tl.tuple([pair[0], pair[1]]) + (pair[0] + pair[1],)
    tl.static_assert(len(both) == 3)
    a, b, c = both
    tl.store(out_ptr + i, a + b + c)


@BOTH
def test_tl_tuple_is_a_python_tuple(interpret):
    x = np.arange(8, dtype=np.float32)
    out = np.zeros(8, np.float32)
    kiln.jit(tuple_kernel.fn, interpret=interpret)[(1,)](x, out, N=8)
    np.testing.assert_array_equal(out, 6 * x)
    assert tl.tuple is tuple


@kiln.jit
def types_kernel(x_ptr, out_ptr, n, N: kl.constexpr):
    i = kl.arange(0, N)
    x = kl.load(x_ptr + i)
    # Triton's type objects: a tile's block_type, a scalar's element type.
    kl.static_assert(x.type.is_block())
    kl.static_assert(isinstance(x.type, kl.block_type))
    kl.static_assert(x.type == kl.block_type(kl.float32, [N]))
    kl.static_assert(x.type.scalar == kl.float32)
    kl.static_assert(x.type.numel == N)
    kl.static_assert((x_ptr + i).type.element_ty.element_ty == kl.float32)
    kl.static_assert(x_ptr.type == kl.pointer_type(kl.float32))
    kl.static_assert(not n.type.is_block())
    kl.static_assert(kl.constexpr(3).type == kl.constexpr_type(3))
    kl.static_assert(not kl.float32.is_void() and kl.void.is_void())
    parts = (x, x * 2, x * 3)
    rest = parts[kl.slice(1, None, None)]
    k = 0
    total = kl.zeros((N,), kl.float32)
    while kl.condition(k < n, disable_licm=True):
        total += rest[0] + rest[1]
        k += 1
    kl.store(out_ptr + i, total)


@BOTH
def test_type_objects_slice_and_condition(interpret):
    x = np.arange(8, dtype=np.float32)
    out = np.zeros(8, np.float32)
    kiln.jit(types_kernel.fn, interpret=interpret)[(1,)](x, out, 3, N=8)
    np.testing.assert_array_equal(out, 3 * (x * 2 + x * 3))


@kiln.jit
def void_kernel(out_ptr):
    kl.store(out_ptr, kl.zeros((4,), kl.void))


def test_void_is_no_element_type():
    with pytest.raises(kiln.KilnCompileError, match="kl.void is the type of "
                       "nothing"):
        void_kernel[(1,)](np.zeros(4, np.float32))
