// RUN: kiln-opt %s -tile-assign-layouts -kiln-convert-tile-to-gpu=shared-memory-limit=232448 | FileCheck %s

// The CUDA-core dot whose 64 KiB of staged operands are refused within the
// static 48 KiB (invalid.mlir, @dot_too_big) is lowered where a block may
// have more: its shared memory becomes dynamic.
// CHECK: gpu.module @kiln attributes {kiln.dynamic_shared_bytes = {{[0-9]+}} : i64
// CHECK: llvm.mlir.global external @__kiln_shared() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK-LABEL: gpu.func @dot_big
func.func @dot_big(%a: tensor<128x64xf32>, %b: tensor<64x128xf32>, %c: tensor<128x128xf32>) {
  %d = tile.dot %a, %b, %c : tensor<128x64xf32>, tensor<64x128xf32> -> tensor<128x128xf32>
  return
}
