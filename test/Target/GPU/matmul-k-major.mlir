// RUN: kiln-translate %s --chip=sm_90a --num-warps=4 | FileCheck %s
// RUN: %if ptxas %{ kiln-translate %s --chip=sm_90a --num-warps=4 | %ptxas -arch=sm_90a -v 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: %if ptxas && cuobjdump %{ kiln-translate %s --chip=sm_90a --num-warps=4 --emit=cubin -o %t.cubin && %cuobjdump -sass %t.cubin | FileCheck %s --check-prefix=SASS %}
// RUN: kiln-translate %s --chip=sm_80 --num-warps=4 | FileCheck %s --check-prefix=SM80

// c = a @ b.T, b stored N x K (a linear layer's weight): B's tile is K-major.
// On sm_90a it is copied by cp.async, 16 bytes at a time down its columns,
// into a slot wgmma reads K-major: imm-trans-b 0 (an N-major B has 1).
// CHECK: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, p, 1, {{ *}}1, 0, {{ *}}0;
// CHECK-NOT: mma.sync
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// SASS: HGMMA.64x64x16.F32
// On sm_80 ldmatrix reads the K-major slot as stored (no .trans: each
// row of the slot is a column of B, its K pairs what mma.sync's B
// fragment holds), four 8x8 matrices (two K steps) at a time, as it reads
// A; no element is read alone.
// SM80: cp.async.cg.shared.global
// SM80-NOT: ld.shared.b16
// SM80-NOT: ldmatrix.sync.aligned.m8n8.x4.trans
// SM80: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// SM80-NOT: ld.shared.b16
// SM80: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// SM80-NOT: ld.shared.b16
func.func @linear(%a: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                  %b: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                  %c: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                  %n: i32) {
  %r64 = tile.range 0 to 64 : tensor<64xi32>
  %r32 = tile.range 0 to 32 : tensor<32xi32>
  %am = tile.expand_dims %r64 axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %ak = tile.expand_dims %r32 axis 0 : tensor<32xi32> -> tensor<1x32xi32>
  %c32a = arith.constant dense<32> : tensor<64x1xi32>
  %amo = arith.muli %am, %c32a : tensor<64x1xi32>
  %amb = tile.broadcast %amo : tensor<64x1xi32> -> tensor<64x32xi32>
  %akb = tile.broadcast %ak : tensor<1x32xi32> -> tensor<64x32xi32>
  %aoff = arith.addi %amb, %akb : tensor<64x32xi32>
  %as = tile.splat %a : !tile.ptr<f16> -> tensor<64x32x!tile.ptr<f16>>
  %ap = tile.addptr %as, %aoff : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
  %bk = tile.expand_dims %r32 axis 1 : tensor<32xi32> -> tensor<32x1xi32>
  %bn = tile.expand_dims %r64 axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %c32b = arith.constant dense<32> : tensor<1x64xi32>
  %bno = arith.muli %bn, %c32b : tensor<1x64xi32>
  %bkb = tile.broadcast %bk : tensor<32x1xi32> -> tensor<32x64xi32>
  %bnb = tile.broadcast %bno : tensor<1x64xi32> -> tensor<32x64xi32>
  %boff = arith.addi %bkb, %bnb : tensor<32x64xi32>
  %bs = tile.splat %b : !tile.ptr<f16> -> tensor<32x64x!tile.ptr<f16>>
  %bp = tile.addptr %bs, %boff : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%acc_i = %zero) -> (tensor<64x64xf32>) : i32 {
    %va = tile.load %ap : tensor<64x32x!tile.ptr<f16>> -> tensor<64x32xf16>
    %vb = tile.load %bp : tensor<32x64x!tile.ptr<f16>> -> tensor<32x64xf16>
    %d = tile.dot %va, %vb, %acc_i : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  %cm = tile.expand_dims %r64 axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %cn = tile.expand_dims %r64 axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %c64 = arith.constant dense<64> : tensor<64x1xi32>
  %cmo = arith.muli %cm, %c64 : tensor<64x1xi32>
  %cmb = tile.broadcast %cmo : tensor<64x1xi32> -> tensor<64x64xi32>
  %cnb = tile.broadcast %cn : tensor<1x64xi32> -> tensor<64x64xi32>
  %coff = arith.addi %cmb, %cnb : tensor<64x64xi32>
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %cp = tile.addptr %cs, %coff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %cp, %acc : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}
