// RUN: kiln-opt %kiln_examples/matmul_tma.mlir -tile-specialize-arguments="divisible=0,1,2,3,4,5" -tile-assign-layouts="num-warps=8 compute-capability=90 arch-specific=1" -tile-pipeline-loops="tensor-maps=1 shared-memory-limit=232448" -tile-tma-stores -kiln-convert-tile-to-gpu="shared-memory-limit=232448" | FileCheck %s
// RUN: kiln-opt %kiln_examples/matmul_tma.mlir -tile-specialize-arguments="divisible=0,1,2,3,4,5" -kiln-gpu-lowering="num-warps=8 compute-capability=90 arch-specific=1 shared-memory-limit=232448" | FileCheck %s --check-prefix=PARAMS

// The TMA ops on the GPU: thread 0 initializes the three mbarriers (one
// arrival each) and every thread meets after the fence; thread 0 arrives
// expecting a stage's bytes and copies at the block pointer's offsets
// (column first), one copy per 64-column slab of the slot; every thread
// waits on the phase.
// The array holds the 3 x 32 KiB of slots and the mbarriers: C's 64 KiB
// are staged in the slots' memory once the loop is done with it.
// CHECK: gpu.module @kiln attributes {kiln.dynamic_shared_bytes = 98336 : i64
// CHECK: gpu.func @matmul_tma({{.*}}, %[[AMAP:.*]]: !llvm.ptr, %[[BMAP:.*]]: !llvm.ptr, %[[CMAP:.*]]: !llvm.ptr) kernel attributes {{{.*}}tilegpu.tensor_maps = [
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[TID]],
// CHECK-COUNT-3: nvvm.mbarrier.init %{{.*}}, %{{.*}}, predicate = %[[FIRST]] : !llvm.ptr<3>, i32, i1
// CHECK-NEXT: nvvm.fence.mbarrier.init
// CHECK-NEXT: gpu.barrier
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %{{.*}}, predicate = %{{.*}} : !llvm.ptr<3>, i32, i1
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[AMAP]], %{{.*}}, box[%{{.*}}, %{{.*}}] predicate = %{{.*}} : !llvm.ptr<7>, !llvm.ptr
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[BMAP]],
// CHECK: nvvm.mbarrier.try_wait.parity
// C's store: every thread writes its pairs of accumulator columns into the
// swizzled tile and fences them into the async proxy; after the barrier,
// thread 0 copies the four 32-column slabs out at the block's offsets
// (column first) and waits until they have been read.
// CHECK: scf.yield
// CHECK: gpu.barrier
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: gpu.barrier
// CHECK: %[[TID0:.*]] = gpu.thread_id x
// CHECK: %[[ISSUER:.*]] = arith.cmpi eq, %{{.*}},
// CHECK-COUNT-4: nvvm.cp.async.bulk.tensor.global.shared.cta %[[CMAP]], %{{.*}}, box[%{{.*}}, %{{.*}}], predicate = %[[ISSUER]] : !llvm.ptr, <3>
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0 {read}

// After convert-gpu-to-nvvm the maps are __grid_constant__ by-value
// parameters.
// PARAMS: llvm.func @matmul_tma({{.*}}%arg6: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %arg7: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %arg8: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant})

