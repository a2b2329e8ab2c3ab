//===- BlockPointerLayout.h - How targets hold a block pointer --*- C++ -*-===//
//
// Both lowerings (TileToHost, TileToGPU) hold a !tile.block_ptr as i64
// fields, in the order defined here: a value rather than memory, so that a
// loop that advances a block pointer carries registers.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_TILE_IR_BLOCKPOINTERLAYOUT_H
#define KILN_DIALECT_TILE_IR_BLOCKPOINTERLAYOUT_H

#include <cstdint>

namespace kiln::tile {

/// The i64 fields of a block pointer of rank `rank`: the base address, then
/// the tensor's sizes, its strides (in elements) and the block's offsets.
struct BlockPointerLayout {
  explicit BlockPointerLayout(int64_t rank) : rank(rank) {}

  static constexpr int64_t kBase = 0;
  int64_t numFields() const { return 1 + 3 * rank; }
  int64_t size(int64_t d) const { return 1 + d; }
  int64_t stride(int64_t d) const { return 1 + rank + d; }
  int64_t offset(int64_t d) const { return 1 + 2 * rank + d; }

  int64_t rank;
};

} // namespace kiln::tile

#endif // KILN_DIALECT_TILE_IR_BLOCKPOINTERLAYOUT_H
