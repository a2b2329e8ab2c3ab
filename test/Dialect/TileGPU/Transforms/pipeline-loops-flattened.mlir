// RUN: kiln-opt %s -split-input-file -tile-flatten-loops -tile-assign-layouts="compute-capability=90 arch-specific=1" -tile-pipeline-loops="tensor-maps=1" | FileCheck %s
// RUN: kiln-opt %s -split-input-file -tile-flatten-loops -canonicalize -tile-assign-layouts="compute-capability=90 arch-specific=1" -tile-pipeline-loops="tensor-maps=1" | FileCheck %s --check-prefix=FOLDED

// A persistent matmul's loop over tiles flattened with its K loop (Triton's
// `flatten=True`) on sm_90a: the dot's wgmma runs on across steps, as in a
// K loop, tiles included. A tile's first step starts from zero by wgmma's
// scale-d (`use_acc`, false there) instead of a select that would read the
// accumulator the previous step's wgmma may still be writing; the tile's
// epilogue waits for every wgmma before it reads the accumulator; both
// branches carry the running one on (or, once canonicalized, the loop
// does), and the loop's result is waited for after it.
// CHECK-LABEL: func.func @persistent
// CHECK: scf.for %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<64x64xf32, #{{.*}}>)
// CHECK-NOT: arith.select %{{.*}} : tensor
// CHECK: %[[STARTS:.*]] = arith.cmpi eq
// CHECK: %[[USE:.*]] = arith.xori %[[STARTS]], %true : i1
// CHECK: %[[D:.*]] = tilegpu.warpgroup_dot %{{.*}}, %{{.*}}, %[[ACC]] use_acc %[[USE]] {async}
// CHECK: scf.if %{{.*}} -> (tensor<64x64xf32, #{{.*}}>) {
// CHECK-NEXT: %[[DONE:.*]] = tilegpu.warpgroup_wait %[[D]]
// CHECK: tile.block_store %{{.*}}, %[[DONE]]
// CHECK: scf.yield %[[D]]
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[D]]
// CHECK: scf.yield %[[D]]
// CHECK: tilegpu.warpgroup_wait
// FOLDED-LABEL: func.func @persistent
// FOLDED: %[[D:.*]] = tilegpu.warpgroup_dot %{{.*}} use_acc %{{.*}} {async}
// FOLDED: scf.if %{{.*}} {
// FOLDED-NEXT: %[[DONE:.*]] = tilegpu.warpgroup_wait %[[D]]
// FOLDED: tile.block_store %{{.*}}, %[[DONE]]
// FOLDED: scf.yield %[[D]]

func.func @persistent(%a: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                      %b: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                      %c: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                      %M: i32 {tile.divisibility = 16 : i64},
                      %N: i32 {tile.divisibility = 16 : i64},
                      %K: i32 {tile.divisibility = 16 : i64},
                      %tiles: i32, %programs: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %one = arith.constant 1 : i64
  %pid = tile.program_id x
  %ksteps = arith.divsi %K, %c32 : i32
  %m = arith.extsi %M : i32 to i64
  %n = arith.extsi %N : i32 to i64
  %k = arith.extsi %K : i32 to i64
  scf.for %t = %pid to %tiles step %programs : i32 {
    %m0 = arith.muli %t, %c64 : i32
    %zero = arith.constant dense<0.0> : tensor<64x64xf32>
    %acc = scf.for %j = %c0 to %ksteps step %c1 iter_args(%s = %zero) -> (tensor<64x64xf32>) : i32 {
      %k0 = arith.muli %j, %c32 : i32
      %pa = tile.make_block_ptr %a, [%m, %k], [%k, %one], [%m0, %k0] {order = array<i32: 1, 0>} : !tile.ptr<f16> -> !tile.block_ptr<64x32xf16>
      %ta = tile.block_load %pa boundary_check = [0, 1] : !tile.block_ptr<64x32xf16> -> tensor<64x32xf16>
      %pb = tile.make_block_ptr %b, [%k, %n], [%n, %one], [%k0, %c0] {order = array<i32: 1, 0>} : !tile.ptr<f16> -> !tile.block_ptr<32x64xf16>
      %tb = tile.block_load %pb boundary_check = [0, 1] : !tile.block_ptr<32x64xf16> -> tensor<32x64xf16>
      %d = tile.dot %ta, %tb, %s : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    } {tile.num_stages = 3 : i64}
    %pc = tile.make_block_ptr %c, [%m, %n], [%n, %one], [%m0, %c0] {order = array<i32: 1, 0>} : !tile.ptr<f32> -> !tile.block_ptr<64x64xf32>
    tile.block_store %pc, %acc boundary_check = [0, 1] : !tile.block_ptr<64x64xf32>, tensor<64x64xf32>
  } {tile.flatten}
  return
}

// -----

// An accumulator that starts from another tile than zero (a bias) is
// selected at each tile's first step: the dot waits for its wgmma there.
// CHECK-LABEL: func.func @from_bias
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x64xf32
// CHECK: tilegpu.warpgroup_dot
// CHECK-NOT: async
// CHECK-NOT: use_acc
// CHECK: return
// FOLDED-LABEL: func.func @from_bias
// FOLDED-NOT: {async}
func.func @from_bias(%a: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                      %b: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                      %c: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                      %M: i32 {tile.divisibility = 16 : i64},
                      %N: i32 {tile.divisibility = 16 : i64},
                      %K: i32 {tile.divisibility = 16 : i64},
                      %tiles: i32, %programs: i32, %bias: tensor<64x64xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %one = arith.constant 1 : i64
  %pid = tile.program_id x
  %ksteps = arith.divsi %K, %c32 : i32
  %m = arith.extsi %M : i32 to i64
  %n = arith.extsi %N : i32 to i64
  %k = arith.extsi %K : i32 to i64
  scf.for %t = %pid to %tiles step %programs : i32 {
    %m0 = arith.muli %t, %c64 : i32
    %acc = scf.for %j = %c0 to %ksteps step %c1 iter_args(%s = %bias) -> (tensor<64x64xf32>) : i32 {
      %k0 = arith.muli %j, %c32 : i32
      %pa = tile.make_block_ptr %a, [%m, %k], [%k, %one], [%m0, %k0] {order = array<i32: 1, 0>} : !tile.ptr<f16> -> !tile.block_ptr<64x32xf16>
      %ta = tile.block_load %pa boundary_check = [0, 1] : !tile.block_ptr<64x32xf16> -> tensor<64x32xf16>
      %pb = tile.make_block_ptr %b, [%k, %n], [%n, %one], [%k0, %c0] {order = array<i32: 1, 0>} : !tile.ptr<f16> -> !tile.block_ptr<32x64xf16>
      %tb = tile.block_load %pb boundary_check = [0, 1] : !tile.block_ptr<32x64xf16> -> tensor<32x64xf16>
      %d = tile.dot %ta, %tb, %s : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    } {tile.num_stages = 3 : i64}
    %pc = tile.make_block_ptr %c, [%m, %n], [%n, %one], [%m0, %c0] {order = array<i32: 1, 0>} : !tile.ptr<f32> -> !tile.block_ptr<64x64xf32>
    tile.block_store %pc, %acc boundary_check = [0, 1] : !tile.block_ptr<64x64xf32>, tensor<64x64xf32>
  } {tile.flatten}
  return
}
