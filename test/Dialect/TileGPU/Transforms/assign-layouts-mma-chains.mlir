// RUN: kiln-opt %s -split-input-file -tile-assign-layouts="num-warps=8 compute-capability=80" | FileCheck %s

// Attention's forward on mma.sync: scores, a softmax along their rows,
// then the probabilities times V. Both dots get all eight warps along M
// (whole rows a warp): the row maxima and sums stay in each warp, and the
// probabilities become the next A operand in registers. A lone 128x64
// dot would split its warps 4 x 2.
// CHECK-DAG: #[[$ROWS8:.*]] = #tilegpu.mma<{warpsPerCTA = [8, 1]}>
// CHECK-LABEL: func.func @softmax_between_dots
// CHECK: tile.dot {{.*}} -> tensor<128x64xf32, #[[$ROWS8]]>
// CHECK: tile.reduce %{{.*}} axis 1 : tensor<128x64xf32, #[[$ROWS8]]>
// CHECK: tile.dot {{.*}} -> tensor<128x64xf32, #[[$ROWS8]]>
func.func @softmax_between_dots(%q: tensor<128x64xf16>, %kt: tensor<64x64xf16>,
                                %v: tensor<64x64xf16>) -> tensor<128x64xf32> {
  %zero = arith.constant dense<0.0> : tensor<128x64xf32>
  %s = tile.dot %q, %kt, %zero : tensor<128x64xf16>, tensor<64x64xf16> -> tensor<128x64xf32>
  %max = tile.reduce %s axis 1 : tensor<128x64xf32> -> tensor<128xf32> {
  ^bb0(%x: f32, %y: f32):
    %m = arith.maximumf %x, %y : f32
    tile.yield %m : f32
  }
  %mx = tile.expand_dims %max axis 1 : tensor<128xf32> -> tensor<128x1xf32>
  %mb = tile.broadcast %mx : tensor<128x1xf32> -> tensor<128x64xf32>
  %d = arith.subf %s, %mb : tensor<128x64xf32>
  %e = math.exp2 %d : tensor<128x64xf32>
  %p = arith.truncf %e : tensor<128x64xf32> to tensor<128x64xf16>
  %o = tile.dot %p, %v, %zero : tensor<128x64xf16>, tensor<64x64xf16> -> tensor<128x64xf32>
  return %o : tensor<128x64xf32>
}

// -----

// A chain without a reduction between (attention's backward: a product
// scaled elementwise and multiplied again) keeps the square-ish split,
// which holds fewer operand registers per warp.
// CHECK-DAG: #[[$SPLIT:.*]] = #tilegpu.mma<{warpsPerCTA = [4, 2]}>
// CHECK-LABEL: func.func @chain_without_rows
// CHECK: tile.dot {{.*}} -> tensor<128x64xf32, #[[$SPLIT]]>
// CHECK: tile.dot {{.*}} -> tensor<128x64xf32, #[[$SPLIT]]>
func.func @chain_without_rows(%a: tensor<128x64xf16>, %b: tensor<64x64xf16>,
                              %c: tensor<64x64xf16>) -> tensor<128x64xf32> {
  %zero = arith.constant dense<0.0> : tensor<128x64xf32>
  %s = tile.dot %a, %b, %zero : tensor<128x64xf16>, tensor<64x64xf16> -> tensor<128x64xf32>
  %e = math.exp2 %s : tensor<128x64xf32>
  %p = arith.truncf %e : tensor<128x64xf32> to tensor<128x64xf16>
  %o = tile.dot %p, %c, %zero : tensor<128x64xf16>, tensor<64x64xf16> -> tensor<128x64xf32>
  return %o : tensor<128x64xf32>
}
