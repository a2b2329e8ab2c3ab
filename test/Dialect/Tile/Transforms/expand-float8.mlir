// RUN: kiln-opt %s -split-input-file -tile-expand-float8 | FileCheck %s

// Widening e4m3 places its bits in f16's: the code in the high byte
// keeps the sign where f16's is, the magnitude moves right by
// 8 - (10 - 3 mantissa bits) = 1, then a product by 2^(15 - 7) = 256
// rebiases the exponent (exact for subnormals too). The magnitude 0x7f,
// NaN (the format has no infinity), would land on 480: it is selected.
// A wider result converts the f16.
// CHECK-LABEL: func.func @widen_e4m3
// CHECK: %[[BITS:.*]] = arith.bitcast %{{.*}} : tensor<4xf8E4M3FN> to tensor<4xi8>
// CHECK: %[[CODE:.*]] = arith.extui %[[BITS]] : tensor<4xi8> to tensor<4xi16>
// CHECK: %[[HIGH:.*]] = arith.shli %[[CODE]], %{{.*}} : tensor<4xi16>
// CHECK: %[[C7F00:.*]] = arith.constant dense<32512> : tensor<4xi16>
// CHECK: %[[MAG:.*]] = arith.andi %[[HIGH]], %[[C7F00]]
// CHECK: %[[C1:.*]] = arith.constant dense<1> : tensor<4xi16>
// CHECK: %[[PLACED:.*]] = arith.shrui %[[MAG]], %[[C1]]
// CHECK: %[[SIGN:.*]] = arith.andi %[[HIGH]], %{{.*}} : tensor<4xi16>
// CHECK: %[[WORD:.*]] = arith.ori %[[SIGN]], %[[PLACED]]
// CHECK: %[[HALF:.*]] = arith.bitcast %[[WORD]] : tensor<4xi16> to tensor<4xf16>
// CHECK: %[[SCALE:.*]] = arith.constant dense<2.560000e+02> : tensor<4xf16>
// CHECK: %[[VALUE:.*]] = arith.mulf %[[HALF]], %[[SCALE]]
// CHECK: %[[C7F00_2:.*]] = arith.constant dense<32512> : tensor<4xi16>
// CHECK: %[[NAN:.*]] = arith.cmpi uge, %[[MAG]], %[[C7F00_2]]
// CHECK: %[[QNAN:.*]] = arith.constant dense<0x7E00> : tensor<4xf16>
// CHECK: %[[F16:.*]] = arith.select %[[NAN]], %[[QNAN]], %[[VALUE]]
// CHECK: arith.extf %[[F16]] : tensor<4xf16> to tensor<4xf32>
func.func @widen_e4m3(%x: tensor<4xf8E4M3FN>) -> tensor<4xf32> {
  %w = arith.extf %x : tensor<4xf8E4M3FN> to tensor<4xf32>
  return %w : tensor<4xf32>
}

// -----

// e5m2's fields are f16's (bias 15, infinity at 0x7c, NaN above): its
// widening is the code in the high byte, with no product and no select.
// CHECK-LABEL: func.func @widen_e5m2_to_f16
// CHECK: %[[CODE:.*]] = arith.extui %{{.*}} : i8 to i16
// CHECK: %[[HIGH:.*]] = arith.shli %[[CODE]], %{{.*}} : i16
// CHECK-NOT: arith.andi
// CHECK: %[[HALF:.*]] = arith.bitcast %[[HIGH]] : i16 to f16
// CHECK-NEXT: return %[[HALF]] : f16
func.func @widen_e5m2_to_f16(%x: f8E5M2) -> f16 {
  %w = arith.extf %x : f8E5M2 to f16
  return %w : f16
}

// -----

// A thread's registers on the GPU (a 1-D vector) put the codes in the high
// bytes by interleaving them with zero bytes: one byte permutation per
// two codes in PTX.
// CHECK-LABEL: func.func @widen_registers
// CHECK: %[[BITS:.*]] = arith.bitcast %{{.*}} : vector<8xf8E5M2> to vector<8xi8>
// CHECK: %[[ZEROS:.*]] = arith.constant dense<0> : vector<8xi8>
// CHECK: %[[BYTES:.*]] = vector.interleave %[[ZEROS]], %[[BITS]] : vector<8xi8> -> vector<16xi8>
// CHECK: %[[HIGH:.*]] = vector.bitcast %[[BYTES]] : vector<16xi8> to vector<8xi16>
// CHECK: arith.bitcast %[[HIGH]] : vector<8xi16> to vector<8xf16>
func.func @widen_registers(%x: vector<8xf8E5M2>) -> vector<8xf16> {
  %w = arith.extf %x : vector<8xf8E5M2> to vector<8xf16>
  return %w : vector<8xf16>
}

// -----

// e5m2fnuz (bias 16) puts its largest exponent on f16's infinity: no
// placement gives its values, so it is decoded exactly through f32, a
// power-of-two scale of exponent - bias - 2 + 127 = 109 + exponent, then
// rounded to f16 (exactly). Its only NaN is 0x80.
// CHECK-LABEL: func.func @widen_e5m2fnuz_to_f16
// CHECK: arith.extui %{{.*}} : i8 to i32
// CHECK: arith.constant 109 : i32
// CHECK: arith.uitofp
// CHECK: arith.constant 128 : i32
// CHECK: arith.cmpi eq
// CHECK: %[[F32:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: arith.truncf %[[F32]] : f32 to f16
func.func @widen_e5m2fnuz_to_f16(%x: f8E5M2FNUZ) -> f16 {
  %w = arith.extf %x : f8E5M2FNUZ to f16
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

// -----

// An integer conversion to or from an 8-bit float (the canonicalizer folds
// one through f32 into it) goes through f32, whose conversion to or from
// the 8-bit float the pass then expands.
// CHECK-LABEL: func.func @integer_conversions
// CHECK: %[[WIDE:.*]] = arith.sitofp %arg0 : tensor<16xi32> to tensor<16xf32>
// CHECK-NOT: arith.sitofp
// CHECK: arith.trunci %{{.*}} : tensor<16xi32> to tensor<16xi8>
// CHECK: %[[CODE:.*]] = arith.bitcast %{{.*}} : tensor<16xi8> to tensor<16xf8E5M2>
// CHECK: %[[BACK:.*]] = arith.fptosi %{{.*}} : tensor<16xf32> to tensor<16xi32>
// CHECK: return %[[CODE]], %[[BACK]]
func.func @integer_conversions(%i: tensor<16xi32>, %f: tensor<16xf8E5M2>)
    -> (tensor<16xf8E5M2>, tensor<16xi32>) {
  %0 = arith.sitofp %i : tensor<16xi32> to tensor<16xf8E5M2>
  %1 = arith.fptosi %f : tensor<16xf8E5M2> to tensor<16xi32>
  return %0, %1 : tensor<16xf8E5M2>, tensor<16xi32>
}
