// RUN: kiln-opt %kiln_examples/matmul.mlir -tile-specialize-arguments="divisible=0,1,2,3,4,5" | kiln-translate --chip=sm_80 | FileCheck %s --check-prefixes=CHECK,ALIGNED
// RUN: kiln-translate %kiln_examples/matmul.mlir --chip=sm_80 | FileCheck %s --check-prefixes=CHECK,UNALIGNED
// RUN: kiln-opt %kiln_examples/matmul.mlir -tile-specialize-arguments="divisible=0,1,2,3,4,5" | kiln-translate --chip=sm_90a | FileCheck %s --check-prefixes=CHECK,WGMMA
// RUN: kiln-translate %kiln_examples/matmul.mlir --chip=sm_90a 2>&1 >/dev/null | FileCheck %s --check-prefix=FALLBACK
// RUN: %if ptxas %{ kiln-opt %kiln_examples/matmul.mlir -tile-specialize-arguments="divisible=0,1,2,3,4,5" | kiln-translate --chip=sm_80 | %ptxas -arch=sm_80 -v 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: %if ptxas %{ kiln-opt %kiln_examples/matmul.mlir -tile-specialize-arguments="divisible=0,1,2,3,4,5" | kiln-translate --chip=sm_90a | %ptxas -arch=sm_90a -v 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: %if ptxas %{ kiln-translate %kiln_examples/matmul.mlir --chip=sm_90a 2>/dev/null | %ptxas -arch=sm_90a %}

// RUN: %if ptxas && cuobjdump %{ kiln-opt %kiln_examples/matmul.mlir -tile-specialize-arguments="divisible=0,1,2,3,4,5" | kiln-translate --chip=sm_80 --emit=cubin -o %t.sm80.cubin && %cuobjdump -sass %t.sm80.cubin | FileCheck %s --check-prefixes=SASS,SASS-PIPELINED %}
// RUN: %if ptxas && cuobjdump %{ kiln-translate %kiln_examples/matmul.mlir --chip=sm_80 --emit=cubin -o %t.sm80u.cubin && %cuobjdump -sass %t.sm80u.cubin | FileCheck %s --check-prefix=SASS %}
// RUN: %if ptxas && cuobjdump %{ kiln-opt %kiln_examples/matmul.mlir -tile-specialize-arguments="divisible=0,1,2,3,4,5" | kiln-translate --chip=sm_90a --emit=cubin -o %t.sm90a.cubin && %cuobjdump -sass %t.sm90a.cubin | FileCheck %s --check-prefix=SASS-WGMMA %}

// docs/examples/matmul.mlir on tensor cores: four warps as 2x2, each with a
// 32x32 share of the 64x64 block. Every K step has its 64x32 and 32x64
// fp16 blocks in swizzled shared memory, reads A's fragments with ldmatrix
// and B's with ldmatrix.trans, four 8x8 matrices at a time, and issues
// 2 (M) x 4 (N) x 2 (K) mma.sync.
// CHECK-LABEL: .entry matmul(
// With aligned arguments (kiln-run's and @kiln.jit's specialization) the
// operands are copied 16 bytes at a time by cp.async, three stages deep:
// the prologue starts the copies of the first two K steps, and every
// iteration waits for its own (at most one group left in flight), meets
// the others at a barrier, starts the copy two steps ahead, reads its slot
// with ldmatrix and multiplies. The accumulator leaves the mma layout
// through the shared memory the stages are done with (the array holds
// the 3 x 8 KiB of stages and the 256 bytes the index conversions before
// the loop take, not another 16 KiB): each thread writes its pairs of
// columns, reads back four consecutive columns and stores them 16 bytes
// at a time, coalesced.
// ALIGNED: .shared .align 1024 .b8 __kiln_shared[24832];
// ALIGNED-COUNT-4: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, {{.*}};
// ALIGNED: cp.async.commit_group;
// ALIGNED-COUNT-4: cp.async.cg.shared.global
// ALIGNED: cp.async.commit_group;
// ALIGNED: cp.async.wait_group 1;
// ALIGNED-NEXT: bar.sync
// ALIGNED-COUNT-4: cp.async.cg.shared.global
// ALIGNED: cp.async.commit_group;
// ALIGNED-NOT: bar.sync
// ALIGNED-COUNT-4: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// ALIGNED-COUNT-4: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// ALIGNED-COUNT-16: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// ALIGNED-NOT: mma.sync
// ALIGNED: cp.async.wait_group 0;
// ALIGNED: bar.sync
// ALIGNED-COUNT-16: st.shared.v2.b32
// ALIGNED: bar.sync
// ALIGNED-COUNT-8: ld.shared.v4.b32
// ALIGNED-NOT: st.global.v2
// ALIGNED: st.global.v4.b32
// ALIGNED-NOT: st.global.v2

