// RUN: kiln-opt %s -split-input-file -tile-expand-float8 | FileCheck %s

// Widening an e4m3 tile reads its bits: exponent (3 bits of mantissa
// below it), the implicit bit of normal numbers, a power-of-two scale of
// exponent - bias - 3 + 127 (bias 7: 117), the sign, and NaN for the
// magnitude 0x7f (the format has no infinity).
// CHECK-LABEL: func.func @widen_e4m3
// CHECK: %[[BITS:.*]] = arith.bitcast %{{.*}} : tensor<4xf8E4M3FN> to tensor<4xi8>
// CHECK: %[[CODE:.*]] = arith.extui %[[BITS]] : tensor<4xi8> to tensor<4xi32>
// CHECK: arith.constant dense<8> : tensor<4xi32>
// CHECK: arith.constant dense<117> : tensor<4xi32>
// CHECK: arith.uitofp
// CHECK: arith.mulf
// CHECK-NOT: 0x7F800000
// CHECK: arith.constant dense<127> : tensor<4xi32>
// CHECK: arith.cmpi uge
// CHECK: arith.constant dense<0x7FC00000> : tensor<4xf32>
// CHECK-NOT: arith.extf
func.func @widen_e4m3(%x: tensor<4xf8E4M3FN>) -> tensor<4xf32> {
  %w = arith.extf %x : tensor<4xf8E4M3FN> to tensor<4xf32>
  return %w : tensor<4xf32>
}

// -----

// e5m2 has infinities (magnitude 0x7c) and widens to f16 exactly,
// through f32.
// CHECK-LABEL: func.func @widen_e5m2_to_f16
// CHECK-DAG: %[[INF:.*]] = arith.constant 0x7F800000 : f32
// CHECK-DAG: %[[C124:.*]] = arith.constant 124 : i32
// CHECK: %[[IS_INF:.*]] = arith.cmpi eq, %{{.*}}, %[[C124]] : i32
// CHECK: arith.select %[[IS_INF]], %[[INF]], %{{.*}} : f32
// CHECK: %[[NAN:.*]] = arith.constant 0x7FC00000 : f32
// CHECK: %[[F32:.*]] = arith.select %{{.*}}, %[[NAN]], %{{.*}} : f32
// CHECK-NEXT: arith.truncf %[[F32]] : f32 to f16
func.func @widen_e5m2_to_f16(%x: f8E5M2) -> f16 {
  %w = arith.extf %x : f8E5M2 to f16
  return %w : f16
}

// -----

// Narrowing clamps the magnitude to the largest finite value (448) before
// rounding, rounds subnormals in units of 2^-9 and normal numbers by the
// f32 mantissa's bits (20 of them dropped, ties to even), rebiases by
// (127 - 7) << 3 = 960, and gives NaN's code 0x7f.
// CHECK-LABEL: func.func @narrow_e4m3
// CHECK: %[[ABS:.*]] = math.absf
// CHECK: %[[MAX:.*]] = arith.constant 4.480000e+02 : f32
// CHECK: %[[CLAMPED:.*]] = arith.minnumf %[[ABS]], %[[MAX]] : f32
// CHECK: %[[UNIT:.*]] = arith.constant 5.120000e+02 : f32
// CHECK: arith.mulf %[[CLAMPED]], %[[UNIT]] : f32
// CHECK: math.roundeven
// CHECK: arith.constant 524287 : i32
// CHECK: arith.constant 960 : i32
// CHECK: arith.cmpf uno
// CHECK: arith.constant 127 : i32
// CHECK: %[[BYTE:.*]] = arith.trunci %{{.*}} : i32 to i8
// CHECK: arith.bitcast %[[BYTE]] : i8 to f8E4M3FN
func.func @narrow_e4m3(%x: f32) -> f8E4M3FN {
  %n = arith.truncf %x : f32 to f8E4M3FN
  return %n : f8E4M3FN
}

// -----

// A format without a negative zero (FNUZ: 0x80 is NaN) gives +0 for -0;
// f64 rounds to f32 first.
// CHECK-LABEL: func.func @narrow_fnuz
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: %[[ZERO:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : i32
// CHECK: arith.select %[[ZERO]]
// CHECK: arith.constant 128 : i32
func.func @narrow_fnuz(%x: f64) -> f8E4M3FNUZ {
  %n = arith.truncf %x : f64 to f8E4M3FNUZ
  return %n : f8E4M3FNUZ
}

// -----

// Conversions between other floats are left alone.
// CHECK-LABEL: func.func @other_floats
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @other_floats(%x: f16) -> bf16 {
  %w = arith.extf %x : f16 to f32
  %n = arith.truncf %w : f32 to bf16
  return %n : bf16
}

// -----

// A dot of 8-bit floats still here (the host's) multiplies their f16
// widenings, which are exact; the widenings are expanded like any other.
// CHECK-LABEL: func.func @dot
// CHECK: arith.bitcast %{{.*}} : tensor<16x16xf8E4M3FN> to tensor<16x16xi8>
// CHECK: arith.bitcast %{{.*}} : tensor<16x16xf8E5M2> to tensor<16x16xi8>
// CHECK-NOT: arith.extf
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
func.func @dot(%a: tensor<16x16xf8E4M3FN>, %b: tensor<16x16xf8E5M2>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %d = tile.dot %a, %b, %c : tensor<16x16xf8E4M3FN>, tensor<16x16xf8E5M2> -> tensor<16x16xf32>
  return %d : tensor<16x16xf32>
}
