// RUN: kiln-opt %s -split-input-file -kiln-convert-tile-to-host -verify-diagnostics

// expected-error @+1 {{a tile kernel returns nothing, but 'returns_value' returns 1 value(s)}}
func.func @returns_value(%x: i32) -> i32 {
  return %x : i32
}

// -----

func.func @fp8_dot(%a: tensor<16x16xf8E4M3FN>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'tile.dot' op with 'f8E4M3FN' inputs has no host lowering yet (the CPU has no fp8 conversions)}}
  %0 = tile.dot %a, %a, %c : tensor<16x16xf8E4M3FN>, tensor<16x16xf8E4M3FN> -> tensor<16x16xf32>
  return
}
