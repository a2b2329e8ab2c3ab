// RUN: kiln-opt %s -split-input-file -kiln-tile=row-block=1 -verify-diagnostics | FileCheck %s
// RUN: not kiln-opt %s -split-input-file -kiln-tile="max-row=64 row-chunk=32" 2>/dev/null | FileCheck %s --check-prefix=CHUNK

// One program per row (row-block=1; tile-row-blocks.mlir has the blocks of
// rows kiln-tile picks by default for short rows and columns).

// Generics over the rows alone are scalar code in each program; a column
// vector (the (d0, d1) -> (d1) map) is read as a tile over the columns.
// CHECK-LABEL: func.func @norm_kernel0_tile
// CHECK-SAME: (%[[X:.*]]: !tile.ptr<f32>, %[[W:.*]]: !tile.ptr<f32>, %[[Y:.*]]: !tile.ptr<f32>)
// CHECK: %[[XV:.*]] = tile.load {{.*}} : tensor<128x!tile.ptr<f32>> -> tensor<128xf32>
// CHECK: %[[SQ:.*]] = arith.mulf %[[XV]], %[[XV]] : tensor<128xf32>
// CHECK: %[[SUM:.*]] = tile.reduce
// CHECK: %[[TOTAL:.*]] = arith.addf %[[SUM]], %{{.*}} : f32
// CHECK: %[[R:.*]] = math.rsqrt %{{.*}} : f32
// CHECK: tile.splat %[[R]] : f32 -> tensor<128xf32>
// CHECK: %[[WS:.*]] = tile.splat %[[W]] : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
// CHECK: %[[WP:.*]] = tile.addptr %[[WS]], %{{.*}}
// CHECK: tile.load %[[WP]], %{{.*}} : tensor<128x!tile.ptr<f32>> -> tensor<128xf32>
// CHECK: tile.store
// CHECK-NOT: tile.load
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#rows = affine_map<(d0) -> (d0)>
func.func private @norm_kernel0(%x: tensor<6x100xf32>, %w: tensor<100xf32>) -> tensor<6x100xf32> attributes {kiln.kernel} {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 100.0 : f32
  %er = tensor.empty() : tensor<6xf32>
  %et = tensor.empty() : tensor<6x100xf32>
  %init = linalg.fill ins(%zero : f32) outs(%er : tensor<6xf32>) -> tensor<6xf32>
  %ss = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<6x100xf32>) outs(%init : tensor<6xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %q = arith.mulf %in, %in : f32
    %a = arith.addf %q, %acc : f32
    linalg.yield %a : f32
  } -> tensor<6xf32>
  %r = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel"]}
      ins(%ss : tensor<6xf32>) outs(%er : tensor<6xf32>) {
  ^bb0(%s: f32, %out: f32):
    %m = arith.divf %s, %n : f32
    %rs = math.rsqrt %m : f32
    linalg.yield %rs : f32
  } -> tensor<6xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %r, %w : tensor<6x100xf32>, tensor<6xf32>, tensor<100xf32>) outs(%et : tensor<6x100xf32>) {
  ^bb0(%in: f32, %ri: f32, %wi: f32, %out: f32):
    %a = arith.mulf %in, %ri : f32
    %b = arith.mulf %a, %wi : f32
    linalg.yield %b : f32
  } -> tensor<6x100xf32>
  return %y : tensor<6x100xf32>
}
func.func @norm(%x: tensor<6x100xf32>, %w: tensor<100xf32>) -> tensor<6x100xf32> {
  %y = call @norm_kernel0(%x, %w) : (tensor<6x100xf32>, tensor<100xf32>) -> tensor<6x100xf32>
  return %y : tensor<6x100xf32>
}

