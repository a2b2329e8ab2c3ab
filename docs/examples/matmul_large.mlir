// matmul.mlir with 128x128 blocks of C and K steps of 64: the blocking
// tensor cores want on Hopper (wgmma m64n128k16 per warpgroup), whose
// pipeline slots take dynamic shared memory (three stages: 96 KiB). One
// 128x128 block of C per program, on a grid of ceil(M/128) x ceil(N/128);
// the masks handle every edge. Run it with 8 warps (two warpgroups).
func.func @matmul_large(%a: !tile.ptr<f16>, %b: !tile.ptr<f16>,
                        %c: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32) {
  %c0 = arith.constant 0 : i32
  %c_k = arith.constant 64 : i32
  %c_block = arith.constant 128 : i32
  %pid_m = tile.program_id x
  %pid_n = tile.program_id y
  %m0 = arith.muli %pid_m, %c_block : i32
  %n0 = arith.muli %pid_n, %c_block : i32

  // Row indices of this block of A and C, column indices of B and C.
  %r_block = tile.range 0 to 128 : tensor<128xi32>
  %r_k = tile.range 0 to 64 : tensor<64xi32>
  %m0s = tile.splat %m0 : i32 -> tensor<128xi32>
  %rows = arith.addi %m0s, %r_block : tensor<128xi32>
  %n0s = tile.splat %n0 : i32 -> tensor<128xi32>
  %cols = arith.addi %n0s, %r_block : tensor<128xi32>
  %rows_col = tile.expand_dims %rows axis 1 : tensor<128xi32> -> tensor<128x1xi32>
  %cols_row = tile.expand_dims %cols axis 0 : tensor<128xi32> -> tensor<1x128xi32>
  %k_col = tile.expand_dims %r_k axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %k_row = tile.expand_dims %r_k axis 0 : tensor<64xi32> -> tensor<1x64xi32>

  // a_ptrs[i][k] = a + rows[i] * K + k;  b_ptrs[k][j] = b + k * N + cols[j].
  %Ks = tile.splat %K : i32 -> tensor<128x1xi32>
  %a_row_off = arith.muli %rows_col, %Ks : tensor<128x1xi32>
  %a_row_off_b = tile.broadcast %a_row_off : tensor<128x1xi32> -> tensor<128x64xi32>
  %k_row_b = tile.broadcast %k_row : tensor<1x64xi32> -> tensor<128x64xi32>
  %a_off = arith.addi %a_row_off_b, %k_row_b : tensor<128x64xi32>
  %a_base = tile.splat %a : !tile.ptr<f16> -> tensor<128x64x!tile.ptr<f16>>
  %a_ptrs = tile.addptr %a_base, %a_off : tensor<128x64x!tile.ptr<f16>>, tensor<128x64xi32>

  %Ns = tile.splat %N : i32 -> tensor<64x1xi32>
  %b_row_off = arith.muli %k_col, %Ns : tensor<64x1xi32>
  %b_row_off_b = tile.broadcast %b_row_off : tensor<64x1xi32> -> tensor<64x128xi32>
  %cols_b = tile.broadcast %cols_row : tensor<1x128xi32> -> tensor<64x128xi32>
  %b_off = arith.addi %b_row_off_b, %cols_b : tensor<64x128xi32>
  %b_base = tile.splat %b : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>>
  %b_ptrs = tile.addptr %b_base, %b_off : tensor<64x128x!tile.ptr<f16>>, tensor<64x128xi32>

  %Ms_col = tile.splat %M : i32 -> tensor<128x1xi32>
  %row_ok = arith.cmpi slt, %rows_col, %Ms_col : tensor<128x1xi32>
  %Ns_row = tile.splat %N : i32 -> tensor<1x128xi32>
  %col_ok = arith.cmpi slt, %cols_row, %Ns_row : tensor<1x128xi32>

  %zero = arith.constant 0.0 : f32
  %acc0 = tile.splat %zero : f32 -> tensor<128x128xf32>
  %zero_h = arith.constant 0.0 : f16
  %a_pad = tile.splat %zero_h : f16 -> tensor<128x64xf16>
  %b_pad = tile.splat %zero_h : f16 -> tensor<64x128xf16>
  %step_b = arith.muli %N, %c_k : i32
  %step_bs = tile.splat %step_b : i32 -> tensor<64x128xi32>
  %step_as = tile.splat %c_k : i32 -> tensor<128x64xi32>

  %acc, %ap, %bp = scf.for %k = %c0 to %K step %c_k
      iter_args(%acc_i = %acc0, %ap_i = %a_ptrs, %bp_i = %b_ptrs)
      -> (tensor<128x128xf32>, tensor<128x64x!tile.ptr<f16>>, tensor<64x128x!tile.ptr<f16>>) : i32 {
    // Columns k..k+31 of A and rows k..k+31 of B that are inside K.
    %left = arith.subi %K, %k : i32
    %left_row = tile.splat %left : i32 -> tensor<1x64xi32>
    %ka_ok = arith.cmpi slt, %k_row, %left_row : tensor<1x64xi32>
    %row_ok_b = tile.broadcast %row_ok : tensor<128x1xi1> -> tensor<128x64xi1>
    %ka_ok_b = tile.broadcast %ka_ok : tensor<1x64xi1> -> tensor<128x64xi1>
    %a_mask = arith.andi %row_ok_b, %ka_ok_b : tensor<128x64xi1>
    %left_col = tile.splat %left : i32 -> tensor<64x1xi32>
    %kb_ok = arith.cmpi slt, %k_col, %left_col : tensor<64x1xi32>
    %kb_ok_b = tile.broadcast %kb_ok : tensor<64x1xi1> -> tensor<64x128xi1>
    %col_ok_b = tile.broadcast %col_ok : tensor<1x128xi1> -> tensor<64x128xi1>
    %b_mask = arith.andi %kb_ok_b, %col_ok_b : tensor<64x128xi1>

    %a_tile = tile.load %ap_i, %a_mask, other %a_pad : tensor<128x64x!tile.ptr<f16>> -> tensor<128x64xf16>
    %b_tile = tile.load %bp_i, %b_mask, other %b_pad : tensor<64x128x!tile.ptr<f16>> -> tensor<64x128xf16>
    %acc_n = tile.dot %a_tile, %b_tile, %acc_i : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
    %ap_n = tile.addptr %ap_i, %step_as : tensor<128x64x!tile.ptr<f16>>, tensor<128x64xi32>
    %bp_n = tile.addptr %bp_i, %step_bs : tensor<64x128x!tile.ptr<f16>>, tensor<64x128xi32>
    scf.yield %acc_n, %ap_n, %bp_n : tensor<128x128xf32>, tensor<128x64x!tile.ptr<f16>>, tensor<64x128x!tile.ptr<f16>>
  }

  // c_ptrs[i][j] = c + rows[i] * N + cols[j], stored where both are inside.
  %Nc = tile.splat %N : i32 -> tensor<128x1xi32>
  %c_row_off = arith.muli %rows_col, %Nc : tensor<128x1xi32>
  %c_row_off_b = tile.broadcast %c_row_off : tensor<128x1xi32> -> tensor<128x128xi32>
  %cols_c = tile.broadcast %cols_row : tensor<1x128xi32> -> tensor<128x128xi32>
  %c_off = arith.addi %c_row_off_b, %cols_c : tensor<128x128xi32>
  %c_base = tile.splat %c : !tile.ptr<f32> -> tensor<128x128x!tile.ptr<f32>>
  %c_ptrs = tile.addptr %c_base, %c_off : tensor<128x128x!tile.ptr<f32>>, tensor<128x128xi32>
  %row_ok_c = tile.broadcast %row_ok : tensor<128x1xi1> -> tensor<128x128xi1>
  %col_ok_c = tile.broadcast %col_ok : tensor<1x128xi1> -> tensor<128x128xi1>
  %c_mask = arith.andi %row_ok_c, %col_ok_c : tensor<128x128xi1>
  tile.store %c_ptrs, %acc, %c_mask : tensor<128x128x!tile.ptr<f32>>, tensor<128x128xf32>
  return
}
