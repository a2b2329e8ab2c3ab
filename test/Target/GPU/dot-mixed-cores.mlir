// RUN: kiln-translate %s --chip=sm_80 | FileCheck %s
// RUN: kiln-translate %s --chip=sm_90a | FileCheck %s
// RUN: %if ptxas %{ kiln-translate %s --chip=sm_80 | %ptxas -arch=sm_80 %}
// RUN: %if ptxas %{ kiln-translate %s --chip=sm_90a | %ptxas -arch=sm_90a %}

// A dot on tensor cores (f16) and one on CUDA cores (f32 with
// input_precision = ieee) whose results are added: their sum is one layout
// group, which takes the tensor-core accumulator's mma layout, so the
// CUDA-core dot accumulates in it (its fused multiply-adds address any
// layout). Before, that dot matched neither lowering and the kernel did
// not compile.
// CHECK-LABEL: .entry mixed(
// CHECK-DAG: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-DAG: fma.rn.f32
func.func @mixed(%a: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %c: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %o: !tile.ptr<f32> {tile.divisibility = 16 : i64}) {
  %zero = arith.constant dense<0.0> : tensor<32x32xf32>
  %r = tile.range 0 to 32 : tensor<32xi32>
  %rows = tile.expand_dims %r axis 1 : tensor<32xi32> -> tensor<32x1xi32>
  %c32 = arith.constant dense<32> : tensor<32x1xi32>
  %ro = arith.muli %rows, %c32 : tensor<32x1xi32>
  %rob = tile.broadcast %ro : tensor<32x1xi32> -> tensor<32x32xi32>
  %cols = tile.expand_dims %r axis 0 : tensor<32xi32> -> tensor<1x32xi32>
  %cob = tile.broadcast %cols : tensor<1x32xi32> -> tensor<32x32xi32>
  %off = arith.addi %rob, %cob : tensor<32x32xi32>
  %as = tile.splat %a : !tile.ptr<f16> -> tensor<32x32x!tile.ptr<f16>>
  %ap = tile.addptr %as, %off : tensor<32x32x!tile.ptr<f16>>, tensor<32x32xi32>
  %x = tile.load %ap : tensor<32x32x!tile.ptr<f16>> -> tensor<32x32xf16>
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>>
  %cp = tile.addptr %cs, %off : tensor<32x32x!tile.ptr<f32>>, tensor<32x32xi32>
  %y = tile.load %cp : tensor<32x32x!tile.ptr<f32>> -> tensor<32x32xf32>
  %d1 = tile.dot %x, %x, %zero : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
  %d2 = tile.dot %y, %y, %zero : tensor<32x32xf32>, tensor<32x32xf32> -> tensor<32x32xf32>
  %s = arith.addf %d1, %d2 : tensor<32x32xf32>
  %os = tile.splat %o : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>>
  %op = tile.addptr %os, %off : tensor<32x32x!tile.ptr<f32>>, tensor<32x32xi32>
  tile.store %op, %s : tensor<32x32x!tile.ptr<f32>>, tensor<32x32xf32>
  return
}
