//===- SharedTile.h - A tile staged in swizzled shared memory ---*- C++ -*-===//
//
// The address arithmetic of kiln/Layout/SharedLayout.h as IR, and reading
// a staged tile back into any layout: dot operands of 16-bit elements with
// ldmatrix, four 8x8 matrices per instruction (A as stored, B transposed),
// everything else as wide as each thread's runs of a row allow.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_CONVERSION_TILETOGPU_SHAREDTILE_H
#define KILN_LIB_CONVERSION_TILETOGPU_SHAREDTILE_H

#include "kiln/Layout/SharedLayout.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace kiln::tiletogpu {

/// A 2-D tile in shared memory at `base` (an addrspace(3) pointer), laid
/// out as `layout` says; when `transposed`, `layout` holds the tile's
/// transpose: element (row, column) is at the layout's (column, row).
struct SharedTile {
  mlir::Value base;
  layout::SharedLayout layout;
  bool transposed = false;

  /// The swizzled byte offset (i32, scalar or vector) of the tile's
  /// element (row, column).
  mlir::Value byteOffset(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value row, mlir::Value column) const;
  /// The same for the element at `coordinates`: (row, column), or, in a
  /// tile of one dimension, (column), in row 0.
  mlir::Value byteOffset(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::ArrayRef<mlir::Value> coordinates) const;
  /// The same at compile time, for row and column numbers.
  int64_t byteOffset(int64_t row, int64_t column) const;
  /// The address `offset` (i32) bytes past the base.
  mlir::Value address(mlir::OpBuilder &b, mlir::Location loc,
                      mlir::Value offset) const;
};

/// The staging layout of a tile of `type` (swizzled for its rows).
layout::SharedLayout getStagingLayout(mlir::RankedTensorType type);

/// Bytes of one slot of a tilegpu.local_alloc `buffer` (stages x rows x
/// columns).
int64_t getSlotBytes(mlir::MemRefType buffer);

/// The tile in slot `slot` (i32) of `buffer`, whose lowered base pointer
/// is `base` (transposed where the buffer's slots are).
SharedTile getBufferSlot(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value base, mlir::MemRefType buffer,
                         mlir::Value slot);

/// Writes `registers`, a tile of `type`, into `tile`, each thread's runs
/// of consecutive elements as one vector. The caller keeps readers of an
/// earlier use of the memory from overtaking the writes (a barrier).
mlir::LogicalResult storeSharedTile(mlir::OpBuilder &b, mlir::Location loc,
                                    const SharedTile &tile,
                                    mlir::Value registers,
                                    mlir::RankedTensorType type);

/// Stages `registers`, a 2-D tile of `type`, in scratch shared memory of
/// `op` laid out as getStagingLayout says (`alignment`-aligned): after a
/// barrier, which keeps the writes from overtaking the previous user's
/// readers of the memory, each thread writes its runs (storeSharedTile).
/// The caller makes the writes visible to their readers.
mlir::FailureOr<SharedTile> stageTile(mlir::OpBuilder &b, mlir::Operation *op,
                                      mlir::Value registers,
                                      mlir::RankedTensorType type,
                                      int64_t alignment = 16);

/// Reads the tile staged in `tile` into the registers of `type`'s layout.
/// The caller has made the tile's writes visible (a barrier).
mlir::FailureOr<mlir::Value> loadSharedTile(mlir::OpBuilder &b,
                                            mlir::Location loc,
                                            const SharedTile &tile,
                                            mlir::RankedTensorType type);

} // namespace kiln::tiletogpu

#endif // KILN_LIB_CONVERSION_TILETOGPU_SHAREDTILE_H
