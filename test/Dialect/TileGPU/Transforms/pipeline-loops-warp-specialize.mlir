// RUN: kiln-opt %s -split-input-file -tile-assign-layouts="num-warps=8 compute-capability=90 arch-specific=1" -tile-pipeline-loops="tensor-maps=1 warp-specialize=1 shared-memory-limit=232448" -verify-diagnostics | FileCheck %s
// RUN: kiln-opt %s -split-input-file -tile-assign-layouts="num-warps=8 compute-capability=90 arch-specific=1" -tile-pipeline-loops="tensor-maps=1 shared-memory-limit=232448" 2>&1 | FileCheck %s --check-prefix=NO-SETMAXNREG
// RUN: kiln-opt %s -split-input-file -tile-assign-layouts="num-warps=4 compute-capability=90 arch-specific=1" -tile-pipeline-loops="tensor-maps=1 warp-specialize=1 shared-memory-limit=232448" 2>/dev/null | FileCheck %s --check-prefix=ONE-WARPGROUP

// A loop marked for warp specialization whose loads TMA copies: the slots
// and both mbarrier rings come first, initialized by the whole block
// ("empty" for the 256 consumer threads' arrivals); a producer warpgroup
// computes the blocks' origins and the loop's bounds again and issues each
// iteration's copies once the consumers have emptied its slot (parity
// flipped: a fresh mbarrier's first use does not wait), running `stages`
// iterations past the end that only wait. The loop itself waits for its
// slot's copies, runs wgmma on the slots and empties the slot right after
// the dot, before what follows it; it has no block barrier.
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: %[[A:[^:]*]]: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %[[B:[^:]*]]: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %[[C:[^:]*]]: !tile.ptr<f32>, %[[N:[^:]*]]: i64 {tile.divisibility = 16 : i64}, %[[STEPS:[^:]*]]: i32, %[[AMAP:[^:]*]]: !tile.ptr<i8, 0>, %[[BMAP:[^:]*]]: !tile.ptr<i8, 0>)
// CHECK-NEXT: %[[ABUF:.*]] = tilegpu.local_alloc : memref<3x128x64xf16, 3>
// CHECK-NEXT: %[[BBUF:.*]] = tilegpu.local_alloc : memref<3x64x128xf16, 3>
// CHECK-NEXT: %[[FULL:.*]] = tilegpu.local_alloc : memref<3xi64, 3>
// CHECK-NEXT: %[[EMPTY:.*]] = tilegpu.local_alloc : memref<3xi64, 3>
// CHECK-NEXT: tilegpu.init_barriers %[[FULL]] : memref<3xi64, 3>
// CHECK-NEXT: tilegpu.init_barriers %[[EMPTY]] {count = 256 : i32}
// CHECK-NEXT: tilegpu.warp_specialize attributes {consumerRegisters = 232 : i32, producerRegisters = 40 : i32, producerWarps = 4 : i32} {
// CHECK:   %[[PID:.*]] = tile.program_id x
// CHECK:   %[[A0:.*]] = tile.make_block_ptr %[[A]]
// CHECK:   %[[B0:.*]] = tile.make_block_ptr %[[B]]
// CHECK:   %[[PAST:.*]] = arith.addi %[[STEPS]], %{{.*}} : i32
// CHECK:   scf.for %[[J:.*]] = %{{.*}} to %[[PAST]] step %{{.*}} iter_args(%[[BP:[^ ]*]] = %[[B0]], %[[AP:[^ ]*]] = %[[A0]])
// CHECK:     %[[SLOT:.*]] = arith.remui
// CHECK:     %[[PARITY:.*]] = arith.remui
// CHECK:     %[[FLIPPED:.*]] = arith.xori %[[PARITY]], %{{.*}} : i32
// CHECK:     tilegpu.barrier_wait %[[EMPTY]][%[[SLOT]]], %[[FLIPPED]]
// CHECK:     %[[VALID:.*]] = arith.cmpi slt, %[[J]], %[[STEPS]]
// CHECK:     tilegpu.barrier_expect %[[FULL]][%[[SLOT]]], 32768 if %[[VALID]]
// CHECK:     tilegpu.tensor_map_copy %[[AMAP]], %[[AP]] into %[[ABUF]][%[[SLOT]]], %[[FULL]] if %[[VALID]]
// CHECK:     tilegpu.tensor_map_copy %[[BMAP]], %[[BP]] into %[[BBUF]][%[[SLOT]]], %[[FULL]] if %[[VALID]]
// CHECK:   }
// CHECK-NEXT: }
// CHECK: scf.for %{{.*}} iter_args(%[[ACC:[^ ]*]] = %{{.*}}, %{{[^ ]*}} = %{{.*}}, %{{[^ ]*}} = %{{.*}})
// CHECK-NOT: gpu.barrier
// CHECK:   %[[CSLOT:.*]] = arith.remui
// CHECK:   %[[CPARITY:.*]] = arith.remui
// CHECK:   tilegpu.barrier_wait %[[FULL]][%[[CSLOT]]], %[[CPARITY]]
// CHECK-NOT: tile.block_load
// CHECK:   %[[D:.*]] = tilegpu.warpgroup_dot %[[ABUF]][%[[CSLOT]]], %[[BBUF]][%[[CSLOT]]], %[[ACC]]
// CHECK-NEXT: tilegpu.barrier_arrive %[[EMPTY]][%[[CSLOT]]]
// CHECK-NEXT: math.exp
// CHECK-NOT: gpu.barrier
// CHECK: scf.yield

