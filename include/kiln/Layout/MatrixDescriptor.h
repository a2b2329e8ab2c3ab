//===- MatrixDescriptor.h - wgmma's view of a staged operand ----*- C++ -*-===//
//
// The 64-bit shared-memory matrix descriptor through which
// `wgmma.mma_async` reads an operand (PTX ISA, "Matrix Descriptor Format"):
// the start address and two strides in 16-byte units and the swizzle mode.
// For a tile staged as SharedLayout says, the instruction's operand is one
// of the ISA's canonical layouts: K-major for A (M x K, K contiguous) and
// MN-major for B (K x N, N contiguous), with 8-row atoms of one swizzle
// span.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LAYOUT_MATRIXDESCRIPTOR_H
#define KILN_LAYOUT_MATRIXDESCRIPTOR_H

#include "kiln/Layout/SharedLayout.h"

#include <cstdint>

namespace kiln::layout {

struct MatrixDescriptor {
  /// "Leading dimension byte offset": for an MN-major operand, the stride
  /// from one swizzle span of MN to the next (one slab of the staged tile).
  int64_t leadingByteOffset;
  /// "Stride dimension byte offset": the stride from one 8-row atom to the
  /// next (8 rows of one swizzle span).
  int64_t strideByteOffset;
  /// 32, 64 or 128.
  int64_t swizzleBytes;

  /// The descriptor of any instruction's operand in a tile staged as
  /// `layout`, which must be swizzled.
  static MatrixDescriptor forStagedTile(const SharedLayout &layout);

  /// Every field but the start address, in place.
  uint64_t getStrideAndSwizzleBits() const;
  /// The start-address field for a byte address in the shared window.
  static uint64_t getAddressBits(uint64_t address);
};

} // namespace kiln::layout

#endif // KILN_LAYOUT_MATRIXDESCRIPTOR_H
