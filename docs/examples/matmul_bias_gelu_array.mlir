// y = GELU(x @ w + b), cast to f16, as a whole-tensor program (linalg on
// tensors): x (f32, cast to f16 on the way in) is 100 x 200, w (f16) is
// 200 x 150, b (f32) one value per column; ragged against the 64 x 64
// blocks. kiln-fuse makes the cast, the matmul, the bias, the GELU (tanh
// form) and the cast one kernel; kiln-tile gives each program one block of
// y with a K loop of tile.dot (tensor cores on the GPU), so the product
// never leaves the program:
//   kiln-run docs/examples/matmul_bias_gelu_array.mlir --kernel=mlp --report
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @mlp(%x: tensor<100x200xf32>, %w: tensor<200x150xf16>, %b: tensor<150xf32>) -> tensor<100x150xf16> {
  %x16 = arith.truncf %x : tensor<100x200xf32> to tensor<100x200xf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<100x150xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<100x150xf32>) -> tensor<100x150xf32>
  %mm = linalg.matmul ins(%x16, %w : tensor<100x200xf16>, tensor<200x150xf16>) outs(%init : tensor<100x150xf32>) -> tensor<100x150xf32>
  %e16 = tensor.empty() : tensor<100x150xf16>
  %y = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<100x150xf32>, tensor<150xf32>) outs(%e16 : tensor<100x150xf16>) {
  ^bb0(%v: f32, %c: f32, %out: f16):
    %s = arith.addf %v, %c : f32
    %k = arith.constant 0.797884583 : f32
    %a = arith.constant 0.044715 : f32
    %h = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %s2 = arith.mulf %s, %s : f32
    %s3 = arith.mulf %s2, %s : f32
    %as3 = arith.mulf %a, %s3 : f32
    %inner = arith.addf %s, %as3 : f32
    %u = arith.mulf %inner, %k : f32
    %t = math.tanh %u : f32
    %p = arith.addf %t, %one : f32
    %q = arith.mulf %s, %h : f32
    %g = arith.mulf %q, %p : f32
    %r = arith.truncf %g : f32 to f16
    linalg.yield %r : f16
  } -> tensor<100x150xf16>
  return %y : tensor<100x150xf16>
}
