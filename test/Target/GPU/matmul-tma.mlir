// RUN: kiln-opt %kiln_examples/matmul_tma.mlir -tile-specialize-arguments="divisible=0,1,2,3,4,5" | kiln-translate --chip=sm_90a --num-warps=8 | FileCheck %s
// RUN: %if ptxas %{ kiln-opt %kiln_examples/matmul_tma.mlir -tile-specialize-arguments="divisible=0,1,2,3,4,5" | kiln-translate --chip=sm_90a --num-warps=8 | %ptxas -arch=sm_90a -v 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: %if ptxas && cuobjdump %{ kiln-opt %kiln_examples/matmul_tma.mlir -tile-specialize-arguments="divisible=0,1,2,3,4,5" | kiln-translate --chip=sm_90a --num-warps=8 --emit=cubin -o %t.cubin && %cuobjdump -sass %t.cubin | FileCheck %s --check-prefix=SASS %}
// RUN: kiln-opt %kiln_examples/matmul_tma.mlir | kiln-translate --chip=sm_90a --num-warps=8 | FileCheck %s --check-prefix=UNALIGNED
// RUN: sed 's/^  }$/  } {tile.warp_specialize = true}/' %kiln_examples/matmul_tma.mlir | kiln-opt -tile-specialize-arguments="divisible=0,1,2,3,4,5" | kiln-translate --chip=sm_90a --num-warps=8 | FileCheck %s --check-prefix=WS
// RUN: %if ptxas %{ sed 's/^  }$/  } {tile.warp_specialize = true}/' %kiln_examples/matmul_tma.mlir | kiln-opt -tile-specialize-arguments="divisible=0,1,2,3,4,5" | kiln-translate --chip=sm_90a --num-warps=8 | %ptxas -arch=sm_90a -v 2>&1 | FileCheck %s --check-prefix=WS-PTXAS %}
// RUN: %if ptxas && cuobjdump %{ sed 's/^  }$/  } {tile.warp_specialize = true}/' %kiln_examples/matmul_tma.mlir | kiln-opt -tile-specialize-arguments="divisible=0,1,2,3,4,5" | kiln-translate --chip=sm_90a --num-warps=8 --emit=cubin -o %t.ws.cubin && %cuobjdump -sass %t.ws.cubin | FileCheck %s --check-prefix=WS-SASS %}

// docs/examples/matmul_tma.mlir on sm_90a with aligned arguments: A and B
// are copied by TMA through two tensor maps, 128-byte __grid_constant__
// parameters after the kernel's own; one thread initializes an mbarrier
// per slot, arrives expecting a stage's bytes and issues the copies (one
// per 64-column slab: one for A's 128x64 block, two for B's 64x128); every
// thread waits for the phase, and wgmma reads the slots in place. C's
// block store goes out through a third map: staged in the swizzled
// layout, fenced into the async proxy, one copy per 32-column slab of the
// 128x128 f32 block.
// CHECK: .param .u32 matmul_tma_param_5,
// CHECK-NEXT: .param .align 64 .b8 matmul_tma_param_6[128],
// CHECK-NEXT: .param .align 64 .b8 matmul_tma_param_7[128],
// CHECK-NEXT: .param .align 64 .b8 matmul_tma_param_8[128]
// CHECK: cvta.param.u64
// CHECK-COUNT-3: mbarrier.init.shared.b64
// CHECK: fence.mbarrier_init.release.cluster;
// CHECK: @%p[[FIRST:[0-9]+]] mbarrier.arrive.expect_tx.shared.b64 _, [%r{{[0-9]+}}], 32768;
// CHECK: @%p[[FIRST]] cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%rd{{[0-9]+}}], [%rd{{[0-9]+}}, {0,%r{{[0-9]+}}} ]
// CHECK: mbarrier.try_wait.parity.shared.b64
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// CHECK-NOT: cp.async.cg
// CHECK: fence.proxy.async.shared::cta;
// CHECK-NEXT: bar.sync 0;
// CHECK-COUNT-4: @%p{{[0-9]+}} cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}} ], [%r{{[0-9]+}}];
// CHECK: cp.async.bulk.commit_group;
// CHECK-NEXT: cp.async.bulk.wait_group.read 0;
// CHECK-NOT: st.global
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// SASS: SYNCS.EXCH.64
// SASS: SYNCS.ARRIVE.TRANS64
// SASS: UTMALDG.2D
// SASS: SYNCS.PHASECHK.TRANS64
// SASS: HGMMA.64x128x16.F32
// SASS-COUNT-4: UTMASTG.2D

// Without the alignment facts (pointers 16-byte aligned, row strides a
// multiple of 16 bytes) the launch could not build the maps: no TMA.
// UNALIGNED-NOT: .b8 matmul_tma_param_6[128]
// UNALIGNED-NOT: cp.async.bulk.tensor

// With the loop marked for warp specialization: 384 threads, 168
// registers each at launch. The block meets once the mbarriers are
// initialized; the producer warpgroup (threads 256 and up) gives
// registers back and issues the copies after waiting for a slot's empty
// phase, and exits; the consumers take 232 registers and meet at barrier
// 1 of their 256 threads only.
// WS: .maxntid 384, 1, 1
// WS-NEXT: .maxnreg 168
// WS: mbarrier.init.shared.b64 [%r{{[0-9]+}}], 256;
// WS: bar.sync 0;
// WS-NOT: bar.sync 0;
// WS: setmaxnreg.inc.sync.aligned.u32 232;
// WS: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// WS: mbarrier.arrive.shared.b64
// WS: bar.sync 1, 256;
// WS: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// WS: setmaxnreg.dec.sync.aligned.u32 40;
// WS: mbarrier.try_wait.parity.shared.b64
// WS: mbarrier.arrive.expect_tx.shared.b64
// WS: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// WS: exit;
// WS-NOT: bar.sync 0;
// WS-PTXAS: 0 bytes spill stores, 0 bytes spill loads
// WS-PTXAS: Used 168 registers
// WS-SASS-DAG: USETMAXREG.DEALLOC.CTAPOOL 0x28
// WS-SASS-DAG: USETMAXREG.TRY_ALLOC.CTAPOOL {{.*}}, 0xe8
// WS-SASS-DAG: BAR.SYNC.DEFER_BLOCKING 0x1, 0x100
// WS-SASS-DAG: HGMMA.64x128x16.F32
// WS-SASS-DAG: UTMALDG.2D
