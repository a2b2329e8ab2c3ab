"""Block pointers in @kiln.jit kernels (kl.make_block_ptr, kl.advance,
kl.load / kl.store with boundary_check): numerics against numpy on the host
target and in the interpreter, the sm_90a PTX (TMA copies through tensor
maps), and misuse reported at the Python line. The matmul is tutorial 03's."""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path

import numpy as np
import pytest

import kiln
import kiln.language as kl


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


# The block-pointer matmul of tutorial 03 (a row-major A and B, one 2-D
# program per block of C, boundary checks on every load and the store).
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "docs" /
                       "tutorials"))
block_matmul = importlib.import_module("03_matmul").block_matmul_kernel


def run_matmul(kernel, m, n, k):
    rng = np.random.default_rng(m + 7 * n + 13 * k)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = np.full((m, n), -1.0, np.float32)
    kernel[(cdiv(m, 32), cdiv(n, 32))](
        a, b, c, m, n, k, k, n, n, BLOCK_M=32, BLOCK_N=32, BLOCK_K=16)
    return c, a.astype(np.float64) @ b.astype(np.float64)


@pytest.mark.parametrize("interpret", [False, True],
                         ids=["host", "interpreter"])
@pytest.mark.parametrize("m, n, k", [(32, 32, 32), (33, 70, 50), (5, 3, 90)])
def test_block_pointer_matmul(m, n, k, interpret):
    kernel = kiln.jit(block_matmul.fn, interpret=interpret)
    c, expected = run_matmul(kernel, m, n, k)
    np.testing.assert_allclose(c, expected, rtol=1e-3, atol=1e-3)


@kiln.jit
def shifted_copy(x_ptr, y_ptr, rows, cols, shift, NAN: kl.constexpr,
                 BLOCK: kl.constexpr):
    # Reads the block `shift` rows up (past the top: padding), writes it
    # back where it was.
    r0 = kl.program_id(0) * BLOCK
    source = kl.make_block_ptr(x_ptr, (rows, cols), (cols, 1),
                               (r0 - shift, 0), (BLOCK, BLOCK), (1, 0))
    target = kl.make_block_ptr(y_ptr, (rows, cols), (cols, 1), (r0, 0),
                               (BLOCK, BLOCK), (1, 0))
    if NAN:
        tile = kl.load(source, boundary_check=(0, 1), padding_option="nan")
    else:
        tile = kl.load(source, boundary_check=(0, 1))
    kl.store(target, tile, boundary_check=(0, 1))


@pytest.mark.parametrize("interpret", [False, True],
                         ids=["host", "interpreter"])
@pytest.mark.parametrize("nan", [False, True], ids=["zero", "nan"])
def test_boundary_checks_pad_and_skip(interpret, nan):
    kernel = kiln.jit(shifted_copy.fn, interpret=interpret)
    rows, cols, shift = 20, 13, 3
    x = np.arange(rows * cols, dtype=np.float32).reshape(rows, cols)
    y = np.full((rows, cols), 7.0, np.float32)
    kernel[(cdiv(rows, 16),)](x, y, rows, cols, shift, NAN=nan, BLOCK=16)
    expected = np.full((rows, cols), np.nan if nan else 0.0, np.float32)
    expected[shift:] = x[:rows - shift]
    np.testing.assert_array_equal(y, expected)


def test_aligned_block_loads_become_tma_copies_on_sm_90a():
    a = np.zeros((256, 192), np.float16)
    b = np.zeros((192, 256), np.float16)
    c = np.zeros((256, 256), np.float32)
    args = (a, b, c, 256, 256, 192, 192, 256, 256)
    meta = dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, num_warps=8)
    stages = block_matmul.asm(*args, chip="sm_90a", **meta)
    # Three maps: A's and B's loads, C's store.
    assert stages["ptx"].count(".b8 block_matmul_kernel_param_") == 3
    assert "cp.async.bulk.tensor.2d.shared::cluster.global" in stages["ptx"]
    assert "mbarrier.try_wait.parity" in stages["ptx"]
    assert "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16" in \
        stages["ptx"]
    assert "cp.async.bulk.tensor.2d.global.shared::cta" in stages["ptx"]
    assert "st.global" not in stages["ptx"]
    # K = 190: A's rows are not 16-byte aligned; B's and C's still are.
    ragged = block_matmul.asm(a, b, c, 256, 256, 190, 190, 256, 256,
                              chip="sm_90a", **meta)["ptx"]
    assert ragged.count(".b8 block_matmul_kernel_param_") == 2
    # N = 250: neither B's nor C's rows are; A's are.
    narrow = block_matmul.asm(a, b, c, 256, 250, 192, 192, 250, 250,
                              chip="sm_90a", **meta)["ptx"]
    assert narrow.count(".b8 block_matmul_kernel_param_") == 1
    assert "cp.async.bulk.tensor.2d.global.shared::cta" not in narrow


