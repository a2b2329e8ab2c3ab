// Asked for the GPU on a machine without one, kiln-run says so in one line
// and exits with 77, which scripts read as "skipped"; without --target or
// $KILN_TARGET it runs on the host instead.
// RUN: env KILN_CUDA_DRIVER=%t.no-driver sh -c 'kiln-run %s --kernel=twice --grid=1 --arg="f32[8]=iota" --target=gpu; echo "exit $?"' 2>&1 | FileCheck %s --check-prefix=NOGPU
// RUN: env KILN_CUDA_DRIVER=%t.no-driver KILN_TARGET=gpu sh -c 'kiln-run %s --kernel=twice --grid=1 --arg="f32[8]=iota"; echo "exit $?"' 2>&1 | FileCheck %s --check-prefix=NOGPU
// RUN: env KILN_CUDA_DRIVER=%t.no-driver KILN_TARGET= kiln-run %s --kernel=twice --grid=1 --arg="f32[8]=iota" | FileCheck %s --check-prefix=DEFAULT
// RUN: not kiln-run %s --kernel=twice --grid=1 --arg="f32[8]=iota" --target=tpu 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// NOGPU: kiln-run: no GPU to run on: no CUDA driver: cannot open {{.*}}no-driver
// NOGPU-NEXT: exit 77
// DEFAULT: kernel twice on host
// DEFAULT: arg0 f32[8]: sum=56
// UNKNOWN: kiln-run: unknown target 'tpu' (host or gpu)
func.func @twice(%x: !tile.ptr<f32>) {
  %r = tile.range 0 to 8 : tensor<8xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<8x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<8x!tile.ptr<f32>>, tensor<8xi32>
  %v = tile.load %xp : tensor<8x!tile.ptr<f32>> -> tensor<8xf32>
  %w = arith.addf %v, %v : tensor<8xf32>
  tile.store %xp, %w : tensor<8x!tile.ptr<f32>>, tensor<8xf32>
  return
}
