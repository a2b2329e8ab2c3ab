// RUN: kiln-opt %s -split-input-file -kiln-convert-tile-to-gpu=shared-memory-limit=232448 | FileCheck %s
// RUN: not kiln-opt %s -split-input-file -kiln-convert-tile-to-gpu 2>&1 | FileCheck %s --check-prefix=LIMIT
// RUN: kiln-opt %s -split-input-file -kiln-convert-tile-to-gpu=shared-memory-limit=232448 | FileCheck %s --check-prefix=REGISTERS

// A 128x128x64 bf16 warpgroup dot with eight warps: each of the two
// warpgroups (warp / 4) takes the 64 rows from 64 * warpgroup, one
// m64n128k16 per K step. Its descriptors: A (128 x 64, rows of 128 bytes,
// 128-byte swizzle) starts at row * 128 + 2 * k0 with LBO 16384 (a slab),
// SBO 1024 (8 rows) and mode 1: the constant bits 1024 << 16 | 64 << 32 |
// 1 << 62; B (64 x 128: two 64-column slabs of 8 KiB) starts at k0 * 128
// with LBO 8192: 512 << 16 | 64 << 32 | 1 << 62. The wait hands the 64
// accumulator registers back through tied operands.
// The two 32 KiB buffers are more than the static 48 KiB: the shared array
// is dynamic (a zero-length external array, `.extern .shared` in PTX), and
// the module says how much each launch gives. Where a block may have only
// 48 KiB (the pass's default), that is an error naming both sizes.
// CHECK: gpu.module @kiln attributes {kiln.dynamic_shared_bytes = 65536 : i64
// CHECK: llvm.mlir.global external @__kiln_shared() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK-LABEL: gpu.func @wgmma_slots(
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: %[[WARPGROUP:.*]] = arith.divui %{{.*}}, %c4_i32
// CHECK: %[[ROW:.*]] = arith.muli %[[WARPGROUP]], %c64_i32
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: arith.constant 4611686293338849280 : i64
// CHECK: arith.muli %{{.*}}, %c128_i32
// CHECK: arith.constant 4611686293372403712 : i64
// CHECK: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %{{.*}}, <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>] : !llvm.struct<(f32,
// CHECK: %[[K1:.*]] = arith.constant 2048 : i32
// CHECK: llvm.getelementptr %{{.*}}[%[[K1]]]
// CHECK-COUNT-3: nvvm.wgmma.mma_async
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;", "=f,{{(=f,)+}}0,1,2,{{.*}},62,63"
// LIMIT: error: target nvptx: the kernels need 65536 bytes of shared memory and a block may have 49152 (fewer pipeline stages or smaller blocks need less)
#wg = #tilegpu.mma<{warpsPerCTA = [8, 1], warpgroup = true}>
module attributes {tilegpu.num_warps = 8 : i64} {
func.func @wgmma_slots(%c: !tile.ptr<f32>, %s: i32) {
  %a = tilegpu.local_alloc : memref<2x128x64xbf16, 3>
  %b = tilegpu.local_alloc : memref<2x64x128xbf16, 3>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32, #wg>
  tilegpu.fence_async_shared
  %d = tilegpu.warpgroup_dot %a[%s], %b[%s], %zero : memref<2x128x64xbf16, 3>, memref<2x64x128xbf16, 3>, tensor<128x128xf32, #wg>
  %p = tile.splat %c : !tile.ptr<f32> -> tensor<128x128x!tile.ptr<f32>, #wg>
  tile.store %p, %d : tensor<128x128x!tile.ptr<f32>, #wg>, tensor<128x128xf32, #wg>
  return
}
}

// -----

