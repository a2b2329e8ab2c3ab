// RUN: kiln-opt %s -split-input-file -kiln-tile -verify-diagnostics

// Matmul kernels written by hand that kiln-tile would compute wrongly:
// refused by name. An epilogue that writes its block transposed would
// store it where another program's block goes.
func.func private @mm_kernel0(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>) -> tensor<16x16xf32> attributes {kiln.kernel} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<16x16xf32>, tensor<16x16xf32>) outs(%init : tensor<16x16xf32>) -> tensor<16x16xf32>
  // expected-error @+1 {{kiln-tile: a matmul kernel's prologue or epilogue writes its result through indexing map affine_map<(d0, d1) -> (d1, d0)>, not in place}}
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1, d0)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%v: f32, %out: f32):
    %s = math.exp %v : f32
    linalg.yield %s : f32
  } -> tensor<16x16xf32>
  return %y : tensor<16x16xf32>
}
func.func @mm(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %y = call @mm_kernel0(%a, %b) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  return %y : tensor<16x16xf32>
}

// -----

// A row reduction in a matmul kernel: not one of its epilogues.
func.func private @mm_kernel0(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>) -> tensor<16x16xf32> attributes {kiln.kernel} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %er = tensor.empty() : tensor<16xf32>
  %rinit = linalg.fill ins(%zero : f32) outs(%er : tensor<16xf32>) -> tensor<16xf32>
  // expected-error @+1 {{kiln-tile: a matmul kernel's prologues and epilogues must be elementwise over its result's dimensions with one result}}
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<16x16xf32>) outs(%rinit : tensor<16xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %t = arith.addf %v, %acc : f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<16x16xf32>, tensor<16x16xf32>) outs(%init : tensor<16x16xf32>) -> tensor<16x16xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%s, %mm : tensor<16xf32>, tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%r: f32, %v: f32, %out: f32):
    %p = arith.mulf %r, %v : f32
    linalg.yield %p : f32
  } -> tensor<16x16xf32>
  return %y : tensor<16x16xf32>
}
func.func @mm(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %y = call @mm_kernel0(%a, %b) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  return %y : tensor<16x16xf32>
}

// -----

// A batched matmul's operand is read with the batch as its first index
// (each program advances it by the batch's stride), not elsewhere.
func.func private @bmm_kernel0(%a: tensor<16x2x8xf32>, %b: tensor<2x8x16xf32>) -> tensor<2x16x16xf32> attributes {kiln.kernel} {
  %zero = arith.constant 0.0 : f32
  %ea = tensor.empty() : tensor<2x16x8xf32>
  // expected-error @+1 {{kiln-tile: indexing map affine_map<(d0, d1, d2) -> (d1, d0, d2)> of a batched matmul kernel reads the batch other than as its first index}}
  %at = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a : tensor<16x2x8xf32>) outs(%ea : tensor<2x16x8xf32>) {
  ^bb0(%v: f32, %out: f32):
    linalg.yield %v : f32
  } -> tensor<2x16x8xf32>
  %e = tensor.empty() : tensor<2x16x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %mm = linalg.batch_matmul ins(%at, %b : tensor<2x16x8xf32>, tensor<2x8x16xf32>) outs(%init : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  return %mm : tensor<2x16x16xf32>
}
func.func @bmm(%a: tensor<16x2x8xf32>, %b: tensor<2x8x16xf32>) -> tensor<2x16x16xf32> {
  %y = call @bmm_kernel0(%a, %b) : (tensor<16x2x8xf32>, tensor<2x8x16xf32>) -> tensor<2x16x16xf32>
  return %y : tensor<2x16x16xf32>
}

// -----

// Offsets are 32-bit in every kind of kernel: an operand of more elements
// (a batch of 128 matrices of 4096 x 8192) is refused, not read wrong.
// expected-error @+1 {{kiln-tile: kernel 'big_kernel0' has an operand of 4294967296 elements; element offsets are 32-bit}}
func.func private @big_kernel0(%a: tensor<128x4096x8192xf16>, %b: tensor<128x8192x64xf16>) -> tensor<128x4096x64xf32> attributes {kiln.kernel} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x4096x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<128x4096x64xf32>) -> tensor<128x4096x64xf32>
  %mm = linalg.batch_matmul ins(%a, %b : tensor<128x4096x8192xf16>, tensor<128x8192x64xf16>) outs(%init : tensor<128x4096x64xf32>) -> tensor<128x4096x64xf32>
  return %mm : tensor<128x4096x64xf32>
}
func.func @big(%a: tensor<128x4096x8192xf16>, %b: tensor<128x8192x64xf16>) -> tensor<128x4096x64xf32> {
  %y = call @big_kernel0(%a, %b) : (tensor<128x4096x8192xf16>, tensor<128x8192x64xf16>) -> tensor<128x4096x64xf32>
  return %y : tensor<128x4096x64xf32>
}