// Rows longer than max-row are walked in chunks: the sum of squares is a
// loop carrying a running value per lane of the chunk's tile from 0
// (add's neutral element; lanes past column 100 add 0), reduced across
// lanes once after the loop; the scalars after it run once, and a last
// loop reads x and w again and stores y, 32 columns at a time, masked
// past column 100. Where the row starts in x is found once, before the
// loops, which only add their chunk's columns.
// CHUNK-LABEL: func.func @norm_kernel0_tile
// CHUNK-DAG: %[[ROW:.*]] = tile.program_id x
// CHUNK-DAG: %[[LEN:.*]] = arith.constant 100 : i32
// CHUNK: %[[OFFSET:.*]] = arith.muli %[[ROW]], %[[LEN]] : i32
// CHUNK: %[[START:.*]] = tile.addptr %{{.*}}, %[[OFFSET]] : !tile.ptr<f32>, i32
// CHUNK: %[[STARTS:.*]] = tile.splat %[[START]] : !tile.ptr<f32> -> tensor<32x!tile.ptr<f32>>
// CHUNK: %[[NEUTRAL:.*]] = arith.constant dense<0.000000e+00> : tensor<32xf32>
// CHUNK-NEXT: %[[FIRST:.*]] = arith.constant 0 : i32
// CHUNK-NEXT: %[[STEP:.*]] = arith.constant 32 : i32
// CHUNK-NEXT: %[[SS:.*]] = scf.for %[[C:.*]] = %[[FIRST]] to %[[LEN]] step %[[STEP]] iter_args(%[[ACC:.*]] = %[[NEUTRAL]]) -> (tensor<32xf32>)
// CHUNK: %[[RANGE:.*]] = tile.range 0 to 32 : tensor<32xi32>
// CHUNK: %[[COLS:.*]] = arith.addi %{{.*}}, %[[RANGE]] : tensor<32xi32>
// CHUNK: %[[MASK:.*]] = arith.cmpi slt, %[[COLS]], %{{.*}} : tensor<32xi32>
// CHUNK: %[[XS:.*]] = tile.addptr %[[STARTS]], %[[COLS]]
// CHUNK: %[[XV:.*]] = tile.load %[[XS]], %[[MASK]] : tensor<32x!tile.ptr<f32>> -> tensor<32xf32>
// CHUNK: %[[SQ:.*]] = arith.mulf %[[XV]], %[[XV]] : tensor<32xf32>
// CHUNK: %[[KEPT:.*]] = arith.select %[[MASK]], %[[SQ]], %{{.*}}
// CHUNK-NEXT: %[[NEXT:.*]] = arith.addf %[[KEPT]], %[[ACC]] : tensor<32xf32>
// CHUNK-NEXT: scf.yield %[[NEXT]] : tensor<32xf32>
// CHUNK-NEXT: }
// CHUNK-NEXT: %[[LANES:.*]] = tile.reduce %[[SS]] axis 0 : tensor<32xf32> -> f32
// CHUNK: %[[INIT:.*]] = arith.constant 0.000000e+00 : f32
// CHUNK-NEXT: arith.addf %[[LANES]], %[[INIT]] : f32
// CHUNK: %[[R:.*]] = math.rsqrt %{{.*}} : f32
// CHUNK: scf.for %{{.*}} to %[[LEN]] step
// CHUNK-NOT: arith.muli %[[ROW]]
// CHUNK: tile.addptr %[[STARTS]]
// CHUNK: tile.load {{.*}} -> tensor<32xf32>
// CHUNK: tile.splat %[[R]] : f32 -> tensor<32xf32>
// CHUNK: tile.load {{.*}} -> tensor<32xf32>
// CHUNK: tile.store
// CHUNK-NEXT: }
// CHUNK-NEXT: return

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func private @twice_kernel0(%x: tensor<4x8xf32>) -> tensor<4xf32> attributes {kiln.kernel} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  // expected-error @+1 {{kiln-tile: a reduction body must combine the running value with one value of the inputs by an op with a neutral element (add, mul, max, min, and, or, ...)}}
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    %b = arith.mulf %a, %acc : f32
    linalg.yield %b : f32
  } -> tensor<4xf32>
  return %s : tensor<4xf32>
}
func.func @twice(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %s = call @twice_kernel0(%x) : (tensor<4x8xf32>) -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// An input read through any other projection is placed by its strides:
// the sums of x's columns read row r of x^T at x + r, its elements 4
// apart.
// CHECK-LABEL: func.func @columns_kernel0_tile
// CHECK-SAME: (%[[X:.*]]: !tile.ptr<f32>, %{{.*}}: !tile.ptr<f32>)
// CHECK: %[[ROW:.*]] = tile.program_id x
// CHECK: %[[COLS:.*]] = tile.range 0 to 8 : tensor<8xi32>
// CHECK: %[[AT:.*]] = tile.addptr %[[X]], %[[ROW]] : !tile.ptr<f32>, i32
// CHECK: %[[PTRS:.*]] = tile.splat %[[AT]]
// CHECK: %[[FOUR:.*]] = tile.splat %{{.*}} : i32 -> tensor<8xi32>
// CHECK: %[[STRIDED:.*]] = arith.muli %[[COLS]], %[[FOUR]] : tensor<8xi32>
// CHECK: tile.addptr %[[PTRS]], %[[STRIDED]]
#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
#row = affine_map<(d0, d1) -> (d0)>
func.func private @columns_kernel0(%x: tensor<8x4xf32>) -> tensor<4xf32> attributes {kiln.kernel} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %s = linalg.generic {indexing_maps = [#tr, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x4xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<4xf32>
  return %s : tensor<4xf32>
}
func.func @columns(%x: tensor<8x4xf32>) -> tensor<4xf32> {
  %s = call @columns_kernel0(%x) : (tensor<8x4xf32>) -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// One element at constant indices (here s[1, 2] of a 3x4 input) is one
// scalar load at its row-major offset, 1 * 4 + 2, shared by every row.
// CHECK-LABEL: func.func @scaled_sums_kernel0_tile
// CHECK-SAME: (%[[X:.*]]: !tile.ptr<f32>, %[[S:.*]]: !tile.ptr<f32>, %{{.*}}: !tile.ptr<f32>)
// CHECK: %[[SIX:.*]] = arith.constant 6 : i32
// CHECK: %[[AT:.*]] = tile.addptr %[[S]], %[[SIX]] : !tile.ptr<f32>, i32
// CHECK: %[[PIVOT:.*]] = tile.load %[[AT]] : !tile.ptr<f32> -> f32
// CHECK: tile.splat %[[PIVOT]] : f32 -> tensor<8xf32>
// CHECK: tile.reduce
func.func private @scaled_sums_kernel0(%x: tensor<5x8xf32>, %s: tensor<3x4xf32>) -> tensor<5xf32> attributes {kiln.kernel} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<5xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<5xf32>) -> tensor<5xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (1, 2)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x, %s : tensor<5x8xf32>, tensor<3x4xf32>) outs(%init : tensor<5xf32>) {
  ^bb0(%in: f32, %p: f32, %acc: f32):
    %q = arith.divf %in, %p : f32
    %a = arith.addf %q, %acc : f32
    linalg.yield %a : f32
  } -> tensor<5xf32>
  return %r : tensor<5xf32>
}
func.func @scaled_sums(%x: tensor<5x8xf32>, %s: tensor<3x4xf32>) -> tensor<5xf32> {
  %r = call @scaled_sums_kernel0(%x, %s) : (tensor<5x8xf32>, tensor<3x4xf32>) -> tensor<5xf32>
  return %r : tensor<5xf32>
}

// -----

