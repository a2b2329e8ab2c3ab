// RUN: kiln-opt %s -split-input-file -tile-carry-block-pointers | FileCheck %s

// Triton's descriptor idiom: the block at (row, k * 64) made in the loop
// becomes a block pointer made at the lower bound before the loop and
// advanced by step * 64 along the second dimension.
// CHECK-LABEL: func.func @descriptor_loop
// CHECK-SAME: (%[[BASE:.*]]: !tile.ptr<f16>, %[[M:.*]]: i64, %[[K:.*]]: i64, %[[ROW:.*]]: i32, %[[LB:.*]]: i32, %[[UB:.*]]: i32, %[[STEP:.*]]: i32)
// CHECK: %[[C64:.*]] = arith.constant 64 : i32
// CHECK: %[[START_K:.*]] = arith.muli %[[LB]], %[[C64]] : i32
// CHECK: %[[START:.*]] = tile.make_block_ptr %[[BASE]], [%[[M]], %[[K]]], [%[[K]], %{{.*}}], [%[[ROW]], %[[START_K]]]
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[MOVE:.*]] = arith.muli %[[STEP]], %[[C64]] : i32
// CHECK: scf.for %{{.*}} = %[[LB]] to %[[UB]] step %[[STEP]] iter_args(%[[ACC:.*]] = %{{.*}}, %[[BP:.*]] = %[[START]])
// CHECK-NOT: tile.make_block_ptr
// CHECK: tile.block_load %[[BP]]
// CHECK: %[[NEXT:.*]] = tile.advance %[[BP]], [%[[ZERO]], %[[MOVE]]]
// CHECK: scf.yield %{{.*}}, %[[NEXT]]
func.func @descriptor_loop(%base: !tile.ptr<f16>, %m: i64, %k: i64,
                           %row: i32, %lb: i32, %ub: i32, %step: i32)
    -> tensor<32x64xf16> {
  %c1 = arith.constant 1 : i64
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<32x64xf16>
  %r = scf.for %i = %lb to %ub step %step iter_args(%acc = %zero)
      -> (tensor<32x64xf16>) : i32 {
    %col = arith.muli %i, %c64 : i32
    %bp = tile.make_block_ptr %base, [%m, %k], [%k, %c1], [%row, %col]
        {order = array<i32: 1, 0>} : !tile.ptr<f16> -> !tile.block_ptr<32x64xf16>
    %t = tile.block_load %bp boundary_check = [0, 1]
        : !tile.block_ptr<32x64xf16> -> tensor<32x64xf16>
    %sum = arith.addf %acc, %t : tensor<32x64xf16>
    scf.yield %sum : tensor<32x64xf16>
  }
  return %r : tensor<32x64xf16>
}

// -----

// An offset of (3 - 2 * i) * 16 + row moves by -32 steps per iteration.
// CHECK-LABEL: func.func @affine_offsets
// CHECK: %[[START:.*]] = tile.make_block_ptr
// CHECK: %[[TWICE:.*]] = arith.muli %{{.*}}, %{{.*}} : i32
// CHECK: %[[BACK:.*]] = arith.subi %{{.*}}, %[[TWICE]] : i32
// CHECK: %[[MOVE:.*]] = arith.muli %[[BACK]], %{{.*}} : i32
// CHECK: scf.for {{.*}} iter_args(%[[BP:.*]] = %[[START]])
// CHECK: tile.advance %[[BP]], [%[[MOVE]]]
func.func @affine_offsets(%base: !tile.ptr<f32>, %n: i64, %row: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c16 = arith.constant 16 : i32
  %s1 = arith.constant 1 : i64
  scf.for %i = %c0 to %c8 step %c1 : i32 {
    %twice = arith.muli %c2, %i : i32
    %back = arith.subi %c3, %twice : i32
    %scaled = arith.muli %back, %c16 : i32
    %off = arith.addi %scaled, %row : i32
    %bp = tile.make_block_ptr %base, [%n], [%s1], [%off]
        {order = array<i32: 0>} : !tile.ptr<f32> -> !tile.block_ptr<16xf32>
    %t = tile.block_load %bp boundary_check = [0]
        : !tile.block_ptr<16xf32> -> tensor<16xf32>
    tile.block_store %bp, %t boundary_check = [0]
        : !tile.block_ptr<16xf32>, tensor<16xf32>
  }
  return
}

// -----

