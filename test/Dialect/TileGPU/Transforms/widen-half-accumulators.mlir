// RUN: kiln-opt %s -tile-widen-half-accumulators | FileCheck %s
// The GPU compiles such a dot on tensor cores, not as CUDA-core FMAs that
// round after every product.
// RUN: kiln-opt %s -tile-specialize-arguments="divisible=0,1,2" | kiln-translate --chip=sm_80 | FileCheck %s --check-prefix=PTX
// RUN: %if ptxas %{ kiln-translate %s --chip=sm_90a --emit=cubin -o /dev/null %}

// CHECK-LABEL: func.func @half_accumulator
// CHECK: %[[WIDE:.*]] = arith.extf %[[ACC:.*]] : tensor<32x32xf16> to tensor<32x32xf32>
// CHECK: %[[SUM:.*]] = tile.dot %{{.*}}, %{{.*}}, %[[WIDE]] : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
// CHECK: %[[ROUNDED:.*]] = arith.truncf %[[SUM]] : tensor<32x32xf32> to tensor<32x32xf16>
// CHECK: tile.store %{{.*}}, %[[ROUNDED]]
// PTX-LABEL: .entry half_accumulator(
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// PTX-NOT: fma.rn.f16
func.func @half_accumulator(%a: !tile.ptr<f16>, %b: !tile.ptr<f16>, %out: !tile.ptr<f16>) {
  %r = tile.range 0 to 32 : tensor<32xi32>
  %rows = tile.expand_dims %r axis 1 : tensor<32xi32> -> tensor<32x1xi32>
  %cols = tile.expand_dims %r axis 0 : tensor<32xi32> -> tensor<1x32xi32>
  %cn = arith.constant dense<32> : tensor<32x1xi32>
  %ro = arith.muli %rows, %cn : tensor<32x1xi32>
  %rob = tile.broadcast %ro : tensor<32x1xi32> -> tensor<32x32xi32>
  %cob = tile.broadcast %cols : tensor<1x32xi32> -> tensor<32x32xi32>
  %offs = arith.addi %rob, %cob : tensor<32x32xi32>
  %as = tile.splat %a : !tile.ptr<f16> -> tensor<32x32x!tile.ptr<f16>>
  %ap = tile.addptr %as, %offs : tensor<32x32x!tile.ptr<f16>>, tensor<32x32xi32>
  %av = tile.load %ap : tensor<32x32x!tile.ptr<f16>> -> tensor<32x32xf16>
  %bs = tile.splat %b : !tile.ptr<f16> -> tensor<32x32x!tile.ptr<f16>>
  %bp = tile.addptr %bs, %offs : tensor<32x32x!tile.ptr<f16>>, tensor<32x32xi32>
  %bv = tile.load %bp : tensor<32x32x!tile.ptr<f16>> -> tensor<32x32xf16>
  %os = tile.splat %out : !tile.ptr<f16> -> tensor<32x32x!tile.ptr<f16>>
  %op = tile.addptr %os, %offs : tensor<32x32x!tile.ptr<f16>>, tensor<32x32xi32>
  %acc = tile.load %op : tensor<32x32x!tile.ptr<f16>> -> tensor<32x32xf16>
  %d = tile.dot %av, %bv, %acc : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf16>
  tile.store %op, %d : tensor<32x32x!tile.ptr<f16>>, tensor<32x32xf16>
  return
}
