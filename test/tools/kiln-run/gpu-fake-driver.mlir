// The host side of a GPU run against a stand-in driver that loads the PTX
// and launches it as a no-op: the kernel is specialized and compiled for
// the device's chip (the stand-in is compute capability 9.0: sm_90a),
// arrays are copied over and back, launches are timed with events, and the
// result, which the no-op launch never wrote, is caught by the host check.
// RUN: env KILN_CUDA_DRIVER=%kiln_fake_cuda_driver KILN_PTXAS=%t.no-ptxas KILN_TARGET=gpu not kiln-run %s --kernel=twice --grid=1 --arg="f32[8]=iota" --repeat=4 | FileCheck %s
// RUN: env KILN_CUDA_DRIVER=%kiln_fake_cuda_driver KILN_PTXAS=%t.no-ptxas KILN_TARGET= kiln-run %s --kernel=twice --grid=1 --arg="f32[8]=iota" --check=none --flops=8 | FileCheck %s --check-prefix=DEFAULT
// RUN: env KILN_CUDA_DRIVER=%kiln_fake_cuda_driver KILN_PTXAS=%t.no-ptxas not kiln-run %s --kernel=twice --grid=1 --arg="f32[8]=iota" --target=gpu --num-warps=3 2>&1 | FileCheck %s --check-prefix=WARPS

// CHECK: kernel twice on Kiln Fake GPU (sm_90a, PTX for the driver, 4 warps), grid 1x1x1: compiled in {{[0-9]+}} ms, {{[0-9.]+}} ms per launch (median of 4), {{[0-9.]+}} GB/s (each array once)
// CHECK: arg0 f32[8]: sum=28
// CHECK: arg0 against the host: max error 0.5 WRONG

// With a driver and a device, the GPU is the default target.
// DEFAULT: kernel twice on Kiln Fake GPU
// DEFAULT-SAME: TFLOP/s
// DEFAULT-NOT: against the host

// WARPS: num_warps must be a power of two from 1 to 32, not 3
func.func @twice(%x: !tile.ptr<f32>) {
  %r = tile.range 0 to 8 : tensor<8xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<8x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<8x!tile.ptr<f32>>, tensor<8xi32>
  %v = tile.load %xp : tensor<8x!tile.ptr<f32>> -> tensor<8xf32>
  %w = arith.addf %v, %v : tensor<8xf32>
  tile.store %xp, %w : tensor<8x!tile.ptr<f32>>, tensor<8xf32>
  return
}
