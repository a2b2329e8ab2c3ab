// RUN: kiln-opt %s -split-input-file -kiln-convert-tile-to-host | FileCheck %s

// tile.extern_elementwise on the host: a loop over the elements in
// row-major order (the tiles flattened), each extracting the element of
// every operand, calling the C math library's function (`host`) on them
// and inserting what it returns into the result. The function is declared
// once, with the elements' types.
// CHECK-LABEL: func.func private @jnf(i32, f32) -> f32
// CHECK-LABEL: func.func @bessel
// CHECK-SAME: (%[[N:[a-z0-9]+]]: tensor<4x8xi32>, %[[X:[a-z0-9]+]]: tensor<4x8xf32>
// CHECK-DAG: %[[NS:.*]] = tensor.collapse_shape %[[N]] {{\[}}[0, 1]] : tensor<4x8xi32> into tensor<32xi32>
// CHECK-DAG: %[[XS:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1]] : tensor<4x8xf32> into tensor<32xf32>
// CHECK-DAG: %[[EMPTY:.*]] = tensor.empty() : tensor<32xf32>
// CHECK-DAG: %[[SIZE:.*]] = arith.constant 32 : index
// CHECK: %[[LOOP:.*]] = scf.for %[[I:.*]] = %{{.*}} to %[[SIZE]] step %{{.*}} iter_args(%[[JS:.*]] = %[[EMPTY]]) -> (tensor<32xf32>) {
// CHECK:   %[[NI:.*]] = tensor.extract %[[NS]][%{{.*}}] : tensor<32xi32>
// CHECK:   %[[XI:.*]] = tensor.extract %[[XS]][%{{.*}}] : tensor<32xf32>
// CHECK:   %[[JI:.*]] = func.call @jnf(%[[NI]], %[[XI]]) : (i32, f32) -> f32
// CHECK:   %[[NEXT:.*]] = tensor.insert %[[JI]] into %[[JS]][%{{.*}}] : tensor<32xf32>
// CHECK:   scf.yield %[[NEXT]] : tensor<32xf32>
// CHECK: tensor.expand_shape %[[LOOP]] {{\[}}[0, 1]] output_shape [4, 8] : tensor<32xf32> into tensor<4x8xf32>
// CHECK: func.call @jnf
// CHECK-NOT: func.func private @jnf
func.func @bessel(%n: tensor<4x8xi32>, %x: tensor<4x8xf32>) {
  %j = tile.extern_elementwise "__nv_jnf" host "jnf" pure %n, %x : (tensor<4x8xi32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %k = tile.extern_elementwise "__nv_jnf" host "jnf" pure %n, %j : (tensor<4x8xi32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  tile.print "k", %k : tensor<4x8xf32>
  return
}

// -----

// Scalars: one call.
// CHECK-LABEL: func.func private @ldexp(f64, i32) -> f64
// CHECK-LABEL: func.func @scalar
// CHECK-SAME: (%[[D:[a-z0-9]+]]: f64, %[[E:[a-z0-9]+]]: i32
// CHECK: call @ldexp(%[[D]], %[[E]]) : (f64, i32) -> f64
func.func @scalar(%d: f64, %e: i32) {
  %y = tile.extern_elementwise "__nv_ldexp" host "ldexp" %d, %e : (f64, i32) -> f64
  tile.print "y", %y : f64
  return
}
