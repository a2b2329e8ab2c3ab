"""Host-side tensor descriptors (``kiln.TensorDescriptor``, Triton's
``triton.tools.tensor_descriptor.TensorDescriptor``) passed to kernels:
blocks read and written through them on the host and in the interpreter
against numpy (ragged edges padded with zeros or NaN, and clipped), a
matmul over them, TMA and wgmma for it on sm_90a as in Triton, and the
errors of a malformed descriptor."""

from __future__ import annotations

import re

import numpy as np
import pytest

import kiln
import kiln.language as kl
from kiln import TensorDescriptor

BOTH = pytest.mark.parametrize("interpret", [False, True],
                               ids=["host", "interpreter"])


@kiln.jit
def scale_kernel(in_desc, out_desc, BM: kl.constexpr, BN: kl.constexpr):
    kl.static_assert(isinstance(in_desc, kl.tensor_descriptor))
    m = kl.program_id(0) * BM
    n = kl.program_id(1) * BN
    block = in_desc.load([m, n])
    out_desc.store([m, n], block * 2 + 1)


@BOTH
@pytest.mark.parametrize("padding", ["zero", "nan"])
def test_blocks_through_descriptors_with_ragged_edges(interpret, padding):
    """A 50 x 37 view of a wider array, in 16 x 16 blocks: the reads past
    its edges are padding, the writes past them are dropped, and nothing
    outside the view is touched."""
    rng = np.random.default_rng(5)
    whole = rng.standard_normal((50, 48)).astype(np.float32)
    view = whole[:, :37]
    out = np.full((50, 48), -7.0, np.float32)
    in_desc = TensorDescriptor.from_tensor(view, [16, 16], padding)
    assert in_desc.strides == (48, 1) and in_desc.shape == (50, 37)
    out_desc = TensorDescriptor(out, [50, 37], [48, 1], [16, 16])
    kiln.jit(scale_kernel.fn, interpret=interpret)[(4, 3)](
        in_desc, out_desc, BM=16, BN=16)
    expected = np.full((50, 48), -7.0, np.float32)
    expected[:, :37] = view * 2 + 1
    np.testing.assert_array_equal(out, expected)


@kiln.jit
def padding_kernel(in_desc, out_ptr, B: kl.constexpr):
    block = in_desc.load([0, 0])
    r = kl.arange(0, B)
    kl.store(out_ptr + r[:, None] * B + r[None, :], block)


@BOTH
def test_reads_past_the_tensor_are_its_padding(interpret):
    x = np.ones((3, 5), np.float32)
    for padding, fill in (("zero", 0.0), ("nan", np.nan)):
        out = np.zeros((8, 8), np.float32)
        kiln.jit(padding_kernel.fn, interpret=interpret)[(1,)](
            TensorDescriptor.from_tensor(x, [8, 8], padding), out, B=8)
        expected = np.full((8, 8), fill, np.float32)
        expected[:3, :5] = 1.0
        np.testing.assert_array_equal(out, expected)


@BOTH
def test_nan_padding_of_integers_is_refused_in_both_modes(interpret):
    """As compiled (Kiln's interpreter filled int32 with NaN's cast)."""
    x = np.ones((3, 5), np.int32)
    with pytest.raises(kiln.KilnError, match="padding_option='nan' needs "
                       "floats"):
        kiln.jit(padding_kernel.fn, interpret=interpret)[(1,)](
            TensorDescriptor.from_tensor(x, [8, 8], "nan"),
            np.zeros((8, 8), np.int32), B=8)


@kiln.jit
def matmul_kernel(a_desc, b_desc, c_desc, K, BM: kl.constexpr,
                  BN: kl.constexpr, BK: kl.constexpr):
    m = kl.program_id(0) * BM
    n = kl.program_id(1) * BN
    acc = kl.zeros((BM, BN), dtype=kl.float32)
    for k in range(0, K, BK):
        acc = kl.dot(a_desc.load([m, k]), b_desc.load([k, n]), acc)
    c_desc.store([m, n], acc.to(kl.float16))


