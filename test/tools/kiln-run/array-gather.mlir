// RUN: kiln-run %s --kernel=reversed_rows --init=iota | FileCheck %s --check-prefix=REVERSED
// RUN: kiln-run %s --kernel=outside --init=iota | FileCheck %s --check-prefix=OUTSIDE
// RUN: kiln-run %s --kernel=from_a_slice --init=iota | FileCheck %s --check-prefix=SLICE
// RUN: kiln-run %s --kernel=from_a_slice_of_a_slice --init=iota | FileCheck %s --check-prefix=SLICES
// RUN: kiln-run %s --kernel=sum_minus_picked --init=iota | FileCheck %s --check-prefix=PICKED
// RUN: kiln-run %s --kernel=max_minus_picked --init=iota | FileCheck %s --check-prefix=LONG
// RUN: env KILN_CUDA_DRIVER=%kiln_fake_cuda_driver KILN_PTXAS=%t.no-ptxas kiln-run %s --kernel=sum_minus_picked --init=rand --target=gpu --check=none | FileCheck %s --check-prefix=PICKED-GPU
// RUN: env KILN_CUDA_DRIVER=%kiln_fake_cuda_driver KILN_PTXAS=%t.no-ptxas kiln-run %s --kernel=reversed_rows --init=rand --target=gpu --check=none | FileCheck %s --check-prefix=REVERSED-GPU
// RUN: kiln-opt %s -kiln-fuse -kiln-tile -canonicalize "-symbol-privatize=exclude=reversed_rows_kernel0_tile,outside_kernel0_tile,from_a_slice_kernel0_tile,from_a_slice_of_a_slice_kernel0_tile,sum_minus_picked_kernel0_tile,max_minus_picked_kernel0_tile" -symbol-dce -o %t.mlir
// RUN: %if ptxas %{ kiln-translate %t.mlir --chip=sm_80 | %ptxas -arch=sm_80 -v 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: %if ptxas %{ kiln-translate %t.mlir --chip=sm_90a | %ptxas -arch=sm_90a -v 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// Gathers run as launch plans on inputs 0, 1, 2, ...: each lane loads
// the element its indices pick.

// Row 7 - ids[i] of an 8 x 4 w for ids 0..7: w's rows reversed, the
// first [28, 29, 30, 31] (w holds 0..31).
// REVERSED: result0 f32[32]: sum=496 min=0 max=31 first=[28, 29, 30, 31]
// REVERSED-GPU: array function reversed_rows on Kiln Fake GPU (sm_90a): {{[0-9.]+}} ms per run (median of 5)
// REVERSED-GPU: result0 f32[32]:
func.func @reversed_rows(%w: tensor<8x4xf32>, %ids: tensor<8xi32>) -> tensor<8x4xf32> {
  %c7 = arith.constant 7 : i32
  %e = tensor.empty() : tensor<8x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%ids : tensor<8xi32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%i: i32, %o: f32):
    %back = arith.subi %c7, %i : i32
    %row = arith.index_cast %back : i32 to index
    %col = linalg.index 1 : index
    %v = tensor.extract %w[%row, %col] : tensor<8x4xf32>
    linalg.yield %v : f32
  } -> tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}