def test_block_pointers_without_tma_are_vector_copies_on_sm_80():
    """Before sm_90, block accesses are pointer accesses, as Triton writes
    them there: aligned rows load as 16-byte cp.async copies in the
    pipeline and store as 16-byte vectors; unaligned ones (K = 190) by
    element, with a remark at the loop."""
    a = np.zeros((256, 192), np.float16)
    b = np.zeros((192, 256), np.float16)
    c = np.zeros((256, 256), np.float32)
    meta = dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, num_warps=8)
    sm80 = block_matmul.asm(a, b, c, 256, 256, 192, 192, 256, 256,
                            chip="sm_80", **meta)["ptx"]
    assert "cp.async.bulk" not in sm80
    copies = re.findall(r"cp\.async\.\S+ \[[^]]*\], \[[^]]*\], (\w+)", sm80)
    assert copies and set(copies) == {"16"}, copies
    assert "mma.sync.aligned.m16n8k16" in sm80
    assert "ld.global" not in sm80
    assert set(re.findall(r"st\.global\S*", sm80)) == {"st.global.v4.b32"}
    with pytest.warns(kiln.CompilerRemark, match="not pipelined"):
        ragged = block_matmul.asm(a, b, c, 256, 256, 190, 190, 256, 256,
                                  chip="sm_80", **meta)["ptx"]
    assert "ld.global.b16" in ragged


@kiln.jit
def misuse(x_ptr, n, CASE: kl.constexpr):
    bp = kl.make_block_ptr(x_ptr, (n,), (1,), (0,), (16,), (0,))
    if CASE == 0:
        kl.load(bp, mask=n > 0)
    elif CASE == 1:
        kl.load(bp, boundary_check=(1,))
    elif CASE == 2:
        kl.load(x_ptr + kl.arange(0, 16), boundary_check=(0,))
    elif CASE == 3:
        kl.make_block_ptr(x_ptr, (n, n), (1,), (0,), (16,), (0,))
    elif CASE == 4:
        kl.advance(x_ptr, (1,))
    elif CASE == 5:
        kl.load(bp, padding_option="inf")
    elif CASE == 6:
        kl.make_block_ptr(x_ptr, (n,), (1,), (0,), (n,), (0,))
    elif CASE == 7:
        kl.store(bp, kl.zeros((16,), kl.float32), mask=kl.arange(0, 16) < 2)
    elif CASE == 8:
        kl.load(bp, boundary_check=0)
    elif CASE == 9:
        kl.load(bp, boundary_check=(0, 0))
    elif CASE == 10:
        kl.load(bp, boundary_check=(0,), other=5.0)
    elif CASE == 11:
        kl.make_block_ptr(x_ptr, (n,), (1,), (0,), (12,), (0,))


@pytest.mark.parametrize("case, message", [
    (0, "kl.load of a block pointer takes boundary_check and "
        "padding_option, not mask and other"),
    (1, "boundary_check names distinct dimensions of the 1-D block, not "
        r"\(1,\)"),
    (2, "boundary_check and padding_option apply to block pointers"),
    (3, "shape, strides, offsets and order have one entry per dimension of "
        "the 1-D block_shape"),
    (4, r"kl.advance needs a block pointer \(kl.make_block_ptr\)"),
    (5, "padding_option is 'zero' or 'nan', not 'inf'"),
    (6, "block_shape must be constant non-negative ints"),
    (7, "kl.store of a block pointer takes boundary_check, not mask"),
    (8, "kl.load: boundary_check is a tuple of the block's dimensions, as "
        "in Triton, not 0"),
    (9, r"boundary_check names distinct dimensions of the 1-D block, not "
        r"\(0, 0\)"),
    (10, "kl.load of a block pointer takes boundary_check and "
         "padding_option, not mask and other"),
    (11, r"kl.make_block_ptr: a tile's dimensions are powers of two, as in "
         r"Triton, not \[12\]"),
])
def test_misuse_is_reported_at_the_line(case, message):
    with pytest.raises(kiln.KilnCompileError, match=message) as info:
        misuse[(1,)](np.zeros(16, np.float32), 16, CASE=case)
    assert info.value.filename == __file__
    if case in (3, 4, 6):
        return
    # The interpreter refuses the same accesses: it dropped a mask, an
    # other, and read a bare int as dimensions.
    with pytest.raises(kiln.KilnError, match=message):
        kiln.jit(misuse.fn, interpret=True)[(1,)](
            np.zeros(16, np.float32), 16, CASE=case)


