// RUN: kiln-opt %s -split-input-file | kiln-opt -split-input-file | FileCheck %s
// RUN: kiln-opt %s -split-input-file -canonicalize | FileCheck %s --check-prefix=FOLD

#a = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#b = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

// CHECK-LABEL: func.func @convert
// CHECK: tilegpu.convert_layout %{{.*}} : tensor<512xf32, #blocked> -> tensor<512xf32, #blocked1>
// A conversion back and forth folds away; one to the same layout too.
// FOLD-LABEL: func.func @convert
// FOLD-SAME: (%[[X:.*]]: tensor<512xf32, #blocked>)
// FOLD-NEXT: return %[[X]], %[[X]]
func.func @convert(%x: tensor<512xf32, #a>) -> (tensor<512xf32, #a>, tensor<512xf32, #a>) {
  %y = tilegpu.convert_layout %x : tensor<512xf32, #a> -> tensor<512xf32, #b>
  %z = tilegpu.convert_layout %y : tensor<512xf32, #b> -> tensor<512xf32, #a>
  %w = tilegpu.convert_layout %x : tensor<512xf32, #a> -> tensor<512xf32, #a>
  return %z, %w : tensor<512xf32, #a>, tensor<512xf32, #a>
}

// -----

// The software pipeline's ops: a kernel-long buffer of three slots, copies
// into a slot (masked or not), their groups, and a slot read as a dot
// operand.
// CHECK-LABEL: func.func @pipeline_ops
// CHECK: %[[BUF:.*]] = tilegpu.local_alloc : memref<3x64x32xf16, 3>
// CHECK: tilegpu.async_copy %{{.*}} mask %{{.*}} into %[[BUF]][%{{.*}}] : memref<3x64x32xf16, 3>, tensor<64x32x!tile.ptr<f16>, #blocked>, tensor<64x32xi1, #blocked>
// CHECK: tilegpu.async_copy %{{.*}} into %[[BUF]][%{{.*}}] : memref<3x64x32xf16, 3>, tensor<64x32x!tile.ptr<f16>, #blocked>
// CHECK: tilegpu.async_commit_group
// CHECK: tilegpu.async_wait 1
// CHECK: tilegpu.local_load %[[BUF]][%{{.*}}] : memref<3x64x32xf16, 3> -> tensor<64x32xf16, #dot_op>
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{warpsPerCTA = [2, 2]}>
func.func @pipeline_ops(%p: tensor<64x32x!tile.ptr<f16>, #blocked>, %m: tensor<64x32xi1, #blocked>, %s: i32) -> tensor<64x32xf16, #tilegpu.dot_operand<{opIdx = 0, parent = #mma, kWidth = 2}>> {
  %buf = tilegpu.local_alloc : memref<3x64x32xf16, 3>
  tilegpu.async_copy %p mask %m into %buf[%s] : memref<3x64x32xf16, 3>, tensor<64x32x!tile.ptr<f16>, #blocked>, tensor<64x32xi1, #blocked>
  tilegpu.async_copy %p into %buf[%s] : memref<3x64x32xf16, 3>, tensor<64x32x!tile.ptr<f16>, #blocked>
  tilegpu.async_commit_group
  tilegpu.async_wait 1
  %a = tilegpu.local_load %buf[%s] : memref<3x64x32xf16, 3> -> tensor<64x32xf16, #tilegpu.dot_operand<{opIdx = 0, parent = #mma, kWidth = 2}>>
  return %a : tensor<64x32xf16, #tilegpu.dot_operand<{opIdx = 0, parent = #mma, kWidth = 2}>>
}

// -----

// A K-major B is staged column by column: element (k, n) of a slot at
// k + 32 n.
// CHECK-LABEL: func.func @transposed_slots
// CHECK: tilegpu.local_alloc : memref<3x32x64xf16, strided<[2048, 1, 32]>, 3>
// CHECK: tilegpu.local_load %{{.*}}[%{{.*}}] : memref<3x32x64xf16, strided<[2048, 1, 32]>, 3> -> tensor<32x64xf16, #blocked>
#blocked = #tilegpu.blocked<{sizePerThread = [8, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
func.func @transposed_slots(%p: tensor<32x64x!tile.ptr<f16>, #blocked>, %s: i32) -> tensor<32x64xf16, #blocked> {
  %buf = tilegpu.local_alloc : memref<3x32x64xf16, strided<[2048, 1, 32]>, 3>
  tilegpu.async_copy %p into %buf[%s] : memref<3x32x64xf16, strided<[2048, 1, 32]>, 3>, tensor<32x64x!tile.ptr<f16>, #blocked>
  %b = tilegpu.local_load %buf[%s] : memref<3x32x64xf16, strided<[2048, 1, 32]>, 3> -> tensor<32x64xf16, #blocked>
  return %b : tensor<32x64xf16, #blocked>
}

// -----

