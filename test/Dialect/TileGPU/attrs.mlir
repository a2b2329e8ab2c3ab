// RUN: kiln-opt %s -split-input-file | kiln-opt -split-input-file | FileCheck %s

// Layout encodings round-trip, and tile ops accept tiles that carry them.

#blocked = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]}>
#row = #tilegpu.slice<{dim = 1, parent = #blocked}>

// CHECK-DAG: #[[$BLOCKED:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]}>
// CHECK-DAG: #[[$ROW:slice[0-9]*]] = #tilegpu.slice<{dim = 1, parent = #[[$BLOCKED]]}>
// CHECK-LABEL: func.func @encoded
// CHECK-SAME: tensor<16x64xf32, #[[$BLOCKED]]>
// CHECK: tile.reduce %{{.*}} axis 1 : tensor<16x64xf32, #[[$BLOCKED]]> -> tensor<16xf32, #[[$ROW]]>
// CHECK: tile.expand_dims %{{.*}} axis 1 : tensor<16xf32, #[[$ROW]]> -> tensor<16x1xf32, #[[$BLOCKED]]>
// CHECK: tile.broadcast %{{.*}} : tensor<16x1xf32, #[[$BLOCKED]]> -> tensor<16x64xf32, #[[$BLOCKED]]>
// CHECK: tile.load %{{.*}} : tensor<16x64x!tile.ptr<f32>, #[[$BLOCKED]]> -> tensor<16x64xf32, #[[$BLOCKED]]>
func.func @encoded(%x: tensor<16x64xf32, #blocked>, %p: tensor<16x64x!tile.ptr<f32>, #blocked>) {
  %s = tile.reduce %x axis 1 : tensor<16x64xf32, #blocked> -> tensor<16xf32, #row> {
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    tile.yield %r : f32
  }
  %e = tile.expand_dims %s axis 1 : tensor<16xf32, #row> -> tensor<16x1xf32, #blocked>
  %b = tile.broadcast %e : tensor<16x1xf32, #blocked> -> tensor<16x64xf32, #blocked>
  %l = tile.load %p : tensor<16x64x!tile.ptr<f32>, #blocked> -> tensor<16x64xf32, #blocked>
  return
}

// -----

// CHECK-LABEL: func.func @one_dim
// CHECK-SAME: tensor<1024xf32, #blocked>
func.func @one_dim(%x: tensor<1024xf32, #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>) {
  return
}

// -----

// The tensor-core layouts print as #mma and #dot_op aliases.
// CHECK: #[[$MMA:.*]] = #tilegpu.mma<{warpsPerCTA = [2, 2]}>
// CHECK: #[[$A:.*]] = #tilegpu.dot_operand<{opIdx = 0, parent = #[[$MMA]], kWidth = 2}>
// CHECK: #[[$B:.*]] = #tilegpu.dot_operand<{opIdx = 1, parent = #[[$MMA]], kWidth = 2}>
// CHECK-LABEL: func.func private @mma
// CHECK-SAME: tensor<64x32xf16, #[[$A]]>, tensor<32x64xf16, #[[$B]]>, tensor<64x64xf32, #[[$MMA]]>
#mma = #tilegpu.mma<{warpsPerCTA = [2, 2]}>
func.func private @mma(tensor<64x32xf16, #tilegpu.dot_operand<{opIdx = 0, parent = #mma, kWidth = 2}>>,
                       tensor<32x64xf16, #tilegpu.dot_operand<{opIdx = 1, parent = #mma, kWidth = 2}>>,
                       tensor<64x64xf32, #mma>)