@kiln.jit
def bool_block_kernel(flags_ptr, out_ptr, n, BLOCK: kl.constexpr):
    bp = kl.make_block_ptr(flags_ptr, (n,), (1,), (0,), (BLOCK,), (0,))
    v = kl.load(bp, boundary_check=(0,))
    offsets = kl.arange(0, BLOCK)
    kl.store(out_ptr + offsets, (v + v).to(kl.int32))
    kl.store(out_ptr + BLOCK + offsets, (~v).to(kl.int32))
    kl.store(bp, v * 3, boundary_check=(0,))


@pytest.mark.parametrize("interpret", [False, True],
                         ids=["host", "interpreter"])
def test_a_block_pointer_of_booleans_reads_and_writes_int8(interpret):
    """As Triton's make_block_ptr, whose i1 base becomes i8: True + True
    is 2 and ~True is -2 (Kiln read booleans: 0 and False)."""
    flags = np.array([1, 0, 1, 1, 0, 0, 1, 0], np.bool_)
    out = np.zeros(16, np.int32)
    kiln.jit(bool_block_kernel.fn, interpret=interpret)[(1,)](
        flags, out, 6, BLOCK=8)
    first = flags[:6].astype(np.int32)
    np.testing.assert_array_equal(out[:6], 2 * first)
    np.testing.assert_array_equal(out[8:14], ~first)
    np.testing.assert_array_equal(flags.view(np.int8),
                                  [3, 0, 3, 3, 0, 0, 1, 0])


@kiln.jit
def unchecked_matmul(a_ptr, b_ptr, c_ptr, K, CHECK: kl.constexpr):
    a_bp = kl.make_block_ptr(a_ptr, (128, K), (K, 1), (0, 0), (128, 64),
                             (1, 0))
    b_bp = kl.make_block_ptr(b_ptr, (K, 128), (128, 1), (0, 0), (64, 128),
                             (1, 0))
    acc = kl.zeros((128, 128), kl.float32)
    for _ in range(0, K, 64):
        if CHECK:
            a = kl.load(a_bp, boundary_check=(0, 1))
        else:
            a = kl.load(a_bp, boundary_check=(0,))
        acc += kl.dot(a, kl.load(b_bp, boundary_check=(0, 1)))
        a_bp = kl.advance(a_bp, (0, 64))
        b_bp = kl.advance(b_bp, (64, 0))
    c_bp = kl.make_block_ptr(c_ptr, (128, 128), (128, 1), (0, 0),
                             (128, 128), (1, 0))
    if CHECK:
        kl.store(c_bp, acc, boundary_check=(0, 1))
    else:
        kl.store(c_bp, acc)


def test_a_block_access_that_does_not_check_every_bound_is_not_by_tma():
    """TMA reads zeros and writes nothing past the tensor's shape, where an
    unchecked access reads and writes the memory there (as Triton's): such
    accesses are pointer accesses, with a remark saying why."""
    a = np.zeros((128, 256), np.float16)
    b = np.zeros((256, 128), np.float16)
    c = np.zeros((128, 128), np.float32)
    checked = unchecked_matmul.asm(a, b, c, 256, CHECK=True, chip="sm_90a",
                                   num_warps=8)["ptx"]
    assert checked.count(".b8 unchecked_matmul_param_") == 3
    with pytest.warns(kiln.CompilerRemark) as remarks:
        unchecked = unchecked_matmul.asm(a, b, c, 256, CHECK=False,
                                         chip="sm_90a", num_warps=8)["ptx"]
    said = [str(r.message) for r in remarks]
    assert any("not copied by TMA: it does not check the bounds of "
               "dimension 1" in m for m in said), said
    assert any("not stored by TMA: it does not check the bounds of "
               "dimension 0" in m for m in said), said
    assert unchecked.count(".b8 unchecked_matmul_param_") == 1
    assert "cp.async.bulk.tensor.2d.global.shared::cta" not in unchecked
