// RUN: kiln-opt %s -split-input-file -tile-assign-layouts="num-warps=4 compute-capability=80" -tile-pipeline-loops="shared-memory-limit=166912" -verify-diagnostics | FileCheck %s

// The slots may take all of the block's shared memory (sm_80's 163 KiB)
// when nothing beside them needs scratch: the store's conversion of the
// accumulator runs after the loop, in the slots' memory. Four stages of
// 32 KiB are pipelined as asked.
// CHECK-LABEL: func.func @epilogue_after_the_loop
// CHECK: tilegpu.local_alloc : memref<4x128x64xf16, 3>
// CHECK: tilegpu.local_alloc : memref<4x64x128xf16, 3>
func.func @epilogue_after_the_loop(
    %a: !tile.ptr<f16> {tile.divisibility = 16 : i64},
    %c: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %n: i32) {
  %ra = tile.range 0 to 128 : tensor<128xi32>
  %rb = tile.range 0 to 64 : tensor<64xi32>
  %ar = tile.expand_dims %ra axis 1 : tensor<128xi32> -> tensor<128x1xi32>
  %ac = tile.expand_dims %rb axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %c64 = arith.constant dense<64> : tensor<128x1xi32>
  %aro = arith.muli %ar, %c64 : tensor<128x1xi32>
  %arb = tile.broadcast %aro : tensor<128x1xi32> -> tensor<128x64xi32>
  %acb = tile.broadcast %ac : tensor<1x64xi32> -> tensor<128x64xi32>
  %ao = arith.addi %arb, %acb : tensor<128x64xi32>
  %as = tile.splat %a : !tile.ptr<f16> -> tensor<128x64x!tile.ptr<f16>>
  %ap = tile.addptr %as, %ao : tensor<128x64x!tile.ptr<f16>>, tensor<128x64xi32>
  %br = tile.expand_dims %rb axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %bc = tile.expand_dims %ra axis 0 : tensor<128xi32> -> tensor<1x128xi32>
  %c128 = arith.constant dense<128> : tensor<64x1xi32>
  %bro = arith.muli %br, %c128 : tensor<64x1xi32>
  %brb = tile.broadcast %bro : tensor<64x1xi32> -> tensor<64x128xi32>
  %bcb = tile.broadcast %bc : tensor<1x128xi32> -> tensor<64x128xi32>
  %bo = arith.addi %brb, %bcb : tensor<64x128xi32>
  %bs = tile.splat %a : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>>
  %bp = tile.addptr %bs, %bo : tensor<64x128x!tile.ptr<f16>>, tensor<64x128xi32>
  %cr = tile.expand_dims %ra axis 1 : tensor<128xi32> -> tensor<128x1xi32>
  %cc = tile.expand_dims %ra axis 0 : tensor<128xi32> -> tensor<1x128xi32>
  %cc128 = arith.constant dense<128> : tensor<128x1xi32>
  %cro = arith.muli %cr, %cc128 : tensor<128x1xi32>
  %crb = tile.broadcast %cro : tensor<128x1xi32> -> tensor<128x128xi32>
  %ccb = tile.broadcast %cc : tensor<1x128xi32> -> tensor<128x128xi32>
  %co = arith.addi %crb, %ccb : tensor<128x128xi32>
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<128x128x!tile.ptr<f32>>
  %cp = tile.addptr %cs, %co : tensor<128x128x!tile.ptr<f32>>, tensor<128x128xi32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%acc_i = %zero) -> (tensor<128x128xf32>) : i32 {
    %va = tile.load %ap : tensor<128x64x!tile.ptr<f16>> -> tensor<128x64xf16>
    %vb = tile.load %bp : tensor<64x128x!tile.ptr<f16>> -> tensor<64x128xf16>
    %d = tile.dot %va, %vb, %acc_i : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  } {tile.num_stages = 4 : i64}
  tile.store %cp, %acc : tensor<128x128x!tile.ptr<f32>>, tensor<128x128xf32>
  return
}

// -----

