// RUN: kiln-opt %s -split-input-file -kiln-fuse -kiln-tile=row-block=1 -canonicalize -verify-diagnostics | FileCheck %s

// x[1:] - x[:-1]: the tile kernel reads its one input twice, at element
// (i, j) and at (i + 1, j): 16 further on.
// CHECK-LABEL: func.func @difference_kernel0_tile
// CHECK-SAME: (%[[X:.*]]: !tile.ptr<f32>, %[[Y:.*]]: !tile.ptr<f32>)
// CHECK-DAG: %[[C16:.*]] = arith.constant dense<16> : tensor<128xi32>
// CHECK: %[[COL:.*]] = arith.remsi %{{.*}}, %[[C16]]
// CHECK: %[[ROW:.*]] = arith.remsi
// CHECK: %[[ROWOFF:.*]] = arith.muli %[[ROW]], %[[C16]]
// CHECK: %[[AT:.*]] = arith.addi %[[COL]], %[[ROWOFF]]
// CHECK: %[[NEXT:.*]] = arith.addi %[[AT]], %[[C16]]
// CHECK: %[[XS:.*]] = tile.splat %[[X]]
// CHECK: tile.addptr %[[XS]], %[[NEXT]]
// CHECK: tile.load
// CHECK: tile.splat %[[X]]
// CHECK: tile.load
// CHECK: arith.subf
// CHECK-NOT: tile.load
func.func @difference(%x: tensor<8x16xf32>) -> tensor<7x16xf32> {
  %next = tensor.extract_slice %x[1, 0] [7, 16] [1, 1] : tensor<8x16xf32> to tensor<7x16xf32>
  %this = tensor.extract_slice %x[0, 0] [7, 16] [1, 1] : tensor<8x16xf32> to tensor<7x16xf32>
  %e = tensor.empty() : tensor<7x16xf32>
  %d = linalg.sub ins(%next, %this : tensor<7x16xf32>, tensor<7x16xf32>) outs(%e : tensor<7x16xf32>) -> tensor<7x16xf32>
  return %d : tensor<7x16xf32>
}

// -----

// x[:, 1::2].max(1) over a dynamic number of rows: row r starts at
// element 16 r + 1 of x, its columns 2 apart; the plan sizes the grid by
// x's rows (the slice takes that dimension whole).
// CHECK-LABEL: func.func @odd_column_max_kernel0_tile
// CHECK-SAME: (%[[X:.*]]: !tile.ptr<f32>, %{{.*}}: !tile.ptr<f32>, %{{.*}}: i32)
// CHECK-DAG: %[[TWO:.*]] = arith.constant dense<2> : tensor<8xi32>
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : i32
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i32
// CHECK: %[[PID:.*]] = tile.program_id x
// CHECK: %[[COLS:.*]] = tile.range 0 to 8
// CHECK: %[[ROW:.*]] = arith.muli %[[PID]], %[[C16]] : i32
// CHECK: %[[START:.*]] = arith.addi %[[ROW]], %[[C1]] : i32
// CHECK: %[[BASE:.*]] = tile.addptr %[[X]], %[[START]]
// CHECK: %[[SPLAT:.*]] = tile.splat %[[BASE]]
// CHECK: %[[STEP:.*]] = arith.muli %[[COLS]], %[[TWO]]
// CHECK: tile.addptr %[[SPLAT]], %[[STEP]]
// CHECK: tile.reduce
// CHECK: arith.maximumf
// CHECK-LABEL: func.func @odd_column_max
// CHECK-SAME: plan.sizes = array<i64: 0, 0>
func.func @odd_column_max(%x: tensor<?x16xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x16xf32>
  %s = tensor.extract_slice %x[0, 1] [%n, 8] [1, 2] : tensor<?x16xf32> to tensor<?x8xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty(%n) : tensor<?xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %r = linalg.reduce ins(%s : tensor<?x8xf32>) outs(%f : tensor<?xf32>) dimensions = [1]
    (%a: f32, %acc: f32) {
      %q = arith.maximumf %a, %acc : f32
      linalg.yield %q : f32
    }
  return %r : tensor<?xf32>
}
