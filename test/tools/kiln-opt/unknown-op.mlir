// RUN: not kiln-opt %s 2>&1 | FileCheck %s

// CHECK: unknown-op.mlir:[[@LINE+2]]:8: error: custom op 'tile.frobnicate' is unknown
func.func @f() {
  %0 = tile.frobnicate : i32
  return
}