// A value the kernel computes is held by row: read any other way, it is
// refused.
#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
#row = affine_map<(d0, d1) -> (d0)>
func.func private @transposed_value_kernel0(%x: tensor<4x4xf32>) -> tensor<4xf32> attributes {kiln.kernel} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %et = tensor.empty() : tensor<4x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %ex = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x4xf32>) outs(%et : tensor<4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<4x4xf32>
  // expected-error @+1 {{kiln-tile: a row kernel reads a value it computes through indexing map affine_map<(d0, d1) -> (d1, d0)>, not by row}}
  %s = linalg.generic {indexing_maps = [#tr, #row], iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<4x4xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<4xf32>
  return %s : tensor<4xf32>
}
func.func @transposed_value(%x: tensor<4x4xf32>) -> tensor<4xf32> {
  %s = call @transposed_value_kernel0(%x) : (tensor<4x4xf32>) -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// An index that is no dimension (times a constant, plus a constant) nor a
// constant: refused.
#id = affine_map<(d0, d1) -> (d0, d1)>
#sum = affine_map<(d0, d1) -> (d0 + d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func private @diagonal_kernel0(%x: tensor<16xf32>, %y: tensor<4x8xf32>) -> tensor<4xf32> attributes {kiln.kernel} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  // expected-error @+1 {{kiln-tile: indexing map affine_map<(d0, d1) -> (d0 + d1)> of operand 0 is not a permutation with broadcasts, slices and constant indices}}
  %s = linalg.generic {indexing_maps = [#sum, #id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %y : tensor<16xf32>, tensor<4x8xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: f32, %w: f32, %acc: f32):
    %p = arith.mulf %in, %w : f32
    %a = arith.addf %p, %acc : f32
    linalg.yield %a : f32
  } -> tensor<4xf32>
  return %s : tensor<4xf32>
}
func.func @diagonal(%x: tensor<16xf32>, %y: tensor<4x8xf32>) -> tensor<4xf32> {
  %s = call @diagonal_kernel0(%x, %y) : (tensor<16xf32>, tensor<4x8xf32>) -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// Rows over several dimensions: program r takes row r of the 2 x 3 rows,
// numbered row-major. x and the result are read and written by r; the
// positional table p[3, 8] (broadcast over the batch) at (r % 3) * 8,
// the per-batch scale s at r / 3.
// CHECK-LABEL: func.func @embed_kernel0_tile
// CHECK-SAME: (%[[X:.*]]: !tile.ptr<f32>, %[[P:.*]]: !tile.ptr<f32>, %[[S:.*]]: !tile.ptr<f32>, %[[R:.*]]: !tile.ptr<f32>)
// CHECK: %[[ROW:.*]] = tile.program_id x
// CHECK: %[[XOFF:.*]] = arith.muli %[[ROW]], %{{.*}} : i32
// CHECK: tile.addptr %[[X]], %[[XOFF]]
// CHECK: %[[POS:.*]] = arith.remui %[[ROW]], %{{.*}} : i32
// CHECK: %[[POFF:.*]] = arith.muli %[[POS]], %{{.*}} : i32
// CHECK: tile.addptr %[[P]], %[[POFF]]
// CHECK: %[[BATCH:.*]] = arith.divui %[[ROW]], %{{.*}} : i32
// CHECK: %[[SAT:.*]] = tile.addptr %[[S]], %[[BATCH]]
// CHECK: tile.load %[[SAT]] : !tile.ptr<f32> -> f32
// CHECK: tile.reduce
// CHECK: %[[RAT:.*]] = tile.addptr %[[R]], %[[ROW]]
// CHECK: tile.store %[[RAT]]
// CHECK-LABEL: func.func @embed(
// CHECK: plan.launch @embed_kernel0_tile[%c6_i64{{.*}}](%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#pos = affine_map<(d0, d1, d2) -> (d1, d2)>
#batch = affine_map<(d0, d1, d2) -> (d0)>
#rows = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func private @embed_kernel0(%x: tensor<2x3x8xf32>, %p: tensor<3x8xf32>, %s: tensor<2xf32>) -> tensor<2x3xf32> attributes {kiln.kernel} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = linalg.generic {indexing_maps = [#id, #pos, #batch, #rows], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %p, %s : tensor<2x3x8xf32>, tensor<3x8xf32>, tensor<2xf32>) outs(%init : tensor<2x3xf32>) {
  ^bb0(%in: f32, %q: f32, %b: f32, %acc: f32):
    %v = arith.addf %in, %q : f32
    %w = arith.mulf %v, %b : f32
    %a = arith.addf %w, %acc : f32
    linalg.yield %a : f32
  } -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
func.func @embed(%x: tensor<2x3x8xf32>, %p: tensor<3x8xf32>, %s: tensor<2xf32>) -> tensor<2x3xf32> {
  %r = call @embed_kernel0(%x, %p, %s) : (tensor<2x3x8xf32>, tensor<3x8xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// A softmax's max and sum of exponentials over a row in chunks share one
// loop, which reads the row once and exchanges nothing between lanes: each
// lane of the tile carries its own max m and sum of exp(x - m) (online
// softmax): where x raises m, the sum is rescaled by exp(m - x) and gains
// 1, else it gains exp(x - m), one exponential of min(m, x) - max(m, x)
// either way; lanes past the row's end keep theirs. After the loop one
// tile.reduce merges the lanes' maxima (the max) and one their pairs (the
// sum, each rescaled to the larger max), which exp(m - max) then rescales;
// a last loop reads the row again and stores. In one tile, the row is
// read once and nothing loops.
// CHECK-LABEL: func.func @softmax_kernel0_tile
// CHECK-NOT: scf.for
// CHECK-COUNT-1: tile.load
// CHECK-NOT: tile.load
// CHECK: return
// CHUNK-LABEL: func.func @softmax_kernel0_tile
// CHUNK: %[[RUNNING:.*]]:3 = scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[MAX:.*]] = %{{.*}}, %[[M:.*]] = %{{.*}}, %[[S:.*]] = %{{.*}}) -> (tensor<32xf32>, tensor<32xf32>, tensor<32xf32>)
// CHUNK: %[[X:.*]] = tile.load %{{.*}}, %[[MASK:.*]] : tensor<32x!tile.ptr<f32>> -> tensor<32xf32>
// CHUNK-NOT: tile.reduce
// CHUNK: %[[RAISES:.*]] = arith.cmpf ogt, %[[X]], %[[M]] : tensor<32xf32>
// CHUNK: %[[NEXTM:.*]] = arith.maximumf %[[M]], %[[X]] : tensor<32xf32>
// CHUNK: %[[SHIFT:.*]] = arith.select %{{.*}}, %{{.*}}, %[[NEXTM]] : tensor<32xi1>, tensor<32xf32>
// CHUNK: %[[LOW:.*]] = arith.minimumf %[[M]], %[[X]] : tensor<32xf32>
// CHUNK: %[[D:.*]] = arith.subf %[[LOW]], %[[SHIFT]] : tensor<32xf32>
// CHUNK: %[[E:.*]] = math.exp %[[D]] : tensor<32xf32>
// CHUNK: %[[GAINED:.*]] = arith.addf %[[S]], %[[E]] : tensor<32xf32>
// CHUNK: %[[RESCALED:.*]] = arith.mulf %[[S]], %[[E]] : tensor<32xf32>
// CHUNK: %[[RAISED:.*]] = arith.addf %[[RESCALED]], %{{.*}} : tensor<32xf32>
// CHUNK: %[[NEXTS:.*]] = arith.select %[[RAISES]], %[[RAISED]], %[[GAINED]]
// CHUNK: %[[KEPTM:.*]] = arith.select %[[MASK]], %[[NEXTM]], %[[M]]
// CHUNK: %[[KEPTS:.*]] = arith.select %[[MASK]], %[[NEXTS]], %[[S]]
// CHUNK: scf.yield %{{.*}}, %[[KEPTM]], %[[KEPTS]]
// CHUNK-NOT: tile.load
// CHUNK: %[[LANESMAX:.*]] = tile.reduce %[[RUNNING]]#0 axis 0 : tensor<32xf32> -> f32
// CHUNK: %[[LANES:.*]]:2 = tile.reduce %[[RUNNING]]#1, %[[RUNNING]]#2 axis 0 : tensor<32xf32>, tensor<32xf32> -> f32, f32
// CHUNK-COUNT-2: math.exp
// CHUNK: tile.yield
// CHUNK: %[[ROWMAX:.*]] = arith.maximumf %[[LANESMAX]], %{{.*}} : f32
// CHUNK: %[[GAP:.*]] = arith.subf %[[LANES]]#0, %[[ROWMAX]] : f32
// CHUNK: %[[TOMAX:.*]] = math.exp %[[GAP]] : f32
// CHUNK: arith.mulf %[[LANES]]#1, %[[TOMAX]] : f32
// CHUNK: scf.for
// CHUNK-COUNT-1: tile.load
// CHUNK-NOT: tile.load
// CHUNK: tile.store
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func private @softmax_kernel0(%x: tensor<4x100xf32>) -> tensor<4x100xf32> attributes {kiln.kernel} {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %rows = tensor.empty() : tensor<4xf32>
  %full = tensor.empty() : tensor<4x100xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%rows : tensor<4xf32>) -> tensor<4xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x100xf32>) outs(%minit : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %v = arith.maximumf %in, %acc : f32
    linalg.yield %v : f32
  } -> tensor<4xf32>
  %exp = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<4x100xf32>, tensor<4xf32>) outs(%full : tensor<4x100xf32>) {
  ^bb0(%in: f32, %mx: f32, %out: f32):
    %d = arith.subf %in, %mx : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<4x100xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%rows : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<4x100xf32>) outs(%sinit : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<4xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum : tensor<4x100xf32>, tensor<4xf32>) outs(%full : tensor<4x100xf32>) {
  ^bb0(%in: f32, %t: f32, %out: f32):
    %q = arith.divf %in, %t : f32
    linalg.yield %q : f32
  } -> tensor<4x100xf32>
  return %y : tensor<4x100xf32>
}
func.func @softmax(%x: tensor<4x100xf32>) -> tensor<4x100xf32> {
  %y = call @softmax_kernel0(%x) : (tensor<4x100xf32>) -> tensor<4x100xf32>
  return %y : tensor<4x100xf32>
}

// -----

// A sum of squared deviations from the row's mean shares the mean's loop:
// each lane of the tile carries its first value p (taken in the first
// chunk) and the sums of d = x - p and of d^2, which stay as small as the
// row's spread whatever its offset; lanes past the row's end keep theirs.
// After the loop, lane l's count is ceil((100 - l) / 32), one tile.reduce
// picks lane 0's p as the row's pivot P, each lane's sums move to P, and
// one tile.reduce adds them up (T and S). Once k, the row's mean, is
// known, the result is S + e (n e - 2 T) with e = k - P.
// CHUNK-LABEL: func.func @variance_kernel0_tile
// CHUNK: %[[RUNNING:.*]]:4 = scf.for %[[C:.*]] = %{{.*}} to %[[LEN:.*]] step %{{.*}} iter_args(%[[SUM:.*]] = %{{.*}}, %[[P:.*]] = %{{.*}}, %[[T:.*]] = %{{.*}}, %[[S:.*]] = %{{.*}}) -> (tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>)
// CHUNK: %[[X:.*]] = tile.load %{{.*}}, %[[MASK:.*]] :
// CHUNK-NOT: tile.reduce
// CHUNK: %[[NEXTSUM:.*]] = arith.addf %{{.*}}, %[[SUM]] : tensor<32xf32>
// CHUNK: %[[FIRST:.*]] = arith.cmpi eq, %[[C]], %{{.*}} : i32
// CHUNK: %[[FIRSTS:.*]] = tile.splat %[[FIRST]] : i1 -> tensor<32xi1>
// CHUNK: %[[PIVOT:.*]] = arith.select %[[FIRSTS]], %[[X]], %[[P]]
// CHUNK: %[[D:.*]] = arith.subf %[[X]], %[[PIVOT]] : tensor<32xf32>
// CHUNK: %[[NEXTT:.*]] = arith.addf %[[T]], %[[D]] : tensor<32xf32>
// CHUNK: %[[D2:.*]] = arith.mulf %[[D]], %[[D]] : tensor<32xf32>
// CHUNK: %[[NEXTS:.*]] = arith.addf %[[S]], %[[D2]] : tensor<32xf32>
// CHUNK: %[[KEPTT:.*]] = arith.select %[[MASK]], %[[NEXTT]], %[[T]]
// CHUNK: %[[KEPTS:.*]] = arith.select %[[MASK]], %[[NEXTS]], %[[S]]
// CHUNK: scf.yield %[[NEXTSUM]], %[[PIVOT]], %[[KEPTT]], %[[KEPTS]]
// CHUNK: %[[ROWSUM:.*]] = tile.reduce %[[RUNNING]]#0 axis 0 : tensor<32xf32> -> f32
// CHUNK: %[[LANE:.*]] = tile.range 0 to 32 : tensor<32xi32>
// CHUNK: %[[LEFT:.*]] = arith.subi %{{.*}}, %[[LANE]] : tensor<32xi32>
// CHUNK: %[[ROUNDED:.*]] = arith.addi %[[LEFT]], %{{.*}} : tensor<32xi32>
// CHUNK: %[[CHUNKS:.*]] = arith.divsi %[[ROUNDED]], %{{.*}} : tensor<32xi32>
// CHUNK: %[[INROW:.*]] = arith.cmpi slt, %[[LANE]], %{{.*}} : tensor<32xi32>
// CHUNK: %[[LANECOUNT:.*]] = arith.select %[[INROW]], %[[CHUNKS]], %{{.*}} : tensor<32xi1>, tensor<32xi32>
// CHUNK: %[[N:.*]] = arith.sitofp %[[LANECOUNT]] : tensor<32xi32> to tensor<32xf32>
// CHUNK: %[[ROWP:.*]]:2 = tile.reduce %[[RUNNING]]#1, %[[LANE]] axis 0
// CHUNK: arith.cmpi slt
// CHUNK: tile.yield
// CHUNK: %[[PS:.*]] = tile.splat %[[ROWP]]#0
// CHUNK: %[[GAP:.*]] = arith.subf %[[RUNNING]]#1, %[[PS]] : tensor<32xf32>
// CHUNK: %[[Q:.*]] = arith.select %[[INROW]], %[[GAP]], %{{.*}}
// CHUNK: %[[NQ:.*]] = arith.mulf %[[N]], %[[Q]] : tensor<32xf32>
// CHUNK: %[[MOVEDT:.*]] = arith.addf %[[RUNNING]]#2, %[[NQ]] : tensor<32xf32>
// CHUNK: %[[TWOT:.*]] = arith.addf %[[RUNNING]]#2, %[[RUNNING]]#2 : tensor<32xf32>
// CHUNK: %[[INNER:.*]] = arith.addf %[[TWOT]], %[[NQ]] : tensor<32xf32>
// CHUNK: %[[CROSS:.*]] = arith.mulf %[[Q]], %[[INNER]] : tensor<32xf32>
// CHUNK: %[[MOVEDS:.*]] = arith.addf %[[RUNNING]]#3, %[[CROSS]] : tensor<32xf32>
// CHUNK: %[[TOTALS:.*]]:2 = tile.reduce %[[MOVEDT]], %[[MOVEDS]] axis 0
// CHUNK: tile.yield
// CHUNK: %[[ROWSUMINIT:.*]] = arith.addf %[[ROWSUM]], %{{.*}} : f32
// CHUNK: %[[K:.*]] = arith.divf %[[ROWSUMINIT]], %{{.*}} : f32
// CHUNK: %[[COUNT:.*]] = arith.sitofp %[[LEN]] : i32 to f32
// CHUNK: %[[E:.*]] = arith.subf %[[K]], %[[ROWP]]#0 : f32
// CHUNK: %[[TWOTOTAL:.*]] = arith.addf %[[TOTALS]]#0, %[[TOTALS]]#0 : f32
// CHUNK: %[[NE:.*]] = arith.mulf %[[COUNT]], %[[E]] : f32
// CHUNK: %[[FACTOR:.*]] = arith.subf %[[NE]], %[[TWOTOTAL]] : f32
// CHUNK: %[[MORE:.*]] = arith.mulf %[[E]], %[[FACTOR]] : f32
// CHUNK: arith.addf %[[TOTALS]]#1, %[[MORE]] : f32
// CHUNK-NOT: scf.for
// CHUNK: tile.store
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func private @variance_kernel0(%x: tensor<4x100xf32>) -> tensor<4xf32> attributes {kiln.kernel} {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 100.0 : f32
  %rows = tensor.empty() : tensor<4xf32>
  %full = tensor.empty() : tensor<4x100xf32>
  %init = linalg.fill ins(%zero : f32) outs(%rows : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x100xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<4xf32>
  %centred = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<4x100xf32>, tensor<4xf32>) outs(%full : tensor<4x100xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %mean = arith.divf %s, %n : f32
    %d = arith.subf %in, %mean : f32
    linalg.yield %d : f32
  } -> tensor<4x100xf32>
  %init2 = linalg.fill ins(%zero : f32) outs(%rows : tensor<4xf32>) -> tensor<4xf32>
  %sq = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%centred : tensor<4x100xf32>) outs(%init2 : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %q = arith.mulf %in, %in : f32
    %a = arith.addf %q, %acc : f32
    linalg.yield %a : f32
  } -> tensor<4xf32>
  return %sq : tensor<4xf32>
}
func.func @variance(%x: tensor<4x100xf32>) -> tensor<4xf32> {
  %y = call @variance_kernel0(%x) : (tensor<4x100xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// sum(|x - sum(x) / 100|) has no shift to carry: its loop follows the
// sum's, which it needs.
// CHUNK-LABEL: func.func @deviation_kernel0_tile
// CHUNK: %[[SUM:.*]] = scf.for
// CHUNK: tile.load
// CHUNK: scf.yield
// CHUNK: %[[MEAN:.*]] = arith.divf %{{.*}}, %{{.*}} : f32
// CHUNK: scf.for
// CHUNK: tile.load
// CHUNK: tile.splat %[[MEAN]]
// CHUNK: math.absf
// CHUNK: scf.yield
// CHUNK-NOT: scf.for
// CHUNK: tile.store
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func private @deviation_kernel0(%x: tensor<4x100xf32>) -> tensor<4xf32> attributes {kiln.kernel} {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 100.0 : f32
  %rows = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%rows : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x100xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<4xf32>
  %init2 = linalg.fill ins(%zero : f32) outs(%rows : tensor<4xf32>) -> tensor<4xf32>
  %dev = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %sum : tensor<4x100xf32>, tensor<4xf32>) outs(%init2 : tensor<4xf32>) {
  ^bb0(%in: f32, %s: f32, %acc: f32):
    %mean = arith.divf %s, %n : f32
    %d = arith.subf %in, %mean : f32
    %ad = math.absf %d : f32
    %a = arith.addf %ad, %acc : f32
    linalg.yield %a : f32
  } -> tensor<4xf32>
  return %dev : tensor<4xf32>
}
func.func @deviation(%x: tensor<4x100xf32>) -> tensor<4xf32> {
  %y = call @deviation_kernel0(%x) : (tensor<4x100xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// A body may use the sizes of the kernel's inputs: a row's dynamic length,
// the kernel's i32 argument, divides the row's sum (a mean). kiln-fuse
// recreates such scalars in each kernel that uses them.
// CHECK-LABEL: func.func @by_length_kernel0_tile
// CHECK-SAME: (%{{.*}}: !tile.ptr<f32>, %{{.*}}: !tile.ptr<f32>, %[[LEN:.*]]: i32)
// CHECK: %[[LANES:.*]] = scf.for
// CHECK: %[[SUM:.*]] = tile.reduce %[[LANES]]
// CHECK: %[[TOTAL:.*]] = arith.addf %[[SUM]], %{{.*}} : f32
// CHECK: %[[INDEX:.*]] = arith.index_cast %[[LEN]] : i32 to index
// CHECK: %[[WIDE:.*]] = arith.index_cast %[[INDEX]] : index to i64
// CHECK: %[[COUNT:.*]] = arith.uitofp %[[WIDE]] : i64 to f32
// CHECK: %[[MEAN:.*]] = arith.divf %[[TOTAL]], %[[COUNT]] : f32
// CHECK: tile.store %{{.*}}, %[[MEAN]]
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#rows = affine_map<(d0) -> (d0)>
func.func private @by_length_kernel0(%x: tensor<4x?xf32>) -> tensor<4xf32> attributes {kiln.kernel} {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %x, %c1 : tensor<4x?xf32>
  %mi = arith.index_cast %m : index to i64
  %mf = arith.uitofp %mi : i64 to f32
  %rows = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%rows : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x?xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<4xf32>
  %mean = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel"]}
      ins(%sum : tensor<4xf32>) outs(%rows : tensor<4xf32>) {
  ^bb0(%s: f32, %out: f32):
    %q = arith.divf %s, %mf : f32
    linalg.yield %q : f32
  } -> tensor<4xf32>
  return %mean : tensor<4xf32>
}
func.func @by_length(%x: tensor<4x?xf32>) -> tensor<4xf32> {
  %y = call @by_length_kernel0(%x) : (tensor<4x?xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// A scalar the kernel takes as an argument has no place in a tile kernel.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func private @by_scalar_kernel0(%x: tensor<4x8xf32>, %s: f32) -> tensor<4xf32> attributes {kiln.kernel} {
  %zero = arith.constant 0.0 : f32
  %rows = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%rows : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    // expected-error @+1 {{kiln-tile: a body uses a value from outside it that is neither a constant nor computed from the sizes of the kernel's inputs}}
    %q = arith.mulf %in, %s : f32
    %a = arith.addf %q, %acc : f32
    linalg.yield %a : f32
  } -> tensor<4xf32>
  return %sum : tensor<4xf32>
}
func.func @by_scalar(%x: tensor<4x8xf32>, %s: f32) -> tensor<4xf32> {
  %y = call @by_scalar_kernel0(%x, %s) : (tensor<4x8xf32>, f32) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// The size of an input that no loop reads spans no domain dimension.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func private @by_other_kernel0(%x: tensor<4x8xf32>, %y: tensor<?xf32>) -> tensor<4xf32> attributes {kiln.kernel} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %y, %c0 : tensor<?xf32>
  %rows = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%rows : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %ni = arith.index_cast %n : index to i32
    // expected-error @+1 {{kiln-tile: a body uses the size of dimension 0 of input 1, which none of the kernel's loops spans}}
    %nf = arith.sitofp %ni : i32 to f32
    %q = arith.mulf %in, %nf : f32
    %a = arith.addf %q, %acc : f32
    linalg.yield %a : f32
  } -> tensor<4xf32>
  return %sum : tensor<4xf32>
}
func.func @by_other(%x: tensor<4x8xf32>, %y: tensor<?xf32>) -> tensor<4xf32> {
  %z = call @by_other_kernel0(%x, %y) : (tensor<4x8xf32>, tensor<?xf32>) -> tensor<4xf32>
  return %z : tensor<4xf32>
}

// -----

// A value the kernel computes over its rows is held by row: read as a
// column vector (on a square space), it is refused.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
func.func private @by_column_kernel0(%x: tensor<8x8xf32>) -> tensor<8x8xf32> attributes {kiln.kernel} {
  %zero = arith.constant 0.0 : f32
  %rows = tensor.empty() : tensor<8xf32>
  %full = tensor.empty() : tensor<8x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%rows : tensor<8xf32>) -> tensor<8xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x8xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<8xf32>
  // expected-error @+1 {{kiln-tile: a row kernel reads a value it computes through indexing map affine_map<(d0, d1) -> (d1)>, not by row}}
  %y = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<8x8xf32>, tensor<8xf32>) outs(%full : tensor<8x8xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %q = arith.divf %in, %s : f32
    linalg.yield %q : f32
  } -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}
func.func @by_column(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %y = call @by_column_kernel0(%x) : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}

// -----

// Values over the row are stored by row: an elementwise generic writing
// its result transposed is refused.
#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
#row = affine_map<(d0, d1) -> (d0)>
func.func private @transposed_out_kernel0(%x: tensor<8x8xf32>) -> tensor<8x8xf32> attributes {kiln.kernel} {
  %zero = arith.constant 0.0 : f32
  %rows = tensor.empty() : tensor<8xf32>
  %full = tensor.empty() : tensor<8x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%rows : tensor<8xf32>) -> tensor<8xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x8xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<8xf32>
  // expected-error @+1 {{kiln-tile: a row kernel's generic writes its result through indexing map affine_map<(d0, d1) -> (d1, d0)>, not in place}}
  %y = linalg.generic {indexing_maps = [#id, #row, #tr], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<8x8xf32>, tensor<8xf32>) outs(%full : tensor<8x8xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %q = arith.divf %in, %s : f32
    linalg.yield %q : f32
  } -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}
func.func @transposed_out(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %y = call @transposed_out_kernel0(%x) : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}

// -----

// An argmin (two results: the value and its column) is one tile.reduce of
// the values and their columns, which keeps the earlier column's pair
// unless the later one's value is less (the body's test, cloned); columns
// past the row's end are invalid (i32 max) and never kept. Each column is
// first weighed against the initial value, which comes before them all
// (column -1), as a scan of the row would; the column is widened to the
// result's i64, and where it is still -1 the initial index is kept.
// Walked in chunks, each lane of the loop starts from the initial value
// and keeps its earlier column's pair unless the later one's value is
// less (no ordering by column: the carried one is earlier), and one
// tile.reduce merges the lanes after the loop.
// CHECK-LABEL: func.func @argmin_kernel0_tile
// CHECK: %[[X:.*]] = tile.load
// CHECK: %[[INVALID:.*]] = arith.constant dense<2147483647> : tensor<128xi32>
// CHECK: %[[COLS:.*]] = arith.select %{{.*}}, %{{.*}}, %[[INVALID]] : tensor<128xi1>, tensor<128xi32>
// CHECK: %[[INIT:.*]] = tile.splat %{{.*}} : i32 -> tensor<128xi32>
// CHECK: %[[LESS:.*]] = arith.cmpi slt, %[[X]], %[[INIT]] : tensor<128xi32>
// CHECK: %[[TAKEN:.*]] = arith.andi
// CHECK: %[[VS:.*]] = arith.select %[[TAKEN]], %[[X]], %[[INIT]]
// CHECK: %[[IS:.*]] = arith.select %[[TAKEN]], %[[COLS]], %{{.*}}
// CHECK: %[[R:.*]]:2 = tile.reduce %[[VS]], %[[IS]] axis 0 : tensor<128xi32>, tensor<128xi32> -> i32, i32
// CHECK: ^bb0(%[[VA:.*]]: i32, %[[IA:.*]]: i32, %[[VB:.*]]: i32, %[[IB:.*]]: i32):
// CHECK: %[[AFIRST:.*]] = arith.cmpi slt, %[[IA]], %[[IB]] : i32
// CHECK: arith.cmpi slt
// CHECK: tile.yield
// CHECK: %[[BEFORE:.*]] = arith.constant -1 : i32
// CHECK: %[[FROMROW:.*]] = arith.cmpi ne, %[[R]]#1, %[[BEFORE]] : i32
// CHECK: %[[WIDE:.*]] = arith.extsi %[[R]]#1 : i32 to i64
// CHECK: %[[INDEX:.*]] = arith.select %[[FROMROW]], %[[WIDE]], %{{.*}} : i64
// CHECK: tile.store %{{.*}}, %[[INDEX]] : !tile.ptr<i64>, i64
// CHUNK-LABEL: func.func @argmin_kernel0_tile
// CHUNK: %[[INIT:.*]] = tile.splat %{{.*}} : i32 -> tensor<32xi32>
// CHUNK: %[[BEFORE:.*]] = arith.constant dense<-1> : tensor<32xi32>
// CHUNK: %[[CARRIED:.*]]:2 = scf.for %{{.*}} iter_args(%[[V:.*]] = %[[INIT]], %[[I:.*]] = %[[BEFORE]]) -> (tensor<32xi32>, tensor<32xi32>)
// CHUNK: %[[X:.*]] = tile.load
// CHUNK: %[[COLS:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<32xi1>, tensor<32xi32>
// CHUNK-NOT: tile.reduce
// CHUNK: %[[LESS:.*]] = arith.cmpi slt, %[[X]], %[[V]] : tensor<32xi32>
// CHUNK: %[[VALID:.*]] = arith.cmpi ne, %[[COLS]], %{{.*}} : tensor<32xi32>
// CHUNK: %[[LATER:.*]] = arith.andi %[[VALID]], %[[LESS]]
// CHUNK: %[[NEXTV:.*]] = arith.select %[[LATER]], %[[X]], %[[V]]
// CHUNK: %[[NEXTI:.*]] = arith.select %[[LATER]], %[[COLS]], %[[I]]
// CHUNK: scf.yield %[[NEXTV]], %[[NEXTI]]
// CHUNK: %[[C:.*]]:2 = tile.reduce %[[CARRIED]]#0, %[[CARRIED]]#1 axis 0
// CHUNK: arith.cmpi slt
// CHUNK: tile.yield
// CHUNK: arith.extsi
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func private @argmin_kernel0(%x: tensor<4x100xi32>) -> (tensor<4xi32>, tensor<4xi64>) attributes {kiln.kernel} {
  %big = arith.constant 2147483647 : i32
  %zero = arith.constant 0 : i64
  %rows = tensor.empty() : tensor<4xi32>
  %irows = tensor.empty() : tensor<4xi64>
  %vinit = linalg.fill ins(%big : i32) outs(%rows : tensor<4xi32>) -> tensor<4xi32>
  %iinit = linalg.fill ins(%zero : i64) outs(%irows : tensor<4xi64>) -> tensor<4xi64>
  %r:2 = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x100xi32>) outs(%vinit, %iinit : tensor<4xi32>, tensor<4xi64>) {
  ^bb0(%in: i32, %v: i32, %i: i64):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i64
    %lt = arith.cmpi slt, %in, %v : i32
    %nv = arith.select %lt, %in, %v : i32
    %ni = arith.select %lt, %ji, %i : i64
    linalg.yield %nv, %ni : i32, i64
  } -> (tensor<4xi32>, tensor<4xi64>)
  return %r#0, %r#1 : tensor<4xi32>, tensor<4xi64>
}
func.func @argmin(%x: tensor<4x100xi32>) -> (tensor<4xi32>, tensor<4xi64>) {
  %r:2 = call @argmin_kernel0(%x) : (tensor<4x100xi32>) -> (tensor<4xi32>, tensor<4xi64>)
  return %r#0, %r#1 : tensor<4xi32>, tensor<4xi64>
}

