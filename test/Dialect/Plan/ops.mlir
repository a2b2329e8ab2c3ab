// RUN: kiln-opt %s | kiln-opt | FileCheck %s

// A plan of a dynamic size: a temporary between two launches.
// CHECK-LABEL: func.func @plan(
// CHECK-SAME: %[[X:.*]]: i64, %[[Y:.*]]: i64, %[[N:.*]]: i64) attributes {plan.inputs = [tensor<?xf32>], plan.outputs = [tensor<?xf32>], plan.sizes = array<i64: 0, 0>}
// CHECK: %[[T:.*]] = plan.alloc %{{.*}}
// CHECK: plan.launch @scale[%[[N]]](%[[X]], %[[T]], %{{.*}}) : i64, i64, i32
// CHECK: plan.launch @scale[%[[N]]](%[[T]], %[[Y]], %{{.*}})
// CHECK: plan.free %[[T]]
func.func @scale(%in: !tile.ptr<f32>, %out: !tile.ptr<f32>, %n: i32) {
  return
}

func.func @plan(%x: i64, %y: i64, %n: i64)
    attributes {plan.inputs = [tensor<?xf32>], plan.outputs = [tensor<?xf32>],
                plan.sizes = array<i64: 0, 0>} {
  %c4 = arith.constant 4 : i64
  %bytes = arith.muli %n, %c4 : i64
  %n32 = arith.trunci %n : i64 to i32
  %t = plan.alloc %bytes
  plan.launch @scale[%n](%x, %t, %n32) : i64, i64, i32
  plan.launch @scale[%n](%t, %y, %n32) : i64, i64, i32
  plan.free %t
  return
}

// A kernel of no arguments, and a plan of static sizes.
// CHECK-LABEL: func.func @fixed(
// CHECK: plan.launch @nothing[%{{.*}}]()
func.func @nothing() {
  return
}

func.func @fixed(%x: i64, %y: i64)
    attributes {plan.inputs = [tensor<8xf32>], plan.outputs = [tensor<8xf32>]} {
  %c1 = arith.constant 1 : i64
  plan.launch @nothing[%c1]()
  return
}
