// RUN: kiln-opt %kiln_examples/matmul_tma.mlir -tile-specialize-arguments="divisible=0,1,2,3,4,5" -tile-assign-layouts="num-warps=8 compute-capability=90 arch-specific=1" -tile-pipeline-loops="tensor-maps=1 shared-memory-limit=232448" | FileCheck %s
// RUN: kiln-opt %kiln_examples/matmul_tma.mlir -tile-specialize-arguments="divisible=0,1,2,3,4,5" -tile-assign-layouts="num-warps=8 compute-capability=90 arch-specific=1" -tile-pipeline-loops="shared-memory-limit=232448" 2>&1 | FileCheck %s --check-prefix=NO-TMA
// RUN: kiln-opt %s -split-input-file -tile-assign-layouts="compute-capability=90 arch-specific=1" -tile-pipeline-loops="tensor-maps=1" -verify-diagnostics
// RUN: kiln-opt %s -split-input-file -tile-assign-layouts="compute-capability=90 arch-specific=1" -tile-pipeline-loops="tensor-maps=1" 2>/dev/null | FileCheck %s --check-prefix=SHARED

// docs/examples/matmul_tma.mlir on sm_90: both block loads are copied by
// TMA. The kernel gets one tensor-map parameter per block shape, listed
// with what each launch builds it from (A: %a, M rows, K columns, rows K
// apart; B: %b, K rows, N columns, rows N apart; B's 128 columns are two
// 64-column slabs of the 128-byte swizzle). One mbarrier per slot: thread
// 0 arrives expecting a stage's 32 KiB, then copies; the iteration reading
// slot j % 3 waits for phase (j / 3) % 2 of its mbarrier.
// CHECK-LABEL: func.func @matmul_tma(
// CHECK-SAME: %[[A:[^:]*]]: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %[[B:[^:]*]]: !tile.ptr<f16>
// CHECK-SAME: %[[AMAP:[^:]*]]: !tile.ptr<i8, 0>, %[[BMAP:[^:]*]]: !tile.ptr<i8, 0>)
// CHECK-SAME: tilegpu.tensor_maps = [#tilegpu.tensor_map<argument = 6, elementType = f16, box = [128, 64], swizzle = 128, sources = [0, 3, 5, 5], values = [8, 4, 4, 4]>, #tilegpu.tensor_map<argument = 7, elementType = f16, box = [64, 64], swizzle = 128, sources = [1, 5, 4, 4], values = [8, 4, 4, 4]>]
// CHECK: %[[ABUF:.*]] = tilegpu.local_alloc : memref<3x128x64xf16, 3>
// CHECK: %[[BBUF:.*]] = tilegpu.local_alloc : memref<3x64x128xf16, 3>
// CHECK: %[[BARS:.*]] = tilegpu.local_alloc : memref<3xi64, 3>
// CHECK-NEXT: tilegpu.init_barriers %[[BARS]]
// CHECK-COUNT-2: tilegpu.barrier_expect %[[BARS]][%{{.*}}], 32768 if
// CHECK: scf.for %[[IV:.*]] = {{.*}} iter_args(%[[ACC:[^ ]*]] = %{{.*}}, %[[AP:[^ ]*]] = %{{.*}}, %[[BP:[^ ]*]] = %{{.*}})
// CHECK:   %[[INDEX:.*]] = arith.divui
// CHECK:   %[[SLOT:.*]] = arith.remui %[[INDEX]]
// CHECK:   %[[NEXT:.*]] = arith.remui
// No cp.async to wait for, nor to fence for wgmma: TMA writes through the
// async proxy that wgmma reads. The loop's one dot, a K loop's, leaves its
// wgmma running (async): the iteration waits for its slot's phase, issues
// the dot, and, past a barrier (every warp has waited for the previous
// iteration's wgmma), starts the copies into the slot that one read. The
// loop's result is waited for after it.
// CHECK-NOT: tilegpu.async_wait
// CHECK-NOT: tilegpu.fence_async_shared
// CHECK-NOT: gpu.barrier
// CHECK:   %[[USE:.*]] = arith.divui %[[INDEX]], %{{.*}}
// CHECK:   %[[PHASE:.*]] = arith.remui %[[USE]]
// CHECK:   tilegpu.barrier_wait %[[BARS]][%[[SLOT]]], %[[PHASE]]
// CHECK:   %[[D:.*]] = tilegpu.warpgroup_dot %[[ABUF]][%[[SLOT]]], %[[BBUF]][%[[SLOT]]], %[[ACC]] {async}
// CHECK:   gpu.barrier
// CHECK:   tilegpu.barrier_expect %[[BARS]][%[[NEXT]]], 32768 if %[[VALID:.*]] :
// CHECK:   tilegpu.tensor_map_copy %[[AMAP]], %[[AP]] into %[[ABUF]][%[[NEXT]]], %[[BARS]] if %[[VALID]]
// CHECK:   tilegpu.tensor_map_copy %[[BMAP]], %[[BP]] into %[[BBUF]][%[[NEXT]]], %[[BARS]] if %[[VALID]]
// CHECK:   scf.yield %[[D]],
// CHECK: %[[DONE:.*]] = tilegpu.warpgroup_wait %[[LOOP:.*]]#0
// CHECK-NOT: tile.block_load
// CHECK-NOT: tilegpu.async_wait