// The same K loop in a loop over tiles (a persistent kernel): the store's
// conversion of the 128x128 f32 accumulator (64 KiB of scratch) runs while
// the slots hold the next tile's copies, so the slots may take 163 KiB
// less 64 KiB, three stages of 32 KiB.
// CHECK-LABEL: func.func @epilogue_in_a_loop_around
// CHECK: scf.for
// CHECK: tilegpu.local_alloc : memref<3x128x64xf16, 3>
// CHECK: tilegpu.local_alloc : memref<3x64x128xf16, 3>
func.func @epilogue_in_a_loop_around(
    %a: !tile.ptr<f16> {tile.divisibility = 16 : i64},
    %c: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %n: i32, %tiles: i32) {
  %ra = tile.range 0 to 128 : tensor<128xi32>
  %rb = tile.range 0 to 64 : tensor<64xi32>
  %ar = tile.expand_dims %ra axis 1 : tensor<128xi32> -> tensor<128x1xi32>
  %ac = tile.expand_dims %rb axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %c64 = arith.constant dense<64> : tensor<128x1xi32>
  %aro = arith.muli %ar, %c64 : tensor<128x1xi32>
  %arb = tile.broadcast %aro : tensor<128x1xi32> -> tensor<128x64xi32>
  %acb = tile.broadcast %ac : tensor<1x64xi32> -> tensor<128x64xi32>
  %ao = arith.addi %arb, %acb : tensor<128x64xi32>
  %as = tile.splat %a : !tile.ptr<f16> -> tensor<128x64x!tile.ptr<f16>>
  %ap = tile.addptr %as, %ao : tensor<128x64x!tile.ptr<f16>>, tensor<128x64xi32>
  %br = tile.expand_dims %rb axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %bc = tile.expand_dims %ra axis 0 : tensor<128xi32> -> tensor<1x128xi32>
  %c128 = arith.constant dense<128> : tensor<64x1xi32>
  %bro = arith.muli %br, %c128 : tensor<64x1xi32>
  %brb = tile.broadcast %bro : tensor<64x1xi32> -> tensor<64x128xi32>
  %bcb = tile.broadcast %bc : tensor<1x128xi32> -> tensor<64x128xi32>
  %bo = arith.addi %brb, %bcb : tensor<64x128xi32>
  %bs = tile.splat %a : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>>
  %bp = tile.addptr %bs, %bo : tensor<64x128x!tile.ptr<f16>>, tensor<64x128xi32>
  %cr = tile.expand_dims %ra axis 1 : tensor<128xi32> -> tensor<128x1xi32>
  %cc = tile.expand_dims %ra axis 0 : tensor<128xi32> -> tensor<1x128xi32>
  %cc128 = arith.constant dense<128> : tensor<128x1xi32>
  %cro = arith.muli %cr, %cc128 : tensor<128x1xi32>
  %crb = tile.broadcast %cro : tensor<128x1xi32> -> tensor<128x128xi32>
  %ccb = tile.broadcast %cc : tensor<1x128xi32> -> tensor<128x128xi32>
  %co = arith.addi %crb, %ccb : tensor<128x128xi32>
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<128x128x!tile.ptr<f32>>
  %cp = tile.addptr %cs, %co : tensor<128x128x!tile.ptr<f32>>, tensor<128x128xi32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %t = %c0 to %tiles step %c1 : i32 {
    // expected-remark @+1 {{pipelined 3 stages deep, not 4: 4 stages of 32768 bytes do not fit the 101376 bytes of shared memory they may take}}
    %acc = scf.for %k = %c0 to %n step %c1 iter_args(%acc_i = %zero) -> (tensor<128x128xf32>) : i32 {
      %va = tile.load %ap : tensor<128x64x!tile.ptr<f16>> -> tensor<128x64xf16>
      %vb = tile.load %bp : tensor<64x128x!tile.ptr<f16>> -> tensor<64x128xf16>
      %d = tile.dot %va, %vb, %acc_i : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
      scf.yield %d : tensor<128x128xf32>
    } {tile.num_stages = 4 : i64}
    tile.store %cp, %acc : tensor<128x128x!tile.ptr<f32>>, tensor<128x128xf32>
  }
  return
}
