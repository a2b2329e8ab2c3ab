// out[i] = cos(cos(x[i])) for i < n: two elementwise ops fused into one
// kernel, which reads x once and writes out once (8 bytes per element).
// 1024 elements per program, a grid of ceil(n / 1024).
func.func @cos_cos(%x: !tile.ptr<f32>, %out: !tile.ptr<f32>, %n: i32) {
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
  %v = tile.load %xp, %mask : tensor<1024x!tile.ptr<f32>> -> tensor<1024xf32>
  %c = math.cos %v : tensor<1024xf32>
  %y = math.cos %c : tensor<1024xf32>
  %os = tile.splat %out : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %op = tile.addptr %os, %offsets : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  tile.store %op, %y, %mask : tensor<1024x!tile.ptr<f32>>, tensor<1024xf32>
  return
}
