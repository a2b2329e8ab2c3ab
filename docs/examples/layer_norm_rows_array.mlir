// A layer norm over rows of any length: x is ? x ?, w and b one per
// column. The mean and the variance divide by the row's length (a size
// the kernel recreates from its length argument); kiln-fuse makes the
// two reductions and the normalization one row kernel, and kiln-tile
// walks each row in chunks of 512 twice: once for the sum and the
// squared deviations together (carried per lane as a running mean and
// M2, merged after the loop, so they need not wait for the mean), once to
// write the row.
//
//   kiln-run docs/examples/layer_norm_rows_array.mlir --kernel=layer_norm --dims=4096,8192 --init=rand
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @layer_norm(%x: tensor<?x?xf32>, %w: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %m = tensor.dim %x, %c1 : tensor<?x?xf32>
  %mi = arith.index_cast %m : index to i64
  %length = arith.uitofp %mi : i64 to f32
  %rows = tensor.empty(%n) : tensor<?xf32>
  %full = tensor.empty(%n, %m) : tensor<?x?xf32>
  %init = linalg.fill ins(%zero : f32) outs(%rows : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<?xf32>
  %centred = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<?x?xf32>, tensor<?xf32>) outs(%full : tensor<?x?xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %mean = arith.divf %s, %length : f32
    %d = arith.subf %in, %mean : f32
    linalg.yield %d : f32
  } -> tensor<?x?xf32>
  %squares = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%centred : tensor<?x?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %q = arith.mulf %in, %in : f32
    %a = arith.addf %q, %acc : f32
    linalg.yield %a : f32
  } -> tensor<?xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #col, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%centred, %squares, %w, %b : tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) outs(%full : tensor<?x?xf32>) {
  ^bb0(%d: f32, %s: f32, %wi: f32, %bi: f32, %out: f32):
    %var = arith.divf %s, %length : f32
    %ve = arith.addf %var, %eps : f32
    %r = math.rsqrt %ve : f32
    %v = arith.mulf %d, %r : f32
    %u = arith.mulf %v, %wi : f32
    %o = arith.addf %u, %bi : f32
    linalg.yield %o : f32
  } -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}
