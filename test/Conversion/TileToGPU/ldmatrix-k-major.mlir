// RUN: kiln-opt %s -kiln-convert-tile-to-gpu | FileCheck %s

// A K-major B slot (transposed: its rows are B's columns, K contiguous)
// read into mma.sync's B fragments by ldmatrix as stored (row layout, no
// transpose): one x4 for the two K steps of the warp's one 8-column
// block; lane l gives the address of column (l % 8) at K 8 * (l / 8).
// An N-major slot is read transposed (col layout), for comparison.
// CHECK-LABEL: gpu.func @k_major
// CHECK: %[[LANE:.*]] = arith.remui %{{.*}}, %c32_i32
// CHECK: arith.divui %[[LANE]], %c8_i32
// CHECK: arith.remui %[[LANE]], %c8_i32
// CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
// CHECK-NOT: nvvm.ldmatrix
// CHECK-NOT: llvm.load
// CHECK-LABEL: gpu.func @n_major
// CHECK: nvvm.ldmatrix %{{.*}} {{.*}}layout = #nvvm.mma_layout<col>
#mma = #tilegpu.mma<{warpsPerCTA = [1, 1]}>
#b = #tilegpu.dot_operand<{opIdx = 1, parent = #mma, kWidth = 2}>
module attributes {tilegpu.num_warps = 1 : i64} {
func.func @k_major(%out: !tile.ptr<f16>, %s: i32) {
  %buf = tilegpu.local_alloc : memref<2x32x8xf16, strided<[256, 1, 32]>, 3>
  %v = tilegpu.local_load %buf[%s] : memref<2x32x8xf16, strided<[256, 1, 32]>, 3> -> tensor<32x8xf16, #b>
  %p = tile.splat %out : !tile.ptr<f16> -> tensor<32x8x!tile.ptr<f16>, #b>
  tile.store %p, %v : tensor<32x8x!tile.ptr<f16>, #b>, tensor<32x8xf16, #b>
  return
}
func.func @n_major(%out: !tile.ptr<f16>, %s: i32) {
  %buf = tilegpu.local_alloc : memref<2x32x8xf16, 3>
  %v = tilegpu.local_load %buf[%s] : memref<2x32x8xf16, 3> -> tensor<32x8xf16, #b>
  %p = tile.splat %out : !tile.ptr<f16> -> tensor<32x8x!tile.ptr<f16>, #b>
  tile.store %p, %v : tensor<32x8x!tile.ptr<f16>, #b>, tensor<32x8xf16, #b>
  return
}
}
