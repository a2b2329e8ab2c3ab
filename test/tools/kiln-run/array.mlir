// RUN: kiln-run %s --kernel=coscos --init=iota --report | FileCheck %s
// RUN: not kiln-run %s --kernel=coscos --check-bounds 2>&1 | FileCheck %s --check-prefix=FLAGS

// An array function is fused, tiled and run as a launch plan: one kernel
// where there were two, half the bytes, and cos(cos(i)) for inputs 0, 1, ...
// CHECK: before fusion:
// CHECK: total: 2 kernels, 6000 FLOPs, 48000 bytes
// CHECK: after fusion:
// CHECK: kernel @coscos_kernel0: 6000 FLOPs, 24000 bytes
// CHECK: total: 1 kernels, 6000 FLOPs, 24000 bytes
// CHECK: array function coscos on host: {{[0-9.]+}} ms per run
// CHECK: input0 f32[3000]: sum=4.4985e+06 min=0 max=2999 first=[0, 1, 2, 3]
// CHECK: result0 f32[3000]: sum=2295.62 min=0.540302 max=0.999991 first=[0.540302, 0.857553, 0.914653, 0.548696]
// FLAGS: kiln-run: --check-bounds and --launch-threads apply to kernels; an array function's plan runs unchecked, on one thread
func.func @coscos(%x: tensor<3000xf32>) -> tensor<3000xf32> {
  %a = math.cos %x : tensor<3000xf32>
  %b = math.cos %a : tensor<3000xf32>
  return %b : tensor<3000xf32>
}
