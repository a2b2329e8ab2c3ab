// RUN: kiln-opt %s -split-input-file -tile-total-division | FileCheck %s

// A signed division by an unknown divisor divides by 1 where the divisor
// is 0 or the division would wrap, and gives 0 for a zero divisor.
// CHECK-LABEL: func.func @signed_division
// CHECK-SAME: (%[[A:.*]]: i32, %[[B:.*]]: i32)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i32
// CHECK: %[[ZERO:.*]] = arith.cmpi eq, %[[B]], %[[C0]] : i32
// CHECK-DAG: %[[MIN:.*]] = arith.constant -2147483648 : i32
// CHECK-DAG: %[[M1:.*]] = arith.constant -1 : i32
// CHECK: %[[LOWEST:.*]] = arith.cmpi eq, %[[A]], %[[MIN]] : i32
// CHECK: %[[NEG:.*]] = arith.cmpi eq, %[[B]], %[[M1]] : i32
// CHECK: %[[WRAPS:.*]] = arith.andi %[[LOWEST]], %[[NEG]] : i1
// CHECK: %[[BAD:.*]] = arith.ori %[[ZERO]], %[[WRAPS]] : i1
// CHECK: %[[SAFE:.*]] = arith.select %[[BAD]], %[[C1]], %[[B]] : i32
// CHECK: %[[Q:.*]] = arith.divsi %[[A]], %[[SAFE]] : i32
// CHECK: %[[R:.*]] = arith.select %[[ZERO]], %[[C0]], %[[Q]] : i32
// CHECK: return %[[R]]
func.func @signed_division(%a: i32, %b: i32) -> i32 {
  %q = arith.divsi %a, %b : i32
  return %q : i32
}

// -----

// A remainder needs no select after it: x % 1 is 0.
// CHECK-LABEL: func.func @unsigned_remainder
// CHECK-SAME: (%[[A:.*]]: tensor<4xi16>, %[[B:.*]]: tensor<4xi16>)
// CHECK-DAG: %[[C0:.*]] = arith.constant dense<0> : tensor<4xi16>
// CHECK-DAG: %[[C1:.*]] = arith.constant dense<1> : tensor<4xi16>
// CHECK: %[[ZERO:.*]] = arith.cmpi eq, %[[B]], %[[C0]] : tensor<4xi16>
// CHECK: %[[SAFE:.*]] = arith.select %[[ZERO]], %[[C1]], %[[B]] : tensor<4xi1>, tensor<4xi16>
// CHECK: %[[R:.*]] = arith.remui %[[A]], %[[SAFE]] : tensor<4xi16>
// CHECK-NEXT: return %[[R]]
func.func @unsigned_remainder(%a: tensor<4xi16>, %b: tensor<4xi16>) -> tensor<4xi16> {
  %r = arith.remui %a, %b : tensor<4xi16>
  return %r : tensor<4xi16>
}

// -----

// Vectors (a thread's registers, after the GPU conversion) too.
// CHECK-LABEL: func.func @vector_remainder
// CHECK: arith.cmpi eq, %{{.*}}, %{{.*}} : vector<8xi32>
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : vector<8xi1>, vector<8xi32>
// CHECK: arith.remsi
func.func @vector_remainder(%a: vector<8xi32>, %b: vector<8xi32>) -> vector<8xi32> {
  %r = arith.remsi %a, %b : vector<8xi32>
  return %r : vector<8xi32>
}

// -----

// Constant divisors other than 0 (and -1, when signed) are left alone.
// CHECK-LABEL: func.func @negative_constant_divisors
// CHECK-NEXT: arith.constant
// CHECK-NEXT: arith.constant
// CHECK-NEXT: arith.divsi
// CHECK-NEXT: arith.remui
// CHECK-NEXT: return
func.func @negative_constant_divisors(%a: i32, %t: tensor<4xi32>) -> (i32, tensor<4xi32>) {
  %c8 = arith.constant 8 : i32
  %m = arith.constant dense<-1> : tensor<4xi32>
  %q = arith.divsi %a, %c8 : i32
  // Unsigned, -1 is the largest divisor, and safe.
  %r = arith.remui %t, %m : tensor<4xi32>
  return %q, %r : i32, tensor<4xi32>
}

// -----

// A signed division by a constant -1 may wrap: it is guarded.
// CHECK-LABEL: func.func @by_minus_one
// CHECK: arith.andi
// CHECK: arith.divsi
func.func @by_minus_one(%a: i64) -> i64 {
  %m = arith.constant -1 : i64
  %q = arith.divsi %a, %m : i64
  return %q : i64
}
