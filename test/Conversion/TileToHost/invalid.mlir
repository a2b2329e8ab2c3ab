// RUN: kiln-opt %s -split-input-file -kiln-convert-tile-to-host -verify-diagnostics

// expected-error @+1 {{a tile kernel returns nothing, but 'returns_value' returns 1 value(s)}}
func.func @returns_value(%x: i32) -> i32 {
  return %x : i32
}
