// RUN: kiln-opt %s -split-input-file -tile-assign-layouts -tile-pipeline-loops | FileCheck %s
// RUN: kiln-opt %s -split-input-file -tile-assign-layouts -tile-pipeline-loops=num-stages=2 | FileCheck %s --check-prefix=TWO
// RUN: kiln-opt %s -split-input-file -tile-assign-layouts -tile-pipeline-loops -verify-diagnostics -o /dev/null

// A K loop of a tensor-core matmul, three stages: two buffers of three
// slots; the prologue copies K steps 0 and 1 (masked by the K bound and by
// the loop's end), the loop carries the pointers two steps ahead, waits
// for its own step, meets at a barrier, copies step k + 2 into the slot
// step k - 1 used, and reads its slot as dot operands.
// CHECK-LABEL: func.func @matmul
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : i32
// CHECK: %[[A:.*]] = tilegpu.local_alloc : memref<3x64x32xf16, 3>
// CHECK: %[[B:.*]] = tilegpu.local_alloc : memref<3x32x64xf16, 3>
// CHECK: %[[IN0:.*]] = arith.cmpi slt, %{{.*}}, %[[K:.*]] : i32
// CHECK: tilegpu.async_copy %{{.*}} mask %{{.*}} into %[[A]][%[[S0:.*]]] :
// CHECK: tilegpu.async_copy %{{.*}} mask %{{.*}} into %[[B]][%[[S0]]] :
// CHECK: tilegpu.async_commit_group
// CHECK: tilegpu.async_copy %{{.*}} into %[[A]][%[[S1:.*]]] :
// CHECK: tilegpu.async_commit_group
// CHECK: scf.for %[[IV:.*]] = %[[C0]] to %[[K]] step %[[C32]] iter_args(%[[ACC:.*]] = %{{.*}}, %[[AP:.*]] = %{{.*}}, %[[BP:.*]] = %{{.*}})
// CHECK:   %[[STEP:.*]] = arith.divui %{{.*}}, %[[C32]] : i32
// CHECK:   %[[SLOT:.*]] = arith.remui %[[STEP]], %{{.*}} : i32
// CHECK:   %[[NEXT:.*]] = arith.remui %{{.*}}, %{{.*}} : i32
// CHECK:   tilegpu.async_wait 1
// CHECK-NEXT: gpu.barrier
// CHECK:   %[[AHEAD:.*]] = arith.addi %[[IV]], %{{.*}} : i32
// CHECK:   arith.subi %[[K]], %[[AHEAD]] : i32
// CHECK:   %[[APN:.*]] = tile.addptr %[[AP]]
// CHECK:   %[[BPN:.*]] = tile.addptr %[[BP]]
// CHECK:   arith.cmpi slt, %[[AHEAD]], %[[K]] : i32
// CHECK:   tilegpu.async_copy %[[AP]] mask %{{.*}} into %[[A]][%[[NEXT]]]
// CHECK:   tilegpu.async_copy %[[BP]] mask %{{.*}} into %[[B]][%[[NEXT]]]
// CHECK:   tilegpu.async_commit_group
// CHECK:   %[[AV:.*]] = tilegpu.local_load %[[A]][%[[SLOT]]] : memref<3x64x32xf16, 3> -> tensor<64x32xf16, #dot_op>
// CHECK:   %[[BV:.*]] = tilegpu.local_load %[[B]][%[[SLOT]]] : memref<3x32x64xf16, 3> -> tensor<32x64xf16, #dot_op1>
// CHECK:   %[[D:.*]] = tile.dot %[[AV]], %[[BV]], %[[ACC]]
// CHECK:   scf.yield %[[D]], %[[APN]], %[[BPN]]
// CHECK: tilegpu.async_wait 0
// CHECK-NOT: tile.load
// CHECK: tile.store
// Two stages: one copy in flight, none left pending at the wait.
// TWO: tilegpu.local_alloc : memref<2x64x32xf16, 3>
// TWO-COUNT-2: tilegpu.async_copy
// TWO: tilegpu.async_commit_group
// TWO-NOT: tilegpu.async_copy
// TWO: scf.for
// TWO: tilegpu.async_wait 0
// TWO-NEXT: gpu.barrier
func.func @matmul(%a: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %b: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %c: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %K: i32 {tile.divisibility = 16 : i64}) {
  %r64 = tile.range 0 to 64 : tensor<64xi32>
  %r32 = tile.range 0 to 32 : tensor<32xi32>
  %rows = tile.expand_dims %r64 axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %cols = tile.expand_dims %r64 axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %kr = tile.expand_dims %r32 axis 0 : tensor<32xi32> -> tensor<1x32xi32>
  %kc = tile.expand_dims %r32 axis 1 : tensor<32xi32> -> tensor<32x1xi32>
  %Ks = tile.splat %K : i32 -> tensor<64x1xi32>
  %ar = arith.muli %rows, %Ks : tensor<64x1xi32>
  %arb = tile.broadcast %ar : tensor<64x1xi32> -> tensor<64x32xi32>
  %akb = tile.broadcast %kr : tensor<1x32xi32> -> tensor<64x32xi32>
  %aoff = arith.addi %arb, %akb : tensor<64x32xi32>
  %as = tile.splat %a : !tile.ptr<f16> -> tensor<64x32x!tile.ptr<f16>>
  %ap = tile.addptr %as, %aoff : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
  %c64 = arith.constant dense<64> : tensor<32x1xi32>
  %bk = arith.muli %kc, %c64 : tensor<32x1xi32>
  %bkb = tile.broadcast %bk : tensor<32x1xi32> -> tensor<32x64xi32>
  %bnb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<32x64xi32>
  %boff = arith.addi %bkb, %bnb : tensor<32x64xi32>
  %bs = tile.splat %b : !tile.ptr<f16> -> tensor<32x64x!tile.ptr<f16>>
  %bp = tile.addptr %bs, %boff : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %pad = arith.constant dense<0.0> : tensor<64x32xf16>
  %astep = arith.constant dense<32> : tensor<64x32xi32>
  %bstep = arith.constant dense<2048> : tensor<32x64xi32>
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %acc, %ape, %bpe = scf.for %k = %c0 to %K step %c32 iter_args(%acc_i = %zero, %ap_i = %ap, %bp_i = %bp)
      -> (tensor<64x64xf32>, tensor<64x32x!tile.ptr<f16>>, tensor<32x64x!tile.ptr<f16>>) : i32 {
    %left = arith.subi %K, %k : i32
    %ls = tile.splat %left : i32 -> tensor<1x32xi32>
    %kok = arith.cmpi slt, %kr, %ls : tensor<1x32xi32>
    %amask = tile.broadcast %kok : tensor<1x32xi1> -> tensor<64x32xi1>
    %av = tile.load %ap_i, %amask, other %pad : tensor<64x32x!tile.ptr<f16>> -> tensor<64x32xf16>
    %bv = tile.load %bp_i : tensor<32x64x!tile.ptr<f16>> -> tensor<32x64xf16>
    %d = tile.dot %av, %bv, %acc_i : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    %apn = tile.addptr %ap_i, %astep : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
    %bpn = tile.addptr %bp_i, %bstep : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
    scf.yield %d, %apn, %bpn : tensor<64x64xf32>, tensor<64x32x!tile.ptr<f16>>, tensor<32x64x!tile.ptr<f16>>
  }
  %c64r = arith.constant dense<64> : tensor<64x1xi32>
  %cr = arith.muli %rows, %c64r : tensor<64x1xi32>
  %crb = tile.broadcast %cr : tensor<64x1xi32> -> tensor<64x64xi32>
  %ccb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<64x64xi32>
  %coff = arith.addi %crb, %ccb : tensor<64x64xi32>
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %cp = tile.addptr %cs, %coff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %cp, %acc : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}

