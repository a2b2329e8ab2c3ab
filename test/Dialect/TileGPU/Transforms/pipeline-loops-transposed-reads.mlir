// RUN: kiln-opt %s -split-input-file -tile-assign-layouts="num-warps=4 compute-capability=90 arch-specific=1" -tile-pipeline-loops="shared-memory-limit=232448" | FileCheck %s
// RUN: kiln-opt %s -split-input-file -tile-assign-layouts="num-warps=4 compute-capability=90 arch-specific=1" -tile-pipeline-loops="shared-memory-limit=232448" -verify-diagnostics -o /dev/null
// RUN: kiln-opt %s -split-input-file -tile-assign-layouts="num-warps=4 compute-capability=90 arch-specific=1" -tile-pipeline-loops="shared-memory-limit=232448" -kiln-convert-tile-to-gpu="shared-memory-limit=232448" 2>/dev/null | FileCheck %s --check-prefix=GPU

// A load read by one dot as it is and by another through tl.trans (an
// attention backward's dO: `dot(p, do)` and `dot(v, tl.trans(do))`) is
// staged once: the transposed read sees the same slots through a
// tilegpu.transpose_slots view, as a K-major B, and the tile.trans is
// gone. On the GPU the view is the buffer's own address: the first wgmma
// reads B N-major (row), the second K-major (col).
// CHECK-LABEL: func.func @read_transposed
// CHECK: %[[X:.*]] = tilegpu.local_alloc : memref<3x32x64xf16, 3>
// CHECK-NEXT: %[[XT:.*]] = tilegpu.transpose_slots %[[X]] : memref<3x32x64xf16, 3> -> memref<3x64x32xf16, strided<[2048, 1, 64]>, 3>
// CHECK-NOT: tilegpu.local_alloc : memref<3x
// CHECK: scf.for
// CHECK-NOT: tile.trans
// CHECK: tilegpu.warpgroup_dot %{{.*}}, %[[X]][%{{.*}}], %{{.*}} : memref<1x64x32xf16, 3>, memref<3x32x64xf16, 3>
// CHECK: tilegpu.warpgroup_dot %{{.*}}, %[[XT]][%{{.*}}], %{{.*}} : memref<1x64x64xf16, 3>, memref<3x64x32xf16, strided<[2048, 1, 64]>, 3>
// CHECK-NOT: tile.trans
// CHECK: return
// GPU-LABEL: gpu.func @read_transposed
// GPU-NOT: tilegpu.transpose_slots
// GPU: scf.for
// GPU: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// GPU: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 32, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
func.func @read_transposed(%a: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                           %b: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                           %x: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                           %o: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                           %n: i32) {
  %r32 = tile.range 0 to 32 : tensor<32xi32>
  %r64 = tile.range 0 to 64 : tensor<64xi32>
  // A1: 64 x 32 and A2: 64 x 64, row-major, loaded before the loop.
  %m = tile.expand_dims %r64 axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %k32 = tile.expand_dims %r32 axis 0 : tensor<32xi32> -> tensor<1x32xi32>
  %k64 = tile.expand_dims %r64 axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %c32m = arith.constant dense<32> : tensor<64x1xi32>
  %c64m = arith.constant dense<64> : tensor<64x1xi32>
  %m32 = arith.muli %m, %c32m : tensor<64x1xi32>
  %m64 = arith.muli %m, %c64m : tensor<64x1xi32>
  %m32b = tile.broadcast %m32 : tensor<64x1xi32> -> tensor<64x32xi32>
  %k32b = tile.broadcast %k32 : tensor<1x32xi32> -> tensor<64x32xi32>
  %a1off = arith.addi %m32b, %k32b : tensor<64x32xi32>
  %m64b = tile.broadcast %m64 : tensor<64x1xi32> -> tensor<64x64xi32>
  %k64b = tile.broadcast %k64 : tensor<1x64xi32> -> tensor<64x64xi32>
  %a2off = arith.addi %m64b, %k64b : tensor<64x64xi32>
  %a1s = tile.splat %a : !tile.ptr<f16> -> tensor<64x32x!tile.ptr<f16>>
  %a1p = tile.addptr %a1s, %a1off : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
  %a1 = tile.load %a1p : tensor<64x32x!tile.ptr<f16>> -> tensor<64x32xf16>
  %a2s = tile.splat %b : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %a2p = tile.addptr %a2s, %a2off : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
  %a2 = tile.load %a2p : tensor<64x64x!tile.ptr<f16>> -> tensor<64x64xf16>
  // X: 32 x 64, row-major, 32 rows further each iteration.
  %xr = tile.expand_dims %r32 axis 1 : tensor<32xi32> -> tensor<32x1xi32>
  %c64x = arith.constant dense<64> : tensor<32x1xi32>
  %xro = arith.muli %xr, %c64x : tensor<32x1xi32>
  %xrb = tile.broadcast %xro : tensor<32x1xi32> -> tensor<32x64xi32>
  %xcb = tile.broadcast %k64 : tensor<1x64xi32> -> tensor<32x64xi32>
  %xoff = arith.addi %xrb, %xcb : tensor<32x64xi32>
  %xs = tile.splat %x : !tile.ptr<f16> -> tensor<32x64x!tile.ptr<f16>>
  %xp = tile.addptr %xs, %xoff : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
  %step = arith.constant dense<2048> : tensor<32x64xi32>
  %zero64 = arith.constant dense<0.0> : tensor<64x64xf32>
  %zero32 = arith.constant dense<0.0> : tensor<64x32xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc:3 = scf.for %i = %c0 to %n step %c1 iter_args(%acc_i = %zero64, %t_i = %zero32, %p_i = %xp) -> (tensor<64x64xf32>, tensor<64x32xf32>, tensor<32x64x!tile.ptr<f16>>) : i32 {
    %v = tile.load %p_i : tensor<32x64x!tile.ptr<f16>> -> tensor<32x64xf16>
    %d = tile.dot %a1, %v, %acc_i : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    %vt = tile.trans %v [1, 0] : tensor<32x64xf16> -> tensor<64x32xf16>
    %t = tile.dot %a2, %vt, %t_i : tensor<64x64xf16>, tensor<64x32xf16> -> tensor<64x32xf32>
    %pn = tile.addptr %p_i, %step : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
    scf.yield %d, %t, %pn : tensor<64x64xf32>, tensor<64x32xf32>, tensor<32x64x!tile.ptr<f16>>
  }
  %s = tile.reduce %acc#0 axis 1 : tensor<64x64xf32> -> tensor<64xf32> {
  ^bb0(%l: f32, %r: f32):
    %sum = arith.addf %l, %r : f32
    tile.yield %sum : f32
  }
  %u = tile.reduce %acc#1 axis 1 : tensor<64x32xf32> -> tensor<64xf32> {
  ^bb0(%l: f32, %r: f32):
    %sum = arith.addf %l, %r : f32
    tile.yield %sum : f32
  }
  %both = arith.addf %s, %u : tensor<64xf32>
  %os = tile.splat %o : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %op = tile.addptr %os, %r64 : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  tile.store %op, %both : tensor<64x!tile.ptr<f32>>, tensor<64xf32>
  return
}

