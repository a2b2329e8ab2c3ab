"""Host-side tensor descriptors (``kiln.TensorDescriptor``, Triton's
``triton.tools.tensor_descriptor.TensorDescriptor``) passed to kernels:
blocks read and written through them on the host and in the interpreter
against numpy (ragged edges padded with zeros or NaN, and clipped), a
matmul over them, TMA and wgmma for it on sm_90a as in Triton, and the
errors of a malformed descriptor; the atomics, gathers and scatters
Triton's descriptors have, element by element."""

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
    (lambda a: TensorDescriptor(a, [4, 4], [4, 1], [3, 2]),
     "TensorDescriptor: a tile's dimensions are powers of two"),
    (lambda a: TensorDescriptor.from_tensor(a, [2, 2],
                                            round_f32_to_tf32=True),
     "round_f32_to_tf32=True is not supported by Kiln yet"),
])
def test_a_malformed_descriptor_is_an_error(make, message):
    with pytest.raises(kiln.KilnError, match=message):
        make(np.zeros((4, 4), np.float32))
    # Triton's default is taken.
    assert not TensorDescriptor.from_tensor(
        np.zeros((4, 4), np.float32), [2, 2],
        round_f32_to_tf32=False).round_f32_to_tf32


@kiln.jit
def descriptor_atomic_kernel(desc, BM: kl.constexpr, BN: kl.constexpr):
    desc.atomic_xchg([0, 0], kl.full((BM, BN), 2.0, kl.float32))


def test_what_a_descriptor_lacks_is_named_at_the_line():
    """Not the descriptor's internal representation."""
    a = np.zeros((4, 4), np.float32)
    with pytest.raises(kiln.KilnError) as caught:
        descriptor_atomic_kernel[(1,)](
            TensorDescriptor(a, [4, 4], [4, 1], [4, 4]), BM=4, BN=4)
    message = str(caught.value)
    assert "a tensor descriptor has no 'atomic_xchg'" in message
    assert "Value(" not in message and "test_tensor_descriptor.py" in message


@kiln.jit
def descriptor_atomics_kernel(f_desc, i_desc, B: kl.constexpr):
    pid = kl.program_id(0)
    r = kl.arange(0, B)[:, None] * B + kl.arange(0, B)[None, :]
    f_desc.atomic_add([pid * 2, pid], (r + pid).to(kl.float32))
    i_desc.atomic_max([pid, 1], r - 4 * pid)
    i_desc.atomic_xor([1, pid * 2], r)
    i_desc.atomic_and([pid, 0], r | 1)


def descriptor_atomics_reference(f, i, programs: int, b: int) -> None:
    """What the kernel does, element by element with numpy."""
    r = np.arange(b * b).reshape(b, b)

    def update(array, row, column, values, combine):
        rows, columns = array[row:row + b, column:column + b].shape
        view = array[row:row + rows, column:column + columns]
        view[...] = combine(view, values[:rows, :columns])

    for pid in range(programs):
        update(f, pid * 2, pid, (r + pid).astype(np.float32), np.add)
        update(i, pid, 1, r - 4 * pid, np.maximum)
        update(i, 1, pid * 2, r, np.bitwise_xor)
        update(i, pid, 0, r | 1, np.bitwise_and)


@BOTH
def test_descriptor_atomics_update_the_part_inside(interpret):
    """Overlapping blocks from three programs, ragged at the edges: each
    element inside the tensor updated once per block that holds it."""
    f = np.arange(35, dtype=np.float32).reshape(5, 7)
    i = (np.arange(35, dtype=np.int32).reshape(5, 7) * 7) % 23 - 5
    expected_f, expected_i = f.copy(), i.copy()
    descriptor_atomics_reference(expected_f, expected_i, 3, 4)
    kiln.jit(descriptor_atomics_kernel.fn, interpret=interpret)[(3,)](
        TensorDescriptor.from_tensor(f, [4, 4]),
        TensorDescriptor.from_tensor(i, [4, 4]), B=4)
    np.testing.assert_array_equal(f, expected_f)
    np.testing.assert_array_equal(i, expected_i)