// -----

// A padding other than zero cannot come from cp.async's zero fill.
func.func @padding(%a: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %n: i32) -> tensor<32x32xf32> {
  %r = tile.range 0 to 32 : tensor<32xi32>
  %rows = tile.expand_dims %r axis 1 : tensor<32xi32> -> tensor<32x1xi32>
  %cols = tile.expand_dims %r axis 0 : tensor<32xi32> -> tensor<1x32xi32>
  %c32 = arith.constant dense<32> : tensor<32x1xi32>
  %ro = arith.muli %rows, %c32 : tensor<32x1xi32>
  %rob = tile.broadcast %ro : tensor<32x1xi32> -> tensor<32x32xi32>
  %cob = tile.broadcast %cols : tensor<1x32xi32> -> tensor<32x32xi32>
  %off = arith.addi %rob, %cob : tensor<32x32xi32>
  %as = tile.splat %a : !tile.ptr<f16> -> tensor<32x32x!tile.ptr<f16>>
  %ap = tile.addptr %as, %off : tensor<32x32x!tile.ptr<f16>>, tensor<32x32xi32>
  %ok = arith.constant dense<true> : tensor<32x32xi1>
  %one = arith.constant dense<1.0> : tensor<32x32xf16>
  %zero = arith.constant dense<0.0> : tensor<32x32xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // expected-remark @+1 {{not pipelined: a load's padding is not zero}}
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%acc_i = %zero) -> (tensor<32x32xf32>) : i32 {
    %v = tile.load %ap, %ok, other %one : tensor<32x32x!tile.ptr<f16>> -> tensor<32x32xf16>
    %d = tile.dot %v, %v, %acc_i : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
    scf.yield %d : tensor<32x32xf32>
  }
  return %acc : tensor<32x32xf32>
}