// -----

// A load that only a transposed read takes (`dot(a, tl.trans(x))`) is
// staged the same way, and its value is not read back from the slot in
// its own layout as well.
// CHECK-LABEL: func.func @only_transposed
// CHECK: %[[X:.*]] = tilegpu.local_alloc : memref<3x32x64xf16, 3>
// CHECK-NEXT: %[[XT:.*]] = tilegpu.transpose_slots %[[X]]
// CHECK: scf.for
// CHECK-NOT: tilegpu.local_load
// CHECK-NOT: tile.trans
// CHECK: tilegpu.warpgroup_dot %{{.*}}, %[[XT]][%{{.*}}], %{{.*}} {async} : memref<1x64x64xf16, 3>, memref<3x64x32xf16, strided<[2048, 1, 64]>, 3>
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: tilegpu.local_load
// CHECK: scf.yield
func.func @only_transposed(%b: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                           %x: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                           %o: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                           %n: i32) {
  %r32 = tile.range 0 to 32 : tensor<32xi32>
  %r64 = tile.range 0 to 64 : tensor<64xi32>
  %m = tile.expand_dims %r64 axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %k64 = tile.expand_dims %r64 axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %c64m = arith.constant dense<64> : tensor<64x1xi32>
  %m64 = arith.muli %m, %c64m : tensor<64x1xi32>
  %m64b = tile.broadcast %m64 : tensor<64x1xi32> -> tensor<64x64xi32>
  %k64b = tile.broadcast %k64 : tensor<1x64xi32> -> tensor<64x64xi32>
  %a2off = arith.addi %m64b, %k64b : tensor<64x64xi32>
  %a2s = tile.splat %b : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %a2p = tile.addptr %a2s, %a2off : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
  %a2 = tile.load %a2p : tensor<64x64x!tile.ptr<f16>> -> tensor<64x64xf16>
  %xr = tile.expand_dims %r32 axis 1 : tensor<32xi32> -> tensor<32x1xi32>
  %c64x = arith.constant dense<64> : tensor<32x1xi32>
  %xro = arith.muli %xr, %c64x : tensor<32x1xi32>
  %xrb = tile.broadcast %xro : tensor<32x1xi32> -> tensor<32x64xi32>
  %xcb = tile.broadcast %k64 : tensor<1x64xi32> -> tensor<32x64xi32>
  %xoff = arith.addi %xrb, %xcb : tensor<32x64xi32>
  %xs = tile.splat %x : !tile.ptr<f16> -> tensor<32x64x!tile.ptr<f16>>
  %xp = tile.addptr %xs, %xoff : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
  %step = arith.constant dense<2048> : tensor<32x64xi32>
  %zero32 = arith.constant dense<0.0> : tensor<64x32xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc:2 = scf.for %i = %c0 to %n step %c1 iter_args(%t_i = %zero32, %p_i = %xp) -> (tensor<64x32xf32>, tensor<32x64x!tile.ptr<f16>>) : i32 {
    %v = tile.load %p_i : tensor<32x64x!tile.ptr<f16>> -> tensor<32x64xf16>
    %vt = tile.trans %v [1, 0] : tensor<32x64xf16> -> tensor<64x32xf16>
    %t = tile.dot %a2, %vt, %t_i : tensor<64x64xf16>, tensor<64x32xf16> -> tensor<64x32xf32>
    %pn = tile.addptr %p_i, %step : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
    scf.yield %t, %pn : tensor<64x32xf32>, tensor<32x64x!tile.ptr<f16>>
  }
  %u = tile.reduce %acc#0 axis 1 : tensor<64x32xf32> -> tensor<64xf32> {
  ^bb0(%l: f32, %r: f32):
    %sum = arith.addf %l, %r : f32
    tile.yield %sum : f32
  }
  %os = tile.splat %o : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %op = tile.addptr %os, %r64 : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  tile.store %op, %u : tensor<64x!tile.ptr<f32>>, tensor<64xf32>
  return
}