def matmul_descriptors(a, b, c, bm, bn, bk):
    return (TensorDescriptor.from_tensor(a, [bm, bk]),
            TensorDescriptor.from_tensor(b, [bk, bn]),
            TensorDescriptor.from_tensor(c, [bm, bn]))


@BOTH
def test_a_matmul_over_descriptors(interpret):
    rng = np.random.default_rng(6)
    m, n, k = 64, 48, 40  # K not a multiple of the block: padded with 0
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = np.zeros((m, n), np.float16)
    kiln.jit(matmul_kernel.fn, interpret=interpret)[(2, 2)](
        *matmul_descriptors(a, b, c, 32, 32, 16), k, BM=32, BN=32, BK=16)
    np.testing.assert_allclose(c.astype(np.float32), a.astype(np.float32)
                               @ b.astype(np.float32), rtol=1e-2, atol=2e-2)


def test_the_gpu_matmul_reads_by_tma_into_wgmma():
    """As Triton compiles its descriptor matmul for sm_90a: TMA copies
    (cp.async.bulk.tensor) feeding wgmma."""
    a = np.zeros((256, 256), np.float16)
    ptx = matmul_kernel.asm(*matmul_descriptors(a, a, a, 128, 128, 64), 256,
                            BM=128, BN=128, BK=64, chip="sm_90a",
                            num_warps=8)["ptx"]
    assert re.search(r"cp\.async\.bulk\.tensor\.2d", ptx)
    assert "wgmma.mma_async" in ptx


def test_a_descriptor_passes_as_its_parts():
    """The kernel takes the base pointer, the sizes and the strides but
    the last (which is 1), specialized as arguments of their own."""
    a = np.zeros((64, 32), np.float32)
    ir = scale_kernel.ir(TensorDescriptor.from_tensor(a, [16, 16]),
                         TensorDescriptor.from_tensor(a, [16, 16]),
                         BM=16, BN=16)
    header = ir.splitlines()[0]
    assert header.count("!tile.ptr<f32>") == 2
    assert header.count("_size") == 4 and header.count("_stride") == 2


def test_triton_import_path():
    from kiln.triton.tools.tensor_descriptor import \
        TensorDescriptor as Triton
    assert Triton is TensorDescriptor


@pytest.mark.parametrize("make, message", [
    (lambda a: TensorDescriptor(a, [4, 4], [1, 4], [2, 2]),
     "the last stride must be 1"),
    (lambda a: TensorDescriptor(a, [4, 4], [4, 1], [2]),
     "one entry per dimension"),
    (lambda a: TensorDescriptor(a, [4, 4.5], [4, 1], [2, 2]),
     "shape takes integers"),
    (lambda a: TensorDescriptor(a, [4, 4], [4, 1], [2, 2], "one"),
     "padding is 'zero' or 'nan'"),
    (lambda a: TensorDescriptor.from_tensor([1, 2], [2]),
     "takes an array"),
])
def test_a_malformed_descriptor_is_an_error(make, message):
    with pytest.raises(kiln.KilnError, match=message):
        make(np.zeros((4, 4), np.float32))


@kiln.jit
def descriptor_atomic_kernel(desc, BM: kl.constexpr, BN: kl.constexpr):
    desc.atomic_add([0, 0], kl.full((BM, BN), 2.0, kl.float32))


def test_what_a_descriptor_lacks_is_named_at_the_line():
    """Not the descriptor's internal representation."""
    a = np.zeros((4, 4), np.float32)
    with pytest.raises(kiln.KilnError) as caught:
        descriptor_atomic_kernel[(1,)](
            TensorDescriptor(a, [4, 4], [4, 1], [4, 4]), BM=4, BN=4)
    message = str(caught.value)
    assert "a tensor descriptor has no 'atomic_add'" in message
    assert "Value(" not in message and "test_tensor_descriptor.py" in message
