"""Tile kernels run on the host target agree with numpy.

Every example kernel of docs/examples runs on random data with ragged sizes
(not multiples of the block), and smaller kernels pin each op's semantics.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pytest

import kiln
from kiln.host import HostExecutable

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"


@pytest.fixture(scope="module")
def ctx():
    with kiln.Context() as context:
        yield context


def compile_host(ctx, source: str) -> HostExecutable:
    return HostExecutable(kiln.Module.parse(ctx, source, "kernel.mlir"))


@pytest.fixture(scope="module")
def examples(ctx):
    return {name: compile_host(ctx, (EXAMPLES / f"{name}.mlir").read_text())
            for name in ("vector_add", "gelu", "softmax", "layer_norm",
                         "matmul")}


@pytest.mark.parametrize("n", [1, 1000, 1024, 4099])
def test_vector_add(examples, n):
    rng = np.random.default_rng(n)
    x, y = rng.standard_normal((2, n), dtype=np.float32)
    out = np.full(n + 7, -1.0, dtype=np.float32)  # the tail must stay as is
    examples["vector_add"].launch("vector_add", ((n + 1023) // 1024,),
                                  x, y, out, n)
    np.testing.assert_array_equal(out[:n], x + y)
    np.testing.assert_array_equal(out[n:], -1.0)


@pytest.mark.parametrize("n", [1, 1023, 5000])
def test_gelu(examples, n):
    x = (np.random.default_rng(n).standard_normal(n) * 4).astype(np.float32)
    out = np.zeros(n, np.float32)
    examples["gelu"].launch("gelu", ((n + 1023) // 1024,), x, out, n)
    erf = np.vectorize(math.erf)
    expected = 0.5 * x.astype(np.float64) * (1 + erf(x / math.sqrt(2)))
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("rows, cols", [(1, 1), (4, 100), (3, 1024)])
def test_layer_norm(examples, rows, cols):
    rng = np.random.default_rng(rows + cols)
    stride = cols + 5
    x = (rng.standard_normal((rows, stride)) * 2 + 1).astype(np.float32)
    w, b = rng.standard_normal((2, cols)).astype(np.float32)
    y = np.zeros_like(x)
    examples["layer_norm"].launch("layer_norm", (rows,), x, y, w, b, stride,
                                  cols, 1e-5)
    xs = x[:, :cols].astype(np.float64)
    expected = ((xs - xs.mean(axis=1, keepdims=True))
                / np.sqrt(xs.var(axis=1, keepdims=True) + 1e-5) * w + b)
    np.testing.assert_allclose(y[:, :cols], expected, rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(y[:, cols:], 0.0)


@pytest.mark.parametrize("rows, cols", [(1, 1), (3, 17), (5, 1000), (2, 1024)])
def test_softmax(examples, rows, cols):
    rng = np.random.default_rng(rows * cols)
    stride = cols + 3
    x = (rng.standard_normal((rows, stride)) * 4).astype(np.float32)
    out = np.zeros_like(x)
    examples["softmax"].launch("softmax", (rows,), x, out, stride, cols)
    e = np.exp(x[:, :cols] - x[:, :cols].max(axis=1, keepdims=True))
    np.testing.assert_allclose(out[:, :cols], e / e.sum(axis=1, keepdims=True),
                               rtol=1e-5, atol=1e-7)
    np.testing.assert_array_equal(out[:, cols:], 0.0)


@pytest.mark.parametrize("m, n, k", [(1, 1, 1), (64, 64, 32), (70, 130, 45),
                                     (33, 7, 100)])
def test_matmul(examples, m, n, k):
    rng = np.random.default_rng(m + n + k)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = np.zeros((m, n), dtype=np.float32)
    examples["matmul"].launch("matmul", ((m + 63) // 64, (n + 63) // 64),
                              a, b, c, m, n, k)
    expected = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(c, expected, rtol=1e-4, atol=1e-4)


def resident_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096


@pytest.mark.skipif(not Path("/proc/self/statm").exists(),
                    reason="needs /proc to read the resident size")
@pytest.mark.skipif("libasan" in os.environ.get("LD_PRELOAD", ""),
                    reason="AddressSanitizer's quarantine keeps freed memory "
                           "resident; LeakSanitizer checks kiln-run instead")
def test_launches_do_not_leak(examples):
    m = n = 128
    k = 256
    rng = np.random.default_rng(3)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = np.zeros((m, n), dtype=np.float32)
    run = lambda: examples["matmul"].launch("matmul", (2, 2), a, b, c, m, n, k)
    for _ in range(3):
        run()
    before = resident_bytes()
    # Each launch allocates some 2 MB of tiles (4 programs, 8 K-steps).
    for _ in range(50):
        run()
    assert resident_bytes() - before < 16 << 20


ROW_OPS = """
// Each program loads row pid of a 8x16 i32 matrix (as 2-D tiles through
// expand_dims and broadcast) and writes, per row: the sum, the maximum and
// its first index (argmax), and the inclusive prefix sums forwards and
// backwards.
func.func @rows(%in: !tile.ptr<i32>, %sum: !tile.ptr<i32>, %max: !tile.ptr<i32>,
                %argmax: !tile.ptr<i32>, %cum: !tile.ptr<i32>, %rcum: !tile.ptr<i32>) {
  %pid = tile.program_id x
  %c16 = arith.constant 16 : i32
  %start = arith.muli %pid, %c16 : i32
  %cols = tile.range 0 to 16 : tensor<16xi32>
  %starts = tile.splat %start : i32 -> tensor<16xi32>
  %offs = arith.addi %starts, %cols : tensor<16xi32>
  %base = tile.splat %in : !tile.ptr<i32> -> tensor<16x!tile.ptr<i32>>
  %ptrs = tile.addptr %base, %offs : tensor<16x!tile.ptr<i32>>, tensor<16xi32>
  %row = tile.load %ptrs : tensor<16x!tile.ptr<i32>> -> tensor<16xi32>
  %row2 = tile.expand_dims %row axis 0 : tensor<16xi32> -> tensor<1x16xi32>
  %s2 = tile.reduce %row2 axis 1 : tensor<1x16xi32> -> tensor<1xi32> {
  ^bb0(%a: i32, %b: i32):
    %r = arith.addi %a, %b : i32
    tile.yield %r : i32
  }
  %s = tile.reshape %s2 : tensor<1xi32> -> tensor<1xi32>
  %s_ptr = tile.addptr %sum, %pid : !tile.ptr<i32>, i32
  %s_ptrs = tile.splat %s_ptr : !tile.ptr<i32> -> tensor<1x!tile.ptr<i32>>
  tile.store %s_ptrs, %s : tensor<1x!tile.ptr<i32>>, tensor<1xi32>
  %m, %i = tile.reduce %row, %cols axis 0 : tensor<16xi32>, tensor<16xi32> -> i32, i32 {
  ^bb0(%va: i32, %ia: i32, %vb: i32, %ib: i32):
    %gt = arith.cmpi sgt, %va, %vb : i32
    %eq = arith.cmpi eq, %va, %vb : i32
    %lt = arith.cmpi slt, %ia, %ib : i32
    %tie = arith.andi %eq, %lt : i1
    %take = arith.ori %gt, %tie : i1
    %v = arith.select %take, %va, %vb : i32
    %j = arith.select %take, %ia, %ib : i32
    tile.yield %v, %j : i32, i32
  }
  %m_ptr = tile.addptr %max, %pid : !tile.ptr<i32>, i32
  tile.store %m_ptr, %m : !tile.ptr<i32>, i32
  %i_ptr = tile.addptr %argmax, %pid : !tile.ptr<i32>, i32
  tile.store %i_ptr, %i : !tile.ptr<i32>, i32
  %c = tile.scan %row axis 0 : tensor<16xi32> -> tensor<16xi32> {
  ^bb0(%a: i32, %b: i32):
    %r = arith.addi %a, %b : i32
    tile.yield %r : i32
  }
  %cbase = tile.splat %cum : !tile.ptr<i32> -> tensor<16x!tile.ptr<i32>>
  %cptrs = tile.addptr %cbase, %offs : tensor<16x!tile.ptr<i32>>, tensor<16xi32>
  tile.store %cptrs, %c : tensor<16x!tile.ptr<i32>>, tensor<16xi32>
  %rc = tile.scan %row axis 0 reverse : tensor<16xi32> -> tensor<16xi32> {
  ^bb0(%a: i32, %b: i32):
    %r = arith.addi %a, %b : i32
    tile.yield %r : i32
  }
  %rbase = tile.splat %rcum : !tile.ptr<i32> -> tensor<16x!tile.ptr<i32>>
  %rptrs = tile.addptr %rbase, %offs : tensor<16x!tile.ptr<i32>>, tensor<16xi32>
  tile.store %rptrs, %rc : tensor<16x!tile.ptr<i32>>, tensor<16xi32>
  return
}
"""


def test_reductions_and_scans(ctx):
    rng = np.random.default_rng(0)
    x = rng.integers(-50, 50, size=(8, 16), dtype=np.int32)
    x[3, 2] = x[3, 9] = 99  # a tie: argmax takes the first
    sums, maxes, argmax = (np.zeros(8, np.int32) for _ in range(3))
    cum, rcum = np.zeros_like(x), np.zeros_like(x)
    compile_host(ctx, ROW_OPS).launch("rows", (8,), x, sums, maxes, argmax,
                                      cum, rcum)
    np.testing.assert_array_equal(sums, x.sum(axis=1))
    np.testing.assert_array_equal(maxes, x.max(axis=1))
    np.testing.assert_array_equal(argmax, x.argmax(axis=1))
    np.testing.assert_array_equal(cum, np.cumsum(x, axis=1))
    np.testing.assert_array_equal(rcum, np.cumsum(x[:, ::-1], axis=1)[:, ::-1])


TILE_2D = """
// Loads a 4x8 f32 tile (row stride 8) and writes trans(x) (8x4), the column
// sums broadcast back over the rows, the tile reshaped to 8x4, and x with
// its masked-out half (columns >= 5) replaced by `other`.
func.func @shapes(%in: !tile.ptr<f32>, %t: !tile.ptr<f32>, %colsum: !tile.ptr<f32>,
                  %re: !tile.ptr<f32>, %masked: !tile.ptr<f32>, %fill: f32) {
  %r4 = tile.range 0 to 4 : tensor<4xi32>
  %r8 = tile.range 0 to 8 : tensor<8xi32>
  %rows = tile.expand_dims %r4 axis 1 : tensor<4xi32> -> tensor<4x1xi32>
  %cols = tile.expand_dims %r8 axis 0 : tensor<8xi32> -> tensor<1x8xi32>
  %c8 = arith.constant dense<8> : tensor<4x1xi32>
  %rowoff = arith.muli %rows, %c8 : tensor<4x1xi32>
  %rowoff_b = tile.broadcast %rowoff : tensor<4x1xi32> -> tensor<4x8xi32>
  %cols_b = tile.broadcast %cols : tensor<1x8xi32> -> tensor<4x8xi32>
  %offs = arith.addi %rowoff_b, %cols_b : tensor<4x8xi32>
  %base = tile.splat %in : !tile.ptr<f32> -> tensor<4x8x!tile.ptr<f32>>
  %ptrs = tile.addptr %base, %offs : tensor<4x8x!tile.ptr<f32>>, tensor<4x8xi32>
  %x = tile.load %ptrs : tensor<4x8x!tile.ptr<f32>> -> tensor<4x8xf32>

  // trans: element (j, i) at j * 4 + i.
  %xt = tile.trans %x [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %toffs = tile.reshape %offs : tensor<4x8xi32> -> tensor<8x4xi32>
  %tbase = tile.splat %t : !tile.ptr<f32> -> tensor<8x4x!tile.ptr<f32>>
  %tptrs = tile.addptr %tbase, %toffs : tensor<8x4x!tile.ptr<f32>>, tensor<8x4xi32>
  tile.store %tptrs, %xt : tensor<8x4x!tile.ptr<f32>>, tensor<8x4xf32>

  %cs = tile.reduce %x axis 0 : tensor<4x8xf32> -> tensor<8xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tile.yield %s : f32
  }
  %cs2 = tile.expand_dims %cs axis 0 : tensor<8xf32> -> tensor<1x8xf32>
  %csb = tile.broadcast %cs2 : tensor<1x8xf32> -> tensor<4x8xf32>
  %cbase = tile.splat %colsum : !tile.ptr<f32> -> tensor<4x8x!tile.ptr<f32>>
  %cptrs = tile.addptr %cbase, %offs : tensor<4x8x!tile.ptr<f32>>, tensor<4x8xi32>
  tile.store %cptrs, %csb : tensor<4x8x!tile.ptr<f32>>, tensor<4x8xf32>

  %xr = tile.reshape %x : tensor<4x8xf32> -> tensor<8x4xf32>
  %rbase = tile.splat %re : !tile.ptr<f32> -> tensor<8x4x!tile.ptr<f32>>
  %rptrs = tile.addptr %rbase, %toffs : tensor<8x4x!tile.ptr<f32>>, tensor<8x4xi32>
  tile.store %rptrs, %xr : tensor<8x4x!tile.ptr<f32>>, tensor<8x4xf32>

  %c5 = arith.constant dense<5> : tensor<4x8xi32>
  %mask = arith.cmpi slt, %cols_b, %c5 : tensor<4x8xi32>
  %other = tile.splat %fill : f32 -> tensor<4x8xf32>
  %xm = tile.load %ptrs, %mask, other %other : tensor<4x8x!tile.ptr<f32>> -> tensor<4x8xf32>
  %mbase = tile.splat %masked : !tile.ptr<f32> -> tensor<4x8x!tile.ptr<f32>>
  %mptrs = tile.addptr %mbase, %offs : tensor<4x8x!tile.ptr<f32>>, tensor<4x8xi32>
  tile.store %mptrs, %xm : tensor<4x8x!tile.ptr<f32>>, tensor<4x8xf32>
  return
}
"""


def test_shape_ops_and_masked_loads(ctx):
    x = np.random.default_rng(1).standard_normal((4, 8)).astype(np.float32)
    t, colsum, re, masked = (np.zeros(32, np.float32) for _ in range(4))
    compile_host(ctx, TILE_2D).launch("shapes", (1,), x, t, colsum, re,
                                      masked, -7.5)
    np.testing.assert_array_equal(t.reshape(8, 4), x.T)
    np.testing.assert_allclose(colsum.reshape(4, 8),
                               np.broadcast_to(x.sum(axis=0), (4, 8)),
                               rtol=1e-6)
    np.testing.assert_array_equal(re.reshape(8, 4), x.reshape(8, 4))
    expected = np.where(np.arange(8) < 5, x, np.float32(-7.5))
    np.testing.assert_array_equal(masked.reshape(4, 8), expected)


ATOMICS = """
// Every program adds its slice of 64 values into one f32 total and one i32
// histogram bin per value (bins = value mod 8), and keeps a running maximum.
func.func @atomics(%x: !tile.ptr<i32>, %total: !tile.ptr<f32>,
                   %bins: !tile.ptr<i32>, %max: !tile.ptr<i32>, %n: i32) {
  %pid = tile.program_id x
  %c64 = arith.constant 64 : i32
  %start = arith.muli %pid, %c64 : i32
  %r = tile.range 0 to 64 : tensor<64xi32>
  %s = tile.splat %start : i32 -> tensor<64xi32>
  %offs = arith.addi %s, %r : tensor<64xi32>
  %ns = tile.splat %n : i32 -> tensor<64xi32>
  %mask = arith.cmpi slt, %offs, %ns : tensor<64xi32>
  %base = tile.splat %x : !tile.ptr<i32> -> tensor<64x!tile.ptr<i32>>
  %ptrs = tile.addptr %base, %offs : tensor<64x!tile.ptr<i32>>, tensor<64xi32>
  %v = tile.load %ptrs, %mask : tensor<64x!tile.ptr<i32>> -> tensor<64xi32>

  %vf = arith.sitofp %v : tensor<64xi32> to tensor<64xf32>
  %tp = tile.splat %total : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %old = tile.atomic_rmw add acq_rel gpu %tp, %vf, %mask : tensor<64x!tile.ptr<f32>>, tensor<64xf32>

  %c8 = arith.constant dense<8> : tensor<64xi32>
  %bin = arith.remui %v, %c8 : tensor<64xi32>
  %bbase = tile.splat %bins : !tile.ptr<i32> -> tensor<64x!tile.ptr<i32>>
  %bptrs = tile.addptr %bbase, %bin : tensor<64x!tile.ptr<i32>>, tensor<64xi32>
  %one = arith.constant dense<1> : tensor<64xi32>
  %o2 = tile.atomic_rmw add relaxed gpu %bptrs, %one, %mask : tensor<64x!tile.ptr<i32>>, tensor<64xi32>

  %mp = tile.splat %max : !tile.ptr<i32> -> tensor<64x!tile.ptr<i32>>
  %o3 = tile.atomic_rmw max relaxed gpu %mp, %v, %mask : tensor<64x!tile.ptr<i32>>, tensor<64xi32>
  return
}
"""


@pytest.mark.parametrize("n", [1, 63, 64, 200])
def test_atomics(ctx, n):
    x = np.random.default_rng(n).integers(0, 1000, size=n, dtype=np.int32)
    total = np.zeros(1, np.float32)
    bins = np.zeros(8, np.int32)
    maximum = np.array([-1], np.int32)
    compile_host(ctx, ATOMICS).launch("atomics", ((n + 63) // 64,), x, total,
                                      bins, maximum, n)
    assert total[0] == pytest.approx(float(x.sum()), rel=1e-6)
    np.testing.assert_array_equal(bins, np.bincount(x % 8, minlength=8))
    assert maximum[0] == x.max()


DOTS = """
func.func @dots(%a: !tile.ptr<i8>, %b: !tile.ptr<i8>, %c: !tile.ptr<i32>) {
  %r = tile.range 0 to 16 : tensor<16xi32>
  %rows = tile.expand_dims %r axis 1 : tensor<16xi32> -> tensor<16x1xi32>
  %cols = tile.expand_dims %r axis 0 : tensor<16xi32> -> tensor<1x16xi32>
  %c16 = arith.constant dense<16> : tensor<16x1xi32>
  %ro = arith.muli %rows, %c16 : tensor<16x1xi32>
  %rob = tile.broadcast %ro : tensor<16x1xi32> -> tensor<16x16xi32>
  %cob = tile.broadcast %cols : tensor<1x16xi32> -> tensor<16x16xi32>
  %offs = arith.addi %rob, %cob : tensor<16x16xi32>
  %ab = tile.splat %a : !tile.ptr<i8> -> tensor<16x16x!tile.ptr<i8>>
  %ap = tile.addptr %ab, %offs : tensor<16x16x!tile.ptr<i8>>, tensor<16x16xi32>
  %av = tile.load %ap : tensor<16x16x!tile.ptr<i8>> -> tensor<16x16xi8>
  %bb = tile.splat %b : !tile.ptr<i8> -> tensor<16x16x!tile.ptr<i8>>
  %bp = tile.addptr %bb, %offs : tensor<16x16x!tile.ptr<i8>>, tensor<16x16xi32>
  %bv = tile.load %bp : tensor<16x16x!tile.ptr<i8>> -> tensor<16x16xi8>
  %cb = tile.splat %c : !tile.ptr<i32> -> tensor<16x16x!tile.ptr<i32>>
  %cp = tile.addptr %cb, %offs : tensor<16x16x!tile.ptr<i32>>, tensor<16x16xi32>
  %acc = tile.load %cp : tensor<16x16x!tile.ptr<i32>> -> tensor<16x16xi32>
  %d = tile.dot %av, %bv, %acc : tensor<16x16xi8>, tensor<16x16xi8> -> tensor<16x16xi32>
  tile.store %cp, %d : tensor<16x16x!tile.ptr<i32>>, tensor<16x16xi32>
  return
}
"""


def test_int8_dot_accumulates_in_int32(ctx):
    rng = np.random.default_rng(2)
    a = rng.integers(-128, 128, size=(16, 16), dtype=np.int8)
    b = rng.integers(-128, 128, size=(16, 16), dtype=np.int8)
    c = rng.integers(-1000, 1000, size=(16, 16), dtype=np.int32)
    expected = c + a.astype(np.int32) @ b.astype(np.int32)
    compile_host(ctx, DOTS).launch("dots", (1,), a, b, c)
    np.testing.assert_array_equal(c, expected)


GRID = """
// Writes pid_x + 10 * pid_y + 100 * pid_z and the grid size at the slot of
// each program instance.
func.func @grid(%ids: !tile.ptr<i32>, %sizes: !tile.ptr<i32>) {
  %x = tile.program_id x
  %y = tile.program_id y
  %z = tile.program_id z
  %nx = tile.num_programs x
  %ny = tile.num_programs y
  %nz = tile.num_programs z
  %c10 = arith.constant 10 : i32
  %c100 = arith.constant 100 : i32
  %y10 = arith.muli %y, %c10 : i32
  %z100 = arith.muli %z, %c100 : i32
  %id0 = arith.addi %x, %y10 : i32
  %id = arith.addi %id0, %z100 : i32
  %row = arith.muli %z, %ny : i32
  %row2 = arith.addi %row, %y : i32
  %slot0 = arith.muli %row2, %nx : i32
  %slot = arith.addi %slot0, %x : i32
  %p = tile.addptr %ids, %slot : !tile.ptr<i32>, i32
  tile.store %p, %id : !tile.ptr<i32>, i32
  %size0 = arith.muli %nx, %c10 : i32
  %size1 = arith.addi %size0, %ny : i32
  %size2 = arith.muli %size1, %c10 : i32
  %size = arith.addi %size2, %nz : i32
  %q = tile.addptr %sizes, %slot : !tile.ptr<i32>, i32
  tile.store %q, %size : !tile.ptr<i32>, i32
  return
}
"""


def test_program_ids_cover_the_grid(ctx):
    ids = np.full(2 * 3 * 4, -1, np.int32)
    sizes = np.zeros_like(ids)
    compile_host(ctx, GRID).launch("grid", (4, 3, 2), ids, sizes)
    z, y, x = np.meshgrid(range(2), range(3), range(4), indexing="ij")
    np.testing.assert_array_equal(ids, (x + 10 * y + 100 * z).ravel())
    np.testing.assert_array_equal(sizes, 432)


def test_bad_arguments_raise_before_running(ctx):
    exe = compile_host(ctx, GRID)
    ids = np.zeros(4, np.int32)
    with pytest.raises(kiln.KilnError, match="takes 2 arguments"):
        exe.launch("grid", (1,), ids)
    with pytest.raises(kiln.KilnError, match="must be an array of int32, not "
                                             "float32"):
        exe.launch("grid", (1,), ids, np.zeros(4, np.float32))
    with pytest.raises(kiln.KilnError, match="must be a numpy array"):
        exe.launch("grid", (1,), ids, 3)
    with pytest.raises(kiln.KilnError, match="no kernel named 'nope'"):
        exe.launch("nope", (1,))
    with pytest.raises(kiln.KilnError, match="grid must be"):
        exe.launch("grid", (1, 1, 1, 1), ids, ids)


def test_scalar_arguments_are_range_checked(ctx):
    exe = compile_host(ctx, ATOMICS)
    x = np.zeros(1, np.int32)
    with pytest.raises(kiln.KilnError, match="does not fit in i32"):
        exe.launch("atomics", (1,), x, np.zeros(1, np.float32),
                   np.zeros(8, np.int32), np.zeros(1, np.int32), 2**31)


BLOCKS = """
// Copies an M x N f32 matrix (row stride `stride`) into `out` (row stride N)
// in 16x16 blocks with block pointers: one program per block, with x the
// block column and y the block row. Elements outside the matrix read as
// `padding` and are not stored.
func.func @copy(%in: !tile.ptr<f32>, %out: !tile.ptr<f32>, %m: i32, %n: i32,
                %stride: i32) {
  %bx = tile.program_id x
  %by = tile.program_id y
  %c16 = arith.constant 16 : i32
  %c1 = arith.constant 1 : i64
  %c0 = arith.constant 0 : i32
  %row = arith.muli %by, %c16 : i32
  %col = arith.muli %bx, %c16 : i32
  %m64 = arith.extsi %m : i32 to i64
  %n64 = arith.extsi %n : i32 to i64
  %s64 = arith.extsi %stride : i32 to i64
  // Start at block column 0 and advance to this program's column.
  %src0 = tile.make_block_ptr %in, [%m64, %n64], [%s64, %c1], [%row, %c0]
      {order = array<i32: 1, 0>} : !tile.ptr<f32> -> !tile.block_ptr<16x16xf32>
  %src = tile.advance %src0, [%c0, %col] : !tile.block_ptr<16x16xf32>
  %dst = tile.make_block_ptr %out, [%m64, %n64], [%n64, %c1], [%row, %col]
      {order = array<i32: 1, 0>} : !tile.ptr<f32> -> !tile.block_ptr<16x16xf32>
  %t = tile.block_load %src boundary_check = [0, 1]
      : !tile.block_ptr<16x16xf32> -> tensor<16x16xf32>
  tile.block_store %dst, %t boundary_check = [0, 1]
      : !tile.block_ptr<16x16xf32>, tensor<16x16xf32>
  return
}
"""


@pytest.mark.parametrize("m, n", [(16, 16), (20, 37), (1, 5)])
def test_block_pointers_copy_ragged_matrices(ctx, m, n):
    stride = n + 3
    x = np.random.default_rng(m * n).standard_normal((m, stride)).astype(
        np.float32)
    out = np.zeros((m, n), np.float32)
    exe = HostExecutable(kiln.Module.parse(ctx, BLOCKS), check_bounds=True)
    exe.launch("copy", ((n + 15) // 16, (m + 15) // 16), x, out, m, n, stride)
    np.testing.assert_array_equal(out, x[:, :n])


@pytest.fixture(scope="module")
def checked_vector_add(ctx):
    source = (EXAMPLES / "vector_add.mlir").read_text()
    return HostExecutable(kiln.Module.parse(ctx, source, "vector_add.mlir"),
                          check_bounds=True)


def test_bounds_checks_pass_correct_launches(checked_vector_add):
    n = 1500  # ragged: the masks keep the last program inside the arrays
    x, y = np.random.default_rng(4).standard_normal((2, n), dtype=np.float32)
    out = np.zeros(n, np.float32)
    checked_vector_add.launch("vector_add", (2,), x, y, out, n)
    np.testing.assert_array_equal(out, x + y)


def test_bounds_checks_name_the_first_bad_access(checked_vector_add):
    # n says 1100 elements but the arrays hold 1000: the masks let elements
    # 1000..1099 through, the first of them in program 0, and the first bad
    # access is the load of x.
    x = np.ones(1000, np.float32)
    out = np.zeros(1000, np.float32)
    guard = np.zeros(2000, np.float32)  # where a stray store could land
    with pytest.raises(kiln.LaunchError) as info:
        checked_vector_add.launch("vector_add", (2,), x, x, out, 1100)
    message = str(info.value)
    assert message.startswith("out-of-bounds access at vector_add.mlir:16:9: "
                              "tile.load in program (0, 0, 0): bytes [0x")
    assert ("+4) are outside argument 0 (bytes [0x" in message and
            "the array its pointer was derived from" in message)
    # The accesses in bounds happened; the others were skipped.
    np.testing.assert_array_equal(out, 2.0)
    np.testing.assert_array_equal(guard, 0.0)


def test_bounds_checks_follow_strided_views(ctx):
    source = (EXAMPLES / "vector_add.mlir").read_text()
    exe = HostExecutable(kiln.Module.parse(ctx, source), check_bounds=True)
    base = np.arange(3000, dtype=np.float32)
    x = base[::3]  # 1000 elements spanning the first 2998 floats
    out = np.zeros(1000, np.float32)
    # The kernel reads x as contiguous: elements 0..999 of the base array,
    # all within the bytes x spans, so no access is out of bounds.
    exe.launch("vector_add", (1,), x, x, out, 1000)
    np.testing.assert_array_equal(out, 2 * base[:1000])


@pytest.mark.parametrize("threads", [2, 3, 8])
def test_launches_split_over_threads(ctx, threads):
    n = 5000
    x = np.random.default_rng(threads).integers(0, 1000, size=n,
                                                dtype=np.int32)
    total = np.zeros(1, np.float32)
    bins = np.zeros(8, np.int32)
    maximum = np.array([-1], np.int32)
    exe = HostExecutable(kiln.Module.parse(ctx, ATOMICS), threads=threads)
    exe.launch("atomics", ((n + 63) // 64,), x, total, bins, maximum, n)
    # Atomics stay atomic across threads.
    assert total[0] == pytest.approx(float(x.sum()), rel=1e-5)
    np.testing.assert_array_equal(bins, np.bincount(x % 8, minlength=8))
    assert maximum[0] == x.max()
    ids = np.full(2 * 3 * 4, -1, np.int32)
    sizes = np.zeros_like(ids)
    grid = HostExecutable(kiln.Module.parse(ctx, GRID), threads=threads)
    grid.launch("grid", (4, 3, 2), ids, sizes)
    z, y, w = np.meshgrid(range(2), range(3), range(4), indexing="ij")
    np.testing.assert_array_equal(ids, (w + 10 * y + 100 * z).ravel())


def test_bounds_checks_on_threads(ctx):
    source = (EXAMPLES / "vector_add.mlir").read_text()
    exe = HostExecutable(kiln.Module.parse(ctx, source, "vector_add.mlir"),
                         check_bounds=True, threads=4)
    x = np.ones(3000, np.float32)
    out = np.zeros(3000, np.float32)
    exe.launch("vector_add", (3,), x, x, out, 3000)
    np.testing.assert_array_equal(out, 2.0)
    with pytest.raises(kiln.KilnError, match=r"in program \(2, 0, 0\)"):
        exe.launch("vector_add", (4,), x, x, out, 3500)


def test_threads_must_be_positive(ctx):
    with pytest.raises(kiln.KilnError, match="threads must be at least 1"):
        HostExecutable(kiln.Module.parse(ctx, GRID), threads=0)
