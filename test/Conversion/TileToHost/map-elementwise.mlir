// RUN: kiln-opt %s -split-input-file -kiln-convert-tile-to-host | FileCheck %s

// tile.map_elementwise on the host: a loop over groups of `pack` elements
// in row-major order (the tiles flattened), each extracting its group of
// every operand, running a clone of the region on it and inserting what it
// yields into the results. 15 elements make 7 groups of 2 in the loop and
// a last group of one element, whose second arguments are copies of it
// and whose second yielded values are dropped. The region's pointers are
// i64 addresses, as every pointer on the host; its branch stays a branch.
// CHECK-LABEL: func.func @pairs
// CHECK-SAME: (%[[N:[a-z0-9]+]]: tensor<3x5xi32>, %[[P:[a-z0-9]+]]: tensor<3x5xi64>
// CHECK-DAG: %[[NS:.*]] = tensor.collapse_shape %[[N]] {{\[}}[0, 1]] : tensor<3x5xi32> into tensor<15xi32>
// CHECK-DAG: %[[PS:.*]] = tensor.collapse_shape %[[P]] {{\[}}[0, 1]] : tensor<3x5xi64> into tensor<15xi64>
// CHECK-DAG: %[[V:.*]] = tensor.empty() : tensor<15xf32>
// CHECK-DAG: %[[Q:.*]] = tensor.empty() : tensor<15xi64>
// CHECK-DAG: %[[SEVEN:.*]] = arith.constant 7 : index
// CHECK: %[[LOOP:.*]]:2 = scf.for %[[G:.*]] = %{{.*}} to %[[SEVEN]] step %{{.*}} iter_args(%[[VS:.*]] = %[[V]], %[[QS:.*]] = %[[Q]]) -> (tensor<15xf32>, tensor<15xi64>) {
// CHECK:   %[[FIRST:.*]] = arith.muli %[[G]], %{{.*}} : index
// CHECK:   %[[I0:.*]] = arith.addi %[[FIRST]], %{{.*}} : index
// CHECK:   %[[I1:.*]] = arith.addi %[[FIRST]], %{{.*}} : index
// CHECK:   %[[N0:.*]] = tensor.extract %[[NS]][%[[I0]]] : tensor<15xi32>
// CHECK:   %[[N1:.*]] = tensor.extract %[[NS]][%[[I1]]] : tensor<15xi32>
// CHECK:   %[[P0:.*]] = tensor.extract %[[PS]][%[[I0]]] : tensor<15xi64>
// CHECK:   %[[P1:.*]] = tensor.extract %[[PS]][%[[I1]]] : tensor<15xi64>
// CHECK:   %[[POSITIVE:.*]] = arith.cmpi sgt, %[[N0]], %{{.*}} : i32
// CHECK:   %[[V0:.*]] = scf.if %[[POSITIVE]] -> (f32) {
// CHECK:     %[[ADDRESS:.*]] = llvm.inttoptr %[[P0]] : i64 to !llvm.ptr
// CHECK:     llvm.load %[[ADDRESS]] : !llvm.ptr -> f32
// CHECK:   %[[V1:.*]] = arith.sitofp %[[N1]] : i32 to f32
// CHECK:   %[[Q0:.*]] = arith.addi %[[P0]], %{{.*}} : i64
// CHECK:   %[[VS0:.*]] = tensor.insert %[[V0]] into %[[VS]][%[[I0]]] : tensor<15xf32>
// CHECK:   %[[VS1:.*]] = tensor.insert %[[V1]] into %[[VS0]][%[[I1]]] : tensor<15xf32>
// CHECK:   %[[QS0:.*]] = tensor.insert %[[Q0]] into %[[QS]][%[[I0]]] : tensor<15xi64>
// CHECK:   %[[QS1:.*]] = tensor.insert %[[P1]] into %[[QS0]][%[[I1]]] : tensor<15xi64>
// CHECK:   scf.yield %[[VS1]], %[[QS1]] : tensor<15xf32>, tensor<15xi64>
// CHECK: %[[LAST:.*]] = arith.constant 14 : index
// CHECK: tensor.extract %[[NS]][%[[LAST]]] : tensor<15xi32>
// CHECK-NEXT: tensor.extract %[[NS]][%[[LAST]]] : tensor<15xi32>
// CHECK: scf.if
// CHECK: %[[VT:.*]] = tensor.insert %{{.*}} into %[[LOOP]]#0[%[[LAST]]] : tensor<15xf32>
// CHECK-NEXT: %[[QT:.*]] = tensor.insert %{{.*}} into %[[LOOP]]#1[%[[LAST]]] : tensor<15xi64>
// CHECK-NEXT: tensor.expand_shape %[[VT]] {{\[}}[0, 1]] output_shape [3, 5] : tensor<15xf32> into tensor<3x5xf32>
// CHECK-NEXT: tensor.expand_shape %[[QT]] {{\[}}[0, 1]] output_shape [3, 5] : tensor<15xi64> into tensor<3x5xi64>
func.func @pairs(%n: tensor<3x5xi32>, %p: tensor<3x5x!tile.ptr<f32>>) {
  %v, %q = tile.map_elementwise %n, %p pack = 2
      : (tensor<3x5xi32>, tensor<3x5x!tile.ptr<f32>>) -> (tensor<3x5xf32>, tensor<3x5x!tile.ptr<f32>>) {
  ^bb0(%n0: i32, %n1: i32, %p0: !tile.ptr<f32>, %p1: !tile.ptr<f32>):
    %zero = arith.constant 0 : i32
    %positive = arith.cmpi sgt, %n0, %zero : i32
    %v0 = scf.if %positive -> f32 {
      %l = tile.load %p0 : !tile.ptr<f32> -> f32
      scf.yield %l : f32
    } else {
      %c = arith.constant 0.0 : f32
      scf.yield %c : f32
    }
    %v1 = arith.sitofp %n1 : i32 to f32
    %q0 = tile.addptr %p0, %n1 : !tile.ptr<f32>, i32
    tile.yield %v0, %v1, %q0, %p1 : f32, f32, !tile.ptr<f32>, !tile.ptr<f32>
  }
  tile.store %q, %v : tensor<3x5x!tile.ptr<f32>>, tensor<3x5xf32>
  return
}

// -----

// Scalars are one group, filled with copies of the scalar; the first
// value yielded for each result is the result.
// CHECK-LABEL: func.func @scalars
// CHECK-SAME: (%[[X:[a-z0-9]+]]: f32, %[[OUT:[a-z0-9]+]]: i64
// CHECK: %[[SUM:.*]] = arith.addf %[[X]], %[[X]] : f32
// CHECK: arith.mulf %[[X]], %[[X]] : f32
// CHECK: %[[ADDRESS:.*]] = llvm.inttoptr %[[OUT]] : i64 to !llvm.ptr
// CHECK: llvm.store %[[SUM]], %[[ADDRESS]] : f32, !llvm.ptr
func.func @scalars(%x: f32, %out: !tile.ptr<f32>) {
  %y = tile.map_elementwise %x pack = 2 : (f32) -> f32 {
  ^bb0(%x0: f32, %x1: f32):
    %s0 = arith.addf %x0, %x1 : f32
    %s1 = arith.mulf %x0, %x1 : f32
    tile.yield %s0, %s1 : f32, f32
  }
  tile.store %out, %y : !tile.ptr<f32>, f32
  return
}
