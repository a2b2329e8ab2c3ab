// RUN: kiln-opt %kiln_examples/matmul_large.mlir -tile-specialize-arguments="divisible=0,1,2,3,4,5" | kiln-translate --chip=sm_90a --num-warps=8 | FileCheck %s --check-prefix=WGMMA
// RUN: kiln-opt %kiln_examples/matmul_large.mlir -tile-specialize-arguments="divisible=0,1,2,3,4,5" | kiln-translate --chip=sm_80 --num-warps=8 | FileCheck %s --check-prefix=MMA
// RUN: %if ptxas %{ kiln-opt %kiln_examples/matmul_large.mlir -tile-specialize-arguments="divisible=0,1,2,3,4,5" | kiln-translate --chip=sm_90a --num-warps=8 | %ptxas -arch=sm_90a -v 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: %if ptxas && cuobjdump %{ kiln-opt %kiln_examples/matmul_large.mlir -tile-specialize-arguments="divisible=0,1,2,3,4,5" | kiln-translate --chip=sm_90a --num-warps=8 --emit=cubin -o %t.cubin && %cuobjdump -sass %t.cubin | FileCheck %s --check-prefix=SASS %}

// docs/examples/matmul_large.mlir: 128x128 blocks of C, K steps of 64,
// eight warps, three stages: the slots
// take 3 x (16 + 16) KiB, more than the static 48 KiB, so the shared array
// is dynamic (`.extern`, its size given by each launch; the binary records
// it). On sm_90a the two warpgroups each multiply a 64x128 half with one
// m64n128k16 per K step of 16: four per iteration, no spills.
// WGMMA: .extern .shared .align 1024 .b8 __kiln_shared[];
// WGMMA: cp.async.wait_group 1;
// WGMMA-NEXT: fence.proxy.async.shared::cta;
// WGMMA-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// WGMMA-NOT: wgmma.mma_async
// WGMMA: wgmma.wait_group.sync.aligned 0;
// WGMMA-NOT: mma.sync
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// SASS-COUNT-4: HGMMA.64x128x16.F32 R{{[0-9]+}}, gdesc[UR{{[0-9]+}}].tnspB
// SASS-NOT: HGMMA

// On sm_80 (163 KiB a block) the same slots feed mma.sync, also from
// dynamic shared memory.
// MMA: .extern .shared .align 1024 .b8 __kiln_shared[];
// MMA: cp.async.wait_group 1;
// MMA: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
