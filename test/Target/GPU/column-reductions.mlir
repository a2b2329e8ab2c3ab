// RUN: kiln-opt %s -kiln-fuse -kiln-tile -canonicalize "-symbol-privatize=exclude=column_sum_kernel0_tile,column_variance_kernel0_tile,column_argmax_kernel0_tile" -symbol-dce -o %t.mlir
// RUN: kiln-opt %t.mlir -tile-assign-layouts | FileCheck %s --check-prefix=LAYOUT
// RUN: kiln-translate %t.mlir --chip=sm_80 | FileCheck %s
// RUN: %if ptxas %{ kiln-translate %t.mlir --chip=sm_80 | %ptxas -arch=sm_80 -v 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: %if ptxas %{ kiln-translate %t.mlir --chip=sm_90a | %ptxas -arch=sm_90a -v 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// Reductions over the leading axis of a row-major x (the sums, variances
// and argmaxes of its columns): a program takes 32 columns, which lie next
// to each other in memory, and walks down x in [32 x 32] tiles ([32 x 16]
// for the variance, whose per-lane sums take more room). The tiles are
// laid out with the 32 columns across a warp's lanes (order [0, 1]),
// so each warp reads 128 contiguous bytes per row of x, where one column
// per program would read 4 bytes per row. They compile for sm_80 and
// sm_90a without spills.
// LAYOUT: #[[$L:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>
// LAYOUT-LABEL: func.func @column_sum_kernel0_tile
// LAYOUT: tile.load {{.*}} -> tensor<32x32xf32, #[[$L]]>
// LAYOUT-LABEL: func.func @column_variance_kernel0_tile
// LAYOUT: tile.load {{.*}} -> tensor<32x16xf32, #[[$L]]>
// LAYOUT-NOT: tile.load
// LAYOUT-LABEL: func.func @column_argmax_kernel0_tile
// LAYOUT: tile.load {{.*}} -> tensor<32x32xf32, #[[$L]]>
// Each walks down x carrying a value per lane of its [32 x 32] tile and
// merges the lanes once after the loop: no shuffle and no barrier in it.
// CHECK-LABEL: .entry column_sum_kernel0_tile(
// CHECK: [[SUM:\$L__BB[0-9]+_[0-9]+]]:
// CHECK-NOT: {{bar.sync|shfl.sync}}
// CHECK: bra{{[[:space:]]+}}[[SUM]];
// CHECK: bar.sync
// CHECK: st.global
// CHECK-LABEL: .entry column_variance_kernel0_tile(
// CHECK: [[VARIANCE:\$L__BB[0-9]+_[0-9]+]]:
// CHECK-NOT: {{bar.sync|shfl.sync}}
// CHECK: bra{{[[:space:]]+}}[[VARIANCE]];
// CHECK: bar.sync
// CHECK-LABEL: .entry column_argmax_kernel0_tile(
// CHECK: [[ARGMAX:\$L__BB[0-9]+_[0-9]+]]:
// CHECK-NOT: {{bar.sync|shfl.sync}}
// CHECK: bra{{[[:space:]]+}}[[ARGMAX]];
// CHECK: bar.sync
// PTXAS-COUNT-3: 0 bytes spill stores, 0 bytes spill loads
#x = affine_map<(d0, d1) -> (d1, d0)>
#col = affine_map<(d0, d1) -> (d0)>
#c = affine_map<(d0) -> (d0)>
func.func @column_sum(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %s = linalg.generic {indexing_maps = [#x, #col], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<?xf32>
  return %s : tensor<?xf32>
}

// The variance of each column: its mean, then the mean of the squared
// deviations from it, one kernel that reads x once for both (a running
// mean and M2).
func.func @column_variance(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %mi = arith.index_cast %m : index to i32
  %mf = arith.uitofp %mi : i32 to f32
  %e = tensor.empty(%n) : tensor<?xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [#x, #col], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<?xf32>
  %mean = linalg.generic {indexing_maps = [#c, #c], iterator_types = ["parallel"]}
      ins(%sum : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%s: f32, %out: f32):
    %d = arith.divf %s, %mf : f32
    linalg.yield %d : f32
  } -> tensor<?xf32>
  %sq = linalg.generic {indexing_maps = [#x, #col, #col], iterator_types = ["parallel", "reduction"]}
      ins(%x, %mean : tensor<?x?xf32>, tensor<?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%in: f32, %mu: f32, %acc: f32):
    %d = arith.subf %in, %mu : f32
    %d2 = arith.mulf %d, %d : f32
    %a = arith.addf %d2, %acc : f32
    linalg.yield %a : f32
  } -> tensor<?xf32>
  %var = linalg.generic {indexing_maps = [#c, #c], iterator_types = ["parallel"]}
      ins(%sq : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%s: f32, %out: f32):
    %d = arith.divf %s, %mf : f32
    linalg.yield %d : f32
  } -> tensor<?xf32>
  return %var : tensor<?xf32>
}

// The first row of each column's maximum.
func.func @column_argmax(%x: tensor<?x?xf32>) -> tensor<?xi64> {
  %c1 = arith.constant 1 : index
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i64
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %ev = tensor.empty(%n) : tensor<?xf32>
  %ei = tensor.empty(%n) : tensor<?xi64>
  %vinit = linalg.fill ins(%ninf : f32) outs(%ev : tensor<?xf32>) -> tensor<?xf32>
  %iinit = linalg.fill ins(%c0 : i64) outs(%ei : tensor<?xi64>) -> tensor<?xi64>
  %r:2 = linalg.generic {indexing_maps = [#x, #col, #col], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%vinit, %iinit : tensor<?xf32>, tensor<?xi64>) {
  ^bb0(%in: f32, %v: f32, %i: i64):
    %t = arith.cmpf ogt, %in, %v : f32
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i64
    %nv = arith.select %t, %in, %v : f32
    %ni = arith.select %t, %jj, %i : i64
    linalg.yield %nv, %ni : f32, i64
  } -> (tensor<?xf32>, tensor<?xi64>)
  return %r#1 : tensor<?xi64>
}
