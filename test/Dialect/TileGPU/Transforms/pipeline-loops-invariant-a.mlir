// RUN: kiln-opt %s -split-input-file -tile-assign-layouts="compute-capability=90 arch-specific=1" -tile-pipeline-loops | FileCheck %s
// RUN: kiln-opt %s -split-input-file -tile-assign-layouts="compute-capability=90 arch-specific=1" -tile-pipeline-loops -kiln-convert-tile-to-gpu="shared-memory-limit=232448" | FileCheck %s --check-prefix=GPU

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
