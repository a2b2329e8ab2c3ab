// RUN: not kiln-opt %s 2>&1 | FileCheck %s
// `not` fails on a crash as well as on success: the tool must exit with an
// error code, cleanly, and point at the line.

// CHECK: syntax-error.mlir:[[@LINE+2]]:22: error: expected non-function type
func.func @f(%p: tensor<8x!tile.ptr<f32>>) {
  %0 = tile.load %p : -> tensor<8xf32>
  return
}
