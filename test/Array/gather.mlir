// RUN: kiln-opt %s -split-input-file -kiln-fuse | FileCheck %s --check-prefix=FUSE
// RUN: kiln-opt %s -split-input-file -kiln-fuse -kiln-tile -canonicalize | FileCheck %s --check-prefix=TILE
// RUN: kiln-opt %s -split-input-file -kiln-fuse=report | FileCheck %s --check-prefix=REPORT

// An embedding lookup, w[ids], as torch-mlir writes a gather: a generic
// over the result whose body extracts elements of the table it captures.
// kiln-fuse passes the table to the kernel; the cost report counts the
// rows gathered (8 x 64 x 4 bytes), not the whole table, beside the ids
// and the result: 64 + 2048 + 2048 bytes.
// REPORT-LABEL: after kiln-fuse:
// REPORT: kernel @embed_kernel0: 0 FLOPs, 4160 bytes
// FUSE-LABEL: func.func private @embed_kernel0
// FUSE-SAME: (%{{.*}}: tensor<8xi64>, %[[W:.*]]: tensor<50000x64xf32>)
// FUSE: tensor.extract %[[W]]
// One program per 512 elements: each lane loads its id, then its element
// of w at id * 64 + column, masked off (and kept inside w) where the id
// is outside [0, 50000) (compared at 64 bits, so that none wraps into
// range).
// TILE-LABEL: func.func @embed_kernel0_tile
// TILE-SAME: (%[[IDS:.*]]: !tile.ptr<i64>, %[[W:.*]]: !tile.ptr<f32>, %[[OUT:.*]]: !tile.ptr<f32>)
// TILE-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<512xf32>
// TILE-DAG: %[[ROWS:.*]] = arith.constant dense<50000> : tensor<512xi64>
// TILE-DAG: %[[C64:.*]] = arith.constant dense<64> : tensor<512xi32>
// TILE: %[[ID:.*]] = tile.load %{{.*}}, %[[MASK:.*]] : tensor<512x!tile.ptr<i64>>
// TILE: arith.cmpi slt, %[[ID]], %[[ROWS]] : tensor<512xi64>
// TILE: arith.cmpi sge, %[[ID]]
// TILE: %[[ROW_OK:.*]] = arith.andi
// TILE: %[[ID_MASK:.*]] = arith.andi %[[MASK]], %[[ROW_OK]]
// TILE: %[[SAFE:.*]] = arith.select %[[ROW_OK]], %[[ID]]
// TILE: %[[ROW:.*]] = arith.trunci %[[SAFE]] : tensor<512xi64> to tensor<512xi32>
// TILE: %[[ROW_AT:.*]] = arith.muli %[[ROW]], %[[C64]]
// TILE: %[[COLUMN_OK:.*]] = arith.andi
// TILE: %[[GATHER_MASK:.*]] = arith.andi %[[ID_MASK]], %[[COLUMN_OK]]
// TILE: %[[COLUMN:.*]] = arith.trunci
// TILE: %[[AT:.*]] = arith.addi %[[ROW_AT]], %[[COLUMN]]
// TILE: %[[WS:.*]] = tile.splat %[[W]]
// TILE: tile.addptr %[[WS]], %[[AT]]
// TILE: %[[V:.*]] = tile.load %{{.*}}, %[[GATHER_MASK]], other %[[ZERO]]
// TILE: tile.store %{{.*}}, %[[V]], %[[MASK]]
func.func @embed(%w: tensor<50000x64xf32>, %ids: tensor<8xi64>) -> tensor<8x64xf32> {
  %e = tensor.empty() : tensor<8x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%ids : tensor<8xi64>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%i: i64, %o: f32):
    %row = arith.index_cast %i : i64 to index
    %col = linalg.index 1 : index
    %v = tensor.extract %w[%row, %col] : tensor<50000x64xf32>
    linalg.yield %v : f32
  } -> tensor<8x64xf32>
  return %r : tensor<8x64xf32>
}

// -----

