// C = A * B for row-major fp16 A (M x K) and B (K x N), fp32 C (M x N), with
// fp32 accumulation, written with block pointers: one 128x128 block of C per
// program on a ceil(M/128) x ceil(N/128) grid, K walked in steps of 64. The
// block loads check both dimensions, so every edge reads zeros past the
// tensor. On sm_90a, where the pointers and row strides are 16-byte aligned,
// tile-pipeline-loops copies the blocks with TMA through tensor maps that
// each launch builds from %a, %b, %M, %N and %K, and tile-tma-stores
// writes C's block through one built from %c, %M and %N.
func.func @matmul_tma(%a: !tile.ptr<f16>, %b: !tile.ptr<f16>,
                      %c: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %one = arith.constant 1 : i64
  %m = arith.extsi %M : i32 to i64
  %n = arith.extsi %N : i32 to i64
  %k = arith.extsi %K : i32 to i64
  %pid_m = tile.program_id x
  %pid_n = tile.program_id y
  %m0 = arith.muli %pid_m, %c128 : i32
  %n0 = arith.muli %pid_n, %c128 : i32

  %a0 = tile.make_block_ptr %a, [%m, %k], [%k, %one], [%m0, %c0]
      {order = array<i32: 1, 0>} : !tile.ptr<f16> -> !tile.block_ptr<128x64xf16>
  %b0 = tile.make_block_ptr %b, [%k, %n], [%n, %one], [%c0, %n0]
      {order = array<i32: 1, 0>} : !tile.ptr<f16> -> !tile.block_ptr<64x128xf16>
  %zero = arith.constant 0.0 : f32
  %acc0 = tile.splat %zero : f32 -> tensor<128x128xf32>
  %acc, %ap, %bp = scf.for %i = %c0 to %K step %c64
      iter_args(%acc_i = %acc0, %ap_i = %a0, %bp_i = %b0)
      -> (tensor<128x128xf32>, !tile.block_ptr<128x64xf16>,
          !tile.block_ptr<64x128xf16>) : i32 {
    %a_tile = tile.block_load %ap_i boundary_check = [0, 1]
        : !tile.block_ptr<128x64xf16> -> tensor<128x64xf16>
    %b_tile = tile.block_load %bp_i boundary_check = [0, 1]
        : !tile.block_ptr<64x128xf16> -> tensor<64x128xf16>
    %acc_n = tile.dot %a_tile, %b_tile, %acc_i
        : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
    %ap_n = tile.advance %ap_i, [%c0, %c64] : !tile.block_ptr<128x64xf16>
    %bp_n = tile.advance %bp_i, [%c64, %c0] : !tile.block_ptr<64x128xf16>
    scf.yield %acc_n, %ap_n, %bp_n : tensor<128x128xf32>,
        !tile.block_ptr<128x64xf16>, !tile.block_ptr<64x128xf16>
  }
  %c_block = tile.make_block_ptr %c, [%m, %n], [%n, %one], [%m0, %n0]
      {order = array<i32: 1, 0>} : !tile.ptr<f32> -> !tile.block_ptr<128x128xf32>
  tile.block_store %c_block, %acc boundary_check = [0, 1]
      : !tile.block_ptr<128x128xf32>, tensor<128x128xf32>
  return
}
