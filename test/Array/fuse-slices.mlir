// RUN: kiln-opt %s -split-input-file -kiln-fuse -verify-diagnostics | FileCheck %s

// Slices of constant offsets and strides are views: a kernel that reads
// one takes the slice's source as its input and keeps the slice, so that
// x[1:] - x[:-1] is one kernel reading x (no copy of either slice).
// CHECK-LABEL: func.func private @difference_kernel0
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>) -> tensor<7x16xf32>
// CHECK-DAG: %[[NEXT:.*]] = tensor.extract_slice %[[X]][1, 0] [7, 16] [1, 1]
// CHECK-DAG: %[[THIS:.*]] = tensor.extract_slice %[[X]][0, 0] [7, 16] [1, 1]
// CHECK: linalg.generic {{.*}} ins(%[[NEXT]], %[[THIS]] : tensor<7x16xf32>, tensor<7x16xf32>)
// CHECK: arith.subf
// CHECK-LABEL: func.func @difference
// CHECK-NOT: tensor.extract_slice
// CHECK: call @difference_kernel0(%{{.*}})
// CHECK-NOT: call
func.func @difference(%x: tensor<8x16xf32>) -> tensor<7x16xf32> {
  %next = tensor.extract_slice %x[1, 0] [7, 16] [1, 1] : tensor<8x16xf32> to tensor<7x16xf32>
  %this = tensor.extract_slice %x[0, 0] [7, 16] [1, 1] : tensor<8x16xf32> to tensor<7x16xf32>
  %e = tensor.empty() : tensor<7x16xf32>
  %d = linalg.sub ins(%next, %this : tensor<7x16xf32>, tensor<7x16xf32>) outs(%e : tensor<7x16xf32>) -> tensor<7x16xf32>
  return %d : tensor<7x16xf32>
}

// -----

// A slice feeding a row reduction is read in place by the row kernel,
// with negative strides and a dropped dimension too; linalg.reduce
// becomes its generic, its reduced loop last (here, x's first axis).
// CHECK: #[[$T:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK: #[[$ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func private @reversed_column_sums_kernel0
// CHECK-SAME: (%[[X:.*]]: tensor<8x3x16xf32>) -> tensor<8xf32>
// CHECK: %[[S:.*]] = tensor.extract_slice %[[X]][7, 2, 15] [4, 1, 8] [-2, 1, -2] : tensor<8x3x16xf32> to tensor<4x8xf32>
// CHECK: linalg.generic {indexing_maps = [#[[$T:.*]], #[[$ROW:.*]]], iterator_types = ["parallel", "reduction"]} ins(%[[S]] : tensor<4x8xf32>)
// CHECK: arith.addf
// CHECK-LABEL: func.func @reversed_column_sums
// CHECK: call @reversed_column_sums_kernel0
// CHECK-NOT: call
func.func @reversed_column_sums(%x: tensor<8x3x16xf32>) -> tensor<8xf32> {
  %s = tensor.extract_slice %x[7, 2, 15] [4, 1, 8] [-2, 1, -2] : tensor<8x3x16xf32> to tensor<4x8xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %r = linalg.reduce ins(%s : tensor<4x8xf32>) outs(%f : tensor<8xf32>) dimensions = [0]
    (%a: f32, %acc: f32) {
      %q = arith.addf %a, %acc : f32
      linalg.yield %q : f32
    }
  return %r : tensor<8xf32>
}

// -----