// Without alignment facts the loads are element by element, which cp.async
// cannot copy: the loop stays as written (with a remark) and each K step
// stages A and B through the shared array with plain stores.
// UNALIGNED: .shared .align 16 .b8 __kiln_shared[4096];
// UNALIGNED: ld.global.b16
// UNALIGNED: bar.sync
// UNALIGNED: st.shared.b16
// UNALIGNED: bar.sync
// UNALIGNED-COUNT-4: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// UNALIGNED: bar.sync
// UNALIGNED: st.shared.b16
// UNALIGNED: bar.sync
// UNALIGNED-COUNT-4: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// UNALIGNED-COUNT-16: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// UNALIGNED-NOT: mma.sync
// UNALIGNED-NOT: cp.async
// PTXAS: 0 bytes spill stores, 0 bytes spill loads

// On sm_90a the four warps are one warpgroup along M and the same
// pipeline feeds wgmma: each iteration waits for its slot's copies, fences
// them into the async proxy and meets the others at the barrier, then
// multiplies its 64x64 block straight from the swizzled slots (A K-major,
// B N-major: the last operand, tnsp-b, is 1), one m64n64k16 per K step,
// and leaves them running: it waits only for the previous iteration's
// products, and once every warp has (the second barrier) starts the
// copies two steps ahead into the slots those read. After the loop, the
// last products are waited for.
// WGMMA: .shared .align 1024 .b8 __kiln_shared[{{[0-9]+}}];
// WGMMA: cp.async.wait_group 1;
// WGMMA-NEXT: fence.proxy.async.shared::cta;
// WGMMA-NEXT: bar.sync
// WGMMA-NOT: cp.async.cg.shared.global
// WGMMA: wgmma.fence.sync.aligned;
// WGMMA-NOT: ldmatrix
// WGMMA: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{[{].*[}]}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 1;
// WGMMA: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, p, 1, 1, 0, 1;
// WGMMA-NOT: wgmma.mma_async
// WGMMA: wgmma.commit_group.sync.aligned;
// WGMMA: wgmma.wait_group.sync.aligned 1;
// WGMMA: bar.sync
// WGMMA-COUNT-4: cp.async.cg.shared.global
// WGMMA: cp.async.commit_group;
// WGMMA: wgmma.wait_group.sync.aligned 0;
// WGMMA-NOT: mma.sync
// WGMMA: cp.async.wait_group 0;

// Not pipelined (no alignment facts), its operands are in registers, and
// the dot runs on mma.sync in the same accumulator layout, with remarks.
// FALLBACK: remark: not pipelined
// FALLBACK: remark: on mma.sync, not wgmma: wgmma reads B from a slot of a pipelined loop, and it was not pipelined

// The same in the machine code: 16 HMMA per K step, 8 LDSM; pipelined,
// the copies are LDGSTS bypassing L1.
// SASS-PIPELINED: LDGSTS.E.BYPASS.128
// SASS-PIPELINED: DEPBAR.LE SB0
// SASS-DAG: LDSM.16.M88.4
// SASS-DAG: LDSM.16.MT88.4
// SASS-COUNT-16: HMMA.16816.F32
// SASS-NOT: HMMA

// sm_90a: two HGMMA per K step reading B transposed, the proxy fence, and
// the warpgroup's arrive and wait.
// SASS-WGMMA: LDGSTS.E.BYPASS.128
// SASS-WGMMA: FENCE.VIEW.ASYNC.S
// SASS-WGMMA: WARPGROUP.ARRIVE
// SASS-WGMMA: HGMMA.64x64x16.F32 R{{[0-9]+}}, gdesc[UR{{[0-9]+}}].tnspB
// SASS-WGMMA: HGMMA.64x64x16.F32 R{{[0-9]+}}, gdesc[UR{{[0-9]+}}].tnspB, R{{[0-9]+}}, gsb0
// SASS-WGMMA: WARPGROUP.DEPBAR.LE gsb0, 0x0
// SASS-WGMMA-NOT: HMMA
