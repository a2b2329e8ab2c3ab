// RUN: head -c 200 %s | not kiln-opt 2>&1 | FileCheck %s
// A file cut off in the middle of a region is an error, not a hang.

// CHECK: <stdin>:{{[0-9]+}}:{{[0-9]+}}: error:
func.func @f(%t: tensor<4x8xf32>) -> tensor<4xf32> {
  %0 = tile.reduce %t axis 1 : tensor<4x8xf32> -> tensor<4xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tile.yield %s : f32
  }
  return %0 : tensor<4xf32>
}
