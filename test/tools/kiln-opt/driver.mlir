// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(canonicalize,cse))' --mlir-print-ir-after-all 2>&1 | FileCheck %s

// The opt-style driver runs textual pipelines and prints the IR after every
// pass.

// CHECK: // -----// IR Dump After Canonicalizer (canonicalize) //----- //
// CHECK: func.func @f
// CHECK: // -----// IR Dump After CSE (cse) //----- //
// CHECK: func.func @f
// CHECK: %[[S:.*]] = tile.splat
// CHECK-NOT: tile.splat
// CHECK: arith.addf %[[S]], %[[S]]
func.func @f(%x: f32) -> tensor<4xf32> {
  %a = tile.splat %x : f32 -> tensor<4xf32>
  %b = tile.splat %x : f32 -> tensor<4xf32>
  %c = arith.addf %a, %b : tensor<4xf32>
  return %c : tensor<4xf32>
}
