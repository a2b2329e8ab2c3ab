// RUN: kiln-opt %s -tile-assign-layouts -kiln-convert-tile-to-gpu | FileCheck %s
// RUN: kiln-translate %s --chip=sm_90a | FileCheck %s --check-prefix=PTX

// A mask equal over aligned groups of a thread's consecutive registers
// (offsets < n with n divisible by 16: AxisInfo's constancy) is compared
// at each group's first register and repeated over the group, so every
// access it masks reads one predicate per vector, as Triton's do, and the
// other lanes' comparisons die (a select of `other` under the mask would
// otherwise compare every element). Against m, of unknown divisibility,
// each element is compared: 2 + 8 comparisons where there were 16.
// CHECK-LABEL: gpu.func @masks
// CHECK: %[[IN:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : vector<8xi32>
// CHECK-NEXT: vector.shuffle %[[IN]], %[[IN]] [0, 0, 0, 0, 4, 4, 4, 4] : vector<8xi1>, vector<8xi1>
// CHECK-NEXT: arith.cmpi slt, %{{.*}}, %{{.*}} : vector<8xi32>
// CHECK-NOT: vector.shuffle
// PTX-LABEL: .entry masks(
// PTX-COUNT-10: setp.lt.s32
// PTX-NOT: setp
// PTX: @%p1 ld.global.v4.b32
// PTX: @%p2 ld.global.v4.b32
// PTX-COUNT-8: ld.global.b32
func.func @masks(%p: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                 %n: i32 {tile.divisibility = 16 : i64}, %m: i32,
                 %out: !tile.ptr<f32> {tile.divisibility = 16 : i64}) {
  %r = tile.range 0 to 1024 : tensor<1024xi32>
  %ns = tile.splat %n : i32 -> tensor<1024xi32>
  %ms = tile.splat %m : i32 -> tensor<1024xi32>
  %in = arith.cmpi slt, %r, %ns : tensor<1024xi32>
  %inm = arith.cmpi slt, %r, %ms : tensor<1024xi32>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %pp = tile.addptr %ps, %r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %x = tile.load %pp, %in : tensor<1024x!tile.ptr<f32>> -> tensor<1024xf32>
  %y = tile.load %pp, %inm : tensor<1024x!tile.ptr<f32>> -> tensor<1024xf32>
  %s = arith.addf %x, %y : tensor<1024xf32>
  %os = tile.splat %out : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %op = tile.addptr %os, %r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  tile.store %op, %s, %in : tensor<1024x!tile.ptr<f32>>, tensor<1024xf32>
  return
}
