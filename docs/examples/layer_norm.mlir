// Layer normalisation of each row of a rows x cols fp32 matrix (row stride
// `stride`, cols <= 1024): y = (x - mean) / sqrt(var + eps) * w + b, one
// program per row.
func.func @layer_norm(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>,
                      %w: !tile.ptr<f32>, %b: !tile.ptr<f32>,
                      %stride: i32, %cols: i32, %eps: f32) {
  %row = tile.program_id x
  %row_start = arith.muli %row, %stride : i32
  %c = tile.range 0 to 1024 : tensor<1024xi32>
  %cols_s = tile.splat %cols : i32 -> tensor<1024xi32>
  %mask = arith.cmpi slt, %c, %cols_s : tensor<1024xi32>
  %zero = arith.constant dense<0.0> : tensor<1024xf32>

  %x_row = tile.addptr %x, %row_start : !tile.ptr<f32>, i32
  %x_ptrs0 = tile.splat %x_row : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %x_ptrs = tile.addptr %x_ptrs0, %c : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %v = tile.load %x_ptrs, %mask, other %zero : tensor<1024x!tile.ptr<f32>> -> tensor<1024xf32>

  %n = arith.sitofp %cols : i32 to f32
  %sum = tile.reduce %v axis 0 : tensor<1024xf32> -> f32 {
  ^bb0(%a: f32, %b2: f32):
    %s = arith.addf %a, %b2 : f32
    tile.yield %s : f32
  }
  %mean = arith.divf %sum, %n : f32
  %mean_s = tile.splat %mean : f32 -> tensor<1024xf32>
  // Padding lanes must not count in the variance: zero them after the shift.
  %shifted = arith.subf %v, %mean_s : tensor<1024xf32>
  %diff = arith.select %mask, %shifted, %zero : tensor<1024xi1>, tensor<1024xf32>
  %sq = arith.mulf %diff, %diff : tensor<1024xf32>
  %sqsum = tile.reduce %sq axis 0 : tensor<1024xf32> -> f32 {
  ^bb0(%a: f32, %b2: f32):
    %s = arith.addf %a, %b2 : f32
    tile.yield %s : f32
  }
  %var = arith.divf %sqsum, %n : f32
  %var_eps = arith.addf %var, %eps : f32
  %rstd = math.rsqrt %var_eps : f32
  %rstd_s = tile.splat %rstd : f32 -> tensor<1024xf32>
  %normed = arith.mulf %diff, %rstd_s : tensor<1024xf32>

  %w_ptrs0 = tile.splat %w : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %w_ptrs = tile.addptr %w_ptrs0, %c : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %wv = tile.load %w_ptrs, %mask : tensor<1024x!tile.ptr<f32>> -> tensor<1024xf32>
  %b_ptrs0 = tile.splat %b : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %b_ptrs = tile.addptr %b_ptrs0, %c : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %bv = tile.load %b_ptrs, %mask : tensor<1024x!tile.ptr<f32>> -> tensor<1024xf32>
  %scaled = arith.mulf %normed, %wv : tensor<1024xf32>
  %out = arith.addf %scaled, %bv : tensor<1024xf32>

  %y_row = tile.addptr %y, %row_start : !tile.ptr<f32>, i32
  %y_ptrs0 = tile.splat %y_row : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %y_ptrs = tile.addptr %y_ptrs0, %c : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  tile.store %y_ptrs, %out, %mask : tensor<1024x!tile.ptr<f32>>, tensor<1024xf32>
  return
}
