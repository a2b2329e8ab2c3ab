// RUN: kiln-opt %s -split-input-file -tile-assign-layouts="compute-capability=90 arch-specific=1" -tile-tma-stores -verify-diagnostics | FileCheck %s

// A block store through a block pointer made from kernel arguments (base
// and row stride 16-byte aligned) becomes a TMA store through a new
// tensor-map parameter, built by each launch from %c, %M rows, %N
// columns and rows %N apart; its 64x64 f16 blocks have 128-byte rows,
// one slab of the 128-byte swizzle. A store in a loop, its pointer
// advanced and carried, takes the same map.
// CHECK-LABEL: func.func @stores(
// CHECK-SAME: %[[MAP:[^:]*]]: !tile.ptr<i8, 0>)
// CHECK-SAME: tilegpu.tensor_maps = [#tilegpu.tensor_map<argument = 4, elementType = f16, box = [64, 64], swizzle = 128, sources = [1, 2, 3, 3], values = [8, 4, 4, 4]>]
// CHECK: tilegpu.tensor_map_store %{{.*}}, %[[MAP]], %{{.*}} : tensor<64x64xf16, #{{.*}}>, !tile.ptr<i8, 0>, !tile.block_ptr<64x64xf16>
// CHECK: scf.for
// CHECK: tilegpu.tensor_map_store %{{.*}}, %[[MAP]], %{{.*}} : tensor<64x64xf16, #{{.*}}>, !tile.ptr<i8, 0>, !tile.block_ptr<64x64xf16>
// CHECK-NOT: tile.block_store
func.func @stores(%v: tensor<64x64xf16>, %c: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                  %M: i32, %N: i32 {tile.divisibility = 16 : i64}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i64
  %m = arith.extsi %M : i32 to i64
  %n = arith.extsi %N : i32 to i64
  %c64 = arith.constant 64 : i32
  %bp = tile.make_block_ptr %c, [%m, %n], [%n, %c1], [%c0, %c0]
      {order = array<i32: 1, 0>} : !tile.ptr<f16> -> !tile.block_ptr<64x64xf16>
  tile.block_store %bp, %v boundary_check = [0, 1] : !tile.block_ptr<64x64xf16>, tensor<64x64xf16>
  %end = scf.for %i = %c0 to %M step %c64 iter_args(%p = %bp) -> (!tile.block_ptr<64x64xf16>) : i32 {
    tile.block_store %p, %v boundary_check = [0, 1] : !tile.block_ptr<64x64xf16>, tensor<64x64xf16>
    %q = tile.advance %p, [%c64, %c0] : !tile.block_ptr<64x64xf16>
    scf.yield %q : !tile.block_ptr<64x64xf16>
  }
  return
}

// -----

// What TMA cannot store stays a block store, with a remark naming why.
// CHECK-LABEL: func.func @not_by_tma(
// CHECK-NOT: tilegpu.tensor_maps
// CHECK-COUNT-5: tile.block_store
func.func @not_by_tma(%v: tensor<64x64xf16>, %w: tensor<64xf16>,
                      %c: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                      %M: i32, %N: i32 {tile.divisibility = 16 : i64}, %K: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i64
  %m = arith.extsi %M : i32 to i64
  %n = arith.extsi %N : i32 to i64
  %k = arith.extsi %K : i32 to i64
  %ragged = tile.make_block_ptr %c, [%m, %k], [%k, %c1], [%c0, %c0]
      {order = array<i32: 1, 0>} : !tile.ptr<f16> -> !tile.block_ptr<64x64xf16>
  // expected-remark @+1 {{not stored by TMA: the row stride is not known to be a multiple of 16 bytes}}
  tile.block_store %ragged, %v boundary_check = [0, 1] : !tile.block_ptr<64x64xf16>, tensor<64x64xf16>
  %columns = tile.make_block_ptr %c, [%m, %n], [%c1, %m], [%c0, %c0]
      {order = array<i32: 0, 1>} : !tile.ptr<f16> -> !tile.block_ptr<64x64xf16>
  // expected-remark @+1 {{not stored by TMA: the tensor is not row-major (order [1, 0])}}
  tile.block_store %columns, %v boundary_check = [0, 1] : !tile.block_ptr<64x64xf16>, tensor<64x64xf16>
  %row = tile.make_block_ptr %c, [%n], [%c1], [%c0]
      {order = array<i32: 0>} : !tile.ptr<f16> -> !tile.block_ptr<64xf16>
  // expected-remark @+1 {{not stored by TMA: TMA stores 2-D blocks here}}
  tile.block_store %row, %w boundary_check = [0] : !tile.block_ptr<64xf16>, tensor<64xf16>
  %moved = tile.addptr %c, %K : !tile.ptr<f16>, i32
  %elsewhere = tile.make_block_ptr %moved, [%m, %n], [%n, %c1], [%c0, %c0]
      {order = array<i32: 1, 0>} : !tile.ptr<f16> -> !tile.block_ptr<64x64xf16>
  // expected-remark @+1 {{not stored by TMA: the base is not known to be 16-byte aligned (give it tile.divisibility = 16)}}
  tile.block_store %elsewhere, %v boundary_check = [0, 1] : !tile.block_ptr<64x64xf16>, tensor<64x64xf16>
  %whole = tile.make_block_ptr %c, [%m, %n], [%n, %c1], [%c0, %c0]
      {order = array<i32: 1, 0>} : !tile.ptr<f16> -> !tile.block_ptr<64x64xf16>
  // An unchecked store writes past the shape, where TMA writes nothing.
  // expected-remark @+1 {{not stored by TMA: it does not check the bounds of dimension 1, which TMA clips at the tensor's shape (boundary_check=(0, 1) would let it)}}
  tile.block_store %whole, %v boundary_check = [0] : !tile.block_ptr<64x64xf16>, tensor<64x64xf16>
  return
}

// -----

// 8-bit floats have no TMA data type.
func.func @float8(%v: tensor<64x64xf8E4M3FN>, %c: !tile.ptr<f8E4M3FN> {tile.divisibility = 16 : i64},
                  %M: i32, %N: i32 {tile.divisibility = 16 : i64}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i64
  %m = arith.extsi %M : i32 to i64
  %n = arith.extsi %N : i32 to i64
  %bp = tile.make_block_ptr %c, [%m, %n], [%n, %c1], [%c0, %c0]
      {order = array<i32: 1, 0>} : !tile.ptr<f8E4M3FN> -> !tile.block_ptr<64x64xf8E4M3FN>
  // expected-remark @+1 {{not stored by TMA: TMA has no data type for f8E4M3FN}}
  tile.block_store %bp, %v boundary_check = [0, 1] : !tile.block_ptr<64x64xf8E4M3FN>, tensor<64x64xf8E4M3FN>
  return
}