// Without the option (before sm_90) the block loads stay as they are.
// NO-TMA-NOT: tilegpu.tensor_maps
// NO-TMA: remark: not pipelined: no load there feeds a dot operand
// NO-TMA-NOT: tilegpu.tensor_map_copy

// -----

// What TMA cannot copy stays a block load, and the remark says why.
func.func @unaligned_base(%a: !tile.ptr<f16>, %b: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %n: i64 {tile.divisibility = 16 : i64}, %steps: i32) -> tensor<64x64xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %one = arith.constant 1 : i64
  %ap0 = tile.make_block_ptr %a, [%n, %n], [%n, %one], [%c0, %c0] {order = array<i32: 1, 0>} : !tile.ptr<f16> -> !tile.block_ptr<64x32xf16>
  %bp0 = tile.make_block_ptr %b, [%n, %n], [%n, %one], [%c0, %c0] {order = array<i32: 1, 0>} : !tile.ptr<f16> -> !tile.block_ptr<32x64xf16>
  %zero = arith.constant 0.0 : f32
  %acc0 = tile.splat %zero : f32 -> tensor<64x64xf32>
  %acc, %ap, %bp = scf.for %i = %c0 to %steps step %c1 iter_args(%acc_i = %acc0, %ap_i = %ap0, %bp_i = %bp0) -> (tensor<64x64xf32>, !tile.block_ptr<64x32xf16>, !tile.block_ptr<32x64xf16>) : i32 {
    // expected-remark @+1 {{not copied by TMA: the base is not known to be 16-byte aligned (give it tile.divisibility = 16)}}
    %x = tile.block_load %ap_i boundary_check = [0, 1] : !tile.block_ptr<64x32xf16> -> tensor<64x32xf16>
    %y = tile.block_load %bp_i boundary_check = [0, 1] : !tile.block_ptr<32x64xf16> -> tensor<32x64xf16>
    %d = tile.dot %x, %y, %acc_i : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    %ap_n = tile.advance %ap_i, [%c0, %c32] : !tile.block_ptr<64x32xf16>
    %bp_n = tile.advance %bp_i, [%c32, %c0] : !tile.block_ptr<32x64xf16>
    scf.yield %d, %ap_n, %bp_n : tensor<64x64xf32>, !tile.block_ptr<64x32xf16>, !tile.block_ptr<32x64xf16>
  }
  return %acc : tensor<64x64xf32>
}

// -----

