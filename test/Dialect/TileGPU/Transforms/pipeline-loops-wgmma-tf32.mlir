// RUN: kiln-opt %s -split-input-file -tile-assign-layouts="num-warps=4 compute-capability=90 arch-specific=1" -tile-pipeline-loops="shared-memory-limit=232448" | FileCheck %s
// RUN: kiln-opt %s -split-input-file -tile-assign-layouts="num-warps=4 compute-capability=90 arch-specific=1" -tile-pipeline-loops="shared-memory-limit=232448" 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: kiln-opt %s -split-input-file -tile-assign-layouts="num-warps=4 compute-capability=90 arch-specific=1" -tile-pipeline-loops="shared-memory-limit=232448" -kiln-convert-tile-to-gpu="shared-memory-limit=232448" | FileCheck %s --check-prefix=GPU

// A tf32 dot on sm_90a: wgmma reads tf32 operands K-major only. A's slot
// is; B, loaded N-major (K x N, N contiguous), is copied into a K-major
// slot (transposed strides) by the cp.async themselves, an element at a
// time, so the wgmma reads both slots in place and runs while the next
// step's copies are issued (async, waited for after the loop).
// CHECK-LABEL: func.func @n_major_b
// CHECK: %[[A:.*]] = tilegpu.local_alloc : memref<3x64x32xf32, 3>
// CHECK: %[[B:.*]] = tilegpu.local_alloc : memref<3x32x64xf32, strided<[2048, 1, 32]>, 3>
// CHECK: scf.for
// CHECK: tilegpu.warpgroup_dot %[[A]][%[[SLOT:.*]]], %[[B]][%[[SLOT]]], %{{.*}} {async}
// CHECK-NOT: tilegpu.local_store
// CHECK: tilegpu.warpgroup_wait
// GPU-LABEL: gpu.func @n_major_b
// GPU-COUNT-16: nvvm.cp.async.shared.global {{.*}}, 4, cache = {{ *}}ca
func.func @n_major_b(%a: !tile.ptr<f32> {tile.divisibility = 16 : i64},
    %b: !tile.ptr<f32> {tile.divisibility = 16 : i64},
    %c: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %n: i32) {
  %r32 = tile.range 0 to 32 : tensor<32xi32>
  %r64 = tile.range 0 to 64 : tensor<64xi32>
  %am = tile.expand_dims %r64 axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %c32 = arith.constant dense<32> : tensor<64x1xi32>
  %amo = arith.muli %am, %c32 : tensor<64x1xi32>
  %amb = tile.broadcast %amo : tensor<64x1xi32> -> tensor<64x32xi32>
  %ak = tile.expand_dims %r32 axis 0 : tensor<32xi32> -> tensor<1x32xi32>
  %akb = tile.broadcast %ak : tensor<1x32xi32> -> tensor<64x32xi32>
  %aoff = arith.addi %amb, %akb : tensor<64x32xi32>
  %as = tile.splat %a : !tile.ptr<f32> -> tensor<64x32x!tile.ptr<f32>>
  %ap = tile.addptr %as, %aoff : tensor<64x32x!tile.ptr<f32>>, tensor<64x32xi32>
  %bk = tile.expand_dims %r32 axis 1 : tensor<32xi32> -> tensor<32x1xi32>
  %c64 = arith.constant dense<64> : tensor<32x1xi32>
  %bko = arith.muli %bk, %c64 : tensor<32x1xi32>
  %bkb = tile.broadcast %bko : tensor<32x1xi32> -> tensor<32x64xi32>
  %bn = tile.expand_dims %r64 axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %bnb = tile.broadcast %bn : tensor<1x64xi32> -> tensor<32x64xi32>
  %boff = arith.addi %bkb, %bnb : tensor<32x64xi32>
  %bs = tile.splat %b : !tile.ptr<f32> -> tensor<32x64x!tile.ptr<f32>>
  %bp = tile.addptr %bs, %boff : tensor<32x64x!tile.ptr<f32>>, tensor<32x64xi32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%acc_i = %zero) -> (tensor<64x64xf32>) : i32 {
    %x = tile.load %ap : tensor<64x32x!tile.ptr<f32>> -> tensor<64x32xf32>
    %y = tile.load %bp : tensor<32x64x!tile.ptr<f32>> -> tensor<32x64xf32>
    %d = tile.dot %x, %y, %acc_i input_precision = tf32 : tensor<64x32xf32>, tensor<32x64xf32> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  %cr = tile.range 0 to 64 : tensor<64xi32>
  %cm = tile.expand_dims %cr axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %c64c = arith.constant dense<64> : tensor<64x1xi32>
  %co = arith.muli %cm, %c64c : tensor<64x1xi32>
  %cob = tile.broadcast %co : tensor<64x1xi32> -> tensor<64x64xi32>
  %ccols = tile.expand_dims %cr axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %cn = tile.broadcast %ccols : tensor<1x64xi32> -> tensor<64x64xi32>
  %coff = arith.addi %cob, %cn : tensor<64x64xi32>
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %cp = tile.addptr %cs, %coff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %cp, %acc : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}

