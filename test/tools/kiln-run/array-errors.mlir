// RUN: not kiln-run %s --kernel=dynamic 2>&1 | FileCheck %s
// CHECK: kiln-run: array function 'dynamic' must take and return tensors of static shape
func.func @dynamic(%x: tensor<?xf32>) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}
