// RUN: kiln-opt %s -split-input-file -tile-flatten-loops | FileCheck %s
// RUN: kiln-opt %s -split-input-file -tile-flatten-loops -verify-diagnostics -o /dev/null

// A persistent kernel's nest: a loop over tiles (tile.flatten) whose body
// computes the tile's offset (with a division), runs a K loop carrying an
// accumulator, and stores it. It becomes one loop of tiles x K steps,
// under an scf.if that the K loop takes steps; step f is K step f mod K of
// tile f / K: the offset is computed again, the accumulator starts from
// its initial value at K step 0, and the store runs at the last K step,
// which carries a placeholder on. Where the K loop takes no steps, the
// loop over tiles runs as written (without the attribute), its K loop
// replaced by its initial values. The trip count the inner loop's bounds
// need moves before the nest.
// CHECK-LABEL: func.func @persistent
// CHECK-SAME: (%[[X:.*]]: !tile.ptr<f32>, %[[TILES:.*]]: i32, %[[K:.*]]: i32, %[[PROGRAMS:.*]]: i32)
// CHECK: %[[KTRIPS:.*]] = arith.divsi %[[K]], %{{.*}} : i32
// CHECK: %[[OUTER:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : i32
// CHECK: %[[INNER:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : i32
// CHECK: %[[RUNS:.*]] = arith.cmpi sgt, %[[INNER]], %{{.*}} : i32
// CHECK: scf.if %[[RUNS]] {
// CHECK: %[[TOTAL:.*]] = arith.muli %[[OUTER]], %[[INNER]] : i32
// CHECK: %[[PLACEHOLDER:.*]] = arith.constant dense<0.000000e+00> : tensor<16xf32>
// CHECK: scf.for %[[F:.*]] = %{{.*}} to %[[TOTAL]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[PLACEHOLDER]]) -> (tensor<16xf32>) : i32 {
// CHECK: %[[TILE:.*]] = arith.divui %[[F]], %[[INNER]] : i32
// CHECK: %[[STEP:.*]] = arith.remui %[[F]], %[[INNER]] : i32
// CHECK: arith.divsi
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[STEP]], %{{.*}} : i32
// CHECK: %[[START:.*]] = arith.select %[[FIRST]], %{{.*}}, %[[ACC]] : tensor<16xf32>
// CHECK: %[[SUM:.*]] = arith.addf %[[START]], %{{.*}} : tensor<16xf32>
// CHECK: %[[LAST:.*]] = arith.cmpi eq, %[[STEP]], %{{.*}} : i32
// CHECK: %[[NEXT:.*]] = scf.if %[[LAST]] -> (tensor<16xf32>) {
// CHECK: tile.store %{{.*}}, %[[SUM]]
// CHECK: scf.yield %[[PLACEHOLDER]] : tensor<16xf32>
// CHECK: } else {
// CHECK: scf.yield %[[SUM]] : tensor<16xf32>
// CHECK: scf.yield %[[NEXT]] : tensor<16xf32>
// CHECK: } {tile.num_stages = 3 : i64}
// CHECK: } else {
// CHECK: scf.for
// CHECK-NOT: scf.for
// CHECK: tile.store %{{.*}}, %[[ZERO:.*]] :
// CHECK-NOT: tile.flatten
// CHECK: return
func.func @persistent(%x: !tile.ptr<f32>, %tiles: i32, %k: i32, %programs: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %c16 = arith.constant 16 : i32
  %r = tile.range 0 to 16 : tensor<16xi32>
  scf.for %t = %c0 to %tiles step %programs : i32 {
    %group = arith.divsi %t, %c4 : i32
    %row = arith.muli %group, %c16 : i32
    %zero = arith.constant dense<0.0> : tensor<16xf32>
    %ksteps = arith.divsi %k, %c16 : i32
    %acc = scf.for %j = %c0 to %ksteps step %c1 iter_args(%a = %zero) -> (tensor<16xf32>) : i32 {
      %jf = arith.sitofp %j : i32 to f32
      %v = tile.splat %jf : f32 -> tensor<16xf32>
      %s = arith.addf %a, %v : tensor<16xf32>
      scf.yield %s : tensor<16xf32>
    } {tile.num_stages = 3 : i64}
    %rows = tile.splat %row : i32 -> tensor<16xi32>
    %offs = arith.addi %rows, %r : tensor<16xi32>
    %base = tile.splat %x : !tile.ptr<f32> -> tensor<16x!tile.ptr<f32>>
    %p = tile.addptr %base, %offs : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
    tile.store %p, %acc : tensor<16x!tile.ptr<f32>>, tensor<16xf32>
  } {tile.flatten}
  return
}

// -----

