// RUN: kiln-opt %s -split-input-file -canonicalize | FileCheck %s

// CHECK-LABEL: func.func @splat_of_constant
// CHECK-DAG: %[[F:.*]] = arith.constant dense<2.500000e+00> : tensor<4x8xf32>
// CHECK-DAG: %[[I:.*]] = arith.constant dense<7> : tensor<16xi32>
// CHECK-NOT: tile.splat
// CHECK: return %[[F]], %[[I]]
func.func @splat_of_constant() -> (tensor<4x8xf32>, tensor<16xi32>) {
  %f = arith.constant 2.5 : f32
  %i = arith.constant 7 : i32
  %0 = tile.splat %f : f32 -> tensor<4x8xf32>
  %1 = tile.splat %i : i32 -> tensor<16xi32>
  return %0, %1 : tensor<4x8xf32>, tensor<16xi32>
}

// -----

// CHECK-LABEL: func.func @negative_splat_of_argument
// CHECK: tile.splat
func.func @negative_splat_of_argument(%x: f32) -> tensor<4xf32> {
  %0 = tile.splat %x : f32 -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_to_same_type
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: return %[[X]]
func.func @broadcast_to_same_type(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tile.broadcast %x : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_of_constant
// CHECK: %[[C:.*]] = arith.constant dense<1.000000e+00> : tensor<4x8xf32>
// CHECK-NEXT: return %[[C]]
func.func @broadcast_of_constant() -> tensor<4x8xf32> {
  %c = arith.constant dense<1.0> : tensor<1x8xf32>
  %0 = tile.broadcast %c : tensor<1x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_of_broadcast
// CHECK-SAME: (%[[X:.*]]: tensor<1x1xf32>)
// CHECK-NEXT: %[[B:.*]] = tile.broadcast %[[X]] : tensor<1x1xf32> -> tensor<4x8xf32>
// CHECK-NEXT: return %[[B]]
func.func @broadcast_of_broadcast(%x: tensor<1x1xf32>) -> tensor<4x8xf32> {
  %0 = tile.broadcast %x : tensor<1x1xf32> -> tensor<1x8xf32>
  %1 = tile.broadcast %0 : tensor<1x8xf32> -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @shape_ops_of_splat
// CHECK-SAME: (%[[X:.*]]: i32)
// CHECK-DAG: %[[B:.*]] = tile.splat %[[X]] : i32 -> tensor<4x8xi32>
// CHECK-DAG: %[[E:.*]] = tile.splat %[[X]] : i32 -> tensor<1x8xi32>
// CHECK-DAG: %[[R:.*]] = tile.splat %[[X]] : i32 -> tensor<2x4xi32>
// CHECK-DAG: %[[T:.*]] = tile.splat %[[X]] : i32 -> tensor<8x1xi32>
// CHECK-NOT: tile.broadcast
// CHECK-NOT: tile.expand_dims
// CHECK-NOT: tile.reshape
// CHECK-NOT: tile.trans
// CHECK: return %[[B]], %[[E]], %[[R]], %[[T]]
func.func @shape_ops_of_splat(%x: i32) -> (tensor<4x8xi32>, tensor<1x8xi32>, tensor<2x4xi32>, tensor<8x1xi32>) {
  %s = tile.splat %x : i32 -> tensor<1x8xi32>
  %b = tile.broadcast %s : tensor<1x8xi32> -> tensor<4x8xi32>
  %v = tile.splat %x : i32 -> tensor<8xi32>
  %e = tile.expand_dims %v axis 0 : tensor<8xi32> -> tensor<1x8xi32>
  %r = tile.reshape %v : tensor<8xi32> -> tensor<2x4xi32>
  %t = tile.trans %s [1, 0] : tensor<1x8xi32> -> tensor<8x1xi32>
  return %b, %e, %r, %t : tensor<4x8xi32>, tensor<1x8xi32>, tensor<2x4xi32>, tensor<8x1xi32>
}

// -----

// CHECK-LABEL: func.func @expand_dims_of_constant
// CHECK: %[[C:.*]] = arith.constant dense<3> : tensor<8x1xi32>
// CHECK-NEXT: return %[[C]]
func.func @expand_dims_of_constant() -> tensor<8x1xi32> {
  %c = arith.constant dense<3> : tensor<8xi32>
  %0 = tile.expand_dims %c axis 1 : tensor<8xi32> -> tensor<8x1xi32>
  return %0 : tensor<8x1xi32>
}

// -----

// CHECK-LABEL: func.func @reshape_folds
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-DAG: %[[C:.*]] = arith.constant dense<{{\[}}[0, 1], [2, 3]]> : tensor<2x2xi32>
// CHECK-DAG: %[[R:.*]] = tile.reshape %[[X]] : tensor<4x8xf32> -> tensor<2x16xf32>
// CHECK: return %[[X]], %[[R]], %[[C]]
func.func @reshape_folds(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<2x16xf32>, tensor<2x2xi32>) {
  %same = tile.reshape %x : tensor<4x8xf32> -> tensor<4x8xf32>
  // Two reshapes are one: both keep the row-major order.
  %flat = tile.reshape %x : tensor<4x8xf32> -> tensor<32xf32>
  %twice = tile.reshape %flat : tensor<32xf32> -> tensor<2x16xf32>
  %c = arith.constant dense<[0, 1, 2, 3]> : tensor<4xi32>
  %rc = tile.reshape %c : tensor<4xi32> -> tensor<2x2xi32>
  return %same, %twice, %rc : tensor<4x8xf32>, tensor<2x16xf32>, tensor<2x2xi32>
}

// -----

// CHECK-LABEL: func.func @trans_folds
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK: %[[T:.*]] = tile.trans %[[X]] [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
// CHECK-NOT: tile.trans
// CHECK: return %[[X]], %[[X]], %[[T]]
func.func @trans_folds(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<4x2x3xf32>) {
  %id = tile.trans %x [0, 1, 2] : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  // [1, 2, 0] then [2, 0, 1] is the identity.
  %a = tile.trans %x [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %back = tile.trans %a [2, 0, 1] : tensor<3x4x2xf32> -> tensor<2x3x4xf32>
  // [0, 2, 1] then [1, 2, 0]: result dim i is source dim inner[outer[i]],
  // that is [2, 0, 1].
  %b = tile.trans %x [0, 2, 1] : tensor<2x3x4xf32> -> tensor<2x4x3xf32>
  %c = tile.trans %b [1, 0, 2] : tensor<2x4x3xf32> -> tensor<4x2x3xf32>
  return %id, %back, %c : tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<4x2x3xf32>
}

// -----

// CHECK-LABEL: func.func @addptr_zero
// CHECK-SAME: (%[[P:.*]]: !tile.ptr<f32>, %[[PS:.*]]: tensor<8x!tile.ptr<f32>>)
// CHECK-NEXT: return %[[P]], %[[PS]]
func.func @addptr_zero(%p: !tile.ptr<f32>, %ps: tensor<8x!tile.ptr<f32>>) -> (!tile.ptr<f32>, tensor<8x!tile.ptr<f32>>) {
  %c0 = arith.constant 0 : i64
  %z = arith.constant dense<0> : tensor<8xi32>
  %0 = tile.addptr %p, %c0 : !tile.ptr<f32>, i64
  %1 = tile.addptr %ps, %z : tensor<8x!tile.ptr<f32>>, tensor<8xi32>
  return %0, %1 : !tile.ptr<f32>, tensor<8x!tile.ptr<f32>>
}

// -----

// The offsets are added in 64 bits, as addptr extends each of them: an
// i32 sum could overflow where the two steps do not.
// CHECK-LABEL: func.func @addptr_chain
// CHECK-SAME: (%[[P:[a-z0-9]+]]: tensor<8x!tile.ptr<f16>>, %[[A:[a-z0-9]+]]: tensor<8xi32>, %[[B:[a-z0-9]+]]: tensor<8xi32>)
// CHECK-NEXT: %[[WA:.*]] = arith.extsi %[[A]] : tensor<8xi32> to tensor<8xi64>
// CHECK-NEXT: %[[WB:.*]] = arith.extsi %[[B]] : tensor<8xi32> to tensor<8xi64>
// CHECK-NEXT: %[[S:.*]] = arith.addi %[[WA]], %[[WB]] : tensor<8xi64>
// CHECK-NEXT: %[[R:.*]] = tile.addptr %[[P]], %[[S]] : tensor<8x!tile.ptr<f16>>, tensor<8xi64>
// CHECK-NEXT: return %[[R]]
func.func @addptr_chain(%p: tensor<8x!tile.ptr<f16>>, %a: tensor<8xi32>, %b: tensor<8xi32>) -> tensor<8x!tile.ptr<f16>> {
  %0 = tile.addptr %p, %a : tensor<8x!tile.ptr<f16>>, tensor<8xi32>
  %1 = tile.addptr %0, %b : tensor<8x!tile.ptr<f16>>, tensor<8xi32>
  return %1 : tensor<8x!tile.ptr<f16>>
}

// -----

// Offsets of different widths are not added: the sum would need a cast
// whose overflow behaviour the pointer arithmetic does not have.
// CHECK-LABEL: func.func @negative_addptr_chain_mixed_widths
// CHECK: tile.addptr
// CHECK: tile.addptr
func.func @negative_addptr_chain_mixed_widths(%p: !tile.ptr<f16>, %a: i32, %b: i64) -> !tile.ptr<f16> {
  %0 = tile.addptr %p, %a : !tile.ptr<f16>, i32
  %1 = tile.addptr %0, %b : !tile.ptr<f16>, i64
  return %1 : !tile.ptr<f16>
}

// -----

// CHECK-LABEL: func.func @ptr_cast_folds
// CHECK-SAME: (%[[P:.*]]: !tile.ptr<f32>)
// CHECK-NEXT: %[[C:.*]] = tile.ptr_cast %[[P]] : !tile.ptr<f32> -> !tile.ptr<i8>
// CHECK-NEXT: return %[[P]], %[[C]]
func.func @ptr_cast_folds(%p: !tile.ptr<f32>) -> (!tile.ptr<f32>, !tile.ptr<i8>) {
  %same = tile.ptr_cast %p : !tile.ptr<f32> -> !tile.ptr<f32>
  %a = tile.ptr_cast %p : !tile.ptr<f32> -> !tile.ptr<i32>
  %b = tile.ptr_cast %a : !tile.ptr<i32> -> !tile.ptr<i8>
  return %same, %b : !tile.ptr<f32>, !tile.ptr<i8>
}

// -----

// CHECK-LABEL: func.func @advance_by_zero
// CHECK-SAME: (%[[BP:.*]]: !tile.block_ptr<16x16xf32>, %[[O:.*]]: i32)
// CHECK: %[[A:.*]] = tile.advance %[[BP]], [%{{.*}}, %[[O]]]
// CHECK-NEXT: return %[[BP]], %[[A]]
func.func @advance_by_zero(%bp: !tile.block_ptr<16x16xf32>, %o: i32) -> (!tile.block_ptr<16x16xf32>, !tile.block_ptr<16x16xf32>) {
  %c0 = arith.constant 0 : i32
  %0 = tile.advance %bp, [%c0, %c0] : !tile.block_ptr<16x16xf32>
  %1 = tile.advance %bp, [%c0, %o] : !tile.block_ptr<16x16xf32>
  return %0, %1 : !tile.block_ptr<16x16xf32>, !tile.block_ptr<16x16xf32>
}

// -----

// A load whose result is unused only reads memory, so it goes; stores and
// atomics write memory and stay.
// CHECK-LABEL: func.func @memory_effects
// CHECK-NOT: tile.load
// CHECK: tile.store
// CHECK: tile.atomic_rmw
// CHECK: tile.block_store
func.func @memory_effects(%p: !tile.ptr<i32>, %v: i32, %bp: !tile.block_ptr<4xi32>, %t: tensor<4xi32>) {
  %0 = tile.load %p : !tile.ptr<i32> -> i32
  %b = tile.block_load %bp : !tile.block_ptr<4xi32> -> tensor<4xi32>
  tile.store %p, %v : !tile.ptr<i32>, i32
  %1 = tile.atomic_rmw add relaxed gpu %p, %v : !tile.ptr<i32>, i32
  tile.block_store %bp, %t : !tile.block_ptr<4xi32>, tensor<4xi32>
  return
}

// -----

// `acc + dot(a, b, 0)` accumulates into the product: one accumulator.
// Either order of the sum, a splat zero or a dense one, f32 or i32.
// CHECK-LABEL: func.func @accumulate_into_dot
// CHECK-SAME: (%[[A:.*]]: tensor<16x16xf16>, %[[B:.*]]: tensor<16x16xf16>, %[[ACC:.*]]: tensor<16x16xf32>, %[[IA:.*]]: tensor<16x32xi8>, %[[IB:.*]]: tensor<32x16xi8>, %[[IACC:.*]]: tensor<16x16xi32>)
// CHECK-NEXT: %[[D:.*]] = tile.dot %[[A]], %[[B]], %[[ACC]] : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
// CHECK-NEXT: %[[E:.*]] = tile.dot %[[A]], %[[B]], %[[D]] : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
// CHECK-NEXT: %[[I:.*]] = tile.dot %[[IA]], %[[IB]], %[[IACC]] : tensor<16x32xi8>, tensor<32x16xi8> -> tensor<16x16xi32>
// CHECK-NEXT: return %[[E]], %[[I]]
func.func @accumulate_into_dot(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>, %acc: tensor<16x16xf32>, %ia: tensor<16x32xi8>, %ib: tensor<32x16xi8>, %iacc: tensor<16x16xi32>) -> (tensor<16x16xf32>, tensor<16x16xi32>) {
  %zero = arith.constant 0.0 : f32
  %zeros = tile.splat %zero : f32 -> tensor<16x16xf32>
  %p = tile.dot %a, %b, %zeros : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
  %s = arith.addf %acc, %p : tensor<16x16xf32>
  %dense = arith.constant dense<0.0> : tensor<16x16xf32>
  %q = tile.dot %a, %b, %dense : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
  %t = arith.addf %q, %s : tensor<16x16xf32>
  %izeros = arith.constant dense<0> : tensor<16x16xi32>
  %r = tile.dot %ia, %ib, %izeros : tensor<16x32xi8>, tensor<32x16xi8> -> tensor<16x16xi32>
  %u = arith.addi %iacc, %r : tensor<16x16xi32>
  return %t, %u : tensor<16x16xf32>, tensor<16x16xi32>
}

// -----

// Not when the product has another use, or its accumulator is not zero.
// CHECK-LABEL: func.func @keep_dot_and_sum
// CHECK: tile.dot
// CHECK-NEXT: arith.addf
// CHECK-NEXT: tile.dot
// CHECK-NEXT: arith.addf
func.func @keep_dot_and_sum(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>, %acc: tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>) {
  %zeros = arith.constant dense<0.0> : tensor<16x16xf32>
  %p = tile.dot %a, %b, %zeros : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
  %s = arith.addf %acc, %p : tensor<16x16xf32>
  %q = tile.dot %a, %b, %acc : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
  %t = arith.addf %acc, %q : tensor<16x16xf32>
  return %s, %p, %t : tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>
}

// -----

// Pure assembly whose results are unused goes; assembly with side effects
// stays, even unused.
// CHECK-LABEL: func.func @inline_asm_effects
// CHECK-NOT: "add.s32
// CHECK: tile.inline_asm_elementwise "st.global.b32
// CHECK-NEXT: return
func.func @inline_asm_effects(%x: tensor<64xi32>, %p: tensor<64xi64>) {
  %0 = tile.inline_asm_elementwise "add.s32 $0, $1, 1;", "=r,r" pure %x : (tensor<64xi32>) -> tensor<64xi32>
  %1 = tile.inline_asm_elementwise "st.global.b32 [$1], $2; mov.b32 $0, 0;", "=r,l,r" %p, %x : (tensor<64xi64>, tensor<64xi32>) -> tensor<64xi32>
  return
}

// -----

// A map whose region computes and reads has that region's effects: unused,
// it goes (as an unused load would). A used one keeps its block whole,
// every argument of a group included, even one the region ignores; what
// the region computes from constants folds as anywhere.
// CHECK-LABEL: func.func @map_elementwise
// CHECK-NOT: tile.load
// CHECK: %[[Y:.*]] = tile.map_elementwise %{{.*}} pack = 2 : (tensor<64xf32>) -> tensor<64xf32> {
// CHECK-NEXT: ^bb0(%[[X0:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[D:.*]] = arith.addf %[[X0]], %[[X0]] : f32
// CHECK-NEXT: tile.yield %[[D]], %[[D]] : f32, f32
// CHECK: return %[[Y]]
func.func @map_elementwise(%x: tensor<64xf32>, %p: !tile.ptr<f32>) -> tensor<64xf32> {
  %unused = tile.map_elementwise %x : (tensor<64xf32>) -> tensor<64xf32> {
  ^bb0(%xi: f32):
    %l = tile.load %p : !tile.ptr<f32> -> f32
    %s = arith.addf %xi, %l : f32
    tile.yield %s : f32
  }
  %y = tile.map_elementwise %x pack = 2 : (tensor<64xf32>) -> tensor<64xf32> {
  ^bb0(%x0: f32, %x1: f32):
    %true = arith.constant true
    %d = scf.if %true -> f32 {
      %twice = arith.addf %x0, %x0 : f32
      scf.yield %twice : f32
    } else {
      scf.yield %x1 : f32
    }
    tile.yield %d, %d : f32, f32
  }
  return %y : tensor<64xf32>
}

// -----

// A pure call whose result is unused goes; one with side effects stays,
// even unused.
// CHECK-LABEL: func.func @extern_elementwise_effects
// CHECK-NOT: "__nv_lgammaf"
// CHECK: tile.extern_elementwise "__nv_logbf" host "logbf" %
// CHECK-NEXT: return
func.func @extern_elementwise_effects(%x: tensor<64xf32>) {
  %0 = tile.extern_elementwise "__nv_lgammaf" host "lgammaf" pure %x : (tensor<64xf32>) -> tensor<64xf32>
  %1 = tile.extern_elementwise "__nv_logbf" host "logbf" %x : (tensor<64xf32>) -> tensor<64xf32>
  return
}
