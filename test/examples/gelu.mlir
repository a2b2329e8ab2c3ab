// RUN: kiln-opt %kiln_examples/gelu.mlir -canonicalize -cse | FileCheck %s

// The chain stays one kernel: one load of x, the math on the tile, one
// store.
// CHECK-LABEL: func.func @gelu
// CHECK-COUNT-1: tile.load
// CHECK: math.erf %{{.*}} : tensor<1024xf32>
// CHECK-COUNT-1: tile.store
// CHECK-NOT: tile.load
