// RUN: kiln-opt %kiln_examples/matmul.mlir -tile-specialize-arguments="divisible=0,1,2,3,4,5" -tile-assign-layouts="compute-capability=90 arch-specific=1" -tile-pipeline-loops | FileCheck %s
// RUN: kiln-opt %kiln_examples/matmul.mlir -tile-specialize-arguments="divisible=0,1,2,3,4,5" -tile-assign-layouts="compute-capability=90 arch-specific=1" -tile-pipeline-loops=num-stages=1 2>&1 >/dev/null | FileCheck %s --check-prefix=UNPIPELINED

// docs/examples/matmul.mlir on sm_90a: the loop is pipelined as on sm_80,
// then the dot, whose accumulator is laid out for wgmma, reads both
// operands from this iteration's slots in place; the slots' copies are
// fenced into the async proxy before the barrier that publishes them. The
// dot's wgmma runs on (async) while a second barrier waits for every
// warp's previous one, after which the next copies start; the loop's
// result is waited for after it.
// CHECK: #[[$WG:.*]] = #tilegpu.mma<{warpsPerCTA = [4, 1], warpgroup = true}>
// CHECK-LABEL: func.func @matmul
// CHECK: %[[A:.*]] = tilegpu.local_alloc : memref<3x64x32xf16, 3>
// CHECK: %[[B:.*]] = tilegpu.local_alloc : memref<3x32x64xf16, 3>
// CHECK: scf.for {{.*}} iter_args(%[[ACC:[^ ]*]] = %{{.*}},
// CHECK:   %[[SLOT:.*]] = arith.remui
// CHECK:   tilegpu.async_wait 1
// CHECK-NEXT: tilegpu.fence_async_shared
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: tilegpu.local_load
// CHECK-NOT: tilegpu.async_copy
// CHECK:   %[[D:.*]] = tilegpu.warpgroup_dot %[[A]][%[[SLOT]]], %[[B]][%[[SLOT]]], %[[ACC]] {async} : memref<3x64x32xf16, 3>, memref<3x32x64xf16, 3>, tensor<64x64xf32, #[[$WG]]>
// CHECK-NEXT: gpu.barrier
// CHECK:   tilegpu.async_commit_group
// CHECK-NEXT: scf.yield %[[D]],
// CHECK-NEXT: }
// CHECK-NEXT: tilegpu.warpgroup_wait
// CHECK-NEXT: tilegpu.async_wait 0

// Without a pipeline there are no slots to read: the dot stays on mma.sync,
// in the same accumulator layout, and says so.
// UNPIPELINED: remark: on mma.sync, not wgmma: wgmma reads B from a slot of a pipelined loop, and it was not pipelined
