// RUN: kiln-run %s --kernel=difference --init=iota | FileCheck %s --check-prefix=DIFFERENCE
// RUN: kiln-run %s --kernel=reversed_column_sums --init=iota | FileCheck %s --check-prefix=REVERSED
// RUN: kiln-run %s --kernel=odd_column_max --init=iota --dims=5 | FileCheck %s --check-prefix=ODD
// RUN: kiln-run %s --kernel=strided_map --init=iota | FileCheck %s --check-prefix=STRIDED
// RUN: env KILN_CUDA_DRIVER=%kiln_fake_cuda_driver KILN_PTXAS=%t.no-ptxas kiln-run %s --kernel=odd_column_max --init=rand --dims=500 --target=gpu --check=none | FileCheck %s --check-prefix=ODD-GPU
// RUN: kiln-opt %s -kiln-fuse -kiln-tile -canonicalize "-symbol-privatize=exclude=difference_kernel0_tile,reversed_column_sums_kernel0_tile,odd_column_max_kernel0_tile,strided_map_kernel0_tile" -symbol-dce -o %t.mlir
// RUN: %if ptxas %{ kiln-translate %t.mlir --chip=sm_90a | %ptxas -arch=sm_90a -v 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// Slices read in place, run as launch plans on inputs 0, 1, 2, ...: each
// kernel takes the slice's source and reads it at the slice's offsets and
// strides.

// x[1:] - x[:-1] of an 8 x 16 x: each row of x is 16 more than the last.
// DIFFERENCE: result0 f32[112]: sum=1792 min=16 max=16 first=[16, 16, 16, 16]
func.func @difference(%x: tensor<8x16xf32>) -> tensor<7x16xf32> {
  %next = tensor.extract_slice %x[1, 0] [7, 16] [1, 1] : tensor<8x16xf32> to tensor<7x16xf32>
  %this = tensor.extract_slice %x[0, 0] [7, 16] [1, 1] : tensor<8x16xf32> to tensor<7x16xf32>
  %e = tensor.empty() : tensor<7x16xf32>
  %d = linalg.sub ins(%next, %this : tensor<7x16xf32>, tensor<7x16xf32>) outs(%e : tensor<7x16xf32>) -> tensor<7x16xf32>
  return %d : tensor<7x16xf32>
}

// x[7::-2, 2, 15::-2].sum(0) (numpy: 956, 948, 940, ... 900).
// REVERSED: result0 f32[8]: sum=7424 min=900 max=956 first=[956, 948, 940, 932]
func.func @reversed_column_sums(%x: tensor<8x3x16xf32>) -> tensor<8xf32> {
  %s = tensor.extract_slice %x[7, 2, 15] [4, 1, 8] [-2, 1, -2] : tensor<8x3x16xf32> to tensor<4x8xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %r = linalg.reduce ins(%s : tensor<4x8xf32>) outs(%f : tensor<8xf32>) dimensions = [0]
    (%a: f32, %acc: f32) {
      %q = arith.addf %a, %acc : f32
      linalg.yield %q : f32
    }
  return %r : tensor<8xf32>
}

// x[:, 1::2].max(1) over rows of dynamic number: the last odd column.
// ODD: result0 f32[5]: sum=235 min=15 max=79 first=[15, 31, 47, 63]
// ODD-GPU: array function odd_column_max on Kiln Fake GPU (sm_90a): {{[0-9.]+}} ms per run (median of 1)
// ODD-GPU: result0 f32[500]:
// PTXAS-COUNT-4: 0 bytes spill stores, 0 bytes spill loads
func.func @odd_column_max(%x: tensor<?x16xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x16xf32>
  %s = tensor.extract_slice %x[0, 1] [%n, 8] [1, 2] : tensor<?x16xf32> to tensor<?x8xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty(%n) : tensor<?xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %r = linalg.reduce ins(%s : tensor<?x8xf32>) outs(%f : tensor<?xf32>) dimensions = [1]
    (%a: f32, %acc: f32) {
      %q = arith.maximumf %a, %acc : f32
      linalg.yield %q : f32
    }
  return %r : tensor<?xf32>
}

// A generic may read through a strided indexing map itself (valid linalg
// where the index is not a plain dimension): x[2 i + 1] + x[7 - i].
// STRIDED: result0 f32[4]: sum=38 min=8 max=11 first=[8, 9, 10, 11]
func.func @strided_map(%x: tensor<8xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0 * 2 + 1)>, affine_map<(d0) -> (7 - d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x, %x : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%odd: f32, %back: f32, %out: f32):
    %s = arith.addf %odd, %back : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