// -----

// Unaligned pointers: element by element, which cp.async cannot copy.
func.func @unaligned(%a: !tile.ptr<f16>, %n: i32) -> tensor<32x32xf32> {
  %r = tile.range 0 to 32 : tensor<32xi32>
  %rows = tile.expand_dims %r axis 1 : tensor<32xi32> -> tensor<32x1xi32>
  %cols = tile.expand_dims %r axis 0 : tensor<32xi32> -> tensor<1x32xi32>
  %c32 = arith.constant dense<32> : tensor<32x1xi32>
  %ro = arith.muli %rows, %c32 : tensor<32x1xi32>
  %rob = tile.broadcast %ro : tensor<32x1xi32> -> tensor<32x32xi32>
  %cob = tile.broadcast %cols : tensor<1x32xi32> -> tensor<32x32xi32>
  %off = arith.addi %rob, %cob : tensor<32x32xi32>
  %as = tile.splat %a : !tile.ptr<f16> -> tensor<32x32x!tile.ptr<f16>>
  %ap = tile.addptr %as, %off : tensor<32x32x!tile.ptr<f16>>, tensor<32x32xi32>
  %zero = arith.constant dense<0.0> : tensor<32x32xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // expected-remark @+1 {{not pipelined: a load's rows (or, for B, columns) are not contiguous and aligned in 4-, 8- or 16-byte pieces}}
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%acc_i = %zero) -> (tensor<32x32xf32>) : i32 {
    %v = tile.load %ap : tensor<32x32x!tile.ptr<f16>> -> tensor<32x32xf16>
    %d = tile.dot %v, %v, %acc_i : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
    scf.yield %d : tensor<32x32xf32>
  }
  return %acc : tensor<32x32xf32>
}

// -----

