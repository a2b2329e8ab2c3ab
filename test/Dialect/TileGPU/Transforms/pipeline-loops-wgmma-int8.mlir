// RUN: kiln-opt %s -split-input-file -tile-assign-layouts="num-warps=4 compute-capability=90 arch-specific=1" -tile-pipeline-loops="shared-memory-limit=232448" | FileCheck %s
// RUN: kiln-opt %s -split-input-file -tile-assign-layouts="num-warps=4 compute-capability=90 arch-specific=1" -tile-pipeline-loops="shared-memory-limit=232448" 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: kiln-opt %s -split-input-file -tile-assign-layouts="num-warps=4 compute-capability=90 arch-specific=1" -tile-pipeline-loops="shared-memory-limit=49152 num-stages=6" 2>&1 >/dev/null | FileCheck %s --check-prefix=FULL

// An int8 dot on sm_90a: wgmma reads 8-bit operands K-major only. A's
// slot is; B, loaded N-major (K x N, N contiguous), is read from its slot
// in the staged load's layout and written back transposed into a
// one-slot buffer of its own, which is fenced into the async proxy and
// published by a barrier before the wgmma.
// CHECK: #[[$ROWS:.*]] = #tilegpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-LABEL: func.func @n_major_b
// CHECK: %[[A:.*]] = tilegpu.local_alloc : memref<3x64x64xi8, 3>
// CHECK: %[[B:.*]] = tilegpu.local_alloc : memref<3x64x64xi8, 3>
// CHECK: %[[T:.*]] = tilegpu.local_alloc : memref<1x64x64xi8, strided<[4096, 1, 64]>, 3>
// CHECK: scf.for
// CHECK:   %[[SLOT:.*]] = arith.remui
// CHECK:   tilegpu.async_wait 1
// CHECK-NEXT: tilegpu.fence_async_shared
// CHECK-NEXT: gpu.barrier
// CHECK:   %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[ROWS:.*]] = tilegpu.local_load %[[B]][%[[SLOT]]] : memref<3x64x64xi8, 3> -> tensor<64x64xi8, #[[$ROWS]]>
// CHECK-NEXT: tilegpu.local_store %[[ROWS]], %[[T]][%[[ZERO]]]
// CHECK-NEXT: tilegpu.fence_async_shared
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: tilegpu.warpgroup_dot %[[A]][%[[SLOT]]], %[[T]][%[[ZERO]]], %{{.*}} : memref<3x64x64xi8, 3>, memref<1x64x64xi8, strided<[4096, 1, 64]>, 3>, tensor<64x64xi32,
// Six stages of 8 KiB fill the 48 KiB the slots may take with 48 KiB
// (nothing else in the loop takes scratch), and leave no room for the
// transposed buffer: the dot stays on mma.sync, and
// says why.
// FULL-COUNT-1: remark: on mma.sync, not wgmma: wgmma reads 8-bit B K-major only, and a buffer to transpose this N-major B into does not fit in shared memory beside the pipeline's slots
func.func @n_major_b(%a: !tile.ptr<i8> {tile.divisibility = 16 : i64},
                     %b: !tile.ptr<i8> {tile.divisibility = 16 : i64},
                     %c: !tile.ptr<i32> {tile.divisibility = 16 : i64},
                     %n: i32) {
  %r64 = tile.range 0 to 64 : tensor<64xi32>
  %c64 = arith.constant dense<64> : tensor<64x1xi32>
  %rows = tile.expand_dims %r64 axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %cols = tile.expand_dims %r64 axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %rowo = arith.muli %rows, %c64 : tensor<64x1xi32>
  %rowb = tile.broadcast %rowo : tensor<64x1xi32> -> tensor<64x64xi32>
  %colb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<64x64xi32>
  %off = arith.addi %rowb, %colb : tensor<64x64xi32>
  %as = tile.splat %a : !tile.ptr<i8> -> tensor<64x64x!tile.ptr<i8>>
  %ap = tile.addptr %as, %off : tensor<64x64x!tile.ptr<i8>>, tensor<64x64xi32>
  %bs = tile.splat %b : !tile.ptr<i8> -> tensor<64x64x!tile.ptr<i8>>
  %bp = tile.addptr %bs, %off : tensor<64x64x!tile.ptr<i8>>, tensor<64x64xi32>
  %zero = arith.constant dense<0> : tensor<64x64xi32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%acc_i = %zero) -> (tensor<64x64xi32>) : i32 {
    %va = tile.load %ap : tensor<64x64x!tile.ptr<i8>> -> tensor<64x64xi8>
    %vb = tile.load %bp : tensor<64x64x!tile.ptr<i8>> -> tensor<64x64xi8>
    %d = tile.dot %va, %vb, %acc_i : tensor<64x64xi8>, tensor<64x64xi8> -> tensor<64x64xi32>
    scf.yield %d : tensor<64x64xi32>
  }
  %cs = tile.splat %c : !tile.ptr<i32> -> tensor<64x64x!tile.ptr<i32>>
  %cp = tile.addptr %cs, %off : tensor<64x64x!tile.ptr<i32>>, tensor<64x64xi32>
  tile.store %cp, %acc : tensor<64x64x!tile.ptr<i32>>, tensor<64x64xi32>
  return
}

// -----

