// RUN: kiln-opt %s -split-input-file -kiln-fuse -verify-diagnostics

// A constant index outside a static dimension: linalg's verifier takes it,
// but the slices fusion makes of it did not verify (found by the fuzzer).
func.func @past_the_end(%x: tensor<?x8xf32>, %y: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x8xf32>
  %e = tensor.empty(%n) : tensor<?x8xf32>
  // expected-error @+1 {{'linalg.generic' op operand 0 is read at index 11 of dimension 1, which has size 8 (indexing map affine_map<(d0, d1) -> (d0, 11)>)}}
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 11)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<?x8xf32>, tensor<?x8xf32>) outs(%e : tensor<?x8xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %t = arith.addf %v, %w : f32
    linalg.yield %t : f32
  } -> tensor<?x8xf32>
  return %g : tensor<?x8xf32>
}