// The pointers the loads use are also stored through in the body, and
// the loop returns them: stage 1 and the result take a second copy of
// them that lags two iterations behind the copies' (which the prologue
// advanced twice).
// CHECK-LABEL: func.func @shared_pointers
// CHECK: %[[P0:.*]] = tile.addptr %{{.*}}, %{{.*}} : tensor<32x32x!tile.ptr<f16>
// CHECK: %[[P1:.*]] = tile.addptr %[[P0]], %[[STEP:.*]] :
// CHECK: tilegpu.async_copy %[[P0]]
// CHECK: %[[P2:.*]] = tile.addptr %[[P1]], %[[STEP]] :
// CHECK: tilegpu.async_copy %[[P1]]
// CHECK: %[[LOOP:.*]]:3 = scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[AHEAD:.*]] = %[[P2]], %[[NOW:.*]] = %[[P0]])
// CHECK: %[[NEXT_AHEAD:.*]] = tile.addptr %[[AHEAD]], %[[STEP]]
// CHECK: tilegpu.async_copy %[[AHEAD]]
// CHECK: tile.store %[[NOW]],
// CHECK: %[[NEXT_NOW:.*]] = tile.addptr %[[NOW]], %[[STEP]]
// CHECK: scf.yield %{{.*}}, %[[NEXT_AHEAD]], %[[NEXT_NOW]] :
// CHECK: return %[[LOOP]]#0, %[[LOOP]]#2 :
func.func @shared_pointers(%a: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %n: i32) -> (tensor<32x32xf32>, tensor<32x32x!tile.ptr<f16>>) {
  %r = tile.range 0 to 32 : tensor<32xi32>
  %rows = tile.expand_dims %r axis 1 : tensor<32xi32> -> tensor<32x1xi32>
  %cols = tile.expand_dims %r axis 0 : tensor<32xi32> -> tensor<1x32xi32>
  %c32 = arith.constant dense<32> : tensor<32x1xi32>
  %ro = arith.muli %rows, %c32 : tensor<32x1xi32>
  %rob = tile.broadcast %ro : tensor<32x1xi32> -> tensor<32x32xi32>
  %cob = tile.broadcast %cols : tensor<1x32xi32> -> tensor<32x32xi32>
  %off = arith.addi %rob, %cob : tensor<32x32xi32>
  %as = tile.splat %a : !tile.ptr<f16> -> tensor<32x32x!tile.ptr<f16>>
  %ap = tile.addptr %as, %off : tensor<32x32x!tile.ptr<f16>>, tensor<32x32xi32>
  %step = arith.constant dense<1024> : tensor<32x32xi32>
  %zero = arith.constant dense<0.0> : tensor<32x32xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc, %p = scf.for %k = %c0 to %n step %c1 iter_args(%acc_i = %zero, %p_i = %ap) -> (tensor<32x32xf32>, tensor<32x32x!tile.ptr<f16>>) : i32 {
    %v = tile.load %p_i : tensor<32x32x!tile.ptr<f16>> -> tensor<32x32xf16>
    %d = tile.dot %v, %v, %acc_i : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
    %h = arith.truncf %d : tensor<32x32xf32> to tensor<32x32xf16>
    tile.store %p_i, %h : tensor<32x32x!tile.ptr<f16>>, tensor<32x32xf16>
    %pn = tile.addptr %p_i, %step : tensor<32x32x!tile.ptr<f16>>, tensor<32x32xi32>
    scf.yield %d, %pn : tensor<32x32xf32>, tensor<32x32x!tile.ptr<f16>>
  }
  return %acc, %p : tensor<32x32xf32>, tensor<32x32x!tile.ptr<f16>>
}

// -----

// tile.num_stages = 1 on a loop turns pipelining off for it.
// CHECK-LABEL: func.func @off
// CHECK-NOT: tilegpu.async_copy
// CHECK: tile.load
func.func @off(%a: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %n: i32) -> tensor<32x32xf32> {
  %r = tile.range 0 to 32 : tensor<32xi32>
  %rows = tile.expand_dims %r axis 1 : tensor<32xi32> -> tensor<32x1xi32>
  %cols = tile.expand_dims %r axis 0 : tensor<32xi32> -> tensor<1x32xi32>
  %c32 = arith.constant dense<32> : tensor<32x1xi32>
  %ro = arith.muli %rows, %c32 : tensor<32x1xi32>
  %rob = tile.broadcast %ro : tensor<32x1xi32> -> tensor<32x32xi32>
  %cob = tile.broadcast %cols : tensor<1x32xi32> -> tensor<32x32xi32>
  %off = arith.addi %rob, %cob : tensor<32x32xi32>
  %as = tile.splat %a : !tile.ptr<f16> -> tensor<32x32x!tile.ptr<f16>>
  %ap = tile.addptr %as, %off : tensor<32x32x!tile.ptr<f16>>, tensor<32x32xi32>
  %zero = arith.constant dense<0.0> : tensor<32x32xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%acc_i = %zero) -> (tensor<32x32xf32>) : i32 {
    %v = tile.load %ap : tensor<32x32x!tile.ptr<f16>> -> tensor<32x32xf16>
    %d = tile.dot %v, %v, %acc_i : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
    scf.yield %d : tensor<32x32xf32>
  } {tile.num_stages = 1 : i64}
  return %acc : tensor<32x32xf32>
}
