// RUN: kiln-opt %s -kiln-convert-plan-to-host | FileCheck %s
// RUN: kiln-opt %s -kiln-convert-plan-to-host -kiln-convert-tile-to-host | FileCheck %s --check-prefix=LAUNCHER

// The allocator, the launcher of each kernel launched (pointers as
// addresses, then the grid and the range of programs) and the release are
// declared; each launch runs all of its programs.
// CHECK-DAG: func.func private @__kiln_host_alloc(i64) -> i64
// CHECK-DAG: func.func private @__kiln_host_free(i64)
// CHECK-DAG: func.func private @scale_launch(i64, i64, i32, i32, i32, i32, i64, i64)
// CHECK-LABEL: func.func @plan(
// CHECK-SAME: %[[X:.*]]: i64, %[[Y:.*]]: i64, %[[N:.*]]: i64) attributes {plan.inputs
// CHECK: %[[T:.*]] = call @__kiln_host_alloc(%{{.*}}) : (i64) -> i64
// CHECK: %[[GRID:.*]] = arith.trunci %[[N]] : i64 to i32
// CHECK: call @scale_launch(%[[X]], %[[T]], %{{.*}}, %[[GRID]], %c1_i32, %c1_i32, %c0_i64, %[[N]])
// CHECK: call @scale_launch(%[[T]], %[[Y]],
// CHECK: call @__kiln_host_free(%[[T]]) : (i64) -> ()
// CHECK-NOT: plan.

// The tile lowering defines the launcher the plan calls, and leaves the
// plan as it is.
// LAUNCHER: func.func @scale_launch(
// LAUNCHER-NOT: func.func private @scale_launch
// LAUNCHER-LABEL: func.func @plan(
// LAUNCHER-SAME: %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64)
// LAUNCHER: call @scale_launch
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
