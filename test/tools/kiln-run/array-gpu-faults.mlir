// An array function's plan allocates its temporaries on the device as it
// runs. One that does not fit ends the run in one line naming the plan, the
// call and the driver's error, with exit status 1; the buffers allocated
// before it are freed (the stand-in driver says at exit that nothing is
// held). The stand-in device has 3 KiB: the input and the two results
// (1 KiB each) fit, the 1 KiB temporary does not.
// RUN: env KILN_CUDA_DRIVER=%kiln_fake_cuda_driver KILN_PTXAS=%t.no-ptxas KILN_FAKE_CUDA_MEMORY=3072 KILN_FAKE_CUDA_REPORT=1 \
// RUN:   sh -c 'kiln-run %s --target=gpu --kernel=temporary --init=rand; echo "exit $?"' 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not=result0 --implicit-check-not="per run"
// CHECK: kiln-run: plan 'temporary', plan.alloc at loc("{{.*}}array-gpu-faults.mlir":[[#@LINE+8]]:1): allocating 1024 bytes (cuMemAlloc) failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory) [2]
// CHECK-NEXT: fake CUDA driver at exit: 0 allocations (0 bytes), 0 modules, streams and events, 0 references to the context
// CHECK-NEXT: exit 1

// Materialised between its kernels (as in test/Array/tile.mlir): too
// costly to recompute in both transposing users.
#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
func.func @temporary(%x: tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>) {
  %e = math.exp %x : tensor<16x16xf32>
  %l = math.log %e : tensor<16x16xf32>
  %t = math.tanh %l : tensor<16x16xf32>
  %empty = tensor.empty() : tensor<16x16xf32>
  %y = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<16x16xf32>) outs(%empty : tensor<16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = math.sin %in : f32
    linalg.yield %s : f32
  } -> tensor<16x16xf32>
  %z = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<16x16xf32>) outs(%empty : tensor<16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = math.cos %in : f32
    linalg.yield %c : f32
  } -> tensor<16x16xf32>
  return %y, %z : tensor<16x16xf32>, tensor<16x16xf32>
}
