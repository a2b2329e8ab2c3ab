// RUN: kiln-opt %s -split-input-file -kiln-convert-tile-to-host | FileCheck %s

// tile.print calls the run time for each element of each operand, operand
// by operand, with the element's row-major index, the value as an i64 (integers, sign-extended)
// or an f64 (floats), and the program id; the module describes each site
// (text, shape, operand count).
// CHECK: module attributes {kiln.host.debug_sites = {{\[}}["x", array<i64: 2, 3>, 2 : i32]]}
// CHECK: func.func private @__kiln_host_print(i32, i32, i64, i32, i64, f64, i32, i32, i32)
// CHECK-LABEL: func.func @show
// CHECK-SAME: %[[PX:[a-z0-9]+]]: i32, %[[PY:[a-z0-9]+]]: i32, %[[PZ:[a-z0-9]+]]: i32, %{{[a-z0-9]+}}: i32, %{{[a-z0-9]+}}: i32, %{{[a-z0-9]+}}: i32)
// CHECK: scf.for %[[I:.*]] =
// CHECK: scf.for %[[J:.*]] =
// CHECK: %[[ROW:.*]] = arith.muli %{{.*}}, %c2
// CHECK: arith.addi %[[ROW]], %[[I]]
// CHECK: %[[ELEMENT:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK: %[[F:.*]] = tensor.extract %{{.*}}[%[[I]], %[[J]]] : tensor<2x3xf32>
// CHECK: %[[D:.*]] = arith.extf %[[F]] : f32 to f64
// CHECK: call @__kiln_host_print(%{{.*}}, %{{.*}}, %[[ELEMENT]], %{{.*}}, %{{.*}}, %[[D]], %[[PX]], %[[PY]], %[[PZ]])
// CHECK: scf.for
// CHECK: scf.for
// CHECK: %[[N:.*]] = tensor.extract %{{.*}}[%[[I]], %[[J]]] : tensor<2x3xi16>
// CHECK: %[[W:.*]] = arith.extsi %[[N]] : i16 to i64
// CHECK: call @__kiln_host_print(%{{.*}}, %{{.*}}, %[[ELEMENT]], %{{.*}}, %[[W]],
func.func @show(%x: tensor<2x3xf32>, %n: tensor<2x3xi16>) {
  tile.print "x", %x, %n : tensor<2x3xf32>, tensor<2x3xi16>
  return
}

// -----

// tile.assert reports each element, as an i32, to the run time; the site
// text is the op's location and message.
// CHECK: module attributes {kiln.host.debug_sites = {{\[}}["{{.*}}debug.mlir:[[@LINE+7]]:3: n must be positive", array<i64: 4>, 1 : i32]]}
// CHECK: func.func private @__kiln_host_assert(i32, i32, i64, i32, i32, i32)
// CHECK-LABEL: func.func @check
// CHECK: scf.for
// CHECK: %[[OK:.*]] = arith.extui %{{.*}} : i1 to i32
// CHECK: call @__kiln_host_assert(%{{.*}}, %[[OK]],
func.func @check(%ok: tensor<4xi1>) {
  tile.assert %ok, "n must be positive" : tensor<4xi1>
  return
}
