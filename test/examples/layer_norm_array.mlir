// RUN: kiln-run %kiln_examples/layer_norm_array.mlir --kernel=layer_norm --init=rand --report | FileCheck %s

// Seven kernels (two fills, two reductions, two steps over the rows, the
// scaling) become one, which reads the matrix once.
// CHECK: before fusion:
// CHECK: total: 7 kernels, {{[0-9]+}} FLOPs, 368252 bytes
// CHECK: after fusion:
// CHECK: kernel @layer_norm_kernel0: {{[0-9]+}} FLOPs, 186480 bytes
// CHECK: total: 1 kernels
// CHECK: array function layer_norm on host
// CHECK: result0 f32[22533]:
