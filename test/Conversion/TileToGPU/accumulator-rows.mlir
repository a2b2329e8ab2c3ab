// RUN: kiln-opt %s -tile-assign-layouts -kiln-convert-tile-to-gpu | FileCheck %s
// RUN: %if ptxas %{ kiln-translate %s --chip=sm_80 --emit=cubin -o /dev/null %}

// The rows of an mma.sync accumulator, as attention's running maximum
// carries them through its loop: in each 16x8 block a thread holds two
// columns of rows g and g + 8, so a row value is two registers, one per
// row, not one per accumulator register (c0 and c1 are the same row).
// CHECK-LABEL: gpu.func @running_row_max
// CHECK: scf.for {{.*}} iter_args(%[[CARRIED:.*]] = %{{.*}}) -> (vector<2xf32>)
// CHECK:   nvvm.mma.sync
// CHECK:   gpu.shuffle xor
// CHECK:   %[[NEXT:.*]] = arith.maximumf %[[CARRIED]], %{{.*}} : vector<2xf32>
// CHECK:   scf.yield %[[NEXT]] : vector<2xf32>
func.func @running_row_max(%a: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %b: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %out: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %n: i32) {
  %r32 = tile.range 0 to 32 : tensor<32xi32>
  %r16 = tile.range 0 to 16 : tensor<16xi32>
  %rows = tile.expand_dims %r32 axis 1 : tensor<32xi32> -> tensor<32x1xi32>
  %c16 = arith.constant dense<16> : tensor<32x1xi32>
  %ro = arith.muli %rows, %c16 : tensor<32x1xi32>
  %rob = tile.broadcast %ro : tensor<32x1xi32> -> tensor<32x16xi32>
  %cols = tile.expand_dims %r16 axis 0 : tensor<16xi32> -> tensor<1x16xi32>
  %cob = tile.broadcast %cols : tensor<1x16xi32> -> tensor<32x16xi32>
  %aoff = arith.addi %rob, %cob : tensor<32x16xi32>
  %as = tile.splat %a : !tile.ptr<f16> -> tensor<32x16x!tile.ptr<f16>>
  %ap = tile.addptr %as, %aoff : tensor<32x16x!tile.ptr<f16>>, tensor<32x16xi32>
  %av = tile.load %ap : tensor<32x16x!tile.ptr<f16>> -> tensor<32x16xf16>
  %brows = tile.expand_dims %r16 axis 1 : tensor<16xi32> -> tensor<16x1xi32>
  %bc16 = arith.constant dense<16> : tensor<16x1xi32>
  %bro = arith.muli %brows, %bc16 : tensor<16x1xi32>
  %brob = tile.broadcast %bro : tensor<16x1xi32> -> tensor<16x16xi32>
  %bcob = tile.broadcast %cols : tensor<1x16xi32> -> tensor<16x16xi32>
  %boff = arith.addi %brob, %bcob : tensor<16x16xi32>
  %bs = tile.splat %b : !tile.ptr<f16> -> tensor<16x16x!tile.ptr<f16>>
  %bp = tile.addptr %bs, %boff : tensor<16x16x!tile.ptr<f16>>, tensor<16x16xi32>
  %bv = tile.load %bp : tensor<16x16x!tile.ptr<f16>> -> tensor<16x16xf16>
  %zero = arith.constant dense<0.0> : tensor<32x16xf32>
  %ninf = arith.constant dense<0xFF800000> : tensor<32xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %m = scf.for %i = %c0 to %n step %c1 iter_args(%run = %ninf) -> (tensor<32xf32>) : i32 {
    %s = tile.dot %av, %bv, %zero : tensor<32x16xf16>, tensor<16x16xf16> -> tensor<32x16xf32>
    %rm = tile.reduce %s axis 1 : tensor<32x16xf32> -> tensor<32xf32> {
    ^bb0(%x: f32, %y: f32):
      %t = arith.maximumf %x, %y : f32
      tile.yield %t : f32
    }
    %next = arith.maximumf %run, %rm : tensor<32xf32>
    scf.yield %next : tensor<32xf32>
  }
  %os = tile.splat %out : !tile.ptr<f32> -> tensor<32x!tile.ptr<f32>>
  %op = tile.addptr %os, %r32 : tensor<32x!tile.ptr<f32>>, tensor<32xi32>
  tile.store %op, %m : tensor<32x!tile.ptr<f32>>, tensor<32xf32>
  return
}