// What reads a buffer, not a view (a return, a matmul, a reshape), reads
// a copy of the slice, one per use (each a buffer of its own); the copies
// read x alike and are one kernel.
// CHECK-LABEL: func.func private @copied_kernel0
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>)
// CHECK: %[[S:.*]] = tensor.extract_slice %[[X]][0, 2] [8, 4] [1, 1]
// CHECK-COUNT-3: linalg.generic {{.*}} ins(%[[S]] : tensor<8x4xf32>)
// CHECK-LABEL: func.func private @copied_kernel1
// CHECK: linalg.matmul
// CHECK-LABEL: func.func @copied
// CHECK: %[[COPIES:.*]]:3 = call @copied_kernel0
// CHECK: %[[MM:.*]] = call @copied_kernel1(%[[COPIES]]#0, %{{.*}})
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[COPIES]]#1
// CHECK: return %[[COPIES]]#2, %[[MM]], %[[FLAT]]
func.func @copied(%x: tensor<8x16xf32>, %w: tensor<4x5xf32>) -> (tensor<8x4xf32>, tensor<8x5xf32>, tensor<32xf32>) {
  %s = tensor.extract_slice %x[0, 2] [8, 4] [1, 1] : tensor<8x16xf32> to tensor<8x4xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x5xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x5xf32>) -> tensor<8x5xf32>
  %m = linalg.matmul ins(%s, %w : tensor<8x4xf32>, tensor<4x5xf32>) outs(%f : tensor<8x5xf32>) -> tensor<8x5xf32>
  %flat = tensor.collapse_shape %s [[0, 1]] : tensor<8x4xf32> into tensor<32xf32>
  return %s, %m, %flat : tensor<8x4xf32>, tensor<8x5xf32>, tensor<32xf32>
}

// -----

