// RUN: kiln-opt %s -tile-assign-layouts="compute-capability=90 arch-specific=1" -tile-pipeline-loops="shared-memory-limit=232448" -kiln-convert-tile-to-gpu | FileCheck %s

// A pipelined loop inside a loop over tiles (a persistent kernel): the
// epilogue's conversion after it does not take its scratch from the
// slots, which the next tile's prologue writes with no barrier after the
// conversion's last reads. The array holds the 3 x (4 + 4) KiB of slots
// and, past them, the 16 KiB of the 64x64 f32 conversion.
// CHECK: llvm.mlir.global internal @__kiln_shared() {{.*}} : !llvm.array<40960 x i8>
// CHECK-LABEL: gpu.func @tiles
// CHECK: scf.for
// CHECK: nvvm.cp.async.wait.group 0
// CHECK: llvm.getelementptr %{{.*}}[24576] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
func.func @tiles(%a: !tile.ptr<f16> {tile.divisibility = 16 : i64},
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
  %cm = tile.expand_dims %r64 axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %cn = tile.expand_dims %r64 axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %c64 = arith.constant dense<64> : tensor<64x1xi32>
  %cmo = arith.muli %cm, %c64 : tensor<64x1xi32>
  %cmb = tile.broadcast %cmo : tensor<64x1xi32> -> tensor<64x64xi32>
  %cnb = tile.broadcast %cn : tensor<1x64xi32> -> tensor<64x64xi32>
  %coff = arith.addi %cmb, %cnb : tensor<64x64xi32>
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %cp = tile.addptr %cs, %coff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  %tiles = arith.constant 4 : i32
  scf.for %t = %c0 to %tiles step %c1 : i32 {
    %acc = scf.for %k = %c0 to %n step %c1 iter_args(%acc_i = %zero) -> (tensor<64x64xf32>) : i32 {
      %va = tile.load %ap : tensor<64x32x!tile.ptr<f16>> -> tensor<64x32xf16>
      %vb = tile.load %bp : tensor<32x64x!tile.ptr<f16>> -> tensor<32x64xf16>
      %d = tile.dot %va, %vb, %acc_i : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    tile.store %cp, %acc : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  }
  return
}
