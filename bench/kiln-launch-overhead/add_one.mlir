// x[i] += 1 for i < n, one program of 32 elements: the small elementwise
// kernel whose launch kiln-launch-overhead times (bench/gpu_suite.py
// launches the same kernel from Python, with n = 1).
func.func @add_one(%x: !tile.ptr<f32>, %n: i32) {
  %offsets = tile.range 0 to 32 : tensor<32xi32>
  %ns = tile.splat %n : i32 -> tensor<32xi32>
  %mask = arith.cmpi slt, %offsets, %ns : tensor<32xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<32x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %offsets : tensor<32x!tile.ptr<f32>>, tensor<32xi32>
  %v = tile.load %xp, %mask : tensor<32x!tile.ptr<f32>> -> tensor<32xf32>
  %one = arith.constant dense<1.0> : tensor<32xf32>
  %w = arith.addf %v, %one : tensor<32xf32>
  tile.store %xp, %w, %mask : tensor<32x!tile.ptr<f32>>, tensor<32xf32>
  return
}
