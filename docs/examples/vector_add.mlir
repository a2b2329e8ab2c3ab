// out[i] = x[i] + y[i] for i < n, 1024 elements per program.
// Launch with a grid of ceil(n / 1024) programs.
func.func @vector_add(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>,
                      %out: !tile.ptr<f32>, %n: i32) {
  %block = arith.constant 1024 : i32
  %pid = tile.program_id x
  %start = arith.muli %pid, %block : i32
  %range = tile.range 0 to 1024 : tensor<1024xi32>
  %starts = tile.splat %start : i32 -> tensor<1024xi32>
  %offsets = arith.addi %starts, %range : tensor<1024xi32>
  %ns = tile.splat %n : i32 -> tensor<1024xi32>
  %mask = arith.cmpi slt, %offsets, %ns : tensor<1024xi32>

  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %offsets : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %xv = tile.load %xp, %mask : tensor<1024x!tile.ptr<f32>> -> tensor<1024xf32>
  %ys = tile.splat %y : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %yp = tile.addptr %ys, %offsets : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %yv = tile.load %yp, %mask : tensor<1024x!tile.ptr<f32>> -> tensor<1024xf32>

  %sum = arith.addf %xv, %yv : tensor<1024xf32>

  %os = tile.splat %out : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %op = tile.addptr %os, %offsets : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  tile.store %op, %sum, %mask : tensor<1024x!tile.ptr<f32>>, tensor<1024xf32>
  return
}