// -----

// A B the loop does not change is written K-major into a slot of its own
// before the loop.
// CHECK-LABEL: func.func @invariant_b
// CHECK: %[[A:.*]] = tilegpu.local_alloc : memref<3x64x32xf32, 3>
// CHECK: %[[B:.*]] = tilegpu.local_alloc : memref<1x32x64xf32, strided<[2048, 1, 32]>, 3>
// CHECK: gpu.barrier
// CHECK-NEXT: tilegpu.local_store %{{.*}}, %[[B]][%[[ZERO:.*]]] :
// CHECK-NEXT: tilegpu.fence_async_shared
// CHECK: scf.for
// CHECK: tilegpu.warpgroup_dot %[[A]][%{{.*}}], %[[B]][%[[ZERO]]], %{{.*}} :
func.func @invariant_b(%a: !tile.ptr<f32> {tile.divisibility = 16 : i64},
    %b: !tile.ptr<f32> {tile.divisibility = 16 : i64},
    %c: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %n: i32) {
  %r32 = tile.range 0 to 32 : tensor<32xi32>
  %r64 = tile.range 0 to 64 : tensor<64xi32>
  %am = tile.expand_dims %r64 axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %c32 = arith.constant dense<32> : tensor<64x1xi32>
  %amo = arith.muli %am, %c32 : tensor<64x1xi32>
  %amb = tile.broadcast %amo : tensor<64x1xi32> -> tensor<64x32xi32>
  %ak = tile.expand_dims %r32 axis 0 : tensor<32xi32> -> tensor<1x32xi32>
  %akb = tile.broadcast %ak : tensor<1x32xi32> -> tensor<64x32xi32>
  %aoff = arith.addi %amb, %akb : tensor<64x32xi32>
  %as = tile.splat %a : !tile.ptr<f32> -> tensor<64x32x!tile.ptr<f32>>
  %ap = tile.addptr %as, %aoff : tensor<64x32x!tile.ptr<f32>>, tensor<64x32xi32>
  %bk = tile.expand_dims %r32 axis 1 : tensor<32xi32> -> tensor<32x1xi32>
  %c64 = arith.constant dense<64> : tensor<32x1xi32>
  %bko = arith.muli %bk, %c64 : tensor<32x1xi32>
  %bkb = tile.broadcast %bko : tensor<32x1xi32> -> tensor<32x64xi32>
  %bn = tile.expand_dims %r64 axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %bnb = tile.broadcast %bn : tensor<1x64xi32> -> tensor<32x64xi32>
  %boff = arith.addi %bkb, %bnb : tensor<32x64xi32>
  %bs = tile.splat %b : !tile.ptr<f32> -> tensor<32x64x!tile.ptr<f32>>
  %bp = tile.addptr %bs, %boff : tensor<32x64x!tile.ptr<f32>>, tensor<32x64xi32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %y = tile.load %bp : tensor<32x64x!tile.ptr<f32>> -> tensor<32x64xf32>
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%acc_i = %zero) -> (tensor<64x64xf32>) : i32 {
    %x = tile.load %ap : tensor<64x32x!tile.ptr<f32>> -> tensor<64x32xf32>
    %d = tile.dot %x, %y, %acc_i input_precision = tf32 : tensor<64x32xf32>, tensor<32x64xf32> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  %cr = tile.range 0 to 64 : tensor<64xi32>
  %cm = tile.expand_dims %cr axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %c64c = arith.constant dense<64> : tensor<64x1xi32>
  %co = arith.muli %cm, %c64c : tensor<64x1xi32>
  %cob = tile.broadcast %co : tensor<64x1xi32> -> tensor<64x64xi32>
  %ccols = tile.expand_dims %cr axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %cn = tile.broadcast %ccols : tensor<1x64xi32> -> tensor<64x64xi32>
  %coff = arith.addi %cob, %cn : tensor<64x64xi32>
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %cp = tile.addptr %cs, %coff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %cp, %acc : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}

