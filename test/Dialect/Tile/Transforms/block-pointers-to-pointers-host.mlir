// The blocks a kernel reads and writes through block pointers are the
// same after tile-block-pointers-to-pointers: the kernel runs on the host
// target as written (block pointers lowered there natively) and rewritten
// to pointer accesses, and both write the same bytes. A 6x20 matrix of
// 0, 1, 2, ... is read in 4x8 blocks at rows 4-7, columns 0-23 (rows 6-7
// and columns 20-23 outside: zero padding), summed over the three column
// blocks and stored with only the rows checked; a block at rows -2..1,
// columns 16-23 is read with NaN padding.
// RUN: kiln-run %s --kernel=blocks --target=host --arg='f32[120]=iota' --arg='f32[48]=zeros' --arg='f32[32]=zeros' --arg=i64=6 --arg=i64=20 --save=1=%t.sums.npy --save=2=%t.nans.npy | FileCheck %s
// RUN: kiln-opt %s -tile-block-pointers-to-pointers -o %t.mlir
// RUN: kiln-run %t.mlir --kernel=blocks --target=host --arg='f32[120]=iota' --arg='f32[48]=zeros' --arg='f32[32]=zeros' --arg=i64=6 --arg=i64=20 --save=1=%t.sums-rewritten.npy --save=2=%t.nans-rewritten.npy | FileCheck %s
// RUN: cmp %t.sums.npy %t.sums-rewritten.npy
// RUN: cmp %t.nans.npy %t.nans-rewritten.npy

// A block at an offset near 2^31 (2^31 - 3, not a multiple of the block's
// 8) of a longer dimension, with stride 0 so that every element is the
// array's one: all eight are inside, none is NaN padding (a 32-bit sum
// of offset and run would wrap past 2^31 and mask five of them).
// RUN: kiln-run %t.mlir --kernel=near_2_31 --target=host --arg='f32[1]=iota' --arg='f32[8]=zeros' | FileCheck %s --check-prefix=WIDE
// WIDE: arg1 f32[8]: sum=0 min=0 max=0

// Row 4: 80 + 88 + 96 = 264 at column 0, ... 84 + 92 = 176 at column 4.
// CHECK: arg1 f32[48]: sum=3980 min=0 max=333
// Rows -2 and -1 and columns 20-23 NaN; 16-19 and 36-39 read.
// CHECK: arg2 f32[32]: sum=nan
func.func @blocks(%in: !tile.ptr<f32>, %out: !tile.ptr<f32>, %nan_out: !tile.ptr<f32>, %m: i64, %k: i64) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c3 = arith.constant 3 : i32
  %c4 = arith.constant 4 : i32
  %c8 = arith.constant 8 : i32
  %cm2 = arith.constant -2 : i32
  %c16 = arith.constant 16 : i32
  %s1 = arith.constant 1 : i64
  %s8 = arith.constant 8 : i64
  %zero = arith.constant dense<0.0> : tensor<4x8xf32>
  %bp0 = tile.make_block_ptr %in, [%m, %k], [%k, %s1], [%c4, %c0]
      {order = array<i32: 1, 0>} : !tile.ptr<f32> -> !tile.block_ptr<4x8xf32>
  %r:2 = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %zero, %bp = %bp0)
      -> (tensor<4x8xf32>, !tile.block_ptr<4x8xf32>) : i32 {
    %t = tile.block_load %bp boundary_check = [0, 1]
        : !tile.block_ptr<4x8xf32> -> tensor<4x8xf32>
    %sum = arith.addf %acc, %t : tensor<4x8xf32>
    %next = tile.advance %bp, [%c0, %c8] : !tile.block_ptr<4x8xf32>
    scf.yield %sum, %next : tensor<4x8xf32>, !tile.block_ptr<4x8xf32>
  }
  %ob = tile.make_block_ptr %out, [%m, %s8], [%s8, %s1], [%c4, %c0]
      {order = array<i32: 1, 0>} : !tile.ptr<f32> -> !tile.block_ptr<4x8xf32>
  tile.block_store %ob, %r#0 boundary_check = [0] : !tile.block_ptr<4x8xf32>, tensor<4x8xf32>
  %nb = tile.make_block_ptr %in, [%m, %k], [%k, %s1], [%cm2, %c16]
      {order = array<i32: 1, 0>} : !tile.ptr<f32> -> !tile.block_ptr<4x8xf32>
  %n = tile.block_load %nb boundary_check = [0, 1] padding = nan
      : !tile.block_ptr<4x8xf32> -> tensor<4x8xf32>
  %nob = tile.make_block_ptr %nan_out, [%s8, %s8], [%s8, %s1], [%c0, %c0]
      {order = array<i32: 1, 0>} : !tile.ptr<f32> -> !tile.block_ptr<4x8xf32>
  tile.block_store %nob, %n : !tile.block_ptr<4x8xf32>, tensor<4x8xf32>
  return
}

func.func @near_2_31(%in: !tile.ptr<f32>, %out: !tile.ptr<f32>) {
  %at = arith.constant 2147483645 : i32
  %c0 = arith.constant 0 : i32
  %long = arith.constant 2147483748 : i64
  %s0 = arith.constant 0 : i64
  %s1 = arith.constant 1 : i64
  %c8 = arith.constant 8 : i64
  %bp = tile.make_block_ptr %in, [%long], [%s0], [%at]
      {order = array<i32: 0>} : !tile.ptr<f32> -> !tile.block_ptr<8xf32>
  %t = tile.block_load %bp boundary_check = [0] padding = nan
      : !tile.block_ptr<8xf32> -> tensor<8xf32>
  %ob = tile.make_block_ptr %out, [%c8], [%s1], [%c0]
      {order = array<i32: 0>} : !tile.ptr<f32> -> !tile.block_ptr<8xf32>
  tile.block_store %ob, %t : !tile.block_ptr<8xf32>, tensor<8xf32>
  return
}