func.func @column_major_nan_and_computed(%a: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %b: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %n: i64 {tile.divisibility = 16 : i64}, %steps: i32) -> tensor<64x64xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %one = arith.constant 1 : i64
  %two = arith.constant 2 : i64
  %n2 = arith.muli %n, %two : i64
  %ap0 = tile.make_block_ptr %a, [%n, %n], [%one, %n], [%c0, %c0] {order = array<i32: 0, 1>} : !tile.ptr<f16> -> !tile.block_ptr<64x32xf16>
  %bp0 = tile.make_block_ptr %b, [%n, %n], [%n2, %one], [%c0, %c0] {order = array<i32: 1, 0>} : !tile.ptr<f16> -> !tile.block_ptr<32x64xf16>
  %cp0 = tile.make_block_ptr %b, [%n, %n], [%n, %one], [%c0, %c0] {order = array<i32: 1, 0>} : !tile.ptr<f16> -> !tile.block_ptr<32x64xf16>
  %zero = arith.constant 0.0 : f32
  %acc0 = tile.splat %zero : f32 -> tensor<64x64xf32>
  // expected-remark @+1 {{not pipelined: its block loads are not copied by TMA (their remarks say why)}}
  %acc, %ap, %bp = scf.for %i = %c0 to %steps step %c1 iter_args(%acc_i = %acc0, %ap_i = %ap0, %bp_i = %bp0) -> (tensor<64x64xf32>, !tile.block_ptr<64x32xf16>, !tile.block_ptr<32x64xf16>) : i32 {
    // expected-remark @+1 {{not copied by TMA: the tensor is not row-major (order [1, 0])}}
    %x = tile.block_load %ap_i boundary_check = [0, 1] : !tile.block_ptr<64x32xf16> -> tensor<64x32xf16>
    // expected-remark @+1 {{not copied by TMA: its base, shape and row stride are not kernel arguments or constants}}
    %y = tile.block_load %bp_i boundary_check = [0, 1] : !tile.block_ptr<32x64xf16> -> tensor<32x64xf16>
    // expected-remark @+1 {{not copied by TMA: TMA pads with zeros, not NaN}}
    %z = tile.block_load %cp0 boundary_check = [0, 1] padding = nan : !tile.block_ptr<32x64xf16> -> tensor<32x64xf16>
    // expected-remark @+1 {{on mma.sync, not wgmma}}
    %d1 = tile.dot %x, %y, %acc_i : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    // expected-remark @+1 {{on mma.sync, not wgmma}}
    %d = tile.dot %x, %z, %d1 : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    %ap_n = tile.advance %ap_i, [%c0, %c32] : !tile.block_ptr<64x32xf16>
    %bp_n = tile.advance %bp_i, [%c32, %c0] : !tile.block_ptr<32x64xf16>
    scf.yield %d, %ap_n, %bp_n : tensor<64x64xf32>, !tile.block_ptr<64x32xf16>, !tile.block_ptr<32x64xf16>
  }
  return %acc : tensor<64x64xf32>
}

// -----