// A view of the same slots transposed, both ways: row-major 32 x 64 slots
// are column-major 64 x 32 ones, and back.
// CHECK-LABEL: func.func @transpose_slots
// CHECK: %[[T:.*]] = tilegpu.transpose_slots %{{.*}} : memref<3x32x64xf16, 3> -> memref<3x64x32xf16, strided<[2048, 1, 64]>, 3>
// CHECK: tilegpu.transpose_slots %[[T]] : memref<3x64x32xf16, strided<[2048, 1, 64]>, 3> -> memref<3x32x64xf16, 3>
func.func @transpose_slots() -> memref<3x32x64xf16, 3> {
  %buf = tilegpu.local_alloc : memref<3x32x64xf16, 3>
  %t = tilegpu.transpose_slots %buf : memref<3x32x64xf16, 3> -> memref<3x64x32xf16, strided<[2048, 1, 64]>, 3>
  %back = tilegpu.transpose_slots %t : memref<3x64x32xf16, strided<[2048, 1, 64]>, 3> -> memref<3x32x64xf16, 3>
  return %back : memref<3x32x64xf16, 3>
}

// -----

// wgmma's ops: the proxy fence, and a dot reading both operands from slots
// into a warpgroup accumulator (printed with `warpgroup = true`).
// CHECK: #[[$WG:.*]] = #tilegpu.mma<{warpsPerCTA = [8, 1], warpgroup = true}>
// CHECK-LABEL: func.func @warpgroup_ops
// CHECK: tilegpu.fence_async_shared
// CHECK: %[[D:.*]] = tilegpu.warpgroup_dot %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}], %{{.*}} : memref<3x128x64xbf16, 3>, memref<3x64x128xbf16, 3>, tensor<128x128xf32, #[[$WG]]>
// CHECK: tilegpu.warpgroup_dot %{{.*}}, %{{.*}}[%{{.*}}], %[[D]] : tensor<128x64xbf16, #{{.*}}>, memref<3x64x128xbf16, 3>, tensor<128x128xf32, #[[$WG]]>
#wg = #tilegpu.mma<{warpsPerCTA = [8, 1], warpgroup = true}>
func.func @warpgroup_ops(%acc: tensor<128x128xf32, #wg>, %x: tensor<128x64xbf16, #tilegpu.dot_operand<{opIdx = 0, parent = #wg, kWidth = 2}>>, %s: i32) -> tensor<128x128xf32, #wg> {
  %a = tilegpu.local_alloc : memref<3x128x64xbf16, 3>
  %b = tilegpu.local_alloc : memref<3x64x128xbf16, 3>
  tilegpu.fence_async_shared
  %d = tilegpu.warpgroup_dot %a[%s], %b[%s], %acc : memref<3x128x64xbf16, 3>, memref<3x64x128xbf16, 3>, tensor<128x128xf32, #wg>
  %e = tilegpu.warpgroup_dot %x, %b[%s], %d : tensor<128x64xbf16, #tilegpu.dot_operand<{opIdx = 0, parent = #wg, kWidth = 2}>>, memref<3x64x128xbf16, 3>, tensor<128x128xf32, #wg>
  return %e : tensor<128x128xf32, #wg>
}

// i8 operands accumulate in i32, B from a transposed (K-major) slot.
// CHECK-LABEL: func.func @warpgroup_int8
// CHECK: tilegpu.warpgroup_dot %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}], %{{.*}} : memref<2x64x64xi8, 3>, memref<1x64x128xi8, strided<[8192, 1, 64]>, 3>, tensor<64x128xi32, #{{.*}}>
#wg4 = #tilegpu.mma<{warpsPerCTA = [4, 1], warpgroup = true}>
func.func @warpgroup_int8(%acc: tensor<64x128xi32, #wg4>, %s: i32) -> tensor<64x128xi32, #wg4> {
  %a = tilegpu.local_alloc : memref<2x64x64xi8, 3>
  %b = tilegpu.local_alloc : memref<1x64x128xi8, strided<[8192, 1, 64]>, 3>
  %d = tilegpu.warpgroup_dot %a[%s], %b[%s], %acc : memref<2x64x64xi8, 3>, memref<1x64x128xi8, strided<[8192, 1, 64]>, 3>, tensor<64x128xi32, #wg4>
  return %d : tensor<64x128xi32, #wg4>
}

// -----

