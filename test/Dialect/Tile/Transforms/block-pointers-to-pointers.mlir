// RUN: kiln-opt %s -split-input-file -tile-block-pointers-to-pointers -canonicalize -verify-diagnostics | FileCheck %s

// Triton's block-pointer matmul idiom: a block pointer carried by the loop
// and advanced along K. The loop carries the column offset alone (the
// other fields do not change, and canonicalization drops them); each step
// loads through base + row * stride + column, masked to the columns
// inside the tensor, NaN outside.
// CHECK-LABEL: func.func @loop_carried
// CHECK-SAME: (%[[BASE:.*]]: !tile.ptr<f16>, %[[OUT:.*]]: !tile.ptr<f16>, %[[M:.*]]: i64, %[[K:.*]]: i64, %[[ROW:.*]]: i32, %[[N:.*]]: i32)
// CHECK-DAG: %[[NAN:.*]] = arith.constant dense<0x7E00> : tensor<16x32xf16>
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : i32
// CHECK: %[[LOOP:.*]]:2 = scf.for %{{.*}} = %[[C0]] to %[[N]] step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[COL:.*]] = %[[C0]]) -> (tensor<16x32xf16>, i32)
// The row offset, an argument, may be anywhere: its indices are summed in
// 64 bits, where an offset near 2^31 plus the run does not wrap. The
// column offset starts at 0 and moves by 32, the block's width: its sum
// stays under 2^31 in 32 bits.
// CHECK: %[[ROWS:.*]] = tile.range 0 to 16
// CHECK: %[[ROWS_WIDE:.*]] = arith.extsi %[[ROWS]] : tensor<16xi32> to tensor<16xi64>
// CHECK: %[[ROW_WIDE:.*]] = arith.extsi %[[ROW]] : i32 to i64
// CHECK: %[[ROW_SPLAT:.*]] = tile.splat %[[ROW_WIDE]] : i64 -> tensor<16xi64>
// CHECK: %[[ROW_INDEX:.*]] = arith.addi %[[ROW_SPLAT]], %[[ROWS_WIDE]]
// CHECK: %[[ROW_2D:.*]] = tile.expand_dims %[[ROW_INDEX]] axis 1 : tensor<16xi64> -> tensor<16x1xi64>
// CHECK: %[[STRIDE:.*]] = tile.splat %[[K]] : i64 -> tensor<16x1xi64>
// CHECK: %[[ROW_OFFSET:.*]] = arith.muli %[[ROW_2D]], %[[STRIDE]]
// CHECK: %[[ROW_BLOCK:.*]] = tile.broadcast %[[ROW_OFFSET]] : tensor<16x1xi64> -> tensor<16x32xi64>
// CHECK: %[[COLS:.*]] = tile.range 0 to 32
// CHECK: %[[COL_SPLAT:.*]] = tile.splat %[[COL]] : i32 -> tensor<32xi32>
// CHECK: %[[COL_INDEX:.*]] = arith.addi %[[COL_SPLAT]], %[[COLS]] : tensor<32xi32>
// CHECK: %[[COL_WIDE:.*]] = arith.extsi %[[COL_INDEX]] : tensor<32xi32> to tensor<32xi64>
// CHECK: %[[COL_2D:.*]] = tile.expand_dims %[[COL_WIDE]] axis 0 : tensor<32xi64> -> tensor<1x32xi64>
// CHECK: %[[COL_BLOCK:.*]] = tile.broadcast %[[COL_2D]] : tensor<1x32xi64> -> tensor<16x32xi64>
// CHECK: %[[OFFSETS:.*]] = arith.addi %[[ROW_BLOCK]], %[[COL_BLOCK]]
// CHECK: %[[SIZE:.*]] = tile.splat %[[K]] : i64 -> tensor<1x32xi64>
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[COL_2D]], %[[SIZE]]
// CHECK: %[[MASK:.*]] = tile.broadcast %[[IN]] : tensor<1x32xi1> -> tensor<16x32xi1>
// CHECK: %[[BASES:.*]] = tile.splat %[[BASE]] : !tile.ptr<f16> -> tensor<16x32x!tile.ptr<f16>>
// CHECK: %[[PTRS:.*]] = tile.addptr %[[BASES]], %[[OFFSETS]]
// CHECK: tile.load %[[PTRS]], %[[MASK]], other %[[NAN]] {tile.eviction = "evict_last"}
// CHECK: %[[NEXT:.*]] = arith.addi %[[COL]], %[[C32]] : i32
// CHECK: scf.yield %{{.*}}, %[[NEXT]]
// Both dimensions checked for the store: the two masks are and-ed.
// CHECK: %[[ROW_IN:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : tensor<16x1xi64>
// CHECK: %[[COL_IN:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : tensor<1x32xi64>
// CHECK: %[[BOTH:.*]] = arith.andi
// CHECK: tile.store %{{.*}}, %[[LOOP]]#0, %[[BOTH]]
// CHECK-NOT: tile.block
func.func @loop_carried(%base: !tile.ptr<f16>, %out: !tile.ptr<f16>,
                        %m: i64, %k: i64, %row: i32, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %s1 = arith.constant 1 : i64
  %zero = arith.constant dense<0.0> : tensor<16x32xf16>
  %bp0 = tile.make_block_ptr %base, [%m, %k], [%k, %s1], [%row, %c0]
      {order = array<i32: 1, 0>} : !tile.ptr<f16> -> !tile.block_ptr<16x32xf16>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero, %bp = %bp0)
      -> (tensor<16x32xf16>, !tile.block_ptr<16x32xf16>) : i32 {
    %t = tile.block_load %bp boundary_check = [1] padding = nan
        {tile.eviction = "evict_last"}
        : !tile.block_ptr<16x32xf16> -> tensor<16x32xf16>
    %sum = arith.addf %acc, %t : tensor<16x32xf16>
    %next = tile.advance %bp, [%c0, %c32] : !tile.block_ptr<16x32xf16>
    scf.yield %sum, %next : tensor<16x32xf16>, !tile.block_ptr<16x32xf16>
  }
  %ob = tile.make_block_ptr %out, [%m, %k], [%k, %s1], [%row, %c0]
      {order = array<i32: 1, 0>} : !tile.ptr<f16> -> !tile.block_ptr<16x32xf16>
  tile.block_store %ob, %r#0 boundary_check = [0, 1]
      : !tile.block_ptr<16x32xf16>, tensor<16x32xf16>
  return
}