// One consumer warpgroup takes all the registers setmaxnreg gives: more
// than its 248 at launch, which it may not go below.
// ONE-WARPGROUP-LABEL: func.func @matmul
// ONE-WARPGROUP: tilegpu.init_barriers %{{.*}} {count = 128 : i32}
// ONE-WARPGROUP: tilegpu.warp_specialize attributes {consumerRegisters = 256 : i32, producerRegisters = 40 : i32, producerWarps = 4 : i32}

// Before sm_90a the mark is declined, and the loop pipelined in software.
// NO-SETMAXNREG: remark: not warp-specialized: the target has no setmaxnreg (sm_90a)
// NO-SETMAXNREG-NOT: tilegpu.warp_specialize
func.func @matmul(%a: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %b: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %c: !tile.ptr<f32>, %n: i64 {tile.divisibility = 16 : i64}, %steps: i32) -> tensor<128x128xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %one = arith.constant 1 : i64
  %pid = tile.program_id x
  %m0 = arith.muli %pid, %c128 : i32
  %ap0 = tile.make_block_ptr %a, [%n, %n], [%n, %one], [%m0, %c0] {order = array<i32: 1, 0>} : !tile.ptr<f16> -> !tile.block_ptr<128x64xf16>
  %bp0 = tile.make_block_ptr %b, [%n, %n], [%n, %one], [%c0, %c0] {order = array<i32: 1, 0>} : !tile.ptr<f16> -> !tile.block_ptr<64x128xf16>
  %zero = arith.constant 0.0 : f32
  %acc0 = tile.splat %zero : f32 -> tensor<128x128xf32>
  %acc, %ap, %bp = scf.for %i = %c0 to %steps step %c1 iter_args(%acc_i = %acc0, %ap_i = %ap0, %bp_i = %bp0) -> (tensor<128x128xf32>, !tile.block_ptr<128x64xf16>, !tile.block_ptr<64x128xf16>) : i32 {
    %x = tile.block_load %ap_i boundary_check = [0, 1] : !tile.block_ptr<128x64xf16> -> tensor<128x64xf16>
    %y = tile.block_load %bp_i boundary_check = [0, 1] : !tile.block_ptr<64x128xf16> -> tensor<64x128xf16>
    %d = tile.dot %x, %y, %acc_i : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
    %e = math.exp %d : tensor<128x128xf32>
    %ap_n = tile.advance %ap_i, [%c0, %c64] : !tile.block_ptr<128x64xf16>
    %bp_n = tile.advance %bp_i, [%c64, %c0] : !tile.block_ptr<64x128xf16>
    scf.yield %e, %ap_n, %bp_n : tensor<128x128xf32>, !tile.block_ptr<128x64xf16>, !tile.block_ptr<64x128xf16>
  } {tile.warp_specialize = true}
  return %acc : tensor<128x128xf32>
}

