// RUN: kiln-opt %s -split-input-file -tile-assign-layouts="compute-capability=90 arch-specific=1" -tile-pipeline-loops | FileCheck %s
// RUN: kiln-opt %s -split-input-file -tile-assign-layouts="compute-capability=90 arch-specific=1" -tile-pipeline-loops -kiln-convert-tile-to-gpu="shared-memory-limit=232448" | FileCheck %s --check-prefix=GPU
// RUN: kiln-opt %s -split-input-file -tile-assign-layouts -tile-pipeline-loops | FileCheck %s --check-prefix=SM80
// RUN: kiln-opt %s -split-input-file -tile-assign-layouts -tile-pipeline-loops -kiln-convert-tile-to-gpu="shared-memory-limit=166912" | FileCheck %s --check-prefix=GPU80
// RUN: kiln-opt %s -split-input-file -tile-assign-layouts -tile-pipeline-loops="shared-memory-limit=26624" 2>&1 | FileCheck %s --check-prefix=BUDGET

// A dot operand the loop does not change (an attention's queries) is
// written once, before the loop, into a slot of its own, and wgmma reads
// it from there in every iteration instead of from registers; its
// conversion to the register operand is gone. The slot is written 16
// bytes at a time (after a barrier: in an enclosing loop, other warps may
// still read it), fenced into the async proxy, and every thread meets at
// a barrier before the loop.
// CHECK-LABEL: func.func @invariant_a
// CHECK-NOT: tilegpu.convert_layout {{.*}}dot_op
// CHECK: %[[QBUF:.*]] = tilegpu.local_alloc : memref<1x64x32xf16, 3>
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: tilegpu.local_store %{{.*}}, %[[QBUF]][%[[ZERO]]] : tensor<64x32xf16, #{{.*}}>, memref<1x64x32xf16, 3>
// CHECK-NEXT: tilegpu.fence_async_shared
// CHECK-NEXT: gpu.barrier
// CHECK: scf.for
// CHECK: tilegpu.warpgroup_dot %[[QBUF]][%[[ZERO]]], %{{.*}}[%{{.*}}], %{{.*}} : memref<1x64x32xf16, 3>,
// CHECK-NOT: tilegpu.convert_layout {{.*}}dot_op
// CHECK: return
// On mma.sync (sm_80) the same slot is written before the loop, without
// the fence (nothing reads it through the async proxy), and each dot
// reads it with ldmatrix just before it, as Triton does: the operand's
// registers are not held through the loop.
// SM80-LABEL: func.func @invariant_a
// SM80: %[[QBUF:.*]] = tilegpu.local_alloc : memref<1x64x32xf16, 3>
// SM80-NEXT: %[[ZERO:.*]] = arith.constant 0 : i32
// SM80-NEXT: gpu.barrier
// SM80-NEXT: tilegpu.local_store %{{.*}}, %[[QBUF]][%[[ZERO]]]
// SM80-NEXT: gpu.barrier
// SM80: scf.for
// SM80: %[[QA:.*]] = tilegpu.local_load %[[QBUF]][%[[ZERO]]] : memref<1x64x32xf16, 3> -> tensor<64x32xf16, #dot_op{{[0-9]*}}>
// SM80-NEXT: tile.dot %[[QA]],
// SM80-NOT: tilegpu.convert_layout {{.*}}dot_op
// SM80: return
// GPU80-LABEL: gpu.func @invariant_a
// GPU80-NOT: nvvm.fence.proxy
// GPU80: scf.for
// GPU80: nvvm.ldmatrix
// GPU80: nvvm.mma.sync
// GPU-LABEL: gpu.func @invariant_a
// GPU: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xf16>, !llvm.ptr<3>
// GPU: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// GPU-NEXT: gpu.barrier
// GPU: scf.for
func.func @invariant_a(%a: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %b: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                       %o: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %n: i32) {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r32 = tile.range 0 to 32 : tensor<32xi32>
  %r64 = tile.range 0 to 64 : tensor<64xi32>
  %qm = tile.expand_dims %r64 axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %c32 = arith.constant dense<32> : tensor<64x1xi32>
  %qmo = arith.muli %qm, %c32 : tensor<64x1xi32>
  %qmb = tile.broadcast %qmo : tensor<64x1xi32> -> tensor<64x32xi32>
  %qk = tile.expand_dims %r32 axis 0 : tensor<32xi32> -> tensor<1x32xi32>
  %qkb = tile.broadcast %qk : tensor<1x32xi32> -> tensor<64x32xi32>
  %qoff = arith.addi %qmb, %qkb : tensor<64x32xi32>
  %qs = tile.splat %a : !tile.ptr<f16> -> tensor<64x32x!tile.ptr<f16>>
  %qp = tile.addptr %qs, %qoff : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
  %q = tile.load %qp : tensor<64x32x!tile.ptr<f16>> -> tensor<64x32xf16>
  %kc = tile.expand_dims %r32 axis 1 : tensor<32xi32> -> tensor<32x1xi32>
  %c64 = arith.constant dense<64> : tensor<32x1xi32>
  %bk = arith.muli %kc, %c64 : tensor<32x1xi32>
  %bkb = tile.broadcast %bk : tensor<32x1xi32> -> tensor<32x64xi32>
  %bn = tile.expand_dims %r64 axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %bnb = tile.broadcast %bn : tensor<1x64xi32> -> tensor<32x64xi32>
  %boff = arith.addi %bkb, %bnb : tensor<32x64xi32>
  %bs = tile.splat %b : !tile.ptr<f16> -> tensor<32x64x!tile.ptr<f16>>
  %bp = tile.addptr %bs, %boff : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
  %acc = scf.for %i = %c0 to %n step %c1 iter_args(%acc_i = %zero) -> (tensor<64x64xf32>) : i32 {
    %k = tile.load %bp : tensor<32x64x!tile.ptr<f16>> -> tensor<32x64xf16>
    %d = tile.dot %q, %k, %acc_i : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  %os = tile.splat %o : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %rows = tile.expand_dims %r64 axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %c64r = arith.constant dense<64> : tensor<64x1xi32>
  %ro = arith.muli %rows, %c64r : tensor<64x1xi32>
  %rob = tile.broadcast %ro : tensor<64x1xi32> -> tensor<64x64xi32>
  %cob = tile.broadcast %bn : tensor<1x64xi32> -> tensor<64x64xi32>
  %ooff = arith.addi %rob, %cob : tensor<64x64xi32>
  %op = tile.addptr %os, %ooff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %op, %acc : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}

// -----

// Where the slot would not fit the shared memory the loop's stages leave
// (a 256x64 A, 32 KiB, against the 40 KiB the three 8 KiB stages of B may
// take), A stays in registers.
// CHECK-LABEL: func.func @too_large
// CHECK-NOT: tilegpu.local_store
// CHECK: %[[A:.*]] = tilegpu.convert_layout %{{.*}} : tensor<256x64xf16, #{{.*}}> -> tensor<256x64xf16, #dot_op>
// CHECK: scf.for
// CHECK: tilegpu.warpgroup_dot %[[A]], %{{.*}}[%{{.*}}], %{{.*}} : tensor<256x64xf16, #dot_op>,
// SM80-LABEL: func.func @too_large
// SM80-NOT: tilegpu.local_store
// SM80: %[[A:.*]] = tilegpu.convert_layout %{{.*}} : tensor<256x64xf16, #{{.*}}> -> tensor<256x64xf16, #dot_op>
// SM80: scf.for
// SM80: tile.dot %[[A]],
func.func @too_large(%q: tensor<256x64xf16>, %b: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                     %o: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %n: i32) {
  %zero = arith.constant dense<0.0> : tensor<256x64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r64 = tile.range 0 to 64 : tensor<64xi32>
  %kc = tile.expand_dims %r64 axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %c64 = arith.constant dense<64> : tensor<64x1xi32>
  %bk = arith.muli %kc, %c64 : tensor<64x1xi32>
  %bkb = tile.broadcast %bk : tensor<64x1xi32> -> tensor<64x64xi32>
  %bn = tile.expand_dims %r64 axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %bnb = tile.broadcast %bn : tensor<1x64xi32> -> tensor<64x64xi32>
  %boff = arith.addi %bkb, %bnb : tensor<64x64xi32>
  %bs = tile.splat %b : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %bp = tile.addptr %bs, %boff : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
  %acc = scf.for %i = %c0 to %n step %c1 iter_args(%acc_i = %zero) -> (tensor<256x64xf32>) : i32 {
    %k = tile.load %bp : tensor<64x64x!tile.ptr<f16>> -> tensor<64x64xf16>
    %d = tile.dot %q, %k, %acc_i : tensor<256x64xf16>, tensor<64x64xf16> -> tensor<256x64xf32>
    scf.yield %d : tensor<256x64xf32>
  }
  %r = tile.reduce %acc axis 1 : tensor<256x64xf32> -> tensor<256xf32> {
  ^bb0(%x: f32, %y: f32):
    %s = arith.addf %x, %y : f32
    tile.yield %s : f32
  }
  %r256 = tile.range 0 to 256 : tensor<256xi32>
  %os = tile.splat %o : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>>
  %op = tile.addptr %os, %r256 : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  tile.store %op, %r : tensor<256x!tile.ptr<f32>>, tensor<256xf32>
  return
}

// -----

// Two loops one after the other with the same invariant A (a causal
// attention's two loops over one block of queries) write it into one
// slot, once, before the first: its registers need not live through the
// first loop. The second loop's stages take the memory of the first's
// (first fit around that slot): 12 KiB of stages and 4 KiB of A, 16 KiB
// in all (and a reduction's scratch), not 28.
// CHECK-LABEL: func.func @two_loops_one_a
// CHECK: %[[QBUF:.*]] = tilegpu.local_alloc : memref<1x64x32xf16, 3>
// CHECK: tilegpu.local_store %{{.*}}, %[[QBUF]]
// CHECK-NOT: tilegpu.local_store
// CHECK: tilegpu.warpgroup_dot %[[QBUF]]
// CHECK-NOT: tilegpu.local_store
// CHECK: tilegpu.warpgroup_dot %[[QBUF]]
// CHECK: return
// SM80-LABEL: func.func @two_loops_one_a
// SM80: %[[QBUF:.*]] = tilegpu.local_alloc : memref<1x64x32xf16, 3>
// SM80: tilegpu.local_store %{{.*}}, %[[QBUF]]
// SM80-NOT: tilegpu.local_store
// SM80: tilegpu.local_load %[[QBUF]]
// SM80-NOT: tilegpu.local_store
// SM80: tilegpu.local_load %[[QBUF]]
// SM80: return
// GPU: llvm.mlir.global internal @{{.*}}() {{.*}} : !llvm.array<16{{[0-9][0-9][0-9]}} x i8>
// GPU-LABEL: gpu.func @two_loops_one_a
func.func @two_loops_one_a(%a: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %b: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                           %o: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %n: i32) {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r32 = tile.range 0 to 32 : tensor<32xi32>
  %r64 = tile.range 0 to 64 : tensor<64xi32>
  %qm = tile.expand_dims %r64 axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %c32 = arith.constant dense<32> : tensor<64x1xi32>
  %qmo = arith.muli %qm, %c32 : tensor<64x1xi32>
  %qmb = tile.broadcast %qmo : tensor<64x1xi32> -> tensor<64x32xi32>
  %qk = tile.expand_dims %r32 axis 0 : tensor<32xi32> -> tensor<1x32xi32>
  %qkb = tile.broadcast %qk : tensor<1x32xi32> -> tensor<64x32xi32>
  %qoff = arith.addi %qmb, %qkb : tensor<64x32xi32>
  %qs = tile.splat %a : !tile.ptr<f16> -> tensor<64x32x!tile.ptr<f16>>
  %qp = tile.addptr %qs, %qoff : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
  %q = tile.load %qp : tensor<64x32x!tile.ptr<f16>> -> tensor<64x32xf16>
  %kc = tile.expand_dims %r32 axis 1 : tensor<32xi32> -> tensor<32x1xi32>
  %c64 = arith.constant dense<64> : tensor<32x1xi32>
  %bk = arith.muli %kc, %c64 : tensor<32x1xi32>
  %bkb = tile.broadcast %bk : tensor<32x1xi32> -> tensor<32x64xi32>
  %bn = tile.expand_dims %r64 axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %bnb = tile.broadcast %bn : tensor<1x64xi32> -> tensor<32x64xi32>
  %boff = arith.addi %bkb, %bnb : tensor<32x64xi32>
  %bs = tile.splat %b : !tile.ptr<f16> -> tensor<32x64x!tile.ptr<f16>>
  %bp = tile.addptr %bs, %boff : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
  %first = scf.for %i = %c0 to %n step %c1 iter_args(%acc_i = %zero) -> (tensor<64x64xf32>) : i32 {
    %k = tile.load %bp : tensor<32x64x!tile.ptr<f16>> -> tensor<32x64xf16>
    %d = tile.dot %q, %k, %acc_i : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  %both = scf.for %i = %c0 to %n step %c1 iter_args(%acc_i = %first) -> (tensor<64x64xf32>) : i32 {
    %k = tile.load %bp : tensor<32x64x!tile.ptr<f16>> -> tensor<32x64xf16>
    %d = tile.dot %q, %k, %acc_i : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  %os = tile.splat %o : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %rows = tile.expand_dims %r64 axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %c64r = arith.constant dense<64> : tensor<64x1xi32>
  %ro = arith.muli %rows, %c64r : tensor<64x1xi32>
  %rob = tile.broadcast %ro : tensor<64x1xi32> -> tensor<64x64xi32>
  %cob = tile.broadcast %bn : tensor<1x64xi32> -> tensor<64x64xi32>
  %ooff = arith.addi %rob, %cob : tensor<64x64xi32>
  %op = tile.addptr %os, %ooff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %op, %both : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}

// -----

// On mma.sync a B the loop does not change is read from its slot too
// (ldmatrix.trans), and an operand of 32-bit elements (a tf32 product)
// stays in registers: ldmatrix reads 16-bit elements only. On sm_90a
// wgmma reads that B from its slot (fenced into the async proxy), as it
// reads an invariant A; the tf32 dot's A, which wgmma reads from shared
// memory only, is written into a slot of its own too, and its B is staged
// K-major (the slots' strides), as wgmma reads tf32 operands.
// CHECK-LABEL: func.func @invariant_b_and_f32
// CHECK: tilegpu.local_alloc : memref<3x64x32xf16, 3>
// CHECK: %[[B32:.*]] = tilegpu.local_alloc : memref<3x32x64xf32, strided<[2048, 1, 32]>, 3>
// CHECK: %[[BBUF:.*]] = tilegpu.local_alloc : memref<1x32x64xf16, 3>
// CHECK: tilegpu.local_store %{{.*}}, %[[BBUF]][%[[BZERO:.*]]] :
// CHECK-NEXT: tilegpu.fence_async_shared
// CHECK: %[[A32:.*]] = tilegpu.local_alloc : memref<1x64x32xf32, 3>
// CHECK: tilegpu.local_store %{{.*}}, %[[A32]][%[[AZERO:.*]]] :
// CHECK-NEXT: tilegpu.fence_async_shared
// CHECK: scf.for
// CHECK: tilegpu.warpgroup_dot %{{.*}}[%{{.*}}], %[[BBUF]][%[[BZERO]]], %{{.*}} : memref<3x64x32xf16, 3>, memref<1x32x64xf16, 3>
// CHECK: tilegpu.warpgroup_dot %[[A32]][%[[AZERO]]], %[[B32]][%{{.*}}], %{{.*}} : memref<1x64x32xf32, 3>, memref<3x32x64xf32, strided<[2048, 1, 32]>, 3>
// SM80-LABEL: func.func @invariant_b_and_f32
// SM80: %[[A32:.*]] = tilegpu.convert_layout %{{.*}} : tensor<64x32xf32, #{{.*}}> -> tensor<64x32xf32, #dot_op{{[0-9]*}}>
// SM80: tilegpu.local_alloc : memref<1x32x64xf16, 3>
// SM80: tilegpu.local_store
// SM80-NOT: tilegpu.local_store
// SM80: scf.for
// SM80: %[[BL:.*]] = tilegpu.local_load %{{.*}} : memref<1x32x64xf16, 3> -> tensor<32x64xf16, #dot_op{{[0-9]*}}>
// SM80-NEXT: tile.dot %{{.*}}, %[[BL]],
// SM80: tile.dot %[[A32]],
// SM80: return
func.func @invariant_b_and_f32(%a: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %a32: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                               %b: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %b32: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                               %o: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %n: i32) {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r32 = tile.range 0 to 32 : tensor<32xi32>
  %r64 = tile.range 0 to 64 : tensor<64xi32>
  %am = tile.expand_dims %r64 axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %c32 = arith.constant dense<32> : tensor<64x1xi32>
  %amo = arith.muli %am, %c32 : tensor<64x1xi32>
  %amb = tile.broadcast %amo : tensor<64x1xi32> -> tensor<64x32xi32>
  %ak = tile.expand_dims %r32 axis 0 : tensor<32xi32> -> tensor<1x32xi32>
  %akb = tile.broadcast %ak : tensor<1x32xi32> -> tensor<64x32xi32>
  %aoff = arith.addi %amb, %akb : tensor<64x32xi32>
  %as = tile.splat %a : !tile.ptr<f16> -> tensor<64x32x!tile.ptr<f16>>
  %ap = tile.addptr %as, %aoff : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
  %a32s = tile.splat %a32 : !tile.ptr<f32> -> tensor<64x32x!tile.ptr<f32>>
  %a32p = tile.addptr %a32s, %aoff : tensor<64x32x!tile.ptr<f32>>, tensor<64x32xi32>
  %fixed32 = tile.load %a32p : tensor<64x32x!tile.ptr<f32>> -> tensor<64x32xf32>
  %kc = tile.expand_dims %r32 axis 1 : tensor<32xi32> -> tensor<32x1xi32>
  %c64 = arith.constant dense<64> : tensor<32x1xi32>
  %bk = arith.muli %kc, %c64 : tensor<32x1xi32>
  %bkb = tile.broadcast %bk : tensor<32x1xi32> -> tensor<32x64xi32>
  %bn = tile.expand_dims %r64 axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %bnb = tile.broadcast %bn : tensor<1x64xi32> -> tensor<32x64xi32>
  %boff = arith.addi %bkb, %bnb : tensor<32x64xi32>
  %bs = tile.splat %b : !tile.ptr<f16> -> tensor<32x64x!tile.ptr<f16>>
  %bp = tile.addptr %bs, %boff : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
  %fixed = tile.load %bp : tensor<32x64x!tile.ptr<f16>> -> tensor<32x64xf16>
  %b32s = tile.splat %b32 : !tile.ptr<f32> -> tensor<32x64x!tile.ptr<f32>>
  %b32p = tile.addptr %b32s, %boff : tensor<32x64x!tile.ptr<f32>>, tensor<32x64xi32>
  %accs:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc_i = %zero, %acc32_i = %zero) -> (tensor<64x64xf32>, tensor<64x64xf32>) : i32 {
    %x = tile.load %ap : tensor<64x32x!tile.ptr<f16>> -> tensor<64x32xf16>
    %d = tile.dot %x, %fixed, %acc_i : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    %y = tile.load %b32p : tensor<32x64x!tile.ptr<f32>> -> tensor<32x64xf32>
    %e = tile.dot %fixed32, %y, %acc32_i input_precision = tf32 : tensor<64x32xf32>, tensor<32x64xf32> -> tensor<64x64xf32>
    scf.yield %d, %e : tensor<64x64xf32>, tensor<64x64xf32>
  }
  %acc = arith.addf %accs#0, %accs#1 : tensor<64x64xf32>
  %os = tile.splat %o : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %rows = tile.expand_dims %r64 axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %c64r = arith.constant dense<64> : tensor<64x1xi32>
  %ro = arith.muli %rows, %c64r : tensor<64x1xi32>
  %rob = tile.broadcast %ro : tensor<64x1xi32> -> tensor<64x64xi32>
  %cob = tile.broadcast %bn : tensor<1x64xi32> -> tensor<64x64xi32>
  %ooff = arith.addi %rob, %cob : tensor<64x64xi32>
  %op = tile.addptr %os, %ooff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %op, %acc : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}

// -----

// A loop that reads the slot an earlier loop's operand was written into
// counts it against its shared memory: in 26 KiB, the first loop takes
// three 4 KiB stages and the 4 KiB slot of A; the second, whose stages
// are 8 KiB, has 22 KiB beside that slot, so two stages, not three.
// BUDGET: remark: pipelined 2 stages deep, not 3: 3 stages of 8192 bytes do not fit the 22528 bytes of shared memory they may take
// BUDGET-LABEL: func.func @second_loop_counts_the_slot
// BUDGET: tilegpu.local_alloc : memref<3x32x64xf16, 3>
// BUDGET: %[[QBUF:.*]] = tilegpu.local_alloc : memref<1x64x32xf16, 3>
// BUDGET: tilegpu.local_alloc : memref<2x32x64xf16, 3>
// BUDGET: tilegpu.local_alloc : memref<2x32x64xf16, 3>
// BUDGET: tilegpu.local_load %[[QBUF]]
// BUDGET: tilegpu.local_load %[[QBUF]]
func.func @second_loop_counts_the_slot(%a: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %b: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                                       %c: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %o: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %n: i32) {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r32 = tile.range 0 to 32 : tensor<32xi32>
  %r64 = tile.range 0 to 64 : tensor<64xi32>
  %qm = tile.expand_dims %r64 axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %c32 = arith.constant dense<32> : tensor<64x1xi32>
  %qmo = arith.muli %qm, %c32 : tensor<64x1xi32>
  %qmb = tile.broadcast %qmo : tensor<64x1xi32> -> tensor<64x32xi32>
  %qk = tile.expand_dims %r32 axis 0 : tensor<32xi32> -> tensor<1x32xi32>
  %qkb = tile.broadcast %qk : tensor<1x32xi32> -> tensor<64x32xi32>
  %qoff = arith.addi %qmb, %qkb : tensor<64x32xi32>
  %qs = tile.splat %a : !tile.ptr<f16> -> tensor<64x32x!tile.ptr<f16>>
  %qp = tile.addptr %qs, %qoff : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
  %q = tile.load %qp : tensor<64x32x!tile.ptr<f16>> -> tensor<64x32xf16>
  %kc = tile.expand_dims %r32 axis 1 : tensor<32xi32> -> tensor<32x1xi32>
  %c64 = arith.constant dense<64> : tensor<32x1xi32>
  %bk = arith.muli %kc, %c64 : tensor<32x1xi32>
  %bkb = tile.broadcast %bk : tensor<32x1xi32> -> tensor<32x64xi32>
  %bn = tile.expand_dims %r64 axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %bnb = tile.broadcast %bn : tensor<1x64xi32> -> tensor<32x64xi32>
  %boff = arith.addi %bkb, %bnb : tensor<32x64xi32>
  %bs = tile.splat %b : !tile.ptr<f16> -> tensor<32x64x!tile.ptr<f16>>
  %bp = tile.addptr %bs, %boff : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
  %cs = tile.splat %c : !tile.ptr<f16> -> tensor<32x64x!tile.ptr<f16>>
  %cp = tile.addptr %cs, %boff : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
  %first = scf.for %i = %c0 to %n step %c1 iter_args(%acc_i = %zero) -> (tensor<64x64xf32>) : i32 {
    %k = tile.load %bp : tensor<32x64x!tile.ptr<f16>> -> tensor<32x64xf16>
    %d = tile.dot %q, %k, %acc_i : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  %both = scf.for %i = %c0 to %n step %c1 iter_args(%acc_i = %first) -> (tensor<64x64xf32>) : i32 {
    %k = tile.load %bp : tensor<32x64x!tile.ptr<f16>> -> tensor<32x64xf16>
    %d = tile.dot %q, %k, %acc_i : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    %v = tile.load %cp : tensor<32x64x!tile.ptr<f16>> -> tensor<32x64xf16>
    %e = tile.dot %q, %v, %d : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %e : tensor<64x64xf32>
  }
  %os = tile.splat %o : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %rows = tile.expand_dims %r64 axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %c64r = arith.constant dense<64> : tensor<64x1xi32>
  %ro = arith.muli %rows, %c64r : tensor<64x1xi32>
  %rob = tile.broadcast %ro : tensor<64x1xi32> -> tensor<64x64xi32>
  %cob = tile.broadcast %bn : tensor<1x64xi32> -> tensor<64x64xi32>
  %ooff = arith.addi %rob, %cob : tensor<64x64xi32>
  %op = tile.addptr %os, %ooff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %op, %both : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}

// -----

// A slot an earlier loop's mma.sync dot read (its N of 8 is not wgmma's) is
// fenced into the async proxy before a later loop's wgmma reads it.
// CHECK-LABEL: func.func @mma_sync_then_wgmma
// CHECK: %[[QBUF:.*]] = tilegpu.local_alloc : memref<1x64x32xf16, 3>
// CHECK: tilegpu.local_store %{{.*}}, %[[QBUF]]
// CHECK-NOT: tilegpu.fence_async_shared
// CHECK: scf.for
// CHECK: tile.dot
// CHECK: tilegpu.fence_async_shared
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: scf.for
// CHECK: tilegpu.warpgroup_dot %[[QBUF]]
func.func @mma_sync_then_wgmma(%a: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %b: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                               %o: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %n: i32) {
  %zero8 = arith.constant dense<0.0> : tensor<64x8xf32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r8 = tile.range 0 to 8 : tensor<8xi32>
  %r32 = tile.range 0 to 32 : tensor<32xi32>
  %r64 = tile.range 0 to 64 : tensor<64xi32>
  %qm = tile.expand_dims %r64 axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %c32 = arith.constant dense<32> : tensor<64x1xi32>
  %qmo = arith.muli %qm, %c32 : tensor<64x1xi32>
  %qmb = tile.broadcast %qmo : tensor<64x1xi32> -> tensor<64x32xi32>
  %qk = tile.expand_dims %r32 axis 0 : tensor<32xi32> -> tensor<1x32xi32>
  %qkb = tile.broadcast %qk : tensor<1x32xi32> -> tensor<64x32xi32>
  %qoff = arith.addi %qmb, %qkb : tensor<64x32xi32>
  %qs = tile.splat %a : !tile.ptr<f16> -> tensor<64x32x!tile.ptr<f16>>
  %qp = tile.addptr %qs, %qoff : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
  %q = tile.load %qp : tensor<64x32x!tile.ptr<f16>> -> tensor<64x32xf16>
  %kc = tile.expand_dims %r32 axis 1 : tensor<32xi32> -> tensor<32x1xi32>
  %c64 = arith.constant dense<64> : tensor<32x1xi32>
  %bk = arith.muli %kc, %c64 : tensor<32x1xi32>
  %bkb8 = tile.broadcast %bk : tensor<32x1xi32> -> tensor<32x8xi32>
  %bn8 = tile.expand_dims %r8 axis 0 : tensor<8xi32> -> tensor<1x8xi32>
  %bnb8 = tile.broadcast %bn8 : tensor<1x8xi32> -> tensor<32x8xi32>
  %boff8 = arith.addi %bkb8, %bnb8 : tensor<32x8xi32>
  %bs8 = tile.splat %b : !tile.ptr<f16> -> tensor<32x8x!tile.ptr<f16>>
  %bp8 = tile.addptr %bs8, %boff8 : tensor<32x8x!tile.ptr<f16>>, tensor<32x8xi32>
  %bkb = tile.broadcast %bk : tensor<32x1xi32> -> tensor<32x64xi32>
  %bn = tile.expand_dims %r64 axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %bnb = tile.broadcast %bn : tensor<1x64xi32> -> tensor<32x64xi32>
  %boff = arith.addi %bkb, %bnb : tensor<32x64xi32>
  %bs = tile.splat %b : !tile.ptr<f16> -> tensor<32x64x!tile.ptr<f16>>
  %bp = tile.addptr %bs, %boff : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
  %narrow = scf.for %i = %c0 to %n step %c1 iter_args(%acc_i = %zero8) -> (tensor<64x8xf32>) : i32 {
    %k = tile.load %bp8 : tensor<32x8x!tile.ptr<f16>> -> tensor<32x8xf16>
    %d = tile.dot %q, %k, %acc_i : tensor<64x32xf16>, tensor<32x8xf16> -> tensor<64x8xf32>
    scf.yield %d : tensor<64x8xf32>
  }
  %wide = scf.for %i = %c0 to %n step %c1 iter_args(%acc_i = %zero) -> (tensor<64x64xf32>) : i32 {
    %k = tile.load %bp : tensor<32x64x!tile.ptr<f16>> -> tensor<32x64xf16>
    %d = tile.dot %q, %k, %acc_i : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  %rows = tile.expand_dims %r64 axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %c64r = arith.constant dense<64> : tensor<64x1xi32>
  %ro = arith.muli %rows, %c64r : tensor<64x1xi32>
  %rob = tile.broadcast %ro : tensor<64x1xi32> -> tensor<64x64xi32>
  %cob = tile.broadcast %bn : tensor<1x64xi32> -> tensor<64x64xi32>
  %ooff = arith.addi %rob, %cob : tensor<64x64xi32>
  %os = tile.splat %o : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %op = tile.addptr %os, %ooff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %op, %wide : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  %rob8 = tile.broadcast %ro : tensor<64x1xi32> -> tensor<64x8xi32>
  %cob8 = tile.broadcast %bn8 : tensor<1x8xi32> -> tensor<64x8xi32>
  %ooff8 = arith.addi %rob8, %cob8 : tensor<64x8xi32>
  %os8 = tile.splat %o : !tile.ptr<f32> -> tensor<64x8x!tile.ptr<f32>>
  %op8 = tile.addptr %os8, %ooff8 : tensor<64x8x!tile.ptr<f32>>, tensor<64x8xi32>
  tile.store %op8, %narrow : tensor<64x8x!tile.ptr<f32>>, tensor<64x8xf32>
  return
}