// -----

// A 1-D block without a boundary check: no mask, no padding.
// CHECK-LABEL: func.func @unchecked
// CHECK: %[[PTRS:.*]] = tile.addptr
// CHECK: tile.load %[[PTRS]] : tensor<64x!tile.ptr<f32>> -> tensor<64xf32>
func.func @unchecked(%base: !tile.ptr<f32>, %n: i64, %at: i32)
    -> tensor<64xf32> {
  %s1 = arith.constant 1 : i64
  %bp = tile.make_block_ptr %base, [%n], [%s1], [%at]
      {order = array<i32: 0>} : !tile.ptr<f32> -> !tile.block_ptr<64xf32>
  %t = tile.block_load %bp : !tile.block_ptr<64xf32> -> tensor<64xf32>
  return %t : tensor<64xf32>
}

// -----

// A block pointer chosen by scf.if is carried through it as its fields
// (which canonicalization makes a select of the bases).
// CHECK-LABEL: func.func @branch
// CHECK-SAME: (%[[A:.*]]: !tile.ptr<f32>, %[[B:.*]]: !tile.ptr<f32>, %{{.*}}: i64, %[[C:.*]]: i1)
// CHECK: %[[CHOSEN:.*]] = arith.select %[[C]], %[[A]], %[[B]] : !tile.ptr<f32>
// CHECK: tile.splat %[[CHOSEN]] : !tile.ptr<f32> -> tensor<8x!tile.ptr<f32>>
// CHECK-NOT: tile.block
func.func @branch(%a: !tile.ptr<f32>, %b: !tile.ptr<f32>, %n: i64, %c: i1)
    -> tensor<8xf32> {
  %s1 = arith.constant 1 : i64
  %c0 = arith.constant 0 : i32
  %r = scf.if %c -> (!tile.block_ptr<8xf32>) {
    %pa = tile.make_block_ptr %a, [%n], [%s1], [%c0]
        {order = array<i32: 0>} : !tile.ptr<f32> -> !tile.block_ptr<8xf32>
    scf.yield %pa : !tile.block_ptr<8xf32>
  } else {
    %pb = tile.make_block_ptr %b, [%n], [%s1], [%c0]
        {order = array<i32: 0>} : !tile.ptr<f32> -> !tile.block_ptr<8xf32>
    scf.yield %pb : !tile.block_ptr<8xf32>
  }
  %t = tile.block_load %r boundary_check = [0]
      : !tile.block_ptr<8xf32> -> tensor<8xf32>
  return %t : tensor<8xf32>
}

// -----

// A block pointer an op other than those reaches is left as it is, with a
// remark.
// CHECK-LABEL: func.func @selected
// CHECK: tile.block_load
func.func @selected(%a: !tile.ptr<f32>, %n: i64, %c: i1) -> tensor<8xf32> {
  %s1 = arith.constant 1 : i64
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %p = tile.make_block_ptr %a, [%n], [%s1], [%c0]
      {order = array<i32: 0>} : !tile.ptr<f32> -> !tile.block_ptr<8xf32>
  %q = tile.advance %p, [%c8] : !tile.block_ptr<8xf32>
  // expected-remark @below {{block pointers stay as they are in this function, read and written by element: 'arith.select' takes one}}
  %r = arith.select %c, %p, %q : !tile.block_ptr<8xf32>
  %t = tile.block_load %r boundary_check = [0]
      : !tile.block_ptr<8xf32> -> tensor<8xf32>
  return %t : tensor<8xf32>
}