// -----

// A K loop (its dot only accumulates): the consumers leave each wgmma
// running, and the dot's wait, for the previous iteration's wgmma, empties
// that iteration's slot; after the loop, the last wgmma is waited for and
// the last slot emptied, which the producer's last waits count on.
// CHECK-LABEL: func.func @k_loop
// CHECK: tilegpu.init_barriers %[[EMPTY:.*]] {count = 256 : i32}
// CHECK: tilegpu.warp_specialize
// CHECK: %[[LOOP:.*]]:3 = scf.for %{{.*}} = %[[LOWER:.*]] to %[[STEPS:.*]] step %[[STEP:[^ ]*]] iter_args
// CHECK:   %[[INDEX:.*]] = arith.divui
// CHECK:   %[[D:.*]] = tilegpu.warpgroup_dot %{{.*}} {async}
// CHECK:   %[[FIRST:.*]] = arith.cmpi ugt, %[[INDEX]], %{{.*}} : i32
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK:     %[[PREVIOUS:.*]] = arith.remui
// CHECK-NEXT: tilegpu.barrier_arrive %[[EMPTY]][%[[PREVIOUS]]]
// CHECK:   scf.yield %[[D]],
// CHECK: %[[DONE:.*]] = tilegpu.warpgroup_wait %[[LOOP]]#0
// CHECK: %[[SPAN:.*]] = arith.subi %[[STEPS]], %[[LOWER]] : i32
// CHECK: %[[RAN:.*]] = arith.cmpi sgt, %[[SPAN]], %{{.*}} : i32
// CHECK: scf.if %[[RAN]] {
// CHECK:   %[[LAST:.*]] = arith.remui
// CHECK-NEXT: tilegpu.barrier_arrive %[[EMPTY]][%[[LAST]]]
// CHECK: return %[[DONE]]
func.func @k_loop(%a: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %b: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %n: i64 {tile.divisibility = 16 : i64}, %steps: i32) -> tensor<128x128xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %one = arith.constant 1 : i64
  %ap0 = tile.make_block_ptr %a, [%n, %n], [%n, %one], [%c0, %c0] {order = array<i32: 1, 0>} : !tile.ptr<f16> -> !tile.block_ptr<128x64xf16>
  %bp0 = tile.make_block_ptr %b, [%n, %n], [%n, %one], [%c0, %c0] {order = array<i32: 1, 0>} : !tile.ptr<f16> -> !tile.block_ptr<64x128xf16>
  %zero = arith.constant 0.0 : f32
  %acc0 = tile.splat %zero : f32 -> tensor<128x128xf32>
  %acc, %ap, %bp = scf.for %i = %c0 to %steps step %c1 iter_args(%acc_i = %acc0, %ap_i = %ap0, %bp_i = %bp0) -> (tensor<128x128xf32>, !tile.block_ptr<128x64xf16>, !tile.block_ptr<64x128xf16>) : i32 {
    %x = tile.block_load %ap_i boundary_check = [0, 1] : !tile.block_ptr<128x64xf16> -> tensor<128x64xf16>
    %y = tile.block_load %bp_i boundary_check = [0, 1] : !tile.block_ptr<64x128xf16> -> tensor<64x128xf16>
    %d = tile.dot %x, %y, %acc_i : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
    %ap_n = tile.advance %ap_i, [%c0, %c64] : !tile.block_ptr<128x64xf16>
    %bp_n = tile.advance %bp_i, [%c64, %c0] : !tile.block_ptr<64x128xf16>
    scf.yield %d, %ap_n, %bp_n : tensor<128x128xf32>, !tile.block_ptr<128x64xf16>, !tile.block_ptr<64x128xf16>
  } {tile.warp_specialize = true}
  return %acc : tensor<128x128xf32>
}