// Two block loads of the same tensor with the same block share one map.
// SHARED-LABEL: func.func @one_map_for_two_loads(
// SHARED-SAME: %[[MAP:[^:]*]]: !tile.ptr<i8, 0>)
// SHARED-SAME: tilegpu.tensor_maps = [#tilegpu.tensor_map<argument = 3,
// SHARED-NOT: #tilegpu.tensor_map<argument = 4
// SHARED: scf.for
// SHARED-COUNT-2: tilegpu.tensor_map_copy %[[MAP]],
func.func @one_map_for_two_loads(%a: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %n: i64 {tile.divisibility = 16 : i64}, %steps: i32) -> tensor<64x64xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %one = arith.constant 1 : i64
  %xp0 = tile.make_block_ptr %a, [%n, %n], [%n, %one], [%c0, %c0] {order = array<i32: 1, 0>} : !tile.ptr<f16> -> !tile.block_ptr<64x64xf16>
  %yp0 = tile.make_block_ptr %a, [%n, %n], [%n, %one], [%c64, %c0] {order = array<i32: 1, 0>} : !tile.ptr<f16> -> !tile.block_ptr<64x64xf16>
  %zero = arith.constant 0.0 : f32
  %acc0 = tile.splat %zero : f32 -> tensor<64x64xf32>
  // Two stages (tile.num_stages) of 16 KiB fit the static shared memory.
  %acc, %xp, %yp = scf.for %i = %c0 to %steps step %c1 iter_args(%acc_i = %acc0, %xp_i = %xp0, %yp_i = %yp0) -> (tensor<64x64xf32>, !tile.block_ptr<64x64xf16>, !tile.block_ptr<64x64xf16>) : i32 {
    %x = tile.block_load %xp_i boundary_check = [0, 1] : !tile.block_ptr<64x64xf16> -> tensor<64x64xf16>
    %y = tile.block_load %yp_i boundary_check = [0, 1] : !tile.block_ptr<64x64xf16> -> tensor<64x64xf16>
    %d = tile.dot %x, %y, %acc_i : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    %xp_n = tile.advance %xp_i, [%c0, %c64] : !tile.block_ptr<64x64xf16>
    %yp_n = tile.advance %yp_i, [%c64, %c0] : !tile.block_ptr<64x64xf16>
    scf.yield %d, %xp_n, %yp_n : tensor<64x64xf32>, !tile.block_ptr<64x64xf16>, !tile.block_ptr<64x64xf16>
  } {tile.num_stages = 2 : i64}
  return %acc : tensor<64x64xf32>
}

// -----

// TMA reads zeros past the tensor's shape, where a load that does not
// check a dimension's bounds reads the memory there: such loads are not
// copied by TMA.
func.func @unchecked_loads(%a: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %n: i64 {tile.divisibility = 16 : i64}, %steps: i32) -> tensor<64x64xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %one = arith.constant 1 : i64
  %xp0 = tile.make_block_ptr %a, [%n, %n], [%n, %one], [%c0, %c0] {order = array<i32: 1, 0>} : !tile.ptr<f16> -> !tile.block_ptr<64x64xf16>
  %yp0 = tile.make_block_ptr %a, [%n, %n], [%n, %one], [%c64, %c0] {order = array<i32: 1, 0>} : !tile.ptr<f16> -> !tile.block_ptr<64x64xf16>
  %zero = arith.constant 0.0 : f32
  %acc0 = tile.splat %zero : f32 -> tensor<64x64xf32>
  // expected-remark @+1 {{not pipelined: its block loads are not copied by TMA (their remarks say why)}}
  %acc, %xp, %yp = scf.for %i = %c0 to %steps step %c1 iter_args(%acc_i = %acc0, %xp_i = %xp0, %yp_i = %yp0) -> (tensor<64x64xf32>, !tile.block_ptr<64x64xf16>, !tile.block_ptr<64x64xf16>) : i32 {
    // expected-remark @+1 {{not copied by TMA: it does not check the bounds of dimension 0, which TMA clips at the tensor's shape (boundary_check=(0, 1) would let it)}}
    %x = tile.block_load %xp_i : !tile.block_ptr<64x64xf16> -> tensor<64x64xf16>
    // expected-remark @+1 {{not copied by TMA: it does not check the bounds of dimension 1}}
    %y = tile.block_load %yp_i boundary_check = [0] : !tile.block_ptr<64x64xf16> -> tensor<64x64xf16>
    // expected-remark @+1 {{on mma.sync, not wgmma: wgmma reads B from a slot of a pipelined loop, and it was not pipelined}}
    %d = tile.dot %x, %y, %acc_i : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    %xp_n = tile.advance %xp_i, [%c0, %c64] : !tile.block_ptr<64x64xf16>
    %yp_n = tile.advance %yp_i, [%c64, %c0] : !tile.block_ptr<64x64xf16>
    scf.yield %d, %xp_n, %yp_n : tensor<64x64xf32>, !tile.block_ptr<64x64xf16>, !tile.block_ptr<64x64xf16>
  }
  return %acc : tensor<64x64xf32>
}