// -----

// The offsets of a block of rows are carried by the loop (`curr += 32`)
// and used both by the load's mask (stage 0, two iterations ahead) and by
// the rest of the body (a mask on the dot's result): stage 1 computes its
// mask from a second copy of the offset, which starts at the loop's own
// start and which it advances itself; the loop's result is that copy.
// CHECK-LABEL: func.func @lagging_offsets
// CHECK: %[[LOOP:.*]]:4 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[AHEAD:.*]] = %{{.*}}, %{{.*}} = %{{.*}}, %[[NOW:.*]] = %[[C0:.*]]) -> (tensor<64x64xf32, #{{.*}}>, i32, tensor<32x64x!tile.ptr<f16>, #{{.*}}>, i32)
// CHECK: tile.splat %[[AHEAD]]
// CHECK: tilegpu.async_copy
// CHECK: tilegpu.warpgroup_dot
// CHECK: %[[ROWS:.*]] = tile.splat %[[NOW]] : i32 -> tensor<64xi32
// CHECK: arith.addi %[[ROWS]],
// CHECK: arith.select
// CHECK: %[[NEXT:.*]] = arith.addi %[[NOW]], %{{.*}} : i32
// CHECK: scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %[[NEXT]] :
// CHECK: tile.splat %[[LOOP]]#3 : i32
func.func @lagging_offsets(%a: tensor<64x32xf16>, %x: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                           %o: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                           %end: !tile.ptr<i32> {tile.divisibility = 16 : i64},
                           %rows: i32, %n: i32) {
  %r32 = tile.range 0 to 32 : tensor<32xi32>
  %r64 = tile.range 0 to 64 : tensor<64xi32>
  %xr = tile.expand_dims %r32 axis 1 : tensor<32xi32> -> tensor<32x1xi32>
  %c64x = arith.constant dense<64> : tensor<32x1xi32>
  %xro = arith.muli %xr, %c64x : tensor<32x1xi32>
  %xrb = tile.broadcast %xro : tensor<32x1xi32> -> tensor<32x64xi32>
  %k64 = tile.expand_dims %r64 axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %xcb = tile.broadcast %k64 : tensor<1x64xi32> -> tensor<32x64xi32>
  %xoff = arith.addi %xrb, %xcb : tensor<32x64xi32>
  %xs = tile.splat %x : !tile.ptr<f16> -> tensor<32x64x!tile.ptr<f16>>
  %xp = tile.addptr %xs, %xoff : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
  %step = arith.constant dense<2048> : tensor<32x64xi32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %zerov = arith.constant dense<0.0> : tensor<32x64xf16>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %bound = tile.splat %rows : i32 -> tensor<32x64xi32>
  %bound64 = tile.splat %rows : i32 -> tensor<64xi32>
  %acc:3 = scf.for %i = %c0 to %n step %c1 iter_args(%acc_i = %zero, %curr = %c0, %p_i = %xp) -> (tensor<64x64xf32>, i32, tensor<32x64x!tile.ptr<f16>>) : i32 {
    %cs = tile.splat %curr : i32 -> tensor<32xi32>
    %offs = arith.addi %cs, %r32 : tensor<32xi32>
    %o2 = tile.expand_dims %offs axis 1 : tensor<32xi32> -> tensor<32x1xi32>
    %ob = tile.broadcast %o2 : tensor<32x1xi32> -> tensor<32x64xi32>
    %mask = arith.cmpi slt, %ob, %bound : tensor<32x64xi32>
    %v = tile.load %p_i, %mask, other %zerov : tensor<32x64x!tile.ptr<f16>> -> tensor<32x64xf16>
    %d = tile.dot %a, %v, %zero : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    // The columns this block's rows would reach: stage 1's own offsets.
    %cs64 = tile.splat %curr : i32 -> tensor<64xi32>
    %cols = arith.addi %cs64, %r64 : tensor<64xi32>
    %in = arith.cmpi slt, %cols, %bound64 : tensor<64xi32>
    %in2 = tile.expand_dims %in axis 0 : tensor<64xi1> -> tensor<1x64xi1>
    %inb = tile.broadcast %in2 : tensor<1x64xi1> -> tensor<64x64xi1>
    %kept = arith.select %inb, %d, %zero : tensor<64x64xi1>, tensor<64x64xf32>
    %sum = arith.addf %acc_i, %kept : tensor<64x64xf32>
    %next = arith.addi %curr, %c32 : i32
    %pn = tile.addptr %p_i, %step : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
    scf.yield %sum, %next, %pn : tensor<64x64xf32>, i32, tensor<32x64x!tile.ptr<f16>>
  }
  %s = tile.reduce %acc#0 axis 1 : tensor<64x64xf32> -> tensor<64xf32> {
  ^bb0(%l: f32, %r: f32):
    %sum = arith.addf %l, %r : f32
    tile.yield %sum : f32
  }
  %os = tile.splat %o : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %op = tile.addptr %os, %r64 : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  tile.store %op, %s : tensor<64x!tile.ptr<f32>>, tensor<64xf32>
  %last = tile.splat %acc#1 : i32 -> tensor<64xi32>
  %es = tile.splat %end : !tile.ptr<i32> -> tensor<64x!tile.ptr<i32>>
  %ep = tile.addptr %es, %r64 : tensor<64x!tile.ptr<i32>>, tensor<64xi32>
  tile.store %ep, %last : tensor<64x!tile.ptr<i32>>, tensor<64xi32>
  return
}

