// RUN: sed 's/^  }$/  } {tile.warp_specialize = true}/' %kiln_examples/matmul_tma.mlir | kiln-opt -tile-specialize-arguments="divisible=0,1,2,3,4,5" -tile-assign-layouts="num-warps=8 compute-capability=90 arch-specific=1" -tile-pipeline-loops="tensor-maps=1 warp-specialize=1 shared-memory-limit=232448" -tile-tma-stores -kiln-convert-tile-to-gpu="shared-memory-limit=232448" | FileCheck %s

// docs/examples/matmul_tma.mlir with its loop marked for warp
// specialization, on the GPU. The kernel has a producer warpgroup past its
// 8 warps: 384 threads, each with at most 168 registers at launch. The
// whole block meets after initializing the mbarriers ("empty" for 256
// arrivals); then threads 256 and up give registers back (40), issue the
// copies (thread 256 alone arrives and copies) and exit; the consumers
// take 232 registers, arrive on a slot's empty mbarrier after reading it,
// and meet at barrier 1 of their 256 threads, never at the block's.
// CHECK: gpu.func @matmul_tma({{.*}}) kernel attributes {known_block_size = array<i32: 384, 1, 1>, nvvm.maxnreg = 168 : i32
// CHECK: nvvm.mbarrier.init %{{.*}}, %c1_i32, predicate
// CHECK: gpu.barrier
// CHECK: nvvm.mbarrier.init %{{.*}}, %c256_i32, predicate
// CHECK: gpu.barrier
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[C256:.*]] = arith.constant 256 : index
// CHECK: %[[PRODUCER:.*]] = arith.cmpi uge, %[[TID]], %[[C256]] : index
// CHECK: scf.if %[[PRODUCER]] {
// CHECK-NEXT: nvvm.setmaxregister decrease 40
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: %[[PTID:.*]] = gpu.thread_id x
// CHECK: %[[ISSUER:.*]] = arith.cmpi eq, %[[PTID]], %{{c256.*}} : index
// CHECK: %[[PRED:.*]] = arith.andi %{{.*}}, %[[ISSUER]] : i1
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %{{.*}}, predicate = %[[PRED]]
// CHECK-COUNT-3: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.exit
// CHECK-NEXT: }
// CHECK-NEXT: nvvm.setmaxregister increase 232
// CHECK-NOT: gpu.barrier
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.wgmma.mma_async
// CHECK: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// CHECK-NOT: gpu.barrier
// CHECK: nvvm.barrier id = %c1_i32{{[_0-9]*}} number_of_threads = %c256_i32
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK-NOT: gpu.barrier
