// softmax(x + b) over the rows of a batch of any size: x is ? x 1000, b a
// bias every row shares. As a whole-tensor program it is five kernels
// (the add, a max, the shifted exponential, a sum, the division); kiln-fuse
// makes it one row kernel, kiln-tile a kernel of one program per row and a
// plan that takes the number of rows:
//   kiln-run docs/examples/bias_softmax_array.mlir --kernel=bias_softmax \
//     --dims=4096 --report
// docs/array-programs.md walks through it.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @bias_softmax(%x: tensor<?x1000xf32>, %b: tensor<1000xf32>) -> tensor<?x1000xf32> {
  %c0 = arith.constant 0 : index
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x1000xf32>
  %rows = tensor.empty(%n) : tensor<?xf32>
  %full = tensor.empty(%n) : tensor<?x1000xf32>
  %s = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<?x1000xf32>, tensor<1000xf32>) outs(%full : tensor<?x1000xf32>) {
  ^bb0(%v: f32, %c: f32, %out: f32):
    %a = arith.addf %v, %c : f32
    linalg.yield %a : f32
  } -> tensor<?x1000xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%rows : tensor<?xf32>) -> tensor<?xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%s : tensor<?x1000xf32>) outs(%minit : tensor<?xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maximumf %in, %acc : f32
    linalg.yield %m : f32
  } -> tensor<?xf32>
  %exp = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s, %max : tensor<?x1000xf32>, tensor<?xf32>) outs(%full : tensor<?x1000xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<?x1000xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%rows : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<?x1000xf32>) outs(%sinit : tensor<?xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<?xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum : tensor<?x1000xf32>, tensor<?xf32>) outs(%full : tensor<?x1000xf32>) {
  ^bb0(%in: f32, %t: f32, %out: f32):
    %q = arith.divf %in, %t : f32
    linalg.yield %q : f32
  } -> tensor<?x1000xf32>
  return %y : tensor<?x1000xf32>
}
