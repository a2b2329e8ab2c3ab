// RUN: kiln-opt %s -tile-split-tf32x3 -o %t.mlir
// RUN: kiln-run %t.mlir --kernel=dot_tf32x3_inf --target=host --arg='f32[1024]=zeros' --arg='f32[1024]=zeros' --arg='f32[1024]=zeros' | FileCheck %s

// An infinite operand's remainder is inf - inf, a NaN the split must not
// let into the result (Triton takes a NaN among the small terms as 0):
// inf times 3/32, summed over K = 32, is inf.
// CHECK: arg2 f32[1024]: sum=inf min=inf max=inf
func.func @dot_tf32x3_inf(%a: !tile.ptr<f32>, %b: !tile.ptr<f32>, %out: !tile.ptr<f32>) {
  %r = tile.range 0 to 32 : tensor<32xi32>
  %rows = tile.expand_dims %r axis 1 : tensor<32xi32> -> tensor<32x1xi32>
  %cols = tile.expand_dims %r axis 0 : tensor<32xi32> -> tensor<1x32xi32>
  %cn = arith.constant dense<32> : tensor<32x1xi32>
  %ro = arith.muli %rows, %cn : tensor<32x1xi32>
  %rob = tile.broadcast %ro : tensor<32x1xi32> -> tensor<32x32xi32>
  %cob = tile.broadcast %cols : tensor<1x32xi32> -> tensor<32x32xi32>
  %offs = arith.addi %rob, %cob : tensor<32x32xi32>
  %as = tile.splat %a : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>>
  %ap = tile.addptr %as, %offs : tensor<32x32x!tile.ptr<f32>>, tensor<32x32xi32>
  %av = tile.load %ap : tensor<32x32x!tile.ptr<f32>> -> tensor<32x32xf32>
  %xc = arith.constant dense<0x7F800000> : tensor<32x32xf32>
  %x = arith.addf %av, %xc : tensor<32x32xf32>
  %bs = tile.splat %b : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>>
  %bp = tile.addptr %bs, %offs : tensor<32x32x!tile.ptr<f32>>, tensor<32x32xi32>
  %bv = tile.load %bp : tensor<32x32x!tile.ptr<f32>> -> tensor<32x32xf32>
  %yc = arith.constant dense<0.09375> : tensor<32x32xf32>
  %y = arith.addf %bv, %yc : tensor<32x32xf32>
  %zero = arith.constant dense<0.0> : tensor<32x32xf32>
  %d = tile.dot %x, %y, %zero input_precision = tf32x3 : tensor<32x32xf32>, tensor<32x32xf32> -> tensor<32x32xf32>
  %os = tile.splat %out : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>>
  %op = tile.addptr %os, %offs : tensor<32x32x!tile.ptr<f32>>, tensor<32x32xi32>
  tile.store %op, %d : tensor<32x32x!tile.ptr<f32>>, tensor<32x32xf32>
  return
}

