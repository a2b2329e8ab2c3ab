// RUN: kiln-opt %s -tile-split-tf32x3 | FileCheck %s
// The GPU pipeline splits tf32x3 dots before choosing tensor cores: three
// tf32 mma.sync per step where tf32 alone has one.
// RUN: kiln-opt %s -tile-specialize-arguments="divisible=0,1,2" | kiln-translate --chip=sm_80 | FileCheck %s --check-prefix=PTX
// RUN: %if ptxas %{ kiln-translate %s --chip=sm_90a --emit=cubin -o /dev/null %}
// On the host (which multiplies f32 exactly), the split dots give the f32
// product, so the parts add up to the operands: x = 1 + 2^-12, whose
// 2^-12 is beyond tf32's 10 mantissa bits, times y = 3/32, over K = 32, is
// 3 * (1 + 2^-12) = 3.00073 (tf32 alone would give 3).
// RUN: kiln-opt %s -tile-split-tf32x3 -o %t.mlir
// RUN: kiln-run %t.mlir --kernel=dot_tf32x3 --target=host --arg='f32[1024]=zeros' --arg='f32[1024]=zeros' --arg='f32[1024]=zeros' | FileCheck %s --check-prefix=HOST

// CHECK-LABEL: func.func @dot_tf32x3
// CHECK-DAG: %[[MASK:.*]] = arith.constant dense<-8192> : tensor<32x32xi32>
// CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
// CHECK: %[[ABITS:.*]] = arith.bitcast %[[A:.*]] : tensor<32x32xf32> to tensor<32x32xi32>
// CHECK: %[[AHI:.*]] = arith.andi %[[ABITS]], %[[MASK]]
// CHECK: %[[ABIG:.*]] = arith.bitcast %[[AHI]] : tensor<32x32xi32> to tensor<32x32xf32>
// CHECK: %[[ASMALL:.*]] = arith.subf %[[A]], %[[ABIG]]
// CHECK: %[[BBIG:.*]] = arith.bitcast %{{.*}} : tensor<32x32xi32> to tensor<32x32xf32>
// CHECK: %[[BSMALL:.*]] = arith.subf %{{.*}}, %[[BBIG]]
// The small terms are summed apart, a NaN among them taken as 0 (as
// Triton's), then added to the accumulator before the big product.
// CHECK: %[[D1:.*]] = tile.dot %[[ASMALL]], %[[BBIG]], %[[ZERO]] input_precision = tf32
// CHECK: %[[D2:.*]] = tile.dot %[[ABIG]], %[[BSMALL]], %[[D1]] input_precision = tf32
// CHECK: %[[NAN:.*]] = arith.cmpf uno, %[[D2]], %[[D2]]
// CHECK: %[[CLEAN:.*]] = arith.select %[[NAN]], %[[ZERO]], %[[D2]]
// CHECK: %[[ACC:.*]] = arith.addf {{.*}}%[[CLEAN]]
// CHECK: %[[D3:.*]] = tile.dot %[[ABIG]], %[[BBIG]], %[[ACC]] input_precision = tf32
// CHECK: tile.store %{{.*}}, %[[D3]]
// CHECK-NOT: tf32x3
// PTX-LABEL: .entry dot_tf32x3(
// PTX-COUNT-24: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// PTX-NOT: mma.sync
// HOST: arg2 f32[1024]: sum=3072.75 min=3.00073 max=3.00073
func.func @dot_tf32x3(%a: !tile.ptr<f32>, %b: !tile.ptr<f32>, %out: !tile.ptr<f32>) {
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
  // x = 1 + 2^-12 and y = 3/32, added to loaded zeros so nothing folds.
  %xc = arith.constant dense<1.000244140625> : tensor<32x32xf32>
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

// Other dots are left as they are.
// CHECK-LABEL: func.func @dot_tf32
// CHECK-NOT: arith.bitcast
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} input_precision = tf32 :
// CHECK-NOT: tile.dot
// PTX-LABEL: .entry dot_tf32(
// PTX-COUNT-8: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// PTX-NOT: mma.sync
func.func @dot_tf32(%a: !tile.ptr<f32>, %b: !tile.ptr<f32>, %out: !tile.ptr<f32>) {
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
  %bs = tile.splat %b : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>>
  %bp = tile.addptr %bs, %offs : tensor<32x32x!tile.ptr<f32>>, tensor<32x32xi32>
  %bv = tile.load %bp : tensor<32x32x!tile.ptr<f32>> -> tensor<32x32xf32>
  %zero = arith.constant dense<0.0> : tensor<32x32xf32>
  %d = tile.dot %av, %bv, %zero input_precision = tf32 : tensor<32x32xf32>, tensor<32x32xf32> -> tensor<32x32xf32>
  %os = tile.splat %out : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>>
  %op = tile.addptr %os, %offs : tensor<32x32x!tile.ptr<f32>>, tensor<32x32xi32>
  tile.store %op, %d : tensor<32x32x!tile.ptr<f32>>, tensor<32x32xf32>
  return
}
