// The mean and the variance of each column of x (? x ?), as
// `x.mean(0), x.var(0)` or `torch.var_mean(x, dim=0, unbiased=False)`:
// reductions over x's leading axis, dividing by its dynamic length.
// kiln-fuse makes the two reductions and the divisions one kernel;
// kiln-tile gives each program 32 of x's columns, which lie next to each
// other in memory, and walks down x in [32 x 32] tiles, each lane carrying
// its running mean and M2 (merged after the loop), so x is read once,
// 128 contiguous bytes per row of x and warp.
//
//   kiln-run docs/examples/column_stats_array.mlir --kernel=column_stats --dims=8192,4096 --init=rand
#x = affine_map<(d0, d1) -> (d1, d0)>
#col = affine_map<(d0, d1) -> (d0)>
#c = affine_map<(d0) -> (d0)>
func.func @column_stats(%x: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %mi = arith.index_cast %m : index to i64
  %length = arith.uitofp %mi : i64 to f32
  %cols = tensor.empty(%n) : tensor<?xf32>
  %init = linalg.fill ins(%zero : f32) outs(%cols : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [#x, #col], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<?xf32>
  %mean = linalg.generic {indexing_maps = [#c, #c], iterator_types = ["parallel"]}
      ins(%sum : tensor<?xf32>) outs(%cols : tensor<?xf32>) {
  ^bb0(%s: f32, %out: f32):
    %d = arith.divf %s, %length : f32
    linalg.yield %d : f32
  } -> tensor<?xf32>
  %squares = linalg.generic {indexing_maps = [#x, #col, #col], iterator_types = ["parallel", "reduction"]}
      ins(%x, %mean : tensor<?x?xf32>, tensor<?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%in: f32, %mu: f32, %acc: f32):
    %d = arith.subf %in, %mu : f32
    %d2 = arith.mulf %d, %d : f32
    %a = arith.addf %d2, %acc : f32
    linalg.yield %a : f32
  } -> tensor<?xf32>
  %var = linalg.generic {indexing_maps = [#c, #c], iterator_types = ["parallel"]}
      ins(%squares : tensor<?xf32>) outs(%cols : tensor<?xf32>) {
  ^bb0(%s: f32, %out: f32):
    %d = arith.divf %s, %length : f32
    linalg.yield %d : f32
  } -> tensor<?xf32>
  return %mean, %var : tensor<?xf32>, tensor<?xf32>
}