// -----

// A loop in `scf.if`s (a flattened loop and its fallback): the producer
// runs its copies under the same conditions, computed again, negated
// where the loop is in an `else`.
// CHECK-LABEL: func.func @under_ifs
// CHECK: tilegpu.warp_specialize
// CHECK:   %[[COND:.*]] = arith.cmpi sgt
// CHECK:   %[[NOT:.*]] = arith.xori %[[COND]], %{{.*}} : i1
// CHECK:   scf.if %[[NOT]] {
// CHECK:     scf.for
// CHECK:       tilegpu.tensor_map_copy
// CHECK: scf.if
// CHECK: } else {
// CHECK:   scf.for
// CHECK:     tilegpu.barrier_wait
// CHECK:     tilegpu.warpgroup_dot
// CHECK:     tilegpu.barrier_arrive
func.func @under_ifs(%a: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %b: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %n: i64 {tile.divisibility = 16 : i64}, %steps: i32) -> tensor<128x128xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %one = arith.constant 1 : i64
  %ap0 = tile.make_block_ptr %a, [%n, %n], [%n, %one], [%c0, %c0] {order = array<i32: 1, 0>} : !tile.ptr<f16> -> !tile.block_ptr<128x64xf16>
  %bp0 = tile.make_block_ptr %b, [%n, %n], [%n, %one], [%c0, %c0] {order = array<i32: 1, 0>} : !tile.ptr<f16> -> !tile.block_ptr<64x128xf16>
  %zero = arith.constant 0.0 : f32
  %acc0 = tile.splat %zero : f32 -> tensor<128x128xf32>
  %few = arith.cmpi sgt, %steps, %c64 : i32
  %r = scf.if %few -> tensor<128x128xf32> {
    scf.yield %acc0 : tensor<128x128xf32>
  } else {
    %acc, %ap, %bp = scf.for %i = %c0 to %steps step %c1 iter_args(%acc_i = %acc0, %ap_i = %ap0, %bp_i = %bp0) -> (tensor<128x128xf32>, !tile.block_ptr<128x64xf16>, !tile.block_ptr<64x128xf16>) : i32 {
      %x = tile.block_load %ap_i boundary_check = [0, 1] : !tile.block_ptr<128x64xf16> -> tensor<128x64xf16>
      %y = tile.block_load %bp_i boundary_check = [0, 1] : !tile.block_ptr<64x128xf16> -> tensor<64x128xf16>
      %d = tile.dot %x, %y, %acc_i : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
      %ap_n = tile.advance %ap_i, [%c0, %c64] : !tile.block_ptr<128x64xf16>
      %bp_n = tile.advance %bp_i, [%c64, %c0] : !tile.block_ptr<64x128xf16>
      scf.yield %d, %ap_n, %bp_n : tensor<128x128xf32>, !tile.block_ptr<128x64xf16>, !tile.block_ptr<64x128xf16>
    } {tile.warp_specialize = true}
    scf.yield %acc : tensor<128x128xf32>
  }
  return %r : tensor<128x128xf32>
}

// -----