// -----

// Two results that are not a value and its column are refused.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func private @two_sums_kernel0(%x: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4xf32>) attributes {kiln.kernel} {
  %zero = arith.constant 0.0 : f32
  %rows = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%rows : tensor<4xf32>) -> tensor<4xf32>
  %init2 = linalg.fill ins(%zero : f32) outs(%rows : tensor<4xf32>) -> tensor<4xf32>
  // expected-error @+1 {{kiln-tile: a reduction with two results must keep a value and its column (argmax, argmin)}}
  %r:2 = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%init, %init2 : tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%in: f32, %a: f32, %b: f32):
    %s = arith.addf %in, %a : f32
    %q = arith.mulf %in, %in : f32
    %t = arith.addf %q, %b : f32
    linalg.yield %s, %t : f32, f32
  } -> (tensor<4xf32>, tensor<4xf32>)
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xf32>
}
func.func @two_sums(%x: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %r:2 = call @two_sums_kernel0(%x) : (tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// The column may only be the kept index: an argmax of x + j is refused.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func private @shifted_argmax_kernel0(%x: tensor<4x8xi64>) -> (tensor<4xi64>, tensor<4xi64>) attributes {kiln.kernel} {
  %low = arith.constant -9223372036854775808 : i64
  %zero = arith.constant 0 : i64
  %rows = tensor.empty() : tensor<4xi64>
  %vinit = linalg.fill ins(%low : i64) outs(%rows : tensor<4xi64>) -> tensor<4xi64>
  %iinit = linalg.fill ins(%zero : i64) outs(%rows : tensor<4xi64>) -> tensor<4xi64>
  // expected-error @+1 {{kiln-tile: a reduction with two results must keep a value and its column (argmax, argmin)}}
  %r:2 = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xi64>) outs(%vinit, %iinit : tensor<4xi64>, tensor<4xi64>) {
  ^bb0(%in: i64, %v: i64, %i: i64):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i64
    %a = arith.addi %in, %ji : i64
    %gt = arith.cmpi sgt, %a, %v : i64
    %nv = arith.select %gt, %a, %v : i64
    %ni = arith.select %gt, %ji, %i : i64
    linalg.yield %nv, %ni : i64, i64
  } -> (tensor<4xi64>, tensor<4xi64>)
  return %r#0, %r#1 : tensor<4xi64>, tensor<4xi64>
}
func.func @shifted_argmax(%x: tensor<4x8xi64>) -> (tensor<4xi64>, tensor<4xi64>) {
  %r:2 = call @shifted_argmax_kernel0(%x) : (tensor<4x8xi64>) -> (tensor<4xi64>, tensor<4xi64>)
  return %r#0, %r#1 : tensor<4xi64>, tensor<4xi64>
}