@kiln.jit
def gather_scatter_kernel(desc, rows_ptr, out_ptr, out_desc, value_ptr,
                          R: kl.constexpr, C: kl.constexpr):
    k = kl.arange(0, R)
    tile = k[:, None] * C + kl.arange(0, C)[None, :]
    rows = kl.load(rows_ptr + k)
    kl.store(out_ptr + tile, desc.gather(rows, 3))
    out_desc.scatter(kl.load(value_ptr + tile), rows, 4)


@BOTH
@pytest.mark.parametrize("padding", ["zero", "nan"])
def test_gather_and_scatter_rows(interpret, padding):
    """Rows in any order, one past the tensor, columns past its edge:
    gathered with the descriptor's padding, scattered where inside."""
    x = np.arange(60, dtype=np.float32).reshape(6, 10)
    rows = np.array([5, 0, 7, 2], np.int32)
    out = np.zeros((4, 8), np.float32)
    target = np.zeros((6, 10), np.float32)
    value = np.arange(32, dtype=np.float32).reshape(4, 8) + 100
    kiln.jit(gather_scatter_kernel.fn, interpret=interpret)[(1,)](
        TensorDescriptor.from_tensor(x, [1, 8], padding), rows, out,
        TensorDescriptor.from_tensor(target, [1, 8]), value, R=4, C=8)
    fill = np.nan if padding == "nan" else 0
    padded = np.full((8, 11), fill, np.float32)
    padded[:6, :10] = x
    np.testing.assert_array_equal(out, padded[rows][:, 3:11])
    expected = np.zeros((6, 10), np.float32)
    for k, row in enumerate(rows):
        if row < 6:
            expected[row, 4:10] = value[k, :6]
    np.testing.assert_array_equal(target, expected)


def test_descriptor_atomics_compile_for_the_gpu():
    """Element by element (Triton's are TMA reductions), with a remark at
    each that says so."""
    f = np.zeros((64, 64), np.float32)
    i = np.zeros((64, 64), np.int32)
    with pytest.warns(kiln.CompilerRemark, match=r"desc\.atomic_add runs as "
                      r"an atomic per element") as caught:
        ptx = kiln.jit(descriptor_atomics_kernel.fn).warmup(
            TensorDescriptor.from_tensor(f, [16, 16]),
            TensorDescriptor.from_tensor(i, [16, 16]), B=16).asm["ptx"]
    assert {w.filename for w in caught} == {__file__}
    for instruction in ("atom.global.add.f32",
                        "atom.global.max.s32",
                        "atom.global.xor.b32",
                        "atom.global.and.b32"):
        assert instruction in ptx, instruction


@kiln.jit
def short_offsets_kernel(desc):
    desc.atomic_add([0], kl.zeros((4, 4), kl.float32))


@kiln.jit
def gather_of_blocks_kernel(desc, out_ptr):
    kl.store(out_ptr + kl.arange(0, 4)[:, None] * 4 + kl.arange(0, 4)[None, :],
             desc.gather(kl.arange(0, 4), 0))


@BOTH
@pytest.mark.parametrize("kernel, message", [
    (short_offsets_kernel, "one offset per dimension"),
    (gather_of_blocks_kernel, "a 2-D descriptor whose block is one row")])
def test_descriptor_access_mistakes(interpret, kernel, message):
    desc = TensorDescriptor.from_tensor(np.zeros((4, 4), np.float32), [4, 4])
    args = (desc,) if kernel is short_offsets_kernel else \
        (desc, np.zeros(16, np.float32))
    with pytest.raises(kiln.KilnError, match=re.escape(message)):
        kiln.jit(kernel.fn, interpret=interpret)[(1,)](*args)
