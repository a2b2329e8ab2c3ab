// RUN: kiln-opt %s -split-input-file -tile-assign-layouts -verify-diagnostics -o /dev/null

// Dots that stay off tensor cores say why; they keep blocked layouts and
// lower on CUDA cores.

func.func @ieee(%a: tensor<32x32xf32>, %b: tensor<32x32xf32>, %c: tensor<32x32xf32>) {
  // expected-remark @+1 {{not on tensor cores: f32 products with input_precision = ieee need CUDA cores (tf32 allows tensor cores)}}
  %d = tile.dot %a, %b, %c : tensor<32x32xf32>, tensor<32x32xf32> -> tensor<32x32xf32>
  return
}

// -----

func.func @tf32x3(%a: tensor<32x32xf32>, %b: tensor<32x32xf32>, %c: tensor<32x32xf32>) {
  // expected-remark @+1 {{not on tensor cores: input_precision = tf32x3 reaches tensor cores as three tf32 dots (tile-split-tf32x3, which the GPU pipeline runs first), not as one}}
  %d = tile.dot %a, %b, %c input_precision = tf32x3 : tensor<32x32xf32>, tensor<32x32xf32> -> tensor<32x32xf32>
  return
}

// -----

func.func @f16_accumulator(%a: tensor<32x32xf16>, %b: tensor<32x32xf16>, %c: tensor<32x32xf16>) {
  // expected-remark @+1 {{not on tensor cores: mma.sync accumulates f16 and bf16 products in f32 here, not f16}}
  %d = tile.dot %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf16>
  return
}

// -----

func.func @k_not_multiple(%a: tensor<32x8xf16>, %b: tensor<8x32xf16>, %c: tensor<32x32xf32>) {
  // expected-remark @+1 {{not on tensor cores: the shape 32x32x8 (MxNxK) is not a multiple of the instruction's 16x8x16}}
  %d = tile.dot %a, %b, %c : tensor<32x8xf16>, tensor<8x32xf16> -> tensor<32x32xf32>
  return
}

// -----

func.func @m_not_multiple(%a: tensor<8x32xi8>, %b: tensor<32x32xi8>, %c: tensor<8x32xi32>) {
  // expected-remark @+1 {{not on tensor cores: the shape 8x32x32 (MxNxK) is not a multiple of the instruction's 16x8x32}}
  %d = tile.dot %a, %b, %c : tensor<8x32xi8>, tensor<32x32xi8> -> tensor<8x32xi32>
  return
}