// A dot's accumulator is carried on by each tile's last step as it is,
// not replaced by a placeholder: on wgmma it may still be being written
// there (an asynchronous dot), and the next step selects the next tile's
// initial value anyway.
// CHECK-LABEL: func.func @dot_accumulator
// CHECK: %[[PLACEHOLDER:.*]] = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
// CHECK: scf.for %{{.*}} iter_args(%[[ACC:.*]] = %[[PLACEHOLDER]]) -> (tensor<16x16xf32>) : i32 {
// CHECK: %[[START:.*]] = arith.select %{{.*}}, %{{.*}}, %[[ACC]] : tensor<16x16xf32>
// CHECK: %[[D:.*]] = tile.dot %{{.*}}, %{{.*}}, %[[START]]
// CHECK: %[[NEXT:.*]] = scf.if %{{.*}} -> (tensor<16x16xf32>) {
// CHECK: tile.store %{{.*}}, %[[D]]
// CHECK: scf.yield %[[D]] : tensor<16x16xf32>
// CHECK: } else {
// CHECK: scf.yield %[[D]] : tensor<16x16xf32>
func.func @dot_accumulator(%x: !tile.ptr<f32>, %tiles: i32, %k: i32, %a: tensor<16x16xf16>, %b: tensor<16x16xf16>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %t = %c0 to %tiles step %c1 : i32 {
    %zero = arith.constant dense<0.0> : tensor<16x16xf32>
    %acc = scf.for %j = %c0 to %k step %c1 iter_args(%s = %zero) -> (tensor<16x16xf32>) : i32 {
      %d = tile.dot %a, %b, %s : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
      scf.yield %d : tensor<16x16xf32>
    }
    %p = tile.splat %x : !tile.ptr<f32> -> tensor<16x16x!tile.ptr<f32>>
    tile.store %p, %acc : tensor<16x16x!tile.ptr<f32>>, tensor<16x16xf32>
  } {tile.flatten}
  return
}

// -----

// What the loop over tiles carries (Triton's persistent matmul counts the
// tiles of its epilogue, `tile_id_c += NUM_SMS`) the flat loop carries
// after the K loop's values: each tile's prologue and K steps read it, its
// epilogue changes it, and the other steps pass it on. The nest's results
// are the flat loop's (or the fallback's). The loop over tiles' request
// for warp specialization moves to the flat loop.
// CHECK-LABEL: func.func @carried
// CHECK: %[[RESULT:.*]] = scf.if %{{.*}} -> (i32) {
// CHECK: %[[FLAT:.*]]:2 = scf.for %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[COUNT:.*]] = %[[INIT:.*]]) -> (i32, i32) : i32 {
// CHECK: %[[AT:.*]] = arith.muli %[[COUNT]], %{{.*}} : i32
// CHECK: %[[EPILOGUE:.*]]:2 = scf.if %{{.*}} -> (i32, i32) {
// CHECK: %[[COUNTED:.*]] = arith.addi %[[COUNT]], %{{.*}} : i32
// CHECK: tile.store
// CHECK: scf.yield %{{.*}}, %[[COUNTED]] : i32, i32
// CHECK: } else {
// CHECK: scf.yield %{{.*}}, %[[COUNT]] : i32, i32
// CHECK: scf.yield %[[EPILOGUE]]#0, %[[EPILOGUE]]#1 : i32, i32
// CHECK-NEXT: } {tile.warp_specialize = true}
// CHECK-NEXT: scf.yield %[[FLAT]]#1 : i32
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[NEST:.*]] = scf.for
// CHECK-NOT: tile.warp_specialize
// CHECK: scf.yield %[[NEST]] : i32
// CHECK: return %[[RESULT]] : i32
func.func @carried(%x: !tile.ptr<i32>, %tiles: i32, %k: i32, %programs: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %counted = scf.for %t = %c0 to %tiles step %programs iter_args(%count = %c0) -> (i32) : i32 {
    %at = arith.muli %count, %c1 : i32
    %sum = scf.for %j = %c0 to %k step %c1 iter_args(%a = %at) -> (i32) : i32 {
      %s = arith.addi %a, %j : i32
      scf.yield %s : i32
    }
    %next = arith.addi %count, %programs : i32
    tile.store %x, %sum : !tile.ptr<i32>, i32
    scf.yield %next : i32
  } {tile.flatten, tile.warp_specialize = true}
  return %counted : i32
}

// -----

// What the pass cannot flatten keeps its loops and says why.
func.func @refused(%x: !tile.ptr<f32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // expected-remark @+1 {{not flattened: its body has no loop}}
  scf.for %i = %c0 to %n step %c1 : i32 {
    %v = arith.addi %i, %c1 : i32
  } {tile.flatten}
  // expected-remark @+1 {{not flattened: the bounds of the loop in its body change with it}}
  scf.for %i = %c0 to %n step %c1 : i32 {
    scf.for %j = %c0 to %i step %c1 : i32 {
      %v = tile.splat %x : !tile.ptr<f32> -> tensor<16x!tile.ptr<f32>>
      %z = arith.constant dense<0.0> : tensor<16xf32>
      tile.store %v, %z : tensor<16x!tile.ptr<f32>>, tensor<16xf32>
    }
  } {tile.flatten}
  // expected-remark @+1 {{not flattened: 'tile.store' before the loop in its body may not run at every step}}
  scf.for %i = %c0 to %n step %c1 : i32 {
    %v = tile.splat %x : !tile.ptr<f32> -> tensor<16x!tile.ptr<f32>>
    %z = arith.constant dense<0.0> : tensor<16xf32>
    tile.store %v, %z : tensor<16x!tile.ptr<f32>>, tensor<16xf32>
    scf.for %j = %c0 to %n step %c1 : i32 {
      tile.store %v, %z : tensor<16x!tile.ptr<f32>>, tensor<16xf32>
    }
  } {tile.flatten}
  // expected-remark @+1 {{not flattened: the loop in its body carries a tensor<16x!tile.ptr<f32>>, which each tile's first step cannot select}}
  scf.for %i = %c0 to %n step %c1 : i32 {
    %v = tile.splat %x : !tile.ptr<f32> -> tensor<16x!tile.ptr<f32>>
    %w = scf.for %j = %c0 to %n step %c1 iter_args(%p = %v) -> (tensor<16x!tile.ptr<f32>>) : i32 {
      scf.yield %p : tensor<16x!tile.ptr<f32>>
    }
  } {tile.flatten}
  return
}
