// RUN: kiln-opt %s -split-input-file -tile-assign-layouts="num-warps=4" -tile-pipeline-loops | FileCheck %s
// RUN: kiln-opt %s -split-input-file -tile-assign-layouts="num-warps=4" -tile-pipeline-loops 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK

// A loop given num_stages (Triton's `tl.range(..., num_stages=2)`, a
// persistent softmax's loop over rows) has its loads copied ahead though
// no dot reads them, as Triton does: the row is copied by cp.async one
// iteration ahead into a 1-D slot, read back in the load's own layout,
// and its `other` (-inf) put where its mask is false, the mask computed
// again for the iteration that reads it.
// CHECK-LABEL: func.func @rows
// CHECK: %[[BUF:.*]] = tilegpu.local_alloc : memref<2x1024xf32, 3>
// CHECK: tilegpu.async_copy %{{.*}} mask %{{.*}} into %[[BUF]][%{{.*}}] : memref<2x1024xf32, 3>, tensor<1024x!tile.ptr<f32>, #{{.*}}>
// CHECK: tilegpu.async_commit_group
// CHECK: scf.for
// CHECK:   %[[SLOT:.*]] = arith.remui
// CHECK:   tilegpu.async_wait 0
// CHECK-NEXT: gpu.barrier
// CHECK:   tilegpu.async_copy
// CHECK:   tilegpu.async_commit_group
// CHECK:   %[[MASK:.*]] = arith.cmpi slt
// CHECK:   %[[ROW:.*]] = tilegpu.local_load %[[BUF]][%[[SLOT]]] : memref<2x1024xf32, 3> -> tensor<1024xf32, #{{.*}}>
// CHECK:   %[[PADDED:.*]] = arith.select %[[MASK]], %[[ROW]], %{{.*}} : tensor<1024xi1, {{.*}}>, tensor<1024xf32
// CHECK:   tile.reduce %[[PADDED]]
// CHECK-NOT: tile.load
// CHECK: tilegpu.async_wait 0
// REMARK-NOT: remark
func.func @rows(%out: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                %in: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                %stride: i32 {tile.divisibility = 16 : i64},
                %n: i32 {tile.divisibility = 16 : i64}, %rows: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %ninf = arith.constant dense<0xFF800000> : tensor<1024xf32>
  scf.for %row = %c0 to %rows step %c1 : i32 {
    %offset = arith.muli %row, %stride : i32
    %base = tile.addptr %in, %offset : !tile.ptr<f32>, i32
    %cols = tile.range 0 to 1024 : tensor<1024xi32>
    %bases = tile.splat %base : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
    %ptrs = tile.addptr %bases, %cols : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
    %ns = tile.splat %n : i32 -> tensor<1024xi32>
    %mask = arith.cmpi slt, %cols, %ns : tensor<1024xi32>
    %x = tile.load %ptrs, %mask, other %ninf : tensor<1024x!tile.ptr<f32>> -> tensor<1024xf32>
    %max = tile.reduce %x axis 0 : tensor<1024xf32> -> f32 {
    ^bb0(%a: f32, %b: f32):
      %m = arith.maxnumf %a, %b : f32
      tile.yield %m : f32
    }
    %maxs = tile.splat %max : f32 -> tensor<1024xf32>
    %y = arith.subf %x, %maxs : tensor<1024xf32>
    %obase = tile.addptr %out, %offset : !tile.ptr<f32>, i32
    %obases = tile.splat %obase : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
    %optrs = tile.addptr %obases, %cols : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
    tile.store %optrs, %y, %mask : tensor<1024x!tile.ptr<f32>>, tensor<1024xf32>
  } {tile.num_stages = 2 : i64}
  return
}

// -----

// Without num_stages a loop whose loads feed no dot is left as it is, as
// Triton leaves it (the default stages are for the dots' operands).
// CHECK-LABEL: func.func @default_stages
// CHECK-NOT: tilegpu.async_copy
// CHECK: tile.load
func.func @default_stages(%in: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                          %out: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                          %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant 0.0 : f32
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) : i32 {
    %offset = arith.muli %i, %c1 : i32
    %base = tile.addptr %in, %offset : !tile.ptr<f32>, i32
    %cols = tile.range 0 to 1024 : tensor<1024xi32>
    %bases = tile.splat %base : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
    %ptrs = tile.addptr %bases, %cols : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
    %x = tile.load %ptrs : tensor<1024x!tile.ptr<f32>> -> tensor<1024xf32>
    %s = tile.reduce %x axis 0 : tensor<1024xf32> -> f32 {
    ^bb0(%a: f32, %b: f32):
      %t = arith.addf %a, %b : f32
      tile.yield %t : f32
    }
    %next = arith.addf %acc, %s : f32
    scf.yield %next : f32
  }
  tile.store %out, %sum : !tile.ptr<f32>, f32
  return
}

// -----

// Loads that cp.async cannot copy (here 2-byte runs of f16 at an odd
// offset) leave the loop unpipelined, with a remark: it still runs.
// REMARK: remark: not pipelined: no load there is copied in runs of 4, 8 or 16 bytes a thread
// CHECK-LABEL: func.func @unaligned
// CHECK-NOT: tilegpu.async_copy
// CHECK: tile.load
func.func @unaligned(%in: !tile.ptr<f16>, %out: !tile.ptr<f16>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
    %base = tile.addptr %in, %i : !tile.ptr<f16>, i32
    %cols = tile.range 0 to 1024 : tensor<1024xi32>
    %bases = tile.splat %base : !tile.ptr<f16> -> tensor<1024x!tile.ptr<f16>>
    %ptrs = tile.addptr %bases, %cols : tensor<1024x!tile.ptr<f16>>, tensor<1024xi32>
    %x = tile.load %ptrs : tensor<1024x!tile.ptr<f16>> -> tensor<1024xf16>
    %obases = tile.splat %out : !tile.ptr<f16> -> tensor<1024x!tile.ptr<f16>>
    %optrs = tile.addptr %obases, %cols : tensor<1024x!tile.ptr<f16>>, tensor<1024xi32>
    tile.store %optrs, %x : tensor<1024x!tile.ptr<f16>>, tensor<1024xf16>
  } {tile.num_stages = 3 : i64}
  return
}
