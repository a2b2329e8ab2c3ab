// Rows read from a 16-byte aligned base, their columns contiguous: how wide
// a load may be depends on what divides every row's start. A run (the row
// index) times a constant is no run, so its divisibility is what divides
// every element, not its first one's: rows 6 f32 apart (24 bytes) start
// 8-byte aligned and load as v2, rows 8 apart (32 bytes) as v4.
// RUN: kiln-translate %s -split-input-file --emit=ptx --chip=sm_90a | FileCheck %s
// RUN: %if ptxas %{ kiln-translate %s -split-input-file --emit=cubin --chip=sm_90a -o /dev/null %}

// CHECK-LABEL: .entry stride6
// CHECK-NOT: ld.global.v4
// CHECK: ld.global.v2.b32
// CHECK-NOT: ld.global.v4
// CHECK: ret;
func.func @stride6(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                   %out: !tile.ptr<f32> {tile.divisibility = 16 : i64}) {
  %rows = tile.range 0 to 64 : tensor<64xi32>
  %c6 = arith.constant 6 : i32
  %six = tile.splat %c6 : i32 -> tensor<64xi32>
  %starts = arith.muli %rows, %six : tensor<64xi32>
  %s = tile.expand_dims %starts axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %sb = tile.broadcast %s : tensor<64x1xi32> -> tensor<64x4xi32>
  %cols = tile.range 0 to 4 : tensor<4xi32>
  %c = tile.expand_dims %cols axis 0 : tensor<4xi32> -> tensor<1x4xi32>
  %cb = tile.broadcast %c : tensor<1x4xi32> -> tensor<64x4xi32>
  %offsets = arith.addi %sb, %cb : tensor<64x4xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<64x4x!tile.ptr<f32>>
  %from = tile.addptr %xs, %offsets : tensor<64x4x!tile.ptr<f32>>, tensor<64x4xi32>
  %v = tile.load %from : tensor<64x4x!tile.ptr<f32>> -> tensor<64x4xf32>
  %sum = tile.reduce %v axis 1 : tensor<64x4xf32> -> tensor<64xf32> {
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    tile.yield %r : f32
  }
  %outs = tile.splat %out : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %to = tile.addptr %outs, %rows : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  tile.store %to, %sum : tensor<64x!tile.ptr<f32>>, tensor<64xf32>
  return
}

// -----

// CHECK-LABEL: .entry stride8
// CHECK: ld.global.v4.b32
// CHECK: ret;
func.func @stride8(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                   %out: !tile.ptr<f32> {tile.divisibility = 16 : i64}) {
  %rows = tile.range 0 to 64 : tensor<64xi32>
  %c8 = arith.constant 8 : i32
  %eight = tile.splat %c8 : i32 -> tensor<64xi32>
  %starts = arith.muli %rows, %eight : tensor<64xi32>
  %s = tile.expand_dims %starts axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %sb = tile.broadcast %s : tensor<64x1xi32> -> tensor<64x4xi32>
  %cols = tile.range 0 to 4 : tensor<4xi32>
  %c = tile.expand_dims %cols axis 0 : tensor<4xi32> -> tensor<1x4xi32>
  %cb = tile.broadcast %c : tensor<1x4xi32> -> tensor<64x4xi32>
  %offsets = arith.addi %sb, %cb : tensor<64x4xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<64x4x!tile.ptr<f32>>
  %from = tile.addptr %xs, %offsets : tensor<64x4x!tile.ptr<f32>>, tensor<64x4xi32>
  %v = tile.load %from : tensor<64x4x!tile.ptr<f32>> -> tensor<64x4xf32>
  %sum = tile.reduce %v axis 1 : tensor<64x4xf32> -> tensor<64xf32> {
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    tile.yield %r : f32
  }
  %outs = tile.splat %out : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %to = tile.addptr %outs, %rows : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  tile.store %to, %sum : tensor<64x!tile.ptr<f32>>, tensor<64xf32>
  return
}
