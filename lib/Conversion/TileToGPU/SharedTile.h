//===- SharedTile.h - A tile staged in swizzled shared memory ---*- C++ -*-===//
//
// The address arithmetic of kiln/Layout/SharedLayout.h as IR, and reading
// a staged tile back into any layout: dot operands with ldmatrix, four 8x8
// matrices of 16-bit words per instruction (A as stored, B transposed, or
// as stored when K-major; 8-bit elements only where K runs along the
// slot's rows), everything else as wide as each thread's runs of a row
// allow.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_CONVERSION_TILETOGPU_SHAREDTILE_H
#define KILN_LIB_CONVERSION_TILETOGPU_SHAREDTILE_H

#include "kiln/Layout/SharedLayout.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

#include <utility>

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

/// The address of each run of `width` registers of a `type` tile in
/// `tile`, the runs' byte offsets being `offsets` (from the thread's
/// coordinates), shared where they differ by constants (checked over all
/// threads; an epilogue staging a 128x256 accumulator would otherwise keep
/// 64 addresses live through its loop, and a loop's cp.async copies one
/// per copy).
llvm::SmallVector<mlir::Value>
getRunAddresses(mlir::OpBuilder &b, mlir::Location loc, const SharedTile &tile,
                mlir::RankedTensorType type, mlir::Value offsets,
                int64_t width);

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

/// How the ldmatrix.x4 loads of one dot operand read its staged tile.
/// Lane l names a row of one of four 8x8 matrices of 16-bit words (lanes
/// 8j..8j+7 matrix j) and receives word j of each. In 16-bit elements
/// (kWidth 2), for A the matrices are (rows 0-7 | 8-15) x (K 0-7 | 8-15)
/// of one fragment, in fragment order; for B they are K 0-7, 8-15, 16-23,
/// 24-31 of one column block (two K steps): read transposed from an
/// N-major slot (K rows), or as stored from a K-major one (a transposed
/// slot, whose rows are B's columns: each lane's pair of K is contiguous
/// there). 8-bit elements (kWidth 4) are read the same way as bytes, twice
/// as many K per word: a word is a lane's 4 adjacent K, as the 8-bit
/// fragments want, where K runs along the slot's rows (A as staged, a
/// K-major B); ldmatrix cannot transpose bytes.
struct LdmatrixLoads {
  bool isA, transposed;
  /// Elements per 16-bit word: 1 or 2.
  int64_t perWord;
  int64_t warpsM, warpsN;
  /// Loads: blocks of 16 rows (A) or 8 columns (B), and K steps, of which
  /// one load takes `kPerLoad`.
  int64_t blocks, kSteps, kPerLoad;
  /// A block's rows (A) or columns (B) are its warp's, wrapped where the
  /// warps replicate a small tile.
  int64_t blockStride, blockExtent;
  /// Registers of one K step's fragment.
  int64_t fragmentRegisters;

  /// The loads of the dot operand `opIndex` (0: A) of kWidth 2 (16-bit
  /// elements) or 4 (8-bit), whose accumulator has `warps`, a tile of
  /// `shape`, staged transposed or not.
  static LdmatrixLoads get(int64_t opIndex, int64_t kWidth,
                           llvm::ArrayRef<int64_t> warps,
                           llvm::ArrayRef<int64_t> shape, bool transposed);

  /// The 32-bit words of one load: four, or two for B with one K step.
  int64_t getWords() const { return 2 * kPerLoad * (isA ? 2 : 1); }
  /// The register of the operand (in DotOperandLayout's order) that
  /// element `element` of word `word` of the load of `block` at K step `k`
  /// is: word w holds kWidth elements of K step k + w / 2 (B) or of this
  /// step (A), in the fragment's order.
  int64_t getRegister(int64_t block, int64_t k, int64_t word,
                      int64_t element) const;

  /// The (row, column) of the tile that `lane` of `warp` names in the
  /// load of `block` at K step `k`.
  template <typename Int>
  std::pair<Int, Int> getCoordinates(Int lane, Int warp, int64_t block,
                                     int64_t k) const {
    Int warpIndex = isA ? warp % warpsM : warp / warpsM % warpsN;
    Int origin =
        (warpIndex * (isA ? 16 : 8) + block * blockStride) % blockExtent;
    if (isA)
      return {origin + lane % 16, (lane / 16 * 8 + k * 16) * perWord};
    Int matrixLane = kPerLoad == 2 ? lane : lane % 16;
    if (transposed) // matrix j's rows are the block's 8 columns, at K 8j
      return {(matrixLane / 8 * 8 + k * 16) * perWord, origin + lane % 8};
    return {matrixLane + k * 16, origin};
  }
};

/// Reads the tile staged in `tile` into the registers of `type`'s layout.
/// The caller has made the tile's writes visible (a barrier).
mlir::FailureOr<mlir::Value> loadSharedTile(mlir::OpBuilder &b,
                                            mlir::Location loc,
                                            const SharedTile &tile,
                                            mlir::RankedTensorType type);

} // namespace kiln::tiletogpu

#endif // KILN_LIB_CONVERSION_TILETOGPU_SHAREDTILE_H
