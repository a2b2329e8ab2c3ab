// --repeat times launches after the first, which warms up and is the one
// checked and summarized: a kernel that updates its array in place is
// summarized as one launch left it, however many are timed.
// RUN: KILN_TARGET=host kiln-run %s --arg='f32[8]=iota' | FileCheck %s
// RUN: KILN_TARGET=host kiln-run %s --arg='f32[8]=iota' --repeat=3 | FileCheck %s --check-prefix=THREE
// RUN: KILN_TARGET=host not kiln-run %s --arg='f32[8]=iota' --repeat=0 2>&1 | FileCheck %s --check-prefix=NONE
// CHECK: kernel increment on host (1 thread), grid 1x1x1: {{[0-9.]+}} ms per launch (median of 5)
// CHECK: arg0 f32[8]: sum=36 min=1 max=8
// THREE: (median of 3)
// THREE: arg0 f32[8]: sum=36 min=1 max=8
// NONE: kiln-run: --repeat takes 1 or more launches to time
func.func @increment(%x: !tile.ptr<f32>) {
  %r = tile.range 0 to 8 : tensor<8xi32>
  %s = tile.splat %x : !tile.ptr<f32> -> tensor<8x!tile.ptr<f32>>
  %p = tile.addptr %s, %r : tensor<8x!tile.ptr<f32>>, tensor<8xi32>
  %v = tile.load %p : tensor<8x!tile.ptr<f32>> -> tensor<8xf32>
  %one = arith.constant dense<1.0> : tensor<8xf32>
  %w = arith.addf %v, %one : tensor<8xf32>
  tile.store %p, %w : tensor<8x!tile.ptr<f32>>, tensor<8xf32>
  return
}
