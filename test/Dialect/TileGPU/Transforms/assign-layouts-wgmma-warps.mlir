// RUN: kiln-opt %s -tile-assign-layouts="compute-capability=90 arch-specific=1 num-warps=2" -verify-diagnostics -o /dev/null

// wgmma is issued by whole warpgroups.
func.func @two_warps(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-remark @+1 {{on mma.sync, not wgmma: wgmma is issued by warpgroups of four warps, and num_warps is 2}}
  %d = tile.dot %a, %b, %c : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  return %d : tensor<64x64xf32>
}
