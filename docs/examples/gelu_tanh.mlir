// out[i] = gelu(x[i]) in its tanh form,
// x / 2 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3))), for i < n.
// 1024 elements per program, a grid of ceil(n / 1024).
func.func @gelu_tanh(%x: !tile.ptr<f32>, %out: !tile.ptr<f32>, %n: i32) {
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

  %k = arith.constant dense<0.797884583> : tensor<1024xf32>
  %c = arith.constant dense<0.044715> : tensor<1024xf32>
  %half = arith.constant dense<0.5> : tensor<1024xf32>
  %one = arith.constant dense<1.0> : tensor<1024xf32>
  %x2 = arith.mulf %v, %v : tensor<1024xf32>
  %x3 = arith.mulf %x2, %v : tensor<1024xf32>
  %cx3 = arith.mulf %x3, %c : tensor<1024xf32>
  %inner = arith.addf %v, %cx3 : tensor<1024xf32>
  %scaled = arith.mulf %inner, %k : tensor<1024xf32>
  %t = math.tanh %scaled : tensor<1024xf32>
  %onep = arith.addf %t, %one : tensor<1024xf32>
  %halfx = arith.mulf %v, %half : tensor<1024xf32>
  %y = arith.mulf %halfx, %onep : tensor<1024xf32>

  %os = tile.splat %out : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %op = tile.addptr %os, %offsets : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  tile.store %op, %y, %mask : tensor<1024x!tile.ptr<f32>>, tensor<1024xf32>
  return
}
