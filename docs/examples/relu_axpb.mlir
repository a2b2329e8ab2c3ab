// out[i] = relu(a * x[i] + b) for i < n, with scalars a and b.
// 1024 elements per program, a grid of ceil(n / 1024).
func.func @relu_axpb(%x: !tile.ptr<f32>, %out: !tile.ptr<f32>, %a: f32,
                     %b: f32, %n: i32) {
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
  %as = tile.splat %a : f32 -> tensor<1024xf32>
  %bs = tile.splat %b : f32 -> tensor<1024xf32>
  %ax = arith.mulf %as, %v : tensor<1024xf32>
  %axb = arith.addf %ax, %bs : tensor<1024xf32>
  %zero = arith.constant dense<0.0> : tensor<1024xf32>
  %y = arith.maximumf %axb, %zero : tensor<1024xf32>
  %os = tile.splat %out : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %op = tile.addptr %os, %offsets : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  tile.store %op, %y, %mask : tensor<1024x!tile.ptr<f32>>, tensor<1024xf32>
  return
}
