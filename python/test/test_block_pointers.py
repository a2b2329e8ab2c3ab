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
])
def test_misuse_is_reported_at_the_line(case, message):
    with pytest.raises(kiln.KilnCompileError, match=message) as info:
        misuse[(1,)](np.zeros(16, np.float32), 16, CASE=case)
    assert info.value.filename == __file__
