//===- MatrixDescriptor.cpp - wgmma's view of a staged operand ------------===//

#include "kiln/Layout/MatrixDescriptor.h"

#include <cassert>

using namespace kiln::layout;

MatrixDescriptor MatrixDescriptor::forStagedTile(const SharedLayout &layout) {
  int64_t swizzle = layout.getSwizzleBytes();
  assert(swizzle != 0 && "wgmma operands are staged swizzled");
  return {layout.getRows() * swizzle, 8 * swizzle, swizzle};
}

uint64_t MatrixDescriptor::getStrideAndSwizzleBits() const {
  // Bits 16-29: LBO >> 4; 32-45: SBO >> 4; 62-63: the swizzle mode.
  uint64_t mode = swizzleBytes == 128 ? 1 : swizzleBytes == 64 ? 2 : 3;
  return (static_cast<uint64_t>(leadingByteOffset >> 4) & 0x3fff) << 16 |
         (static_cast<uint64_t>(strideByteOffset >> 4) & 0x3fff) << 32 |
         mode << 62;
}

uint64_t MatrixDescriptor::getAddressBits(uint64_t address) {
  // Bits 0-13: address bits 4-17.
  return (address >> 4) & 0x3fff;
}