// -----

// An A computed in the loop (scaled after its load) is not in shared
// memory, where wgmma reads tf32 A from: the dot stays on mma.sync, says
// why, and B keeps its N-major slot, copied 16 bytes at a time.
// CHECK-LABEL: func.func @computed_a
// CHECK: tilegpu.local_alloc : memref<3x32x64xf32, 3>
// CHECK-NOT: tilegpu.warpgroup_dot
// CHECK: tile.dot
// REMARK: remark: on mma.sync, not wgmma: wgmma reads tf32 A from shared memory only, and this A is computed in the loop, not loaded
func.func @computed_a(%a: !tile.ptr<f32> {tile.divisibility = 16 : i64},
    %b: !tile.ptr<f32> {tile.divisibility = 16 : i64},
    %c: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %n: i32, %s: f32) {
  %r32 = tile.range 0 to 32 : tensor<32xi32>
  %r64 = tile.range 0 to 64 : tensor<64xi32>
  %am = tile.expand_dims %r64 axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %c32 = arith.constant dense<32> : tensor<64x1xi32>
  %amo = arith.muli %am, %c32 : tensor<64x1xi32>
  %amb = tile.broadcast %amo : tensor<64x1xi32> -> tensor<64x32xi32>
  %ak = tile.expand_dims %r32 axis 0 : tensor<32xi32> -> tensor<1x32xi32>
  %akb = tile.broadcast %ak : tensor<1x32xi32> -> tensor<64x32xi32>
  %aoff = arith.addi %amb, %akb : tensor<64x32xi32>
  %as = tile.splat %a : !tile.ptr<f32> -> tensor<64x32x!tile.ptr<f32>>
  %ap = tile.addptr %as, %aoff : tensor<64x32x!tile.ptr<f32>>, tensor<64x32xi32>
  %bk = tile.expand_dims %r32 axis 1 : tensor<32xi32> -> tensor<32x1xi32>
  %c64 = arith.constant dense<64> : tensor<32x1xi32>
  %bko = arith.muli %bk, %c64 : tensor<32x1xi32>
  %bkb = tile.broadcast %bko : tensor<32x1xi32> -> tensor<32x64xi32>
  %bn = tile.expand_dims %r64 axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %bnb = tile.broadcast %bn : tensor<1x64xi32> -> tensor<32x64xi32>
  %boff = arith.addi %bkb, %bnb : tensor<32x64xi32>
  %bs = tile.splat %b : !tile.ptr<f32> -> tensor<32x64x!tile.ptr<f32>>
  %bp = tile.addptr %bs, %boff : tensor<32x64x!tile.ptr<f32>>, tensor<32x64xi32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%acc_i = %zero) -> (tensor<64x64xf32>) : i32 {
    %l = tile.load %ap : tensor<64x32x!tile.ptr<f32>> -> tensor<64x32xf32>
    %ss = tile.splat %s : f32 -> tensor<64x32xf32>
    %x = arith.mulf %l, %ss : tensor<64x32xf32>
    %y = tile.load %bp : tensor<32x64x!tile.ptr<f32>> -> tensor<32x64xf32>
    %d = tile.dot %x, %y, %acc_i input_precision = tf32 : tensor<64x32xf32>, tensor<32x64xf32> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  %cr = tile.range 0 to 64 : tensor<64xi32>
  %cm = tile.expand_dims %cr axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %c64c = arith.constant dense<64> : tensor<64x1xi32>
  %co = arith.muli %cm, %c64c : tensor<64x1xi32>
  %cob = tile.broadcast %co : tensor<64x1xi32> -> tensor<64x64xi32>
  %ccols = tile.expand_dims %cr axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %cn = tile.broadcast %ccols : tensor<1x64xi32> -> tensor<64x64xi32>
  %coff = arith.addi %cob, %cn : tensor<64x64xi32>
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %cp = tile.addptr %cs, %coff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %cp, %acc : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}
