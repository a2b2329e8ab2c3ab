// RUN: kiln-opt %s -tile-expand-float8 -verify-diagnostics

// f8E8M0FNU is a scale: no sign and no zero to read.
func.func @scale_format(%x: f8E8M0FNU) -> f32 {
  // expected-error @below {{converts an 8-bit float format this pass cannot read}}
  %w = arith.extf %x : f8E8M0FNU to f32
  return %w : f32
}