// -----

// A load whose transpose is a dot's A (an M-major A) is staged as it is
// loaded, and the dot reads A through the transposed view of its slot
// into registers, from which wgmma takes a 16-bit A.
// CHECK-LABEL: func.func @transposed_a
// CHECK: %[[X:.*]] = tilegpu.local_alloc : memref<3x32x64xf16, 3>
// CHECK: %[[T:.*]] = tilegpu.transpose_slots %[[X]]
// CHECK: scf.for
// CHECK: %[[REGS:.*]] = tilegpu.local_load %[[T]][%{{.*}}] : memref<3x64x32xf16, strided<[2048, 1, 64]>, 3> -> tensor<64x32xf16, #dot_op>
// CHECK-NEXT: tilegpu.warpgroup_dot %[[REGS]],
func.func @transposed_a(%x: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                                 %o: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                                 %b: tensor<32x64xf16>, %n: i32) {
  %r32 = tile.range 0 to 32 : tensor<32xi32>
  %r64 = tile.range 0 to 64 : tensor<64xi32>
  %xr = tile.expand_dims %r32 axis 1 : tensor<32xi32> -> tensor<32x1xi32>
  %c64x = arith.constant dense<64> : tensor<32x1xi32>
  %xro = arith.muli %xr, %c64x : tensor<32x1xi32>
  %xrb = tile.broadcast %xro : tensor<32x1xi32> -> tensor<32x64xi32>
  %k64 = tile.expand_dims %r64 axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %xcb = tile.broadcast %k64 : tensor<1x64xi32> -> tensor<32x64xi32>
  %xoff = arith.addi %xrb, %xcb : tensor<32x64xi32>
  %xs = tile.splat %x : !tile.ptr<f16> -> tensor<32x64x!tile.ptr<f16>>
  %xp = tile.addptr %xs, %xoff : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc = scf.for %i = %c0 to %n step %c1 iter_args(%acc_i = %zero) -> (tensor<64x64xf32>) : i32 {
    %v = tile.load %xp : tensor<32x64x!tile.ptr<f16>> -> tensor<32x64xf16>
    %vt = tile.trans %v [1, 0] : tensor<32x64xf16> -> tensor<64x32xf16>
    %d = tile.dot %vt, %b, %acc_i : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  %s = tile.reduce %acc axis 1 : tensor<64x64xf32> -> tensor<64xf32> {
  ^bb0(%l: f32, %r: f32):
    %sum = arith.addf %l, %r : f32
    tile.yield %sum : f32
  }
  %os = tile.splat %o : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %op = tile.addptr %os, %r64 : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  tile.store %op, %s : tensor<64x!tile.ptr<f32>>, tensor<64xf32>
  return
}