// A computed in the loop (not a load) has no slot: wgmma takes i8 A from
// shared memory only, so the dot stays on mma.sync, with a remark.
// REMARK-COUNT-1: remark: on mma.sync, not wgmma: wgmma reads 8-bit A from shared memory only, and this A is computed in the loop, not loaded
// REMARK-NOT: remark: on mma.sync
// CHECK-LABEL: func.func @computed_a
// CHECK-NOT: tilegpu.warpgroup_dot
// CHECK: tile.dot
func.func @computed_a(%a: !tile.ptr<i8> {tile.divisibility = 16 : i64},
                     %b: !tile.ptr<i8> {tile.divisibility = 16 : i64},
                     %c: !tile.ptr<i32> {tile.divisibility = 16 : i64},
                     %n: i32) {
  %r64 = tile.range 0 to 64 : tensor<64xi32>
  %c64 = arith.constant dense<64> : tensor<64x1xi32>
  %rows = tile.expand_dims %r64 axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %cols = tile.expand_dims %r64 axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %rowo = arith.muli %rows, %c64 : tensor<64x1xi32>
  %rowb = tile.broadcast %rowo : tensor<64x1xi32> -> tensor<64x64xi32>
  %colb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<64x64xi32>
  %off = arith.addi %rowb, %colb : tensor<64x64xi32>
  %as = tile.splat %a : !tile.ptr<i8> -> tensor<64x64x!tile.ptr<i8>>
  %ap = tile.addptr %as, %off : tensor<64x64x!tile.ptr<i8>>, tensor<64x64xi32>
  %bs = tile.splat %b : !tile.ptr<i8> -> tensor<64x64x!tile.ptr<i8>>
  %bp = tile.addptr %bs, %off : tensor<64x64x!tile.ptr<i8>>, tensor<64x64xi32>
  %zero = arith.constant dense<0> : tensor<64x64xi32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%acc_i = %zero) -> (tensor<64x64xi32>) : i32 {
    %va = tile.load %ap : tensor<64x64x!tile.ptr<i8>> -> tensor<64x64xi8>
    %vb = tile.load %bp : tensor<64x64x!tile.ptr<i8>> -> tensor<64x64xi8>
    %va2 = arith.addi %va, %va : tensor<64x64xi8>
    %d = tile.dot %va2, %vb, %acc_i : tensor<64x64xi8>, tensor<64x64xi8> -> tensor<64x64xi32>
    scf.yield %d : tensor<64x64xi32>
  }
  %cs = tile.splat %c : !tile.ptr<i32> -> tensor<64x64x!tile.ptr<i32>>
  %cp = tile.addptr %cs, %off : tensor<64x64x!tile.ptr<i32>>, tensor<64x64xi32>
  tile.store %cp, %acc : tensor<64x64x!tile.ptr<i32>>, tensor<64x64xi32>
  return
}

// -----

// int8 weights times f16 activations (`tl.dot(a, b.to(tl.float16))`, a
// weight-only quantized matmul): B is cast from what the loop loads, not
// loaded, so wgmma cannot read it from its slot. As Triton does on
// Hopper, each iteration reads the int8 slot in the staged load's layout,
// casts it there, and writes the f16 into a one-slot buffer of its own,
// fenced into the async proxy and published by a barrier; wgmma reads A
// from its slot and B from that buffer, and is not left running (the
// next iteration writes the buffer again).
// CHECK-LABEL: func.func @cast_b
// CHECK: %[[A:.*]] = tilegpu.local_alloc : memref<3x64x64xf16, 3>
// CHECK: %[[B:.*]] = tilegpu.local_alloc : memref<3x64x64xi8, 3>
// CHECK: %[[W:.*]] = tilegpu.local_alloc : memref<1x64x64xf16, 3>
// CHECK: scf.for
// CHECK:   %[[SLOT:.*]] = arith.remui
// CHECK:   %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[BYTES:.*]] = tilegpu.local_load %[[B]][%[[SLOT]]] : memref<3x64x64xi8, 3> -> tensor<64x64xi8, #[[$ROWS]]>
// CHECK-NEXT: %[[WIDE:.*]] = arith.sitofp %[[BYTES]] : tensor<64x64xi8, #[[$ROWS]]> to tensor<64x64xf16, #[[$ROWS]]>
// CHECK-NEXT: tilegpu.local_store %[[WIDE]], %[[W]][%[[ZERO]]]
// CHECK-NEXT: tilegpu.fence_async_shared
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: tilegpu.warpgroup_dot %[[A]][%[[SLOT]]], %[[W]][%[[ZERO]]], %{{.*}} : memref<3x64x64xf16, 3>, memref<1x64x64xf16, 3>, tensor<64x64xf32,
// CHECK-NOT: async
// CHECK: tilegpu.async_wait 0
// REMARK-NOT: remark: on mma.sync
// Four stages of 12 KiB fill the 48 KiB: no room for the buffer, so the
// dot stays on mma.sync, and says why.
// FULL: remark: on mma.sync, not wgmma: wgmma reads B from shared memory, and a buffer for this B, cast from what the loop loads, does not fit beside the pipeline's slots
func.func @cast_b(%a: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                  %b: !tile.ptr<i8> {tile.divisibility = 16 : i64},
                  %c: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                  %n: i32) {
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
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%acc_i = %zero) -> (tensor<64x64xf32>) : i32 {
    %va = tile.load %ap : tensor<64x64x!tile.ptr<f16>> -> tensor<64x64xf16>
    %vb = tile.load %bp : tensor<64x64x!tile.ptr<i8>> -> tensor<64x64xi8>
    %wb = arith.sitofp %vb : tensor<64x64xi8> to tensor<64x64xf16>
    %d = tile.dot %va, %wb, %acc_i : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %cp = tile.addptr %cs, %off : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %cp, %acc : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}
