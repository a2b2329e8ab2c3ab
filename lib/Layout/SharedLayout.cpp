//===- SharedLayout.cpp - Tiles in swizzled shared memory -----------------===//

#include "kiln/Layout/SharedLayout.h"

#include <cassert>
#include <initializer_list>

using namespace kiln::layout;

SharedLayout::SharedLayout(int64_t rows, int64_t columns, int64_t elementBytes,
                           int64_t swizzleBytes)
    : rows(rows), columns(columns), elementBytes(elementBytes),
      swizzleBytes(swizzleBytes) {
  assert(rows > 0 && columns > 0 && elementBytes > 0 &&
         (swizzleBytes == 0 || swizzleBytes == 32 || swizzleBytes == 64 ||
          swizzleBytes == 128) &&
         "invalid shared layout");
  assert((swizzleBytes == 0 || columns * elementBytes % swizzleBytes == 0) &&
         "a swizzled row must be whole slabs of the swizzle span");
}

int64_t SharedLayout::chooseSwizzle(int64_t rowBytes) {
  if (rowBytes % 16 != 0)
    return 0;
  for (int64_t bytes : {128, 64, 32})
    if (rowBytes % bytes == 0)
      return bytes;
  return 0;
}

int64_t SharedLayout::swizzle(int64_t offset, int64_t swizzleBytes) {
  if (swizzleBytes == 0)
    return offset;
  int64_t mask = swizzleBytes / 16 - 1;
  return offset ^ (((offset >> 7) & mask) << 4);
}

int64_t SharedLayout::getLinearByteOffset(int64_t row, int64_t column) const {
  int64_t rowBytes = columns * elementBytes;
  int64_t slabBytes = swizzleBytes == 0 ? rowBytes : swizzleBytes;
  int64_t byte = column * elementBytes;
  int64_t slab = byte / slabBytes;
  return slab * rows * slabBytes + row * slabBytes + byte % slabBytes;
}

int64_t SharedLayout::getByteOffset(int64_t row, int64_t column) const {
  return swizzle(getLinearByteOffset(row, column), swizzleBytes);
}
