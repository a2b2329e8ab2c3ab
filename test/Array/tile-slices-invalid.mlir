// RUN: kiln-opt %s -split-input-file -kiln-tile -verify-diagnostics

// Kernels written by hand that read a slice of a value they compute:
// kiln-fuse never makes one (a kernel reads slices of its inputs only),
// and kiln-tile refuses each by name.
func.func private @f_kernel0(%x: tensor<16xf32>) -> tensor<16xf32> attributes {kiln.kernel} {
  %e = tensor.empty() : tensor<16xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%v: f32, %out: f32):
    %s = math.exp %v : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  %reversed = tensor.extract_slice %a[15] [16] [-1] : tensor<16xf32> to tensor<16xf32>
  // expected-error @+1 {{kiln-tile: operand 0 comes from neither an input (or a slice of one) nor an earlier generic}}
  %b = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%reversed : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%v: f32, %out: f32):
    %s = arith.negf %v : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  return %b : tensor<16xf32>
}
func.func @f(%x: tensor<16xf32>) -> tensor<16xf32> {
  %y = call @f_kernel0(%x) : (tensor<16xf32>) -> tensor<16xf32>
  return %y : tensor<16xf32>
}

// -----

func.func private @f_kernel0(%x: tensor<4x16xf32>) -> tensor<4xf32> attributes {kiln.kernel} {
  %e = tensor.empty() : tensor<4x16xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%v: f32, %out: f32):
    %s = math.exp %v : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  %reversed = tensor.extract_slice %a[0, 15] [4, 16] [1, -1] : tensor<4x16xf32> to tensor<4x16xf32>
  %zero = arith.constant 0.0 : f32
  %e4 = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  // expected-error @+1 {{kiln-tile: a row kernel reads a slice of a value it computes}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%reversed : tensor<4x16xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @f(%x: tensor<4x16xf32>) -> tensor<4xf32> {
  %y = call @f_kernel0(%x) : (tensor<4x16xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// A matmul kernel loads its operand blocks whole: kiln-fuse gives a
// sliced operand a copy.
func.func private @mm_kernel0(%a: tensor<16x32xf32>, %b: tensor<16x16xf32>) -> tensor<16x16xf32> attributes {kiln.kernel} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %half = tensor.extract_slice %a[0, 0] [16, 16] [1, 2] : tensor<16x32xf32> to tensor<16x16xf32>
  // expected-error @+1 {{kiln-tile: an operand of a matmul kernel comes from neither an input nor an earlier op}}
  %mm = linalg.matmul ins(%half, %b : tensor<16x16xf32>, tensor<16x16xf32>) outs(%init : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %mm : tensor<16x16xf32>
}
func.func @mm(%a: tensor<16x32xf32>, %b: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %y = call @mm_kernel0(%a, %b) : (tensor<16x32xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  return %y : tensor<16x16xf32>
}

// -----

// An elementwise generic writes each element of its result once: a
// strided output map would leave the others as the init had them, which
// nothing copies.
func.func private @f_kernel0(%x: tensor<4xf32>, %y: tensor<8xf32>) -> tensor<8xf32> attributes {kiln.kernel} {
  // expected-error @+1 {{kiln-tile: an elementwise generic writes its result through indexing map affine_map<(d0) -> (d0 * 2 + 1)>, not a permutation}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0 * 2 + 1)>], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%y : tensor<8xf32>) {
  ^bb0(%v: f32, %out: f32):
    %s = arith.addf %v, %v : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}
func.func @f(%x: tensor<4xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
  %r = call @f_kernel0(%x, %y) : (tensor<4xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}
