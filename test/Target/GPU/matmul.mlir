// RUN: kiln-opt %kiln_examples/matmul.mlir -tile-specialize-arguments="divisible=0,1,2,3,4,5" | kiln-translate --chip=sm_80 | FileCheck %s --check-prefixes=CHECK,ALIGNED
// RUN: kiln-translate %kiln_examples/matmul.mlir --chip=sm_90a | FileCheck %s --check-prefixes=CHECK,UNALIGNED
// RUN: %if ptxas %{ kiln-opt %kiln_examples/matmul.mlir -tile-specialize-arguments="divisible=0,1,2,3,4,5" | kiln-translate --chip=sm_80 | %ptxas -arch=sm_80 -v 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: %if ptxas %{ kiln-translate %kiln_examples/matmul.mlir --chip=sm_90a | %ptxas -arch=sm_90a %}

// RUN: %if ptxas && cuobjdump %{ kiln-translate %kiln_examples/matmul.mlir --chip=sm_80 --emit=cubin -o %t.sm80.cubin && %cuobjdump -sass %t.sm80.cubin | FileCheck %s --check-prefix=SASS %}
// RUN: %if ptxas && cuobjdump %{ kiln-translate %kiln_examples/matmul.mlir --chip=sm_90a --emit=cubin -o %t.sm90a.cubin && %cuobjdump -sass %t.sm90a.cubin | FileCheck %s --check-prefix=SASS %}

// docs/examples/matmul.mlir on tensor cores: four warps as 2x2, each with a
// 32x32 share of the 64x64 block. Every K step stages the 64x32 and 32x64
// fp16 blocks in one 4 KiB shared array (reused), reads A's fragments with
// ldmatrix and B's with ldmatrix.trans, four 8x8 matrices at a time, and
// issues 2 (M) x 4 (N) x 2 (K) mma.sync.
// CHECK-LABEL: .entry matmul(
// CHECK: .shared .align 16 .b8 __kiln_shared[4096];
// With aligned arguments (kiln-run's and @kiln.jit's specialization) the
// loads are 16 bytes wide: the pointers advance by a multiple of 16 bytes
// and the K mask is constant over runs of 16, so are the shared stores;
// the accumulator is stored from the mma layout, two columns at a time.
// ALIGNED-COUNT-2: ld.global.v4.b32
// UNALIGNED: ld.global.b16
// CHECK: bar.sync
// ALIGNED: st.shared.v4.b32
// UNALIGNED: st.shared.b16
// CHECK: bar.sync
// CHECK-COUNT-4: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: bar.sync
// ALIGNED: st.shared.v4.b32
// UNALIGNED: st.shared.b16
// CHECK: bar.sync
// CHECK-COUNT-4: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK-COUNT-16: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-NOT: mma.sync
// ALIGNED: st.global.v2.b32
// PTXAS: 0 bytes spill stores, 0 bytes spill loads

// The same in the machine code: 16 HMMA per K step, 8 LDSM.
// SASS-COUNT-4: LDSM.16.M88.4
// SASS-COUNT-4: LDSM.16.MT88.4
// SASS-COUNT-16: HMMA.16816.F32
// SASS-NOT: HMMA