// A in registers (a cast before the product): each warp's fragment of a
// K step, four 32-bit words, goes to wgmma beside B's descriptor, in PTX
// written here (upstream's op takes A only from shared memory); the
// operands after the 64 accumulators and their 64 tied inputs.
// CHECK-LABEL: gpu.func @wgmma_registers(
// REGISTERS-LABEL: gpu.func @wgmma_registers(
// REGISTERS: nvvm.wgmma.fence.aligned
// REGISTERS-COUNT-4: llvm.inline_asm has_side_effects "{ .reg .pred p; setp.ne.b32 p, 1, 0; wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {$0, {{.*}}, $63}, {$128, $129, $130, $131}, $132, p, 1, 1, 1; }"
// REGISTERS-NOT: nvvm.wgmma.mma_async
// REGISTERS: nvvm.wgmma.commit.group.sync.aligned
#wg = #tilegpu.mma<{warpsPerCTA = [8, 1], warpgroup = true}>
#dot = #tilegpu.dot_operand<{opIdx = 0, parent = #wg, kWidth = 2}>
module attributes {tilegpu.num_warps = 8 : i64} {
func.func @wgmma_registers(%c: !tile.ptr<f32>, %s: i32) {
  %b = tilegpu.local_alloc : memref<1x64x128xbf16, 3>
  %x = arith.constant dense<1.0> : tensor<128x64xbf16, #dot>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32, #wg>
  %d = tilegpu.warpgroup_dot %x, %b[%s], %zero : tensor<128x64xbf16, #dot>, memref<1x64x128xbf16, 3>, tensor<128x128xf32, #wg>
  %p = tile.splat %c : !tile.ptr<f32> -> tensor<128x128x!tile.ptr<f32>, #wg>
  tile.store %p, %d : tensor<128x128x!tile.ptr<f32>, #wg>, tensor<128x128xf32, #wg>
  return
}
}

// -----

// i8 operands into i32: m64nNk32 (32 bytes of K per instruction), A from
// its slot (row: K-major) and B from a transposed slot (col: K-major too,
// as wgmma requires of 8-bit types), signed; the wait ties the i32
// accumulators as general registers.
// CHECK-LABEL: gpu.func @wgmma_int8(
// CHECK: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %{{.*}}, <m = 64, n = 128, k = 32>, D[<s32>, <one>], A[<s8>, <one>, <row>], B[<s8>, <one>, <col>] : !llvm.struct<(i32,
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 32>
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;", "=r,{{(=r,)+}}0,1,2,{{.*}},62,63"
#wg = #tilegpu.mma<{warpsPerCTA = [4, 1], warpgroup = true}>
module attributes {tilegpu.num_warps = 4 : i64} {
func.func @wgmma_int8(%c: !tile.ptr<i32>, %s: i32) {
  %a = tilegpu.local_alloc : memref<2x64x64xi8, 3>
  %b = tilegpu.local_alloc : memref<1x64x128xi8, strided<[8192, 1, 64]>, 3>
  %zero = arith.constant dense<0> : tensor<64x128xi32, #wg>
  %d = tilegpu.warpgroup_dot %a[%s], %b[%s], %zero : memref<2x64x64xi8, 3>, memref<1x64x128xi8, strided<[8192, 1, 64]>, 3>, tensor<64x128xi32, #wg>
  %p = tile.splat %c : !tile.ptr<i32> -> tensor<64x128x!tile.ptr<i32>, #wg>
  tile.store %p, %d : tensor<64x128x!tile.ptr<i32>, #wg>, tensor<64x128xi32, #wg>
  return
}
}

// -----

// 8-bit floats into f32: m64nNk32, each operand's own format (e4m3 A,
// e5m2 B), both K-major.
// CHECK-LABEL: gpu.func @wgmma_fp8(
// CHECK: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %{{.*}}, <m = 64, n = 128, k = 32>, D[<f32>, <one>], A[<e4m3>, <one>, <row>], B[<e5m2>, <one>, <col>] : !llvm.struct<(f32,
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 32>
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;", "=f,{{(=f,)+}}0,1,2,{{.*}},62,63"
#wg = #tilegpu.mma<{warpsPerCTA = [4, 1], warpgroup = true}>
module attributes {tilegpu.num_warps = 4 : i64} {
func.func @wgmma_fp8(%c: !tile.ptr<f32>, %s: i32) {
  %a = tilegpu.local_alloc : memref<2x64x64xf8E4M3FN, 3>
  %b = tilegpu.local_alloc : memref<1x64x128xf8E5M2, strided<[8192, 1, 64]>, 3>
  %zero = arith.constant dense<0.0> : tensor<64x128xf32, #wg>
  %d = tilegpu.warpgroup_dot %a[%s], %b[%s], %zero : memref<2x64x64xf8E4M3FN, 3>, memref<1x64x128xf8E5M2, strided<[8192, 1, 64]>, 3>, tensor<64x128xf32, #wg>
  %p = tile.splat %c : !tile.ptr<f32> -> tensor<64x128x!tile.ptr<f32>, #wg>
  tile.store %p, %d : tensor<64x128x!tile.ptr<f32>, #wg>, tensor<64x128xf32, #wg>
  return
}
}
