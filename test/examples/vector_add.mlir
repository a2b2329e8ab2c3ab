// RUN: kiln-opt %kiln_examples/vector_add.mlir -canonicalize -cse | FileCheck %s

// CHECK-LABEL: func.func @vector_add
// CHECK: %[[PID:.*]] = tile.program_id x
// CHECK: %[[RANGE:.*]] = tile.range 0 to 1024 : tensor<1024xi32>
// CHECK: %[[OFFS:.*]] = arith.addi %{{.*}}, %[[RANGE]] : tensor<1024xi32>
// CHECK: %[[MASK:.*]] = arith.cmpi slt, %[[OFFS]]
// CHECK: %[[X:.*]] = tile.load %{{.*}}, %[[MASK]] : tensor<1024x!tile.ptr<f32>> -> tensor<1024xf32>
// CHECK: %[[Y:.*]] = tile.load %{{.*}}, %[[MASK]] : tensor<1024x!tile.ptr<f32>> -> tensor<1024xf32>
// CHECK: %[[SUM:.*]] = arith.addf %[[X]], %[[Y]] : tensor<1024xf32>
// CHECK: tile.store %{{.*}}, %[[SUM]], %[[MASK]]
