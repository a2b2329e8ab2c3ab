// RUN: kiln-run %s --kernel=scale_rows --init=iota --dims=3,3 | FileCheck %s
// RUN: not kiln-run %s --kernel=scale_rows --dims=3,4 2>&1 | FileCheck %s --check-prefix=UNEQUAL
// RUN: env KILN_CUDA_DRIVER=%kiln_fake_cuda_driver KILN_PTXAS=%t.no-ptxas kiln-run %s --kernel=scale_rows --init=rand --dims=1000,1000 --target=gpu --check=none | FileCheck %s --check-prefix=GPU

// An array function over dynamic sizes: --dims gives the `?`s of its
// inputs, the launch plan takes them as size arguments, and the results'
// shapes follow. exp(x + c) * c for x = iota(3x4), c = iota(3) broadcast
// along the rows: row i is exp(4i + j + i) * i.
// CHECK: array function scale_rows on host:
// CHECK: input0 f32[12]: sum=66 min=0 max=11 first=[0, 1, 2, 3]
// CHECK: input1 f32[3]: sum=3 min=0 max=2 first=[0, 1, 2]
// CHECK: result0 f32[12]: sum=1.37877e+06 min=0 max=884827 first=[0, 0, 0, 0]
// The rows of x and the length of c are one size.
// UNEQUAL: kiln-run: input 1 of 'scale_rows', dimension 0: the function needs it equal to input 0's dimension 0, 3, not 4
// On the GPU the plan is followed op by op, its sizes computed by folding.
// GPU: array function scale_rows on Kiln Fake GPU (sm_90a): {{[0-9.]+}} ms per run (median of 5)
// GPU: result0 f32[4000]:
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @scale_rows(%x: tensor<?x4xf32>, %c: tensor<?xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x4xf32>
  %e = tensor.empty(%n) : tensor<?x4xf32>
  %s = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %c : tensor<?x4xf32>, tensor<?xf32>) outs(%e : tensor<?x4xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %t = arith.addf %a, %b : f32
    %u = math.exp %t : f32
    %v = arith.mulf %u, %b : f32
    linalg.yield %v : f32
  } -> tensor<?x4xf32>
  return %s : tensor<?x4xf32>
}