// What the producer would compute again must be free of effects: here the
// number of steps is loaded.
func.func @loaded_bound(%a: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %b: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %n: i64 {tile.divisibility = 16 : i64}, %steps_ptr: !tile.ptr<i32>) -> tensor<128x128xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %one = arith.constant 1 : i64
  %steps = tile.load %steps_ptr : !tile.ptr<i32> -> i32
  %ap0 = tile.make_block_ptr %a, [%n, %n], [%n, %one], [%c0, %c0] {order = array<i32: 1, 0>} : !tile.ptr<f16> -> !tile.block_ptr<128x64xf16>
  %bp0 = tile.make_block_ptr %b, [%n, %n], [%n, %one], [%c0, %c0] {order = array<i32: 1, 0>} : !tile.ptr<f16> -> !tile.block_ptr<64x128xf16>
  %zero = arith.constant 0.0 : f32
  %acc0 = tile.splat %zero : f32 -> tensor<128x128xf32>
  // expected-remark @+1 {{not warp-specialized: what its copies need comes from 'tile.load', which the producer warps cannot compute again}}
  %acc, %ap, %bp = scf.for %i = %c0 to %steps step %c1 iter_args(%acc_i = %acc0, %ap_i = %ap0, %bp_i = %bp0) -> (tensor<128x128xf32>, !tile.block_ptr<128x64xf16>, !tile.block_ptr<64x128xf16>) : i32 {
    %x = tile.block_load %ap_i boundary_check = [0, 1] : !tile.block_ptr<128x64xf16> -> tensor<128x64xf16>
    %y = tile.block_load %bp_i boundary_check = [0, 1] : !tile.block_ptr<64x128xf16> -> tensor<64x128xf16>
    %d = tile.dot %x, %y, %acc_i : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
    %ap_n = tile.advance %ap_i, [%c0, %c64] : !tile.block_ptr<128x64xf16>
    %bp_n = tile.advance %bp_i, [%c64, %c0] : !tile.block_ptr<64x128xf16>
    scf.yield %d, %ap_n, %bp_n : tensor<128x128xf32>, !tile.block_ptr<128x64xf16>, !tile.block_ptr<64x128xf16>
  } {tile.warp_specialize = true}
  return %acc : tensor<128x128xf32>
}

// -----

// A loop nested in another loop (a persistent kernel not flattened).
func.func @nested(%a: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %b: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %n: i64 {tile.divisibility = 16 : i64}, %steps: i32, %tiles: i32) -> tensor<128x128xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %one = arith.constant 1 : i64
  %zero = arith.constant 0.0 : f32
  %acc0 = tile.splat %zero : f32 -> tensor<128x128xf32>
  %out = scf.for %t = %c0 to %tiles step %c1 iter_args(%sum = %acc0) -> (tensor<128x128xf32>) : i32 {
    %ap0 = tile.make_block_ptr %a, [%n, %n], [%n, %one], [%c0, %c0] {order = array<i32: 1, 0>} : !tile.ptr<f16> -> !tile.block_ptr<128x64xf16>
    %bp0 = tile.make_block_ptr %b, [%n, %n], [%n, %one], [%c0, %c0] {order = array<i32: 1, 0>} : !tile.ptr<f16> -> !tile.block_ptr<64x128xf16>
    // expected-remark @+1 {{not warp-specialized: it is in another loop or region, not only in scf.if's}}
    %acc, %ap, %bp = scf.for %i = %c0 to %steps step %c1 iter_args(%acc_i = %sum, %ap_i = %ap0, %bp_i = %bp0) -> (tensor<128x128xf32>, !tile.block_ptr<128x64xf16>, !tile.block_ptr<64x128xf16>) : i32 {
      %x = tile.block_load %ap_i boundary_check = [0, 1] : !tile.block_ptr<128x64xf16> -> tensor<128x64xf16>
      %y = tile.block_load %bp_i boundary_check = [0, 1] : !tile.block_ptr<64x128xf16> -> tensor<64x128xf16>
      %d = tile.dot %x, %y, %acc_i : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
      %ap_n = tile.advance %ap_i, [%c0, %c64] : !tile.block_ptr<128x64xf16>
      %bp_n = tile.advance %bp_i, [%c64, %c0] : !tile.block_ptr<64x128xf16>
      scf.yield %d, %ap_n, %bp_n : tensor<128x128xf32>, !tile.block_ptr<128x64xf16>, !tile.block_ptr<64x128xf16>
    } {tile.warp_specialize = true}
    scf.yield %acc : tensor<128x128xf32>
  }
  return %out : tensor<128x128xf32>
}

// -----