// x[2 * ids[i]] for ids 0..7 and x 0..7: x[0], x[2], x[4], x[6], then
// indices outside x (8 to 14), which read nothing and give 0 (as
// tensor.extract leaves them undefined).
// OUTSIDE: result0 f32[8]: sum=12 min=0 max=6 first=[0, 2, 4, 6]
func.func @outside(%x: tensor<8xf32>, %ids: tensor<8xi32>) -> tensor<8xf32> {
  %c2 = arith.constant 2 : i32
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%ids : tensor<8xi32>) outs(%e : tensor<8xf32>) {
  ^bb0(%i: i32, %o: f32):
    %twice = arith.muli %i, %c2 : i32
    %at = arith.index_cast %twice : i32 to index
    %v = tensor.extract %x[%at] : tensor<8xf32>
    linalg.yield %v : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// x[2::2][ids[i]] for x 0..7 and ids 0..3: the slice [2, 4, 6] read in
// place (one kernel, which takes x), and index 3, inside x but outside
// the slice, reads nothing.
// SLICE: result0 f32[4]: sum=12 min=0 max=6 first=[2, 4, 6, 0]
func.func @from_a_slice(%x: tensor<8xf32>, %ids: tensor<4xi32>) -> tensor<4xf32> {
  %s = tensor.extract_slice %x[2] [3] [2] : tensor<8xf32> to tensor<3xf32>
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%ids : tensor<4xi32>) outs(%e : tensor<4xf32>) {
  ^bb0(%i: i32, %o: f32):
    %at = arith.index_cast %i : i32 to index
    %v = tensor.extract %s[%at] : tensor<3xf32>
    linalg.yield %v : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// x[2::2][::-1][ids[i]]: slices of slices composed (a random program
// found the second refused): [6, 4, 2], and index 3 reads nothing.
// SLICES: result0 f32[4]: sum=12 min=0 max=6 first=[6, 4, 2, 0]
func.func @from_a_slice_of_a_slice(%x: tensor<8xf32>, %ids: tensor<4xi32>) -> tensor<4xf32> {
  %s = tensor.extract_slice %x[2] [3] [2] : tensor<8xf32> to tensor<3xf32>
  %r = tensor.extract_slice %s[2] [3] [-1] : tensor<3xf32> to tensor<3xf32>
  %e = tensor.empty() : tensor<4xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%ids : tensor<4xi32>) outs(%e : tensor<4xf32>) {
  ^bb0(%i: i32, %o: f32):
    %at = arith.index_cast %i : i32 to index
    %v = tensor.extract %r[%at] : tensor<3xf32>
    linalg.yield %v : f32
  } -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// A row's sum minus its element at ids[r] (a cross-entropy's shape): one
// row kernel that gathers one element a row (rows taken 4 at a time, the
// ids a [4] tile). For x 0..399 as 4 x 100 and ids 0..3: 10000 r + 4950
// - 101 r.
// PICKED: result0 f32[4]: sum=79194 min=4950 max=34647 first=[4950, 14849, 24748, 34647]
// PICKED-GPU: array function sum_minus_picked on Kiln Fake GPU (sm_90a): {{[0-9.]+}} ms per run (median of 5)
// PICKED-GPU: result0 f32[4]:
func.func @sum_minus_picked(%x: tensor<4x100xf32>, %ids: tensor<4xi32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x100xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %a = arith.addf %v, %acc : f32
    linalg.yield %a : f32
  } -> tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%ids, %sum : tensor<4xi32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%i: i32, %s: f32, %o: f32):
    %row = linalg.index 0 : index
    %col = arith.index_cast %i : i32 to index
    %picked = tensor.extract %x[%row, %col] : tensor<4x100xf32>
    %d = arith.subf %s, %picked : f32
    linalg.yield %d : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// The same over rows of 20000 (walked in chunks, one row a program, the
// id a scalar) with the row's max: 19999 - r for x 0..39999 as 2 x 20000.
// LONG: result0 f32[2]: sum=39997 min=19998 max=19999 first=[19999, 19998]
func.func @max_minus_picked(%x: tensor<2x20000xf32>, %ids: tensor<2xi32>) -> tensor<2xf32> {
  %low = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<2xf32>
  %init = linalg.fill ins(%low : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  %max = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<2x20000xf32>) outs(%init : tensor<2xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %a = arith.maximumf %v, %acc : f32
    linalg.yield %a : f32
  } -> tensor<2xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%ids, %max : tensor<2xi32>, tensor<2xf32>) outs(%e : tensor<2xf32>) {
  ^bb0(%i: i32, %m: f32, %o: f32):
    %row = linalg.index 0 : index
    %col = arith.index_cast %i : i32 to index
    %picked = tensor.extract %x[%row, %col] : tensor<2x20000xf32>
    %d = arith.subf %m, %picked : f32
    linalg.yield %d : f32
  } -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// PTXAS-COUNT-6: 0 bytes spill stores, 0 bytes spill loads
