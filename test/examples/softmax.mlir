// RUN: kiln-opt %kiln_examples/softmax.mlir -canonicalize -cse | FileCheck %s

// The -inf padding becomes a constant tile; the two reductions remain.
// CHECK-LABEL: func.func @softmax
// CHECK: %[[PAD:.*]] = arith.constant dense<0xFF800000> : tensor<1024xf32>
// CHECK: %[[X:.*]] = tile.load %{{.*}}, %{{.*}}, other %[[PAD]]
// CHECK: %[[MAX:.*]] = tile.reduce %[[X]] axis 0 : tensor<1024xf32> -> f32
// CHECK:   arith.maximumf
// CHECK: math.exp
// CHECK: tile.reduce %{{.*}} axis 0 : tensor<1024xf32> -> f32
// CHECK:   arith.addf
// CHECK: arith.divf
// CHECK: tile.store
