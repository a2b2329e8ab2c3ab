// RUN: kiln-opt %s -cse -canonicalize | FileCheck %s

// A volatile load writes as well as reads (its memory effects), so it is
// neither merged with its twin nor dropped unused; the plain loads beside
// it are merged and dropped.
// CHECK-LABEL: func.func @merged_and_dropped
// CHECK: scf.for
// CHECK-NEXT: %[[PLAIN:.*]] = tile.load %arg0 : !tile.ptr<i32> -> i32
// CHECK-NEXT: tile.load %arg0 {isVolatile} : !tile.ptr<i32> -> i32
// CHECK-NEXT: tile.load %arg0 {isVolatile} : !tile.ptr<i32> -> i32
// CHECK-NEXT: tile.load %arg0 {isVolatile} : !tile.ptr<i32> -> i32
// CHECK-NEXT: arith.addi %[[PLAIN]], %[[PLAIN]] : i32
func.func @merged_and_dropped(%p: !tile.ptr<i32>, %n: index) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i32
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (i32) {
    %a = tile.load %p : !tile.ptr<i32> -> i32
    %b = tile.load %p : !tile.ptr<i32> -> i32
    %unused = tile.load %p : !tile.ptr<i32> -> i32
    %c = tile.load %p {isVolatile} : !tile.ptr<i32> -> i32
    %d = tile.load %p {isVolatile} : !tile.ptr<i32> -> i32
    %unusedVolatile = tile.load %p {isVolatile} : !tile.ptr<i32> -> i32
    %ab = arith.addi %a, %b : i32
    %cd = arith.addi %c, %d : i32
    %all = arith.addi %ab, %cd : i32
    %next = arith.addi %acc, %all : i32
    scf.yield %next : i32
  }
  return %sum : i32
}

