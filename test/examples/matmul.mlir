// RUN: kiln-opt %kiln_examples/matmul.mlir -canonicalize -cse | FileCheck %s

// Splats of constants (the zero accumulator, the paddings, the A step)
// become constant tiles, and the loop keeps its loads and dot.
// CHECK-LABEL: func.func @matmul
// CHECK-DAG: %[[ACC0:.*]] = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
// CHECK-DAG: %[[STEP_A:.*]] = arith.constant dense<32> : tensor<64x32xi32>
// CHECK-DAG: %[[PAD:.*]] = arith.constant dense<0.000000e+00> : tensor<64x32xf16>
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[ACC0]], %[[AP:.*]] = %{{.*}}, %[[BP:.*]] = %{{.*}})
// CHECK: %[[A:.*]] = tile.load %[[AP]], %{{.*}}, other %[[PAD]] : tensor<64x32x!tile.ptr<f16>> -> tensor<64x32xf16>
// CHECK: %[[B:.*]] = tile.load %[[BP]], %{{.*}}, other %{{.*}} : tensor<32x64x!tile.ptr<f16>> -> tensor<32x64xf16>
// CHECK: %[[D:.*]] = tile.dot %[[A]], %[[B]], %[[ACC]] : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
// CHECK: tile.addptr %[[AP]], %[[STEP_A]]
// CHECK: scf.yield %[[D]]
// CHECK: tile.store
