// RUN: kiln-opt %s -split-input-file -tile-assign-layouts="compute-capability=90 arch-specific=1" -verify-diagnostics | FileCheck %s
// RUN: kiln-opt %s -split-input-file -tile-assign-layouts="compute-capability=90" | FileCheck %s --check-prefix=SM90

// On sm_90a an f16 or bf16 dot that wgmma can take gets the warpgroup
// accumulator: the four warps along M (one warpgroup per 64 rows), its
// operands still converted to dot operands (tile-pipeline-loops then hands
// their slots to wgmma). Plain sm_90 has no wgmma: mma.sync's 2x2 warps.
// CHECK-DAG: #[[$WG:.*]] = #tilegpu.mma<{warpsPerCTA = [4, 1], warpgroup = true}>
// CHECK-DAG: #[[$A:.*]] = #tilegpu.dot_operand<{opIdx = 0, parent = #[[$WG]], kWidth = 2}>
// CHECK-LABEL: func.func @bf16
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x32xbf16, #[[$A]]>, tensor<32x64xbf16, #{{.*}}> -> tensor<64x64xf32, #[[$WG]]>
// SM90: #tilegpu.mma<{warpsPerCTA = [2, 2]}>
// SM90-NOT: warpgroup
func.func @bf16(%a: tensor<64x32xbf16>, %b: tensor<32x64xbf16>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %d = tile.dot %a, %b, %c : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
  return %d : tensor<64x64xf32>
}

// -----

// An i8 dot into i32 too: operands of four elements per 32-bit register.
// CHECK-DAG: #[[$WG8:.*]] = #tilegpu.mma<{warpsPerCTA = [4, 1], warpgroup = true}>
// CHECK-DAG: #[[$A8:.*]] = #tilegpu.dot_operand<{opIdx = 0, parent = #[[$WG8]], kWidth = 4}>
// CHECK-LABEL: func.func @i8
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x64xi8, #[[$A8]]>, tensor<64x64xi8, #{{.*}}> -> tensor<64x64xi32, #[[$WG8]]>
func.func @i8(%a: tensor<64x64xi8>, %b: tensor<64x64xi8>, %c: tensor<64x64xi32>) -> tensor<64x64xi32> {
  %d = tile.dot %a, %b, %c : tensor<64x64xi8>, tensor<64x64xi8> -> tensor<64x64xi32>
  return %d : tensor<64x64xi32>
}

// -----

// 8-bit floats (e4m3 times e5m2 here) stay as they are for wgmma, four to
// a register; on plain sm_90 (no wgmma) they are widened to f16, exactly,
// and say so.
// CHECK-DAG: #[[$WGF8:.*]] = #tilegpu.mma<{warpsPerCTA = [4, 1], warpgroup = true}>
// CHECK-DAG: #[[$AF8:.*]] = #tilegpu.dot_operand<{opIdx = 0, parent = #[[$WGF8]], kWidth = 4}>
// CHECK-LABEL: func.func @fp8
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x64xf8E4M3FN, #[[$AF8]]>, tensor<64x64xf8E5M2, #{{.*}}> -> tensor<64x64xf32, #[[$WGF8]]>
// SM90-LABEL: func.func @fp8
// SM90: arith.extf %{{.*}} : tensor<64x64xf8E4M3FN, #{{.*}}> to tensor<64x64xf16,
// SM90: arith.extf %{{.*}} : tensor<64x64xf8E5M2, #{{.*}}> to tensor<64x64xf16,
// SM90: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x64xf16, #{{.*}}>, tensor<64x64xf16, #{{.*}}> -> tensor<64x64xf32,
func.func @fp8(%a: tensor<64x64xf8E4M3FN>, %b: tensor<64x64xf8E5M2>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %d = tile.dot %a, %b, %c : tensor<64x64xf8E4M3FN>, tensor<64x64xf8E5M2> -> tensor<64x64xf32>
  return %d : tensor<64x64xf32>
}

// -----

// An 8-bit float dot wgmma cannot take (K = 16, not a multiple of its 32)
// multiplies f16 widenings, and says why.
// CHECK-LABEL: func.func @fp8_short_k
// CHECK: arith.extf
func.func @fp8_short_k(%a: tensor<64x16xf8E4M3FN>, %b: tensor<16x64xf8E4M3FN>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-remark @+1 {{8-bit float operands widened to f16: the shape 64x64x16 (MxNxK) is not a multiple of the instruction's 16x8x32}}
  %d = tile.dot %a, %b, %c : tensor<64x16xf8E4M3FN>, tensor<16x64xf8E4M3FN> -> tensor<64x64xf32>
  return %d : tensor<64x64xf32>
}

// -----

// Dots wgmma cannot take stay on mma.sync and say why.
func.func @rows(%a: tensor<32x32xf16>, %b: tensor<32x64xf16>, %c: tensor<32x64xf32>) -> tensor<32x64xf32> {
  // expected-remark @+1 {{on mma.sync, not wgmma: M = 32 is not a multiple of 64: each of the 1 warpgroups takes 64-row blocks}}
  %d = tile.dot %a, %b, %c : tensor<32x32xf16>, tensor<32x64xf16> -> tensor<32x64xf32>
  return %d : tensor<32x64xf32>
}

// -----

func.func @columns(%a: tensor<64x32xf16>, %b: tensor<32x8xf16>, %c: tensor<64x8xf32>) -> tensor<64x8xf32> {
  // expected-remark @+1 {{on mma.sync, not wgmma: N = 8 and K = 32 are not both multiples of 16 (swizzled operand rows, K of one wgmma)}}
  %d = tile.dot %a, %b, %c : tensor<64x32xf16>, tensor<32x8xf16> -> tensor<64x8xf32>
  return %d : tensor<64x8xf32>
}

// -----

// A tf32 dot (f32 operands, input_precision = tf32) too: operands of one
// element per 32-bit register.
// CHECK-DAG: #[[$WG32:.*]] = #tilegpu.mma<{warpsPerCTA = [4, 1], warpgroup = true}>
// CHECK-DAG: #[[$A32:.*]] = #tilegpu.dot_operand<{opIdx = 0, parent = #[[$WG32]], kWidth = 1}>
// CHECK-LABEL: func.func @tf32
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} input_precision = tf32 : tensor<64x32xf32, #[[$A32]]>, tensor<32x64xf32, #{{.*}}> -> tensor<64x64xf32, #[[$WG32]]>
func.func @tf32(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %d = tile.dot %a, %b, %c input_precision = tf32 : tensor<64x32xf32>, tensor<32x64xf32> -> tensor<64x64xf32>
  return %d : tensor<64x64xf32>
}
