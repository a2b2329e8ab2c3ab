// RUN: kiln-opt %s -tile-assign-layouts="num-warps=4 compute-capability=90 arch-specific=1" -tile-pipeline-loops="shared-memory-limit=232448" | FileCheck %s
// RUN: kiln-opt %s -tile-assign-layouts="num-warps=4 compute-capability=90 arch-specific=1" -tile-pipeline-loops="shared-memory-limit=232448" 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK --allow-empty
// RUN: kiln-opt %s -tile-assign-layouts="num-warps=4 compute-capability=90 arch-specific=1" -tile-pipeline-loops="shared-memory-limit=232448" -kiln-convert-tile-to-gpu="shared-memory-limit=232448" | FileCheck %s --check-prefix=GPU

// A weight-only quantized matmul: int8 B widened to f16 and scaled per
// output feature in the loop (a dequantization, more than one cast). B's
// load is staged and read back in its own layout; wgmma reads B from
// shared memory only, so the dequantized tile is written, as computed,
// into a one-slot buffer of its own each iteration, fenced into the async
// proxy and published by a barrier before the wgmma, as Triton does.
// CHECK-LABEL: func.func @dequantized_b
// CHECK: %[[A:.*]] = tilegpu.local_alloc : memref<3x64x64xf16, 3>
// CHECK: %[[B:.*]] = tilegpu.local_alloc : memref<3x64x64xi8, 3>
// CHECK: %[[W:.*]] = tilegpu.local_alloc : memref<1x64x64xf16, 3>
// CHECK: scf.for
// CHECK:   %[[SLOT:.*]] = arith.remui
// CHECK:   %[[Q:.*]] = tilegpu.local_load %[[B]][%[[SLOT]]]
// CHECK:   %[[WIDE:.*]] = arith.sitofp %[[Q]]
// CHECK:   %[[SCALED:.*]] = arith.mulf %[[WIDE]],
// CHECK:   tilegpu.local_store %[[SCALED]], %[[W]][%[[ZERO:.*]]]
// CHECK-NEXT: tilegpu.fence_async_shared
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: tilegpu.warpgroup_dot %[[A]][%[[SLOT]]], %[[W]][%[[ZERO]]], %{{.*}} : memref<3x64x64xf16, 3>, memref<1x64x64xf16, 3>, tensor<64x64xf32,
// REMARK-NOT: remark: on mma.sync
// GPU: wgmma.mma_async
func.func @dequantized_b(%a: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                         %b: !tile.ptr<i8> {tile.divisibility = 16 : i64},
                         %c: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                         %scale: f16, %n: i32) {
  %r64 = tile.range 0 to 64 : tensor<64xi32>
  %c64 = arith.constant dense<64> : tensor<64x1xi32>
  %rows = tile.expand_dims %r64 axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %cols = tile.expand_dims %r64 axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %rowo = arith.muli %rows, %c64 : tensor<64x1xi32>
  %rowb = tile.broadcast %rowo : tensor<64x1xi32> -> tensor<64x64xi32>
  %colb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<64x64xi32>
  %off = arith.addi %rowb, %colb : tensor<64x64xi32>
  %as = tile.splat %a : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %ap = tile.addptr %as, %off : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
  %bs = tile.splat %b : !tile.ptr<i8> -> tensor<64x64x!tile.ptr<i8>>
  %bp = tile.addptr %bs, %off : tensor<64x64x!tile.ptr<i8>>, tensor<64x64xi32>
  %scales = tile.splat %scale : f16 -> tensor<64x64xf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%acc_i = %zero) -> (tensor<64x64xf32>) : i32 {
    %va = tile.load %ap : tensor<64x64x!tile.ptr<f16>> -> tensor<64x64xf16>
    %q = tile.load %bp : tensor<64x64x!tile.ptr<i8>> -> tensor<64x64xi8>
    %wide = arith.sitofp %q : tensor<64x64xi8> to tensor<64x64xf16>
    %vb = arith.mulf %wide, %scales : tensor<64x64xf16>
    %d = tile.dot %va, %vb, %acc_i : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %cp = tile.addptr %cs, %off : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %cp, %acc : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}