// Triton's attention idiom: the rows of K at an offset the loop carries
// and advances by a step of its own (`offset_y += BLOCK_N`), not through
// the induction variable. The block pointer starts at the offset's
// initial value and moves by that step.
// CHECK-LABEL: func.func @carried_offset
// CHECK-SAME: (%[[BASE:.*]]: !tile.ptr<f16>, %[[ROWS:.*]]: i64, %[[START_ROW:.*]]: i32, %[[N:.*]]: i32)
// CHECK: %[[START:.*]] = tile.make_block_ptr %[[BASE]], [%[[ROWS]], %{{.*}}], [%{{.*}}, %{{.*}}], [%[[START_ROW]], %{{.*}}]
// CHECK: %[[MOVE:.*]] = arith.constant 64 : i32
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %[[START_ROW]], %[[BP:.*]] = %[[START]])
// CHECK-NOT: tile.make_block_ptr
// CHECK: tile.block_load %[[BP]]
// CHECK: tile.advance %[[BP]], [%[[MOVE]], %{{.*}}]
func.func @carried_offset(%base: !tile.ptr<f16>, %rows: i64, %start: i32,
                          %n: i32) -> tensor<64x64xf16> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %cols = arith.constant 64 : i64
  %s1 = arith.constant 1 : i64
  %zero = arith.constant dense<0.0> : tensor<64x64xf16>
  %acc, %last = scf.for %i = %c0 to %n step %c1
      iter_args(%acc_i = %zero, %off = %start) -> (tensor<64x64xf16>, i32) : i32 {
    %bp = tile.make_block_ptr %base, [%rows, %cols], [%cols, %s1], [%off, %c0]
        {order = array<i32: 1, 0>} : !tile.ptr<f16> -> !tile.block_ptr<64x64xf16>
    %t = tile.block_load %bp : !tile.block_ptr<64x64xf16> -> tensor<64x64xf16>
    %sum = arith.addf %acc_i, %t : tensor<64x64xf16>
    %c64 = arith.constant 64 : i32
    %next = arith.addi %off, %c64 : i32
    scf.yield %sum, %next : tensor<64x64xf16>, i32
  }
  return %acc : tensor<64x64xf16>
}

// -----

// Left in the loop: an offset not affine in the induction variable
// (i * i), a base the loop computes, an index-typed loop, and an offset
// the loop carries whose step changes (`off += i`).
// CHECK-LABEL: func.func @not_carried
// CHECK: scf.for
// CHECK: tile.make_block_ptr
// CHECK: scf.for
// CHECK: tile.make_block_ptr
// CHECK: scf.for
// CHECK: tile.make_block_ptr
// CHECK: scf.for
// CHECK: tile.make_block_ptr
// CHECK-NOT: tile.advance
func.func @not_carried(%base: !tile.ptr<f32>, %n: i64) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %s1 = arith.constant 1 : i64
  scf.for %i = %c0 to %c8 step %c1 : i32 {
    %sq = arith.muli %i, %i : i32
    %bp = tile.make_block_ptr %base, [%n], [%s1], [%sq]
        {order = array<i32: 0>} : !tile.ptr<f32> -> !tile.block_ptr<16xf32>
    %t = tile.block_load %bp boundary_check = [0]
        : !tile.block_ptr<16xf32> -> tensor<16xf32>
    tile.block_store %bp, %t boundary_check = [0]
        : !tile.block_ptr<16xf32>, tensor<16xf32>
  }
  scf.for %i = %c0 to %c8 step %c1 : i32 {
    %moved = tile.addptr %base, %i : !tile.ptr<f32>, i32
    %bp = tile.make_block_ptr %moved, [%n], [%s1], [%i]
        {order = array<i32: 0>} : !tile.ptr<f32> -> !tile.block_ptr<16xf32>
    %t = tile.block_load %bp boundary_check = [0]
        : !tile.block_ptr<16xf32> -> tensor<16xf32>
    tile.block_store %bp, %t boundary_check = [0]
        : !tile.block_ptr<16xf32>, tensor<16xf32>
  }
  %x0 = arith.constant 0 : index
  %x1 = arith.constant 1 : index
  %x8 = arith.constant 8 : index
  scf.for %j = %x0 to %x8 step %x1 {
    %i = arith.index_cast %j : index to i32
    %bp = tile.make_block_ptr %base, [%n], [%s1], [%i]
        {order = array<i32: 0>} : !tile.ptr<f32> -> !tile.block_ptr<16xf32>
    %t = tile.block_load %bp boundary_check = [0]
        : !tile.block_ptr<16xf32> -> tensor<16xf32>
    tile.block_store %bp, %t boundary_check = [0]
        : !tile.block_ptr<16xf32>, tensor<16xf32>
  }
  %last = scf.for %i = %c0 to %c8 step %c1 iter_args(%off = %c0) -> (i32) : i32 {
    %bp = tile.make_block_ptr %base, [%n], [%s1], [%off]
        {order = array<i32: 0>} : !tile.ptr<f32> -> !tile.block_ptr<16xf32>
    %t = tile.block_load %bp boundary_check = [0]
        : !tile.block_ptr<16xf32> -> tensor<16xf32>
    tile.block_store %bp, %t boundary_check = [0]
        : !tile.block_ptr<16xf32>, tensor<16xf32>
    %next = arith.addi %off, %i : i32
    scf.yield %next : i32
  }
  return
}
