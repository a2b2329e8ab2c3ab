//===- SharedLayout.h - Tiles in swizzled shared memory ---------*- C++ -*-===//
//
// Where each element of a 2-D tile sits in shared memory when it is staged
// for the tensor cores: split into slabs of columns as wide as the swizzle
// span (one slab when a row fits), each slab row-major, one after another,
// with the XOR swizzle that TMA writes and wgmma reads
// (CU_TENSOR_MAP_SWIZZLE_32B/64B/128B): within every 1024 bytes, the 16-byte
// chunk bits [4, 4 + log2(swizzle / 16)) of a byte offset are XORed with
// bits [7, ...). That also spreads the eight 16-byte rows an `ldmatrix`
// phase reads over distinct banks.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LAYOUT_SHAREDLAYOUT_H
#define KILN_LAYOUT_SHAREDLAYOUT_H

#include <cstdint>

namespace kiln::layout {

class SharedLayout {
public:
  /// A `rows` x `columns` tile of `elementBytes` elements, with
  /// `swizzleBytes` in {0, 32, 64, 128} (0: no swizzle), which must divide
  /// a row's bytes.
  SharedLayout(int64_t rows, int64_t columns, int64_t elementBytes,
               int64_t swizzleBytes);

  /// The widest swizzle span that divides a row of `rowBytes`: 128, 64 or
  /// 32 bytes, none for rows of other sizes.
  static int64_t chooseSwizzle(int64_t rowBytes);

  /// Byte offset of element (row, column): in slab column_bytes / swizzle,
  /// then row-major within it, then swizzled.
  int64_t getByteOffset(int64_t row, int64_t column) const;
  /// The same before the swizzle: where wgmma's matrix descriptors start.
  int64_t getLinearByteOffset(int64_t row, int64_t column) const;

  /// The swizzle applied to a row-major byte offset.
  static int64_t swizzle(int64_t offset, int64_t swizzleBytes);

  int64_t getRows() const { return rows; }
  int64_t getColumns() const { return columns; }
  int64_t getElementBytes() const { return elementBytes; }
  int64_t getSwizzleBytes() const { return swizzleBytes; }
  int64_t getSizeInBytes() const { return rows * columns * elementBytes; }

private:
  int64_t rows, columns, elementBytes, swizzleBytes;
};

} // namespace kiln::layout

#endif // KILN_LAYOUT_SHAREDLAYOUT_H
