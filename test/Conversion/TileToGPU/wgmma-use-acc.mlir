// RUN: kiln-opt %s -kiln-convert-tile-to-gpu=shared-memory-limit=232448 | FileCheck %s

// With `use_acc`, the first wgmma of each chain (row block, N chunk) adds
// to the accumulator only where the condition holds: scale-d is a
// predicate set from it, in PTX written here (upstream's op takes scale-d
// as a constant); the chain's other K steps add to what the first made.
// The immediates after scale-d follow the operand types: imm-scale-a,
// imm-scale-b, imm-trans-a (0: A is K-major) and imm-trans-b (1: B is
// N-major) for bf16; the two scales only for 8-bit floats; none for i8
// (as upstream's op prints them).
// CHECK-LABEL: gpu.func @bf16(
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: %[[USE:.*]] = arith.extui %{{.*}} : i1 to i32
// CHECK: llvm.inline_asm has_side_effects "{ .reg .pred p; setp.ne.b32 p, $130, 0; wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {$0, {{.*}}, $63}, $128, $129, p, 1, 1, 0, 1; }", "=f,{{.*}},l,l,r"
// CHECK-COUNT-3: nvvm.wgmma.mma_async
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-LABEL: gpu.func @fp8(
// CHECK: llvm.inline_asm has_side_effects "{ .reg .pred p; setp.ne.b32 p, $130, 0; wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e5m2 {$0, {{.*}}, $63}, $128, $129, p, 1, 1; }"
// CHECK: nvvm.wgmma.mma_async
// CHECK-LABEL: gpu.func @int8(
// CHECK: llvm.inline_asm has_side_effects "{ .reg .pred p; setp.ne.b32 p, $130, 0; wgmma.mma_async.sync.aligned.m64n128k32.s32.s8.s8 {$0, {{.*}}, $63}, $128, $129, p; }", "=r,
// CHECK: nvvm.wgmma.mma_async
#wg = #tilegpu.mma<{warpsPerCTA = [4, 1], warpgroup = true}>
module attributes {tilegpu.num_warps = 4 : i64} {
func.func @bf16(%c: !tile.ptr<f32>, %s: i32, %use: i1) {
  %a = tilegpu.local_alloc : memref<2x64x64xbf16, 3>
  %b = tilegpu.local_alloc : memref<2x64x128xbf16, 3>
  %acc = arith.constant dense<1.0> : tensor<64x128xf32, #wg>
  tilegpu.fence_async_shared
  %d = tilegpu.warpgroup_dot %a[%s], %b[%s], %acc use_acc %use : memref<2x64x64xbf16, 3>, memref<2x64x128xbf16, 3>, tensor<64x128xf32, #wg>
  %p = tile.splat %c : !tile.ptr<f32> -> tensor<64x128x!tile.ptr<f32>, #wg>
  tile.store %p, %d : tensor<64x128x!tile.ptr<f32>, #wg>, tensor<64x128xf32, #wg>
  return
}
func.func @fp8(%c: !tile.ptr<f32>, %s: i32, %use: i1) {
  %a = tilegpu.local_alloc : memref<2x64x64xf8E4M3FN, 3>
  %b = tilegpu.local_alloc : memref<1x64x128xf8E5M2, strided<[8192, 1, 64]>, 3>
  %acc = arith.constant dense<1.0> : tensor<64x128xf32, #wg>
  %d = tilegpu.warpgroup_dot %a[%s], %b[%s], %acc use_acc %use : memref<2x64x64xf8E4M3FN, 3>, memref<1x64x128xf8E5M2, strided<[8192, 1, 64]>, 3>, tensor<64x128xf32, #wg>
  %p = tile.splat %c : !tile.ptr<f32> -> tensor<64x128x!tile.ptr<f32>, #wg>
  tile.store %p, %d : tensor<64x128x!tile.ptr<f32>, #wg>, tensor<64x128xf32, #wg>
  return
}
func.func @int8(%c: !tile.ptr<i32>, %s: i32, %use: i1) {
  %a = tilegpu.local_alloc : memref<2x64x64xi8, 3>
  %b = tilegpu.local_alloc : memref<1x64x128xi8, strided<[8192, 1, 64]>, 3>
  %acc = arith.constant dense<1> : tensor<64x128xi32, #wg>
  %d = tilegpu.warpgroup_dot %a[%s], %b[%s], %acc use_acc %use : memref<2x64x64xi8, 3>, memref<1x64x128xi8, strided<[8192, 1, 64]>, 3>, tensor<64x128xi32, #wg>
  %p = tile.splat %c : !tile.ptr<i32> -> tensor<64x128x!tile.ptr<i32>, #wg>
  tile.store %p, %d : tensor<64x128x!tile.ptr<i32>, #wg>, tensor<64x128xi32, #wg>
  return
}
}
