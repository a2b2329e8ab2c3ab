// Layer normalisation of each row of a 29 x 777 matrix as a whole-tensor
// program (linalg on tensors, as torch-mlir or StableHLO lowerings emit
// it): a sum, the mean, the squared deviations, the reciprocal deviation
// and the scaling. kiln-fuse makes it one kernel, kiln-tile one program
// per row that reads the matrix once:
//   kiln-run docs/examples/layer_norm_array.mlir --kernel=layer_norm --report
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#rows = affine_map<(d0) -> (d0)>
func.func @layer_norm(%x: tensor<29x777xf32>, %w: tensor<777xf32>, %b: tensor<777xf32>) -> tensor<29x777xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 777.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %er = tensor.empty() : tensor<29xf32>
  %et = tensor.empty() : tensor<29x777xf32>
  %init = linalg.fill ins(%zero : f32) outs(%er : tensor<29xf32>) -> tensor<29xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<29x777xf32>) outs(%init : tensor<29xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<29xf32>
  %mean = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel"]}
      ins(%sum : tensor<29xf32>) outs(%er : tensor<29xf32>) {
  ^bb0(%s: f32, %out: f32):
    %m = arith.divf %s, %n : f32
    linalg.yield %m : f32
  } -> tensor<29xf32>
  %init2 = linalg.fill ins(%zero : f32) outs(%er : tensor<29xf32>) -> tensor<29xf32>
  %sq = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %mean : tensor<29x777xf32>, tensor<29xf32>) outs(%init2 : tensor<29xf32>) {
  ^bb0(%in: f32, %m: f32, %acc: f32):
    %d = arith.subf %in, %m : f32
    %d2 = arith.mulf %d, %d : f32
    %a = arith.addf %d2, %acc : f32
    linalg.yield %a : f32
  } -> tensor<29xf32>
  %rstd = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel"]}
      ins(%sq : tensor<29xf32>) outs(%er : tensor<29xf32>) {
  ^bb0(%s: f32, %out: f32):
    %v = arith.divf %s, %n : f32
    %ve = arith.addf %v, %eps : f32
    %r = math.rsqrt %ve : f32
    linalg.yield %r : f32
  } -> tensor<29xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #row, #col, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mean, %rstd, %w, %b : tensor<29x777xf32>, tensor<29xf32>, tensor<29xf32>, tensor<777xf32>, tensor<777xf32>) outs(%et : tensor<29x777xf32>) {
  ^bb0(%in: f32, %m: f32, %r: f32, %wi: f32, %bi: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %nrm = arith.mulf %d, %r : f32
    %sc = arith.mulf %nrm, %wi : f32
    %o = arith.addf %sc, %bi : f32
    linalg.yield %o : f32
  } -> tensor<29x777xf32>
  return %y : tensor<29x777xf32>
}