// The TMA ops of a pipelined loop, and a kernel's tensor maps.
// CHECK-LABEL: func.func @tensor_map_copies
// CHECK-SAME: tilegpu.tensor_maps = [#tilegpu.tensor_map<argument = 2, elementType = f16, box = [64, 64], swizzle = 128, sources = [0, 1, -1, 1], values = [8, 4, 256, 4]>]
// CHECK: %[[BARS:.*]] = tilegpu.local_alloc : memref<3xi64, 3>
// CHECK: tilegpu.init_barriers %[[BARS]] : memref<3xi64, 3>
// CHECK: tilegpu.barrier_expect %[[BARS]][%{{.*}}], 8192 if %{{.*}} : memref<3xi64, 3>
// CHECK: tilegpu.tensor_map_copy %{{.*}}, %{{.*}} into %{{.*}}[%{{.*}}], %[[BARS]] if %{{.*}} : !tile.ptr<i8, 0>, !tile.block_ptr<64x64xf16>, memref<3x64x64xf16, 3>, memref<3xi64, 3>
// CHECK: tilegpu.barrier_wait %[[BARS]][%{{.*}}], %{{.*}} : memref<3xi64, 3>
func.func @tensor_map_copies(%a: !tile.ptr<f16>, %rows: i32, %map: !tile.ptr<i8, 0>, %bp: !tile.block_ptr<64x64xf16>, %s: i32, %p: i1)
    attributes {tilegpu.tensor_maps = [#tilegpu.tensor_map<argument = 2, elementType = f16, box = [64, 64], swizzle = 128, sources = [0, 1, -1, 1], values = [8, 4, 256, 4]>]} {
  %buf = tilegpu.local_alloc : memref<3x64x64xf16, 3>
  %bars = tilegpu.local_alloc : memref<3xi64, 3>
  tilegpu.init_barriers %bars : memref<3xi64, 3>
  tilegpu.barrier_expect %bars[%s], 8192 if %p : memref<3xi64, 3>
  tilegpu.tensor_map_copy %map, %bp into %buf[%s], %bars if %p : !tile.ptr<i8, 0>, !tile.block_ptr<64x64xf16>, memref<3x64x64xf16, 3>, memref<3xi64, 3>
  tilegpu.barrier_wait %bars[%s], %s : memref<3xi64, 3>
  return
}

// A warp-specialized loop's ops: the producer's region (the function's
// arguments and shared buffers are all it uses from outside), the
// consumers' arrivals on an mbarrier counting their threads.
// CHECK-LABEL: func.func @warp_specialized
// CHECK: tilegpu.init_barriers %[[EMPTY:.*]] {count = 256 : i32} : memref<2xi64, 3>
// CHECK: tilegpu.warp_specialize attributes {consumerRegisters = 232 : i32, producerRegisters = 40 : i32, producerWarps = 4 : i32} {
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT: tilegpu.barrier_wait %[[EMPTY]][%[[ZERO]]], %[[ZERO]] : memref<2xi64, 3>
// CHECK-NEXT: tilegpu.tensor_map_copy
// CHECK-NEXT: }
// CHECK: tilegpu.barrier_arrive %[[EMPTY]][%{{.*}}] : memref<2xi64, 3>
func.func @warp_specialized(%map: !tile.ptr<i8, 0>, %bp: !tile.block_ptr<64x64xf16>, %s: i32, %p: i1) {
  %buf = tilegpu.local_alloc : memref<2x64x64xf16, 3>
  %full = tilegpu.local_alloc : memref<2xi64, 3>
  %empty = tilegpu.local_alloc : memref<2xi64, 3>
  tilegpu.init_barriers %empty {count = 256 : i32} : memref<2xi64, 3>
  tilegpu.warp_specialize attributes {producerWarps = 4 : i32, producerRegisters = 40 : i32, consumerRegisters = 232 : i32} {
    %zero = arith.constant 0 : i32
    tilegpu.barrier_wait %empty[%zero], %zero : memref<2xi64, 3>
    tilegpu.tensor_map_copy %map, %bp into %buf[%zero], %full if %p : !tile.ptr<i8, 0>, !tile.block_ptr<64x64xf16>, memref<2x64x64xf16, 3>, memref<2xi64, 3>
  }
  tilegpu.barrier_arrive %empty[%s] : memref<2xi64, 3>
  return
}

// CHECK-LABEL: func.func @tensor_map_store
// CHECK: tilegpu.tensor_map_store %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x64xf16>, !tile.ptr<i8, 0>, !tile.block_ptr<64x64xf16>
func.func @tensor_map_store(%v: tensor<64x64xf16>, %map: !tile.ptr<i8, 0>, %bp: !tile.block_ptr<64x64xf16>) {
  tilegpu.tensor_map_store %v, %map, %bp : tensor<64x64xf16>, !tile.ptr<i8, 0>, !tile.block_ptr<64x64xf16>
  return
}

// CHECK-LABEL: func.func @local_store
// CHECK: tilegpu.local_store %{{.*}}, %{{.*}}[%{{.*}}] : tensor<64x32xf16>, memref<1x64x32xf16, 3>
func.func @local_store(%v: tensor<64x32xf16>, %s: i32) {
  %buf = tilegpu.local_alloc : memref<1x64x32xf16, 3>
  tilegpu.local_store %v, %buf[%s] : tensor<64x32xf16>, memref<1x64x32xf16, 3>
  return
}
