// An array function on the GPU: fused and tiled as on the host, its tile
// kernels compiled for the device and its plan followed op by op, with its
// temporaries in device memory. Against the stand-in driver, which loads
// PTX and launches it as a no-op, the results stay zero and the host check
// catches it; --check=none runs and times the plan alone.
// RUN: env KILN_CUDA_DRIVER=%kiln_fake_cuda_driver KILN_PTXAS=%t.no-ptxas not kiln-run %s --kernel=softmax --init=rand --target=gpu | FileCheck %s
// RUN: env KILN_CUDA_DRIVER=%kiln_fake_cuda_driver KILN_PTXAS=%t.no-ptxas kiln-run %s --kernel=softmax --init=rand --target=gpu --check=none --repeat=3 | FileCheck %s --check-prefix=TIMED
// RUN: env KILN_CUDA_DRIVER=%t.no-driver sh -c 'kiln-run %s --kernel=softmax --target=gpu; echo "exit $?"' 2>&1 | FileCheck %s --check-prefix=NOGPU

// CHECK: array function softmax on Kiln Fake GPU (sm_90a): {{[0-9.]+}} ms per run (median of 5), {{[0-9.]+}} GB/s (inputs and results once)
// CHECK: input0 f32[37000]:
// CHECK: result0 f32[37000]: sum=0
// CHECK: result0 against the host: max error {{[0-9.e-]+}} WRONG
// TIMED: array function softmax on Kiln Fake GPU (sm_90a): {{[0-9.]+}} ms per run (median of 3)
// TIMED-NOT: against the host
// NOGPU: kiln-run: no GPU to run on: no CUDA driver
// NOGPU-NEXT: exit 77
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @softmax(%x: tensor<37x1000xf32>) -> tensor<37x1000xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<37xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<37xf32>) -> tensor<37xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<37x1000xf32>) outs(%minit : tensor<37xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maximumf %in, %acc : f32
    linalg.yield %m : f32
  } -> tensor<37xf32>
  %e2 = tensor.empty() : tensor<37x1000xf32>
  %exp = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<37x1000xf32>, tensor<37xf32>) outs(%e2 : tensor<37x1000xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<37x1000xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%e1 : tensor<37xf32>) -> tensor<37xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<37x1000xf32>) outs(%sinit : tensor<37xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<37xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum : tensor<37x1000xf32>, tensor<37xf32>) outs(%e2 : tensor<37x1000xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %q = arith.divf %in, %s : f32
    linalg.yield %q : f32
  } -> tensor<37x1000xf32>
  return %y : tensor<37x1000xf32>
}
