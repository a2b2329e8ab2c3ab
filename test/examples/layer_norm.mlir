// RUN: kiln-opt %kiln_examples/layer_norm.mlir -canonicalize -cse | FileCheck %s

// CHECK-LABEL: func.func @layer_norm
// CHECK: %[[X:.*]] = tile.load %{{.*}}, %[[MASK:.*]], other %{{.*}} : tensor<1024x!tile.ptr<f32>> -> tensor<1024xf32>
// CHECK: tile.reduce %[[X]] axis 0
// CHECK: %[[DIFF:.*]] = arith.select %[[MASK]], %{{.*}}, %{{.*}} : tensor<1024xi1>, tensor<1024xf32>
// CHECK: tile.reduce
// CHECK: math.rsqrt %{{.*}} : f32
// CHECK: tile.store %{{.*}}, %{{.*}}, %[[MASK]]
