"""Unsigned integers (``kl.uint8`` ... ``kl.uint64``) with Triton's
semantics, compiled for the host and in the interpreter against numpy:
operators over the whole range of each type, the promotion of mixed
signedness, casts, scalar arguments, reductions, atomics, random words;
and the GPU's unsigned instructions in the PTX, as Triton's own PTX of the
same source has them."""

from __future__ import annotations

import numpy as np
import pytest
import triton_idiom_unsigned
import triton_interpreter

import kiln
import kiln.language as kl
from kiln import arguments


BOTH = pytest.mark.parametrize("interpret", [False, True],
                               ids=["host", "interpreter"])
UNSIGNED = (kl.uint8, kl.uint16, kl.uint32, kl.uint64)
RNG = np.random.default_rng(2026)


def full_range(dtype: np.dtype, n: int, nonzero: bool = False) -> np.ndarray:
    """``n`` values spread over the whole range of ``dtype``, the top bit
    set in half of them."""
    info = np.iinfo(dtype)
    values = RNG.integers(1 if nonzero else 0, info.max, n, dtype=dtype,
                          endpoint=True)
    return values.astype(dtype)


@kiln.jit
def operators_kernel(x_ptr, y_ptr, out_ptr, flags_ptr, N: kl.constexpr):
    i = kl.arange(0, N)
    x = kl.load(x_ptr + i)
    y = kl.load(y_ptr + i)
    kl.store(out_ptr + 0 * N + i, x + y)
    kl.store(out_ptr + 1 * N + i, x - y)
    kl.store(out_ptr + 2 * N + i, x * y)
    kl.store(out_ptr + 3 * N + i, x // y)
    kl.store(out_ptr + 4 * N + i, x % y)
    kl.store(out_ptr + 5 * N + i, x >> 3)
    kl.store(out_ptr + 6 * N + i, x << 2)
    kl.store(out_ptr + 7 * N + i, kl.maximum(x, y))
    kl.store(out_ptr + 8 * N + i, kl.minimum(x, y))
    kl.store(out_ptr + 9 * N + i, x - 1)  # a number meeting it wraps
    kl.store(out_ptr + 10 * N + i, -x)
    kl.store(out_ptr + 11 * N + i, ~x)
    kl.store(out_ptr + 12 * N + i, kl.abs(x))
    kl.store(out_ptr + 13 * N + i, kl.where(x > y, x, y))
    kl.store(flags_ptr + 0 * N + i, x < y)
    kl.store(flags_ptr + 1 * N + i, x >= y)
    kl.store(flags_ptr + 2 * N + i, x > (x >> 1))


@BOTH
@pytest.mark.parametrize("dtype", UNSIGNED, ids=lambda d: d.name)
def test_operators_over_the_whole_range(interpret, dtype):
    n = 64
    x = full_range(dtype.numpy, n)
    y = full_range(dtype.numpy, n, nonzero=True)
    out = np.zeros(14 * n, dtype.numpy)
    flags = np.zeros(3 * n, np.bool_)
    kiln.jit(operators_kernel.fn, interpret=interpret)[(1,)](
        x, y, out, flags, N=n)
    one, t = dtype.numpy.type(1), dtype.numpy.type
    with np.errstate(over="ignore"):
        expected = [x + y, x - y, x * y, x // y, x % y, x >> t(3),
                    x << t(2), np.maximum(x, y), np.minimum(x, y), x - one,
                    (0 - x).astype(dtype.numpy), ~x, x, np.where(x > y, x, y)]
    for k, want in enumerate(expected):
        np.testing.assert_array_equal(out[k * n:(k + 1) * n], want,
                                      err_msg=f"result {k}")
    np.testing.assert_array_equal(flags[:n], x < y)
    np.testing.assert_array_equal(flags[n:2 * n], x >= y)
    np.testing.assert_array_equal(flags[2 * n:], x > (x >> t(1)))


@kiln.jit
def promotion_kernel(u_ptr, s_ptr, out_ptr, wide_ptr, N: kl.constexpr):
    i = kl.arange(0, N)
    u = kl.load(u_ptr + i)  # uint32
    s = kl.load(s_ptr + i)  # int32
    kl.static_assert((u + s).dtype == kl.uint32)
    kl.static_assert((u.to(kl.uint8) + s).dtype == kl.int32)
    kl.static_assert((u + s.to(kl.int64)).dtype == kl.int64)
    kl.static_assert((u * 2).dtype == kl.uint32)
    kl.store(out_ptr + i, u + s)
    kl.store(out_ptr + N + i, (s < u).to(kl.uint32))  # compared unsigned
    kl.store(wide_ptr + i, u + s.to(kl.int64))


@BOTH
def test_mixed_signedness_meets_as_c_and_triton_promote(interpret):
    n = 32
    u = full_range(np.uint32, n)
    s = RNG.integers(-2**31, 2**31, n).astype(np.int32)
    out = np.zeros(2 * n, np.uint32)
    wide = np.zeros(n, np.int64)
    kiln.jit(promotion_kernel.fn, interpret=interpret)[(1,)](
        u, s, out, wide, N=n)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(out[:n], u + s.astype(np.uint32))
    np.testing.assert_array_equal(out[n:], s.astype(np.uint32) < u)
    np.testing.assert_array_equal(wide, u.astype(np.int64) + s)


@kiln.jit
def mixed_division_kernel(u_ptr, s_ptr):
    u = kl.load(u_ptr)
    s = kl.load(s_ptr)
    kl.store(u_ptr, u // s)


@BOTH
def test_division_of_mixed_signedness_is_an_error_at_its_line(interpret):
    with pytest.raises(kiln.KilnError, match="mix signedness") as caught:
        kiln.jit(mixed_division_kernel.fn, interpret=interpret)[(1,)](
            np.ones(1, np.uint32), np.ones(1, np.int32))
    if not interpret:
        line = mixed_division_kernel.fn.__code__.co_firstlineno + 4
        assert f"{__file__}:{line}" in str(caught.value)


@kiln.jit
def casts_kernel(s8_ptr, u8_ptr, u32_ptr, f_ptr, u64_ptr, ext_ptr,
                 zext_ptr, tofloat_ptr, toint_ptr, narrow_ptr, bits_ptr,
                 wide_ptr, N: kl.constexpr):
    i = kl.arange(0, N)
    s8 = kl.load(s8_ptr + i)
    u8 = kl.load(u8_ptr + i)
    u32 = kl.load(u32_ptr + i)
    f = kl.load(f_ptr + i)
    u64 = kl.load(u64_ptr + i)
    kl.store(ext_ptr + i, s8.to(kl.uint32))  # sign-extended
    kl.store(zext_ptr + i, u8.to(kl.int32))  # zero-extended
    kl.store(tofloat_ptr + i, u32.to(kl.float64))
    kl.store(toint_ptr + i, f.to(kl.uint32))
    kl.store(narrow_ptr + i, u32.to(kl.uint8))
    kl.store(bits_ptr + i, u32.to(kl.int32, bitcast=True))
    kl.store(wide_ptr + i, u64.to(kl.float64))


@BOTH
def test_casts_extend_by_the_sources_signedness(interpret):
    n = 32
    s8 = RNG.integers(-128, 128, n).astype(np.int8)
    u8 = full_range(np.uint8, n)
    u32 = full_range(np.uint32, n)
    f = RNG.integers(0, 2**32, n).astype(np.float32)
    f = np.minimum(f, np.float32(4294967040.0))  # below 2**32
    u64 = full_range(np.uint64, n)
    outs = [np.zeros(n, t) for t in (np.uint32, np.int32, np.float64,
                                     np.uint32, np.uint8, np.int32,
                                     np.float64)]
    kiln.jit(casts_kernel.fn, interpret=interpret)[(1,)](
        s8, u8, u32, f, u64, *outs, N=n)
    np.testing.assert_array_equal(outs[0], s8.astype(np.uint32))
    np.testing.assert_array_equal(outs[1], u8.astype(np.int32))
    np.testing.assert_array_equal(outs[2], u32.astype(np.float64))
    np.testing.assert_array_equal(outs[3], f.astype(np.uint32))
    np.testing.assert_array_equal(outs[4], u32.astype(np.uint8))
    np.testing.assert_array_equal(outs[5], u32.view(np.int32))
    np.testing.assert_array_equal(outs[6], u64.astype(np.float64))


@kiln.jit
def scalars_kernel(out_ptr, a, b, c):
    kl.static_assert(a.dtype == kl.uint32)
    kl.static_assert(b.dtype == kl.uint64)
    kl.static_assert(c.dtype == kl.uint8)
    kl.store(out_ptr, b // 3 + a)
    kl.store(out_ptr + 1, (a >> 1).to(kl.uint64))
    kl.store(out_ptr + 2, (c + 1).to(kl.uint64))


@BOTH
def test_unsigned_scalar_arguments(interpret):
    """numpy's unsigned scalars keep their type; a Python int from 2**63
    is uint64, as Triton specializes it."""
    out = np.zeros(3, np.uint64)
    b = 2**64 - 5
    kiln.jit(scalars_kernel.fn, interpret=interpret)[(1,)](
        out, np.uint32(4_000_000_000), b, np.uint8(255))
    assert out.tolist() == [b // 3 + 4_000_000_000, 2_000_000_000, 0]


@kiln.jit
def reductions_kernel(x_ptr, small_ptr, out_ptr, index_ptr, scan_ptr,
                      N: kl.constexpr):
    i = kl.arange(0, N)
    x = kl.load(x_ptr + i)
    small = kl.load(small_ptr + i)
    kl.static_assert(kl.sum(small).dtype == kl.uint32)
    kl.static_assert(kl.sum(x > 0).dtype == kl.uint32)  # as Triton's
    kl.static_assert(kl.max(small).dtype == kl.int32)
    kl.store(out_ptr, kl.max(x))
    kl.store(out_ptr + 1, kl.min(x))
    kl.store(out_ptr + 2, kl.sum(small))
    kl.store(out_ptr + 3, kl.max(small))
    kl.store(index_ptr, kl.argmax(x, 0))
    kl.store(index_ptr + 1, kl.argmin(x, 0))
    kl.store(scan_ptr + i, kl.cumsum(small, 0))
    kl.store(scan_ptr + N + i, kl.sort(x))


@BOTH
def test_reductions_compare_unsigned_and_sum_in_uint32(interpret):
    n = 64
    x = full_range(np.uint32, n)
    small = full_range(np.uint8, n)
    out = np.zeros(4, np.uint32)
    index = np.zeros(2, np.int32)
    scan = np.zeros(2 * n, np.uint32)
    kiln.jit(reductions_kernel.fn, interpret=interpret)[(1,)](
        x, small, out, index, scan, N=n)
    assert out.tolist() == [x.max(), x.min(), small.astype(np.uint32).sum(),
                            small.max()]
    assert index.tolist() == [x.argmax(), x.argmin()]
    np.testing.assert_array_equal(scan[:n], np.cumsum(small, dtype=np.uint32))
    np.testing.assert_array_equal(scan[n:], np.sort(x))


@kiln.jit
def atomics_kernel(max_ptr, min_ptr, x_ptr, N: kl.constexpr):
    x = kl.load(x_ptr + kl.arange(0, N))
    kl.atomic_max(max_ptr + kl.zeros((N,), kl.int32), x)
    kl.atomic_min(min_ptr + kl.zeros((N,), kl.int32), x)


@BOTH
def test_atomic_extremes_compare_unsigned(interpret):
    x = np.array([5, 2**31 + 7, 3, 2**32 - 2], np.uint32)
    largest, smallest = np.zeros(1, np.uint32), np.full(1, 2**32 - 1,
                                                        np.uint32)
    kiln.jit(atomics_kernel.fn, interpret=interpret)[(1,)](
        largest, smallest, x, N=4)
    assert (largest[0], smallest[0]) == (2**32 - 2, 3)


@kiln.jit
def random_kernel(out_ptr, mod_ptr, high_ptr, seed, N: kl.constexpr):
    offsets = kl.arange(0, N)
    r = kl.randint(seed, offsets)
    kl.static_assert(r.dtype == kl.uint32)  # Triton's words are uint32
    kl.store(out_ptr + offsets, r)
    kl.store(mod_ptr + offsets, r % 10)
    kl.store(high_ptr + offsets, kl.umulhi(r, r))


@BOTH
def test_random_words_are_uint32(interpret):
    n = 64
    words, mod, high = (np.zeros(n, np.uint32) for _ in range(3))
    kiln.jit(random_kernel.fn, interpret=interpret)[(1,)](
        words, mod, high, 1234, N=n)
    assert (words >= 2**31).any()  # the top bit is a value bit
    np.testing.assert_array_equal(mod, words % 10)
    np.testing.assert_array_equal(
        high, ((words.astype(np.uint64) ** 2) >> 32).astype(np.uint32))


def test_dtype_queries():
    assert kl.uint8.is_int_unsigned() and not kl.uint8.is_int_signed()
    assert kl.uint64.primitive_bitwidth == 64 and kl.uint16.itemsize == 2
    assert kl.uint32.is_uint32() and not kl.int32.is_uint32()
    assert kl.from_numpy(np.dtype(np.uint16)) is kl.uint16


def test_arrays_pass_for_the_signless_pointer_of_their_width():
    """The IR is signless: a pointer to i32 takes int32 and uint32 arrays,
    nothing else."""
    assert arguments.holds("i32", np.dtype(np.uint32))
    assert arguments.holds("i32", np.dtype(np.int32))
    assert not arguments.holds("i32", np.dtype(np.uint16))
    assert not arguments.holds("i8", np.dtype(np.complex64))


@kiln.jit
def print_kernel(x_ptr):
    kl.device_print("x", kl.load(x_ptr))


def test_printing_uint64_is_refused_not_shown_signed():
    with pytest.raises(kiln.KilnCompileError, match="device_print of uint64"):
        print_kernel[(1,)](np.zeros(1, np.uint64))


def test_the_gpu_code_uses_unsigned_instructions_as_tritons_does():
    """Division, shift, comparison and atomic max of uint32 tiles are the
    PTX's unsigned forms, in Kiln's PTX and in Triton's of the same
    source (where the triton wheel is installed)."""
    x = np.zeros(128, np.uint32)
    args = {"x_ptr": x, "y_ptr": x, "out_ptr": x,
            "flag_ptr": np.zeros(128, np.bool_), "max_ptr": x}
    ptx = triton_idiom_unsigned.unsigned_ops_kernel.asm(
        **args, BLOCK=128, chip="sm_90a")["ptx"]
    classes = ("div.u32", "shr.u32", "setp.lt.u32", "max.u32")
    for instruction in classes:
        assert instruction in ptx, instruction
    assert "div.s32" not in ptx and "shr.s32" not in ptx
    theirs = triton_interpreter.tritons_asm(
        triton_idiom_unsigned.unsigned_ops_kernel, args, {"BLOCK": 128})
    for instruction in classes:
        assert instruction in theirs, instruction


def philox_reference(counter, key, rounds: int, bits: int):
    """Philox 4x``bits`` in Python integers (Salmon et al. 2011), with
    Triton's constants."""
    mask = (1 << bits) - 1
    round_a, round_b, key_a, key_b = {
        32: (0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85),
        64: (0xD2E7470EE14C6C93, 0xCA5A826395121157, 0x9E3779B97F4A7C15,
             0xBB67AE8584CAA73B)}[bits]
    c0, c1, c2, c3 = counter
    k0, k1 = key
    for _ in range(rounds):
        c0, c1, c2, c3 = (((round_b * c2) >> bits) ^ c1 ^ k0,
                          (round_b * c2) & mask,
                          ((round_a * c0) >> bits) ^ c3 ^ k1,
                          (round_a * c0) & mask)
        k0, k1 = (k0 + key_a) & mask, (k1 + key_b) & mask
    return c0, c1, c2, c3


@kiln.jit
def philox_impl_kernel(c_ptr, k_ptr, out_ptr, same_ptr, seed,
                       N: kl.constexpr, ROUNDS: kl.constexpr):
    i = kl.arange(0, N)
    c0 = kl.load(c_ptr + i)
    c1 = kl.load(c_ptr + N + i)
    k0 = kl.load(k_ptr)
    k1 = kl.load(k_ptr + 1)
    words = kl.philox_impl(c0, c1, c0 ^ c1, c1 + 1, k0, k1, ROUNDS)
    for w in kl.static_range(4):
        kl.store(out_ptr + w * N + i, words[w])
    if c0.dtype == kl.uint32:  # tl.philox is philox_impl under the seed
        low = (seed & 0xFFFFFFFF).to(kl.uint32)
        high = (seed >> 32).to(kl.uint32)
        mine = kl.philox_impl(c0, c1, c0 ^ c1, c1 + 1, low, high, ROUNDS)
        theirs = kl.philox(seed, c0, c1, c0 ^ c1, c1 + 1, ROUNDS)
        kl.store(same_ptr + i, (mine[0] == theirs[0]) & (mine[3] == theirs[3]))


@BOTH
@pytest.mark.parametrize("dtype", [np.uint32, np.uint64])
def test_philox_impl_is_philox(interpret, dtype):
    n, rounds, bits = 16, 7, np.dtype(dtype).itemsize * 8
    c = full_range(dtype, 2 * n)
    k = full_range(dtype, 2)
    out = np.zeros(4 * n, dtype)
    same = np.zeros(n, np.bool_)
    seed = 0x1234_5678_9ABC
    kiln.jit(philox_impl_kernel.fn, interpret=interpret)[(1,)](
        c, k, out, same, seed, N=n, ROUNDS=rounds)
    mask = (1 << bits) - 1
    for j in range(n):
        a, b = int(c[j]), int(c[n + j])
        expected = philox_reference((a, b, a ^ b, (b + 1) & mask),
                                    (int(k[0]), int(k[1])), rounds, bits)
        assert [int(out[w * n + j]) for w in range(4)] == list(expected)
    if dtype is np.uint32:
        assert same.all()


@kiln.jit
def negative_number_kernel(x_ptr):
    x = kl.load(x_ptr + kl.arange(0, 4))
    kl.store(x_ptr + kl.arange(0, 4), x + (-1))


@kiln.jit
def negative_full_kernel(x_ptr):
    kl.store(x_ptr + kl.arange(0, 4), kl.full((4,), -1, kl.uint32))


@BOTH
def test_a_negative_number_does_not_meet_an_unsigned_tile(interpret):
    """Triton refuses both ("Cannot perform a binary operation between an
    unsigned tensor and a negative scalar"); ``x - 1`` is the way."""
    x = np.zeros(4, np.uint32)
    for kernel in (negative_number_kernel, negative_full_kernel):
        with pytest.raises(kiln.KilnError, match="the negative number -1 "
                           "meets an unsigned uint32"):
            kiln.jit(kernel.fn, interpret=interpret)[(1,)](x)


@kiln.jit
def print_types_kernel(x_ptr):
    kl.static_print(kl.load(x_ptr + kl.arange(0, 4)))


def test_static_print_names_the_type_as_the_language_does(capsys):
    print_types_kernel[(1,)](np.zeros(4, np.uint32))
    assert capsys.readouterr().out.strip() == "uint32[4]"


@kiln.jit
def unsigned_offsets_kernel(x_ptr, small_ptr, mid_ptr, flag_ptr, out_ptr):
    i = kl.arange(0, 4)
    small = kl.load(small_ptr + i)  # uint8, from 200
    mid = kl.load(mid_ptr + i)  # uint16, from 40000
    flags = kl.load(flag_ptr + i) != 0
    kl.store(out_ptr + i, kl.load(x_ptr + small))
    kl.store(out_ptr + 4 + i, kl.load(x_ptr + mid))
    kl.store(out_ptr + 8 + i, kl.load(x_ptr + flags))


@BOTH
def test_unsigned_offsets_are_zero_extended(interpret):
    """Triton zero-extends an unsigned offset before adding it to a
    pointer (its addptr reads offsets as signed): uint8 200 is 200, not
    -56."""
    x = np.arange(65536, dtype=np.float32)
    small = np.arange(200, 204, dtype=np.uint8)
    mid = np.arange(40000, 40004, dtype=np.uint16)
    flags = np.array([0, 1, 1, 0], np.int32)
    out = np.zeros(12, np.float32)
    kiln.jit(unsigned_offsets_kernel.fn, interpret=interpret)[(1,)](
        x, small, mid, flags, out)
    np.testing.assert_array_equal(out, np.concatenate(
        [small, mid, flags]).astype(np.float32))