// The gathered rows summed (an embedding bag): one row kernel. Rows of
// 64 are taken 8 at a time; each program loads its 8 ids, gathers the
// [8 x 64] tile of their rows of w (a lane per element, at id * 64 +
// column) and sums along the columns.
// FUSE-LABEL: func.func private @embedding_bag_kernel0
// FUSE: tensor.extract
// FUSE: "reduction"
// FUSE-LABEL: func.func @embedding_bag
// FUSE-NEXT: call @embedding_bag_kernel0
// FUSE-NEXT: return
// TILE-LABEL: func.func @embedding_bag_kernel0_tile
// TILE-DAG: %[[ROWS:.*]] = arith.constant dense<100> : tensor<8x64xi64>
// TILE: %[[IDS:.*]] = tile.load %{{.*}} : tensor<8x!tile.ptr<i64>> -> tensor<8xi64>
// TILE: %[[ID:.*]] = arith.index_cast %[[IDS]]
// TILE: %[[EXPANDED:.*]] = tile.expand_dims %[[ID]] axis 1
// TILE: %[[EACH:.*]] = tile.broadcast %[[EXPANDED]] : tensor<8x1xindex> -> tensor<8x64xindex>
// TILE: %[[ID64:.*]] = arith.index_cast %[[EACH]] : tensor<8x64xindex> to tensor<8x64xi64>
// TILE: arith.cmpi slt, %[[ID64]], %[[ROWS]]
// TILE: %[[V:.*]] = tile.load %{{.*}}, %{{.*}}, other %{{.*}} : tensor<8x64x!tile.ptr<f32>> -> tensor<8x64xf32>
// TILE: tile.reduce %{{.*}} axis 1 : tensor<8x64xf32> -> tensor<8xf32>
func.func @embedding_bag(%w: tensor<100x64xf32>, %ids: tensor<8xi64>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%ids : tensor<8xi64>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%i: i64, %o: f32):
    %row = arith.index_cast %i : i64 to index
    %col = linalg.index 1 : index
    %v = tensor.extract %w[%row, %col] : tensor<100x64xf32>
    linalg.yield %v : f32
  } -> tensor<8x64xf32>
  %zero = arith.constant 0.0 : f32
  %s0 = tensor.empty() : tensor<8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%s0 : tensor<8xf32>) -> tensor<8xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%r : tensor<8x64xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %a = arith.addf %v, %acc : f32
    linalg.yield %a : f32
  } -> tensor<8xf32>
  return %sum : tensor<8xf32>
}

// -----

// exp(x)[ids] + exp(x): the gather and the exponential read x alike, but
// the gather reads what the other computes, which a kernel holds only in
// its own tiles: they are not joined (two kernels, the second reading
// the first's result).
// FUSE-LABEL: func.func private @gather_of_computed_kernel0
// FUSE: math.exp
// FUSE-NOT: tensor.extract
// FUSE-LABEL: func.func private @gather_of_computed_kernel1
// FUSE: tensor.extract
// FUSE-LABEL: func.func @gather_of_computed
// FUSE: %[[E:.*]] = call @gather_of_computed_kernel0
// FUSE: call @gather_of_computed_kernel1(%{{.*}}, %[[E]]
func.func @gather_of_computed(%x: tensor<16xf32>, %ids: tensor<16xi32>) -> tensor<16xf32> {
  %e = tensor.empty() : tensor<16xf32>
  %ex = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %a = math.exp %v : f32
    linalg.yield %a : f32
  } -> tensor<16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%ids, %ex : tensor<16xi32>, tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%i: i32, %v: f32, %o: f32):
    %row = arith.index_cast %i : i32 to index
    %g = tensor.extract %ex[%row] : tensor<16xf32>
    %a = arith.addf %g, %v : f32
    linalg.yield %a : f32
  } -> tensor<16xf32>
  return %r : tensor<16xf32>
}

// -----

// A gather from a slice of an input reads it in place: the kernel takes
// x and adds the slice's offset (2) to twice (its stride) the index.
// FUSE-LABEL: func.func private @from_a_slice_kernel0
// FUSE-SAME: (%{{.*}}: tensor<4xi32>, %[[X:.*]]: tensor<8xf32>)
// FUSE: %[[S:.*]] = tensor.extract_slice %[[X]][2] [3] [2]
// FUSE: tensor.extract %[[S]]
// FUSE-LABEL: func.func @from_a_slice
// FUSE-NEXT: call @from_a_slice_kernel0
// FUSE-NEXT: return
// TILE-LABEL: func.func @from_a_slice_kernel0_tile
// TILE-DAG: %[[THREE:.*]] = arith.constant dense<3> : tensor<4xi64>
// TILE-DAG: %[[TWO:.*]] = arith.constant dense<2> : tensor<4xi32>
// TILE: arith.cmpi slt, %{{.*}}, %[[THREE]]
// TILE: %[[I:.*]] = arith.trunci
// TILE: %[[STRIDED:.*]] = arith.muli %[[I]], %[[TWO]]
// TILE: %[[AT:.*]] = arith.addi %[[STRIDED]], %[[TWO]]
// TILE: tile.addptr %{{.*}}, %[[AT]]
func.func @from_a_slice(%x: tensor<8xf32>, %ids: tensor<4xi32>) -> tensor<4xf32> {
  %s = tensor.extract_slice %x[2] [3] [2] : tensor<8xf32> to tensor<3xf32>
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%ids : tensor<4xi32>) outs(%e : tensor<4xf32>) {
  ^bb0(%i: i32, %o: f32):
    %at = arith.index_cast %i : i32 to index
    %v = tensor.extract %s[%at] : tensor<3xf32>
    linalg.yield %v : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
