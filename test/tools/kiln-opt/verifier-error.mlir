// RUN: not kiln-opt %s 2>&1 | FileCheck %s
// RUN: not kiln-opt %s -canonicalize 2>&1 | FileCheck %s

// A verifier error stops the tool before any pass runs.
// CHECK: verifier-error.mlir:[[@LINE+3]]:8: error: 'tile.broadcast' op source shape 2x4 cannot be broadcast to result shape 8x4
// CHECK-NOT: func.func
func.func @f(%x: tensor<2x4xf32>) -> tensor<8x4xf32> {
  %0 = tile.broadcast %x : tensor<2x4xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
