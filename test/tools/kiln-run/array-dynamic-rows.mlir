// RUN: kiln-run %kiln_examples/softmax_rows_array.mlir --kernel=softmax --init=rand --dims=7,3000 | FileCheck %s --check-prefix=LONG
// RUN: kiln-run %kiln_examples/softmax_rows_array.mlir --kernel=softmax --init=iota --dims=2,3 | FileCheck %s --check-prefix=SHORT
// RUN: kiln-run %kiln_examples/softmax_rows_array.mlir --kernel=softmax --init=rand --dims=4,1 | FileCheck %s --check-prefix=ONE
// RUN: env KILN_CUDA_DRIVER=%kiln_fake_cuda_driver KILN_PTXAS=%t.no-ptxas kiln-run %kiln_examples/softmax_rows_array.mlir --kernel=softmax --init=rand --dims=100,5000 --target=gpu --check=none | FileCheck %s --check-prefix=GPU
// RUN: kiln-run %s --kernel=centered --init=iota --dims=2,3,3 | FileCheck %s --check-prefix=CENTERED
// RUN: env KILN_CUDA_DRIVER=%kiln_fake_cuda_driver KILN_PTXAS=%t.no-ptxas kiln-run %s --kernel=centered --init=rand --dims=50,70,70 --target=gpu --check=none | FileCheck %s --check-prefix=CENTERED-GPU
// RUN: kiln-run %kiln_examples/layer_norm_rows_array.mlir --kernel=layer_norm --init=iota --dims=2,3,3,3 | FileCheck %s --check-prefix=NORM
// RUN: env KILN_CUDA_DRIVER=%kiln_fake_cuda_driver KILN_PTXAS=%t.no-ptxas kiln-run %kiln_examples/layer_norm_rows_array.mlir --kernel=layer_norm --init=rand --dims=100,5000,5000,5000 --target=gpu --check=none | FileCheck %s --check-prefix=NORM-GPU
// RUN: kiln-run %kiln_examples/column_stats_array.mlir --kernel=column_stats --init=iota --dims=3,2 | FileCheck %s --check-prefix=COLUMNS
// RUN: env KILN_CUDA_DRIVER=%kiln_fake_cuda_driver KILN_PTXAS=%t.no-ptxas kiln-run %kiln_examples/column_stats_array.mlir --kernel=column_stats --init=rand --dims=5000,100 --target=gpu --check=none | FileCheck %s --check-prefix=COLUMNS-GPU

// docs/examples/softmax_rows_array.mlir, a softmax over rows of dynamic
// length, is one kernel: each program walks
// its row in chunks of 512, once for the max and the sum of exponentials
// (an online softmax) and once to write the row. Every row of the result sums
// to 1, whether the row is six chunks (3000 columns, the last one
// partial) or part of one.
// LONG: array function softmax on host:
// LONG: input0 f32[21000]:
// LONG: result0 f32[21000]: sum=7 min=
// Rows [0 1 2] and [3 4 5] are both [1 e e^2] / (1 + e + e^2).
// SHORT: result0 f32[6]: sum=2 min=0.0900306 max=0.665241 first=[0.0900306, 0.244728, 0.665241, 0.0900306]
// Rows of one element: each is 1.
// ONE: result0 f32[4]: sum=4 min=1 max=1 first=[1, 1, 1, 1]
// GPU: array function softmax on Kiln Fake GPU (sm_90a): {{[0-9.]+}} ms per run (median of 5)
// GPU: result0 f32[500000]:

// Rows over two dynamic dimensions, [batch, position, 8]: x + p, centred
// by row, p broadcast over the batch. Row 0 is [0 2 4 ... 14] - 7.
// CENTERED: result0 f32[48]: sum=0 min=-7 max=7 first=[-7, -5, -3, -1]
// CENTERED-GPU: array function centered on Kiln Fake GPU (sm_90a): {{[0-9.]+}} ms per run (median of 5)
// CENTERED-GPU: result0 f32[28000]:
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#pos3 = affine_map<(d0, d1, d2) -> (d1, d2)>
#rows3 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @centered(%x: tensor<?x?x8xf32>, %p: tensor<?x8xf32>) -> tensor<?x?x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %eight = arith.constant 8.0 : f32
  %b = tensor.dim %x, %c0 : tensor<?x?x8xf32>
  %s = tensor.dim %x, %c1 : tensor<?x?x8xf32>
  %er = tensor.empty(%b, %s) : tensor<?x?xf32>
  %e = tensor.empty(%b, %s) : tensor<?x?x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%er : tensor<?x?xf32>) -> tensor<?x?xf32>
  %sum = linalg.generic {indexing_maps = [#id3, #pos3, #rows3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %p : tensor<?x?x8xf32>, tensor<?x8xf32>) outs(%init : tensor<?x?xf32>) {
  ^bb0(%in: f32, %q: f32, %acc: f32):
    %v = arith.addf %in, %q : f32
    %a = arith.addf %v, %acc : f32
    linalg.yield %a : f32
  } -> tensor<?x?xf32>
  %y = linalg.generic {indexing_maps = [#id3, #pos3, #rows3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %p, %sum : tensor<?x?x8xf32>, tensor<?x8xf32>, tensor<?x?xf32>) outs(%e : tensor<?x?x8xf32>) {
  ^bb0(%in: f32, %q: f32, %t: f32, %out: f32):
    %v = arith.addf %in, %q : f32
    %m = arith.divf %t, %eight : f32
    %c = arith.subf %v, %m : f32
    linalg.yield %c : f32
  } -> tensor<?x?x8xf32>
  return %y : tensor<?x?x8xf32>
}

// docs/examples/layer_norm_rows_array.mlir divides by the row's dynamic
// length. Rows [0 1 2] and [3 4 5] both centre to [-1 0 1] over a variance
// of 2/3: times w = [0 1 2] plus b = [0 1 2], [0 1 4.44947].
// NORM: array function layer_norm on host:
// NORM: result0 f32[6]: sum=10.8989 min=0 max=4.44947 first=[0, 1, 4.44947, 0]
// NORM-GPU: array function layer_norm on Kiln Fake GPU (sm_90a): {{[0-9.]+}} ms per run (median of 5)
// NORM-GPU: result0 f32[500000]:

// docs/examples/column_stats_array.mlir: the columns of [[0 1] [2 3]
// [4 5]] have means 2 and 3 and both a variance of 8/3.
// COLUMNS: array function column_stats on host:
// COLUMNS: result0 f32[2]: sum=5 min=2 max=3 first=[2, 3]
// COLUMNS: result1 f32[2]: sum=5.33333 min=2.66667 max=2.66667 first=[2.66667, 2.66667]
// COLUMNS-GPU: array function column_stats on Kiln Fake GPU (sm_90a): {{[0-9.]+}} ms per run (median of 5)
// COLUMNS-GPU: result0 f32[100]:
// COLUMNS-GPU: result1 f32[100]:
