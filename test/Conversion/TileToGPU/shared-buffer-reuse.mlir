// RUN: kiln-opt %s -tile-assign-layouts="compute-capability=90 arch-specific=1" -tile-pipeline-loops="shared-memory-limit=232448" -kiln-convert-tile-to-gpu | FileCheck %s

// Two pipelined loops one after the other share their stages' shared
// memory (the first's slots are dead when the second's prologue starts),
// with a barrier so that no thread overwrites slots another still reads:
// the array holds one loop's 3 x (4 + 4) KiB, not two.
// CHECK: llvm.mlir.global internal @{{.*}}() {{.*}} : !llvm.array<24{{[0-9][0-9][0-9]}} x i8>
// CHECK-LABEL: gpu.func @two_loops
// CHECK: nvvm.cp.async.shared.global
// CHECK: scf.for
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: llvm.mlir.addressof
// CHECK-NEXT: llvm.getelementptr %{{.*}}[0]
// CHECK-NOT: gpu.barrier
// CHECK: llvm.getelementptr %{{.*}}[12288]
// CHECK: nvvm.cp.async.shared.global
// After both loops the slots are dead, and the conversion of the sum to
// the layout that stores it 16 bytes wide takes its 16 KiB from their
// memory (the array above stays 24 KiB, not 40), once every thread is
// past its last read of them.
// CHECK: scf.for
// CHECK: nvvm.cp.async.wait.group 0
// CHECK: gpu.barrier
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
func.func @two_loops(%a: !tile.ptr<f16> {tile.divisibility = 16 : i64},
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
  %acc2 = scf.for %k = %c0 to %n step %c1 iter_args(%acc2_i = %zero) -> (tensor<64x64xf32>) : i32 {
    %va2 = tile.load %ap : tensor<64x32x!tile.ptr<f16>> -> tensor<64x32xf16>
    %vb2 = tile.load %bp : tensor<32x64x!tile.ptr<f16>> -> tensor<32x64xf16>
    %d2 = tile.dot %va2, %vb2, %acc2_i : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %d2 : tensor<64x64xf32>
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
  %sum = arith.addf %acc, %acc2 : tensor<64x64xf32>
  tile.store %cp, %sum : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}