// The producer warps are launched with every kernel of the module.
func.func @first(%a: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %b: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %n: i64 {tile.divisibility = 16 : i64}, %steps: i32) -> tensor<128x128xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %one = arith.constant 1 : i64
  %ap0 = tile.make_block_ptr %a, [%n, %n], [%n, %one], [%c0, %c0] {order = array<i32: 1, 0>} : !tile.ptr<f16> -> !tile.block_ptr<128x64xf16>
  %bp0 = tile.make_block_ptr %b, [%n, %n], [%n, %one], [%c0, %c0] {order = array<i32: 1, 0>} : !tile.ptr<f16> -> !tile.block_ptr<64x128xf16>
  %zero = arith.constant 0.0 : f32
  %acc0 = tile.splat %zero : f32 -> tensor<128x128xf32>
  // expected-remark @+1 {{not warp-specialized: its kernel is not its module's only function, and the producer warps would be launched with every kernel}}
  %acc, %ap, %bp = scf.for %i = %c0 to %steps step %c1 iter_args(%acc_i = %acc0, %ap_i = %ap0, %bp_i = %bp0) -> (tensor<128x128xf32>, !tile.block_ptr<128x64xf16>, !tile.block_ptr<64x128xf16>) : i32 {
    %x = tile.block_load %ap_i boundary_check = [0, 1] : !tile.block_ptr<128x64xf16> -> tensor<128x64xf16>
    %y = tile.block_load %bp_i boundary_check = [0, 1] : !tile.block_ptr<64x128xf16> -> tensor<64x128xf16>
    %d = tile.dot %x, %y, %acc_i : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
    %ap_n = tile.advance %ap_i, [%c0, %c64] : !tile.block_ptr<128x64xf16>
    %bp_n = tile.advance %bp_i, [%c64, %c0] : !tile.block_ptr<64x128xf16>
    scf.yield %d, %ap_n, %bp_n : tensor<128x128xf32>, !tile.block_ptr<128x64xf16>, !tile.block_ptr<64x128xf16>
  } {tile.warp_specialize = true}
  return %acc : tensor<128x128xf32>
}

func.func @second() {
  return
}

// -----

// Loads that cp.async copies are not the producer's.
func.func @pointer_loads(%a: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %b: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %steps: i32) -> tensor<64x64xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant 0.0 : f32
  %acc0 = tile.splat %zero : f32 -> tensor<64x64xf32>
  %rows = tile.range 0 to 64 : tensor<64xi32>
  %r = tile.expand_dims %rows axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %cols = tile.expand_dims %rows axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %r64 = arith.constant dense<64> : tensor<64x1xi32>
  %rs = arith.muli %r, %r64 : tensor<64x1xi32>
  %rb = tile.broadcast %rs : tensor<64x1xi32> -> tensor<64x64xi32>
  %cb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<64x64xi32>
  %offs = arith.addi %rb, %cb : tensor<64x64xi32>
  %abase = tile.splat %a : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %bbase = tile.splat %b : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %ap = tile.addptr %abase, %offs : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
  %bp = tile.addptr %bbase, %offs : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
  // expected-remark @+1 {{not warp-specialized: a load it pipelines is not copied by TMA}}
  %acc = scf.for %i = %c0 to %steps step %c1 iter_args(%acc_i = %acc0) -> (tensor<64x64xf32>) : i32 {
    %x = tile.load %ap : tensor<64x64x!tile.ptr<f16>> -> tensor<64x64xf16>
    %y = tile.load %bp : tensor<64x64x!tile.ptr<f16>> -> tensor<64x64xf16>
    // expected-remark @+1 {{on mma.sync, not wgmma: M = 64 is not a multiple of 128: each of the 2 warpgroups takes 64-row blocks}}
    %d = tile.dot %x, %y, %acc_i : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  } {tile.warp_specialize = true}
  return %acc : tensor<64x64xf32>
}

// -----

// A loop with no dot is not pipelined at all.
func.func @no_dot(%x: !tile.ptr<f32>, %steps: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // expected-remark @+1 {{not warp-specialized: no load there feeds a dot operand}}
  scf.for %i = %c0 to %steps step %c1 : i32 {
    %v = tile.load %x : !tile.ptr<f32> -> f32
    tile.store %x, %v : !tile.ptr<f32>, f32
  } {tile.warp_specialize = true}
  return
}
