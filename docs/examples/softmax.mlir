// Row-wise softmax of a rows x cols fp32 matrix with row stride `stride`:
// one program per row, a row of up to 1024 columns held in one tile.
func.func @softmax(%in: !tile.ptr<f32>, %out: !tile.ptr<f32>,
                   %stride: i32, %cols: i32) {
  %row = tile.program_id x
  %row_start = arith.muli %row, %stride : i32
  %cols_range = tile.range 0 to 1024 : tensor<1024xi32>
  %cols_splat = tile.splat %cols : i32 -> tensor<1024xi32>
  %mask = arith.cmpi slt, %cols_range, %cols_splat : tensor<1024xi32>

  %in_row = tile.addptr %in, %row_start : !tile.ptr<f32>, i32
  %in_ptrs0 = tile.splat %in_row : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %in_ptrs = tile.addptr %in_ptrs0, %cols_range : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  // Padding with -inf leaves the maximum and the sum of exponentials alone.
  %neg_inf = arith.constant 0xFF800000 : f32
  %pad = tile.splat %neg_inf : f32 -> tensor<1024xf32>
  %x = tile.load %in_ptrs, %mask, other %pad : tensor<1024x!tile.ptr<f32>> -> tensor<1024xf32>

  %max = tile.reduce %x axis 0 : tensor<1024xf32> -> f32 {
  ^bb0(%a: f32, %b: f32):
    %m = arith.maximumf %a, %b : f32
    tile.yield %m : f32
  }
  %max_splat = tile.splat %max : f32 -> tensor<1024xf32>
  %shifted = arith.subf %x, %max_splat : tensor<1024xf32>
  %e = math.exp %shifted : tensor<1024xf32>
  %sum = tile.reduce %e axis 0 : tensor<1024xf32> -> f32 {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tile.yield %s : f32
  }
  %sum_splat = tile.splat %sum : f32 -> tensor<1024xf32>
  %y = arith.divf %e, %sum_splat : tensor<1024xf32>

  %out_row = tile.addptr %out, %row_start : !tile.ptr<f32>, i32
  %out_ptrs0 = tile.splat %out_row : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %out_ptrs = tile.addptr %out_ptrs0, %cols_range : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  tile.store %out_ptrs, %y, %mask : tensor<1024x!tile.ptr<f32>>, tensor<1024xf32>
  return
}
