// RUN: kiln-opt %kiln_examples/matmul.mlir -tile-specialize-arguments="divisible=0,1,2,3,4,5" | kiln-translate --chip=sm_80 | FileCheck %s
// RUN: kiln-translate %kiln_examples/matmul.mlir --chip=sm_90a | FileCheck %s
// RUN: %if ptxas %{ kiln-opt %kiln_examples/matmul.mlir -tile-specialize-arguments="divisible=0,1,2,3,4,5" | kiln-translate --chip=sm_80 | %ptxas -arch=sm_80 %}
// RUN: %if ptxas %{ kiln-translate %kiln_examples/matmul.mlir --chip=sm_90a | %ptxas -arch=sm_90a %}

// docs/examples/matmul.mlir on CUDA cores (tensor cores come later): the
// K loop stages each 64x32 and 32x64 fp16 block in shared memory, then
// every thread runs fused multiply-adds over its accumulator registers.
// CHECK-LABEL: .entry matmul(
// CHECK: .shared .align 16 .b8 __kiln_shared_{{[0-9]+}}[4096];
// CHECK: bar.sync
// CHECK: st.shared.b16
// CHECK: bar.sync
// CHECK: ld.shared.b16
// CHECK: cvt.f32.f16
// CHECK: fma.rn.f32
