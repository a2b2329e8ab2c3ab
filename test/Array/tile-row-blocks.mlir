// RUN: kiln-opt %s -split-input-file -kiln-tile | FileCheck %s
// RUN: kiln-opt %s -split-input-file -kiln-tile=row-block=4 | FileCheck %s --check-prefix=FOUR

// Where an input's rows lie next to each other in memory (the sums of x's
// columns read x^T by row), a program takes 32 consecutive rows: values
// per row are [32] tiles, values over the row [32 x 32] tiles of a chunk
// of it (1024 elements), masked past the row's end and the last row. The
// loop adds each chunk to a [32 x 32] running sum, which one tile.reduce
// along the rows adds up after it. The grid is ceil(rows / 32). The
// rows' mask over a tile and where the rows start in x are found once,
// before the loop.
// CHECK-LABEL: func.func @column_sum_kernel0_tile
// CHECK-SAME: (%[[X:.*]]: !tile.ptr<f32>, %[[S:.*]]: !tile.ptr<f32>, %[[LEN:.*]]: i32, %[[N:.*]]: i32)
// CHECK: %[[PID:.*]] = tile.program_id x
// CHECK: %[[FIRST:.*]] = arith.muli %[[PID]], %{{.*}} : i32
// CHECK: %[[NUMS:.*]] = tile.range 0 to 32 : tensor<32xi32>
// CHECK: %[[FIRSTS:.*]] = tile.splat %[[FIRST]]
// CHECK: %[[ROWS:.*]] = arith.addi %[[FIRSTS]], %[[NUMS]] : tensor<32xi32>
// CHECK: %[[NS:.*]] = tile.splat %[[N]] : i32 -> tensor<32xi32>
// CHECK: %[[EXIST:.*]] = arith.cmpi slt, %[[ROWS]], %[[NS]] : tensor<32xi32>
// CHECK: %[[ROWIN:.*]] = tile.broadcast %{{.*}} : tensor<32x1xi1> -> tensor<32x32xi1>
// CHECK: %[[STARTS:.*]] = tile.addptr %{{.*}}, %{{.*}} : tensor<32x!tile.ptr<f32>>, tensor<32xi32>
// CHECK: %[[EXPANDED:.*]] = tile.expand_dims %[[STARTS]] axis 1
// CHECK: %[[BASES:.*]] = tile.broadcast %[[EXPANDED]]
// CHECK: %[[LANES:.*]] = scf.for %{{.*}} = %{{.*}} to %[[LEN]] step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<32x32xf32>)
// CHECK: %[[IN:.*]] = tile.broadcast %{{.*}} : tensor<1x32xi1> -> tensor<32x32xi1>
// CHECK: %[[MASK:.*]] = arith.andi %[[IN]], %[[ROWIN]] : tensor<32x32xi1>
// CHECK: %[[DOWN:.*]] = arith.muli %{{.*}}, %{{.*}} : tensor<32x32xi32>
// CHECK: %[[PTRS:.*]] = tile.addptr %[[BASES]], %[[DOWN]] : tensor<32x32x!tile.ptr<f32>>, tensor<32x32xi32>
// CHECK: %[[TILE:.*]] = tile.load %[[PTRS]], %[[MASK]] : tensor<32x32x!tile.ptr<f32>> -> tensor<32x32xf32>
// CHECK: %[[KEPT:.*]] = arith.select %[[MASK]], %[[TILE]], %{{.*}} : tensor<32x32xi1>, tensor<32x32xf32>
// CHECK: %[[NEXT:.*]] = arith.addf %[[KEPT]], %[[ACC]] : tensor<32x32xf32>
// CHECK: scf.yield %[[NEXT]] : tensor<32x32xf32>
// CHECK: %[[SUM:.*]] = tile.reduce %[[LANES]] axis 1 : tensor<32x32xf32> -> tensor<32xf32>
// CHECK: %[[TOTAL:.*]] = arith.addf %[[SUM]], %{{.*}} : tensor<32xf32>
// CHECK: %[[OUT:.*]] = tile.splat %[[S]] : !tile.ptr<f32> -> tensor<32x!tile.ptr<f32>>
// CHECK: %[[OUTS:.*]] = tile.addptr %[[OUT]], %[[ROWS]]
// CHECK: tile.store %[[OUTS]], %[[TOTAL]], %[[EXIST]] : tensor<32x!tile.ptr<f32>>, tensor<32xf32>
// CHECK-LABEL: func.func @column_sum(
// CHECK: %[[PLUS:.*]] = arith.addi %{{.*}}, %c31_i64 : i64
// CHECK: %[[BLOCKS:.*]] = arith.divui %[[PLUS]], %c32_i64 : i64
// CHECK: plan.launch @column_sum_kernel0_tile[%[[BLOCKS]]](%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
#x = affine_map<(d0, d1) -> (d1, d0)>
#out = affine_map<(d0, d1) -> (d0)>
func.func private @column_sum_kernel0(%x: tensor<?x?xf32>) -> tensor<?xf32> attributes {kiln.kernel} {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %s = linalg.generic {indexing_maps = [#x, #out], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<?xf32>
  return %s : tensor<?xf32>
}
func.func @column_sum(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %s = call @column_sum_kernel0(%x) : (tensor<?x?xf32>) -> tensor<?xf32>
  return %s : tensor<?xf32>
}

// -----

// An argmax of a 3-D x over its middle axis: rows are numbered over
// [2, 40], and the 40 are innermost in x, so a program takes 32 rows
// (numbers r = 32 p + i, at x + (r % 40) + 4000 (r / 40)) and reduces
// [32 x 32] tiles of values and columns, lane by lane in the loop and
// across lanes after it. 80 rows are not a multiple of 32: the last block
// is masked.
// CHECK-LABEL: func.func @argmax_kernel0_tile
// CHECK: %[[ROWS:.*]] = arith.addi %{{.*}}, %{{.*}} : tensor<32xi32>
// CHECK: %[[EXIST:.*]] = arith.cmpi slt, %[[ROWS]], %{{.*}} : tensor<32xi32>
// CHECK: arith.remui %{{.*}}, %{{.*}} : tensor<32xi32>
// CHECK: arith.divui %[[ROWS]], %{{.*}} : tensor<32xi32>
// CHECK: %[[ACC:.*]]:2 = scf.for {{.*}} -> (tensor<32x32xf32>, tensor<32x32xi32>)
// CHECK-NOT: arith.remui
// CHECK: tile.load %{{.*}}, %{{.*}} : tensor<32x32x!tile.ptr<f32>> -> tensor<32x32xf32>
// CHECK: scf.yield %{{.*}}, %{{.*}} : tensor<32x32xf32>, tensor<32x32xi32>
// CHECK: tile.reduce %[[ACC]]#0, %[[ACC]]#1 axis 1 : tensor<32x32xf32>, tensor<32x32xi32> -> tensor<32xf32>, tensor<32xi32>
// CHECK: %[[INDEX:.*]] = arith.extsi %{{.*}} : tensor<32xi32> to tensor<32xi64>
// CHECK: tile.store %{{.*}}, %{{.*}}, %[[EXIST]] : tensor<32x!tile.ptr<f32>>, tensor<32xf32>
// CHECK: tile.store %{{.*}}, %{{.*}}, %[[EXIST]] : tensor<32x!tile.ptr<i64>>, tensor<32xi64>
#x = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
#out = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func private @argmax_kernel0(%x: tensor<2x100x40xf32>) -> (tensor<2x40xf32>, tensor<2x40xi64>) attributes {kiln.kernel} {
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i64
  %ev = tensor.empty() : tensor<2x40xf32>
  %ei = tensor.empty() : tensor<2x40xi64>
  %vinit = linalg.fill ins(%ninf : f32) outs(%ev : tensor<2x40xf32>) -> tensor<2x40xf32>
  %iinit = linalg.fill ins(%c0 : i64) outs(%ei : tensor<2x40xi64>) -> tensor<2x40xi64>
  %r:2 = linalg.generic {indexing_maps = [#x, #out, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<2x100x40xf32>) outs(%vinit, %iinit : tensor<2x40xf32>, tensor<2x40xi64>) {
  ^bb0(%in: f32, %v: f32, %i: i64):
    %t = arith.cmpf ogt, %in, %v : f32
    %j = linalg.index 2 : index
    %jj = arith.index_cast %j : index to i64
    %nv = arith.select %t, %in, %v : f32
    %ni = arith.select %t, %jj, %i : i64
    linalg.yield %nv, %ni : f32, i64
  } -> (tensor<2x40xf32>, tensor<2x40xi64>)
  return %r#0, %r#1 : tensor<2x40xf32>, tensor<2x40xi64>
}
func.func @argmax(%x: tensor<2x100x40xf32>) -> (tensor<2x40xf32>, tensor<2x40xi64>) {
  %r:2 = call @argmax_kernel0(%x) : (tensor<2x100x40xf32>) -> (tensor<2x40xf32>, tensor<2x40xi64>)
  return %r#0, %r#1 : tensor<2x40xf32>, tensor<2x40xi64>
}

// -----

// Short rows (10, a tile of 16): a program takes as many as make a tile
// of 1024 elements, at most the rows' next power of two, so here one
// program takes all 6 rows in an [8 x 16] tile, its last two rows masked.
// With row-block=4, the max of each row is a [4] tile, broadcast over
// the [4 x 16] tile of x to subtract it, and 6 rows mask the second
// block's last two.
// CHECK-LABEL: func.func @centered_kernel0_tile
// CHECK: tile.load {{.*}} -> tensor<8x16xf32>
// CHECK: tile.reduce %{{.*}} axis 1 : tensor<8x16xf32> -> tensor<8xf32>
// FOUR-LABEL: func.func @centered_kernel0_tile
// FOUR-SAME: (%[[X:.*]]: !tile.ptr<f32>, %[[Y:.*]]: !tile.ptr<f32>, %[[M:.*]]: !tile.ptr<f32>)
// FOUR: %[[ROWS:.*]] = arith.addi %{{.*}}, %{{.*}} : tensor<4xi32>
// FOUR: %[[EXIST:.*]] = arith.cmpi slt, %[[ROWS]], %{{.*}} : tensor<4xi32>
// FOUR: %[[MASK:.*]] = arith.andi %{{.*}}, %{{.*}} : tensor<4x16xi1>
// FOUR: %[[XV:.*]] = tile.load %{{.*}}, %[[MASK]] : tensor<4x16x!tile.ptr<f32>> -> tensor<4x16xf32>
// FOUR: %[[PART:.*]] = tile.reduce %{{.*}} axis 1 : tensor<4x16xf32> -> tensor<4xf32>
// FOUR: %[[MAX:.*]] = arith.maximumf %[[PART]], %{{.*}} : tensor<4xf32>
// FOUR: tile.store %{{.*}}, %[[MAX]], %[[EXIST]] : tensor<4x!tile.ptr<f32>>, tensor<4xf32>
// FOUR: %[[COLUMN:.*]] = tile.expand_dims %[[MAX]] axis 1 : tensor<4xf32> -> tensor<4x1xf32>
// FOUR: %[[SPREAD:.*]] = tile.broadcast %[[COLUMN]] : tensor<4x1xf32> -> tensor<4x16xf32>
// FOUR: %[[D:.*]] = arith.subf %[[XV]], %[[SPREAD]] : tensor<4x16xf32>
// FOUR: tile.store %{{.*}}, %[[D]], %[[MASK]] : tensor<4x16x!tile.ptr<f32>>, tensor<4x16xf32>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func private @centered_kernel0(%x: tensor<6x10xf32>) -> (tensor<6x10xf32>, tensor<6xf32>) attributes {kiln.kernel} {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<6xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%e : tensor<6xf32>) -> tensor<6xf32>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<6x10xf32>) outs(%init : tensor<6xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.maximumf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<6xf32>
  %ey = tensor.empty() : tensor<6x10xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m : tensor<6x10xf32>, tensor<6xf32>) outs(%ey : tensor<6x10xf32>) {
  ^bb0(%in: f32, %mv: f32, %out: f32):
    %d = arith.subf %in, %mv : f32
    linalg.yield %d : f32
  } -> tensor<6x10xf32>
  return %y, %m : tensor<6x10xf32>, tensor<6xf32>
}
func.func @centered(%x: tensor<6x10xf32>) -> (tensor<6x10xf32>, tensor<6xf32>) {
  %r:2 = call @centered_kernel0(%x) : (tensor<6x10xf32>) -> (tensor<6x10xf32>, tensor<6xf32>)
  return %r#0, %r#1 : tensor<6x10xf32>, tensor<6xf32>
}

// -----

// Rows of 1000 fill a tile on their own: one row per program, as with
// row-block=1.
// CHECK-LABEL: func.func @long_rows_kernel0_tile
// CHECK: %[[ROW:.*]] = tile.program_id x
// CHECK: tile.load {{.*}} -> tensor<1024xf32>
// CHECK: tile.reduce %{{.*}} axis 0 : tensor<1024xf32> -> f32
// CHECK: tile.addptr %{{.*}}, %[[ROW]] : !tile.ptr<f32>, i32
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func private @long_rows_kernel0(%x: tensor<6x1000xf32>) -> tensor<6xf32> attributes {kiln.kernel} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<6xf32>) -> tensor<6xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<6x1000xf32>) outs(%init : tensor<6xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<6xf32>
  return %s : tensor<6xf32>
}
func.func @long_rows(%x: tensor<6x1000xf32>) -> tensor<6xf32> {
  %s = call @long_rows_kernel0(%x) : (tensor<6x1000xf32>) -> tensor<6xf32>
  return %s : tensor<6xf32>
}
