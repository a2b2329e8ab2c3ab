// RUN: kiln-opt %s -convert-elementwise-to-linalg -kiln-fuse -kiln-tile -canonicalize "-symbol-privatize=exclude=remainders_kernel0_tile,remainders_kernel1_tile" -symbol-dce -o %t.mlir
// RUN: kiln-translate %t.mlir --chip=sm_80 | FileCheck %s
// RUN: %if ptxas %{ kiln-translate %t.mlir --chip=sm_80 | %ptxas -arch=sm_80 -v 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: %if ptxas %{ kiln-translate %t.mlir --chip=sm_90a | %ptxas -arch=sm_90a -v 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// What kiln.fuse makes of numpy's // and % (floor division and the
// remainder of the divisor's sign, from fmod and C's signed division,
// with no arith.floordivsi): the float remainder and the integer
// quotient and remainder (LLVM derives it from the quotient) compile for
// sm_80 and sm_90a. The float and the
// integer programs read different inputs: two kernels.
// The float remainder is libdevice's exact fmodf; the quotient divides
// correctly rounded.
// CHECK-LABEL: .entry remainders_kernel0_tile(
// CHECK-DAG: div.rn.f32
// CHECK-DAG: cvt.rmi.f32.f32
// CHECK-LABEL: .entry remainders_kernel1_tile(
// CHECK: div.s32
// PTXAS-COUNT-2: 0 bytes spill stores, 0 bytes spill loads
func.func @remainders(%a: tensor<1000xf32>, %d: tensor<1000xf32>, %i: tensor<1000xi32>, %j: tensor<1000xi32>) -> (tensor<1000xf32>, tensor<1000xi32>) {
  %r = arith.remf %a, %d : tensor<1000xf32>
  %q = arith.divf %a, %d : tensor<1000xf32>
  %f = math.floor %q : tensor<1000xf32>
  %s = arith.addf %r, %f : tensor<1000xf32>
  %iq = arith.divsi %i, %j : tensor<1000xi32>
  %ir = arith.remsi %i, %j : tensor<1000xi32>
  %is = arith.addi %iq, %ir : tensor<1000xi32>
  return %s, %is : tensor<1000xf32>, tensor<1000xi32>
}
