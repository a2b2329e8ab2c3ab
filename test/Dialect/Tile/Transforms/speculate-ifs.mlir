// RUN: kiln-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(tile-speculate-ifs))' | FileCheck %s

// A nest of ifs that update a tile becomes straight-line code: inner first.
// CHECK-LABEL: func.func @nest
// CHECK-NOT: scf.if
// CHECK: %[[A:.*]] = arith.addf %{{.*}}, %{{.*}} : tensor<16xf32>
// CHECK: %[[B:.*]] = arith.addf %[[A]], %{{.*}} : tensor<16xf32>
// CHECK: %[[IN:.*]] = arith.select %{{.*}}, %[[B]], %[[A]] : tensor<16xf32>
// CHECK: %[[OUT:.*]] = arith.select %{{.*}}, %[[IN]], %{{.*}} : tensor<16xf32>
// CHECK: return %[[OUT]]
func.func @nest(%v: tensor<16xf32>, %one: tensor<16xf32>, %a: i1, %b: i1) -> tensor<16xf32> {
  %r = scf.if %a -> (tensor<16xf32>) {
    %w = arith.addf %v, %one : tensor<16xf32>
    %s = scf.if %b -> (tensor<16xf32>) {
      %x = arith.addf %w, %one : tensor<16xf32>
      scf.yield %x : tensor<16xf32>
    } else {
      scf.yield %w : tensor<16xf32>
    }
    scf.yield %s : tensor<16xf32>
  } else {
    scf.yield %v : tensor<16xf32>
  }
  return %r : tensor<16xf32>
}

// -----

// What else a branch does (a store) stays under the condition.
// CHECK-LABEL: func.func @effects
// CHECK: %[[W:.*]] = arith.addf
// CHECK: %[[R:.*]] = arith.select %[[C:.*]], %[[W]], %{{.*}} : tensor<4xf32>
// CHECK: scf.if %[[C]] {
// CHECK-NEXT: tile.store %{{.*}}, %[[W]]
// CHECK-NEXT: } else {
// CHECK-NEXT: }
// CHECK: return %[[R]]
func.func @effects(%v: tensor<4xf32>, %p: tensor<4x!tile.ptr<f32>>, %c: i1) -> tensor<4xf32> {
  %r = scf.if %c -> (tensor<4xf32>) {
    %w = arith.addf %v, %v : tensor<4xf32>
    tile.store %p, %w : tensor<4x!tile.ptr<f32>>, tensor<4xf32>
    scf.yield %w : tensor<4xf32>
  } else {
    scf.yield %v : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// A result that a load (a memory access the branch guards), an integer
// division that may trap, or a loop computes keeps its if; so does an if
// without an else.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-3: scf.if
func.func @kept(%v: tensor<4xf32>, %p: tensor<4x!tile.ptr<f32>>, %i: tensor<4xi32>, %c: i1) -> (tensor<4xf32>, tensor<4xi32>) {
  %l = scf.if %c -> (tensor<4xf32>) {
    %x = tile.load %p : tensor<4x!tile.ptr<f32>> -> tensor<4xf32>
    scf.yield %x : tensor<4xf32>
  } else {
    scf.yield %v : tensor<4xf32>
  }
  %d = scf.if %c -> (tensor<4xi32>) {
    %q = arith.divsi %i, %i : tensor<4xi32>
    scf.yield %q : tensor<4xi32>
  } else {
    scf.yield %i : tensor<4xi32>
  }
  scf.if %c {
    tile.store %p, %v : tensor<4x!tile.ptr<f32>>, tensor<4xf32>
  }
  return %l, %d : tensor<4xf32>, tensor<4xi32>
}