// A slice of an elementwise result is computed from slices of its
// inputs (a broadcast bias sliced along its one dimension), in the kernel
// that reads it: exp(x + b)[1:, ::2] is one kernel, of 7 x 8 elements.
// CHECK-LABEL: func.func private @bubbled_kernel0
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>, %[[B:.*]]: tensor<16xf32>) -> tensor<7x8xf32>
// CHECK-DAG: %[[XS:.*]] = tensor.extract_slice %[[X]][1, 0] [7, 8] [1, 2] : tensor<8x16xf32> to tensor<7x8xf32>
// CHECK-DAG: %[[BS:.*]] = tensor.extract_slice %[[B]][0] [8] [2] : tensor<16xf32> to tensor<8xf32>
// CHECK: linalg.generic {{.*}} ins(%[[XS]], %[[BS]] : tensor<7x8xf32>, tensor<8xf32>)
// CHECK: arith.addf
// CHECK: math.exp
// CHECK: arith.negf
// CHECK-LABEL: func.func @bubbled
// CHECK: call @bubbled_kernel0
// CHECK-NOT: call
func.func @bubbled(%x: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<7x8xf32> {
  %e0 = tensor.empty() : tensor<8x16xf32>
  %bb = linalg.broadcast ins(%b : tensor<16xf32>) outs(%e0 : tensor<8x16xf32>) dimensions = [0]
  %e1 = tensor.empty() : tensor<8x16xf32>
  %sum = linalg.add ins(%x, %bb : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e1 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %e2 = tensor.empty() : tensor<8x16xf32>
  %exp = linalg.exp ins(%sum : tensor<8x16xf32>) outs(%e2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %s = tensor.extract_slice %exp[1, 0] [7, 8] [1, 2] : tensor<8x16xf32> to tensor<7x8xf32>
  %e3 = tensor.empty() : tensor<7x8xf32>
  %r = linalg.negf ins(%s : tensor<7x8xf32>) outs(%e3 : tensor<7x8xf32>) -> tensor<7x8xf32>
  return %r : tensor<7x8xf32>
}

// -----

// An element-picking slice drops the loop it reads at one index: each
// input is read there. (x * w)[3] reads row 3 of x and all of w (a
// slice that takes all folds away).
// CHECK-LABEL: func.func private @row_of_product_kernel0
// CHECK-SAME: (%[[W:.*]]: tensor<16xf32>, %[[X:.*]]: tensor<8x16xf32>) -> tensor<16xf32>
// CHECK: %[[ROW:.*]] = tensor.extract_slice %[[X]][3, 0] [1, 16] [1, 1] : tensor<8x16xf32> to tensor<16xf32>
// CHECK: linalg.generic {{.*}} ins(%[[ROW]], %[[W]] : tensor<16xf32>, tensor<16xf32>)
// CHECK: arith.mulf
func.func @row_of_product(%x: tensor<8x16xf32>, %w: tensor<16xf32>) -> tensor<16xf32> {
  %e0 = tensor.empty() : tensor<8x16xf32>
  %wb = linalg.broadcast ins(%w : tensor<16xf32>) outs(%e0 : tensor<8x16xf32>) dimensions = [0]
  %e1 = tensor.empty() : tensor<8x16xf32>
  %p = linalg.mul ins(%x, %wb : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e1 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %s = tensor.extract_slice %p[3, 0] [1, 16] [1, 1] : tensor<8x16xf32> to tensor<16xf32>
  %e2 = tensor.empty() : tensor<16xf32>
  %r = linalg.negf ins(%s : tensor<16xf32>) outs(%e2 : tensor<16xf32>) -> tensor<16xf32>
  return %r : tensor<16xf32>
}

// -----

// A slice of a value a kernel computes and cannot recompute for it (a
// reduction's) is read from memory by the next kernel: a kernel reads
// slices of its inputs only.
// CHECK-LABEL: func.func private @sliced_sums_kernel0
// CHECK: arith.addf
// CHECK-LABEL: func.func private @sliced_sums_kernel1
// CHECK-SAME: (%[[S:.*]]: tensor<8xf32>) -> tensor<4xf32>
// CHECK: tensor.extract_slice %[[S]][0] [4] [2]
// CHECK-LABEL: func.func @sliced_sums
// CHECK: %[[SUMS:.*]] = call @sliced_sums_kernel0
// CHECK: call @sliced_sums_kernel1(%[[SUMS]])
func.func @sliced_sums(%x: tensor<8x16xf32>) -> tensor<4xf32> {
  %z = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e0 : tensor<8xf32>) -> tensor<8xf32>
  %sums = linalg.reduce ins(%x : tensor<8x16xf32>) outs(%f : tensor<8xf32>) dimensions = [1]
    (%a: f32, %acc: f32) {
      %q = arith.addf %a, %acc : f32
      linalg.yield %q : f32
    }
  %s = tensor.extract_slice %sums[0] [4] [2] : tensor<8xf32> to tensor<4xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %r = linalg.negf ins(%s : tensor<4xf32>) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// A dynamic dimension taken whole is read in place.
// CHECK-LABEL: func.func private @dynamic_rows_kernel0
// CHECK-SAME: (%[[X:.*]]: tensor<?x16xf32>) -> tensor<?x8xf32>
// CHECK: tensor.extract_slice %[[X]][0, 1] [%{{.*}}, 8] [1, 2]
func.func @dynamic_rows(%x: tensor<?x16xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x16xf32>
  %s = tensor.extract_slice %x[0, 1] [%n, 8] [1, 2] : tensor<?x16xf32> to tensor<?x8xf32>
  %e = tensor.empty(%n) : tensor<?x8xf32>
  %r = linalg.negf ins(%s : tensor<?x8xf32>) outs(%e : tensor<?x8xf32>) -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}

// -----

func.func @negative_dynamic_offset(%x: tensor<16xf32>, %i: index) -> tensor<4xf32> {
  // expected-error @+1 {{kiln-fuse: dimension 0 of this slice needs a constant offset and stride (and to be taken whole where its size is dynamic)}}
  %s = tensor.extract_slice %x[%i] [4] [1] : tensor<16xf32> to tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

func.func @negative_part_of_a_dynamic_dimension(%x: tensor<?xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{kiln-fuse: dimension 0 of this slice needs a constant offset and stride (and to be taken whole where its size is dynamic)}}
  %s = tensor.extract_slice %x[1] [4] [1] : tensor<?xf32> to tensor<4xf32>
  return %s : tensor<4xf32>
}
