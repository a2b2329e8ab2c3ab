//===- MatrixDescriptorTest.cpp - wgmma's reads of staged operands ---------===//
//
// What wgmma reads through a descriptor is written here from the PTX ISA
// ("Shared Memory Matrix Layout", canonical layouts of wgmma operands, in
// units of T = 16 bytes of elements): K-major with a swizzle span of S
// bytes is ((8, m), (T, 2k)) : ((S, SBO), (1, T)), so row r of an
// instruction's operand is at (r / 8) * SBO + (r % 8) * S and its 32 bytes
// of K are contiguous; MN-major is ((T, S/16, m), (8, k)) : ((1, T, LBO),
// (S, SBO)), so MN byte b is at (b / S) * LBO + b % S and K row k at
// (k / 8) * SBO + (k % 8) * S. The swizzle then applies to the whole
// address (the start address included). For every staged tile shape and
// swizzle, every element of every instruction's operand must be read from
// where SharedLayout put it.
//
//===----------------------------------------------------------------------===//

#include "kiln/Layout/MatrixDescriptor.h"

#include "gtest/gtest.h"

using namespace kiln::layout;

namespace {

constexpr int64_t kElementBytes = 2; // f16 and bf16
constexpr int64_t kInstrK = 16;      // of f16 and bf16
/// K of one instruction, whatever the element: 32 bytes.
constexpr int64_t kInstrKBytes = 32;

/// Where wgmma reads byte `kByte` of row `row` of a K-major operand.
int64_t readKMajor(const MatrixDescriptor &d, int64_t start, int64_t row,
                   int64_t kByte) {
  int64_t address = start + (row / 8) * d.strideByteOffset +
                    (row % 8) * d.swizzleBytes + kByte;
  return SharedLayout::swizzle(address, d.swizzleBytes);
}

/// Where wgmma reads MN byte `mnByte` of K row `k` of an MN-major operand.
int64_t readMNMajor(const MatrixDescriptor &d, int64_t start, int64_t k,
                    int64_t mnByte) {
  int64_t address = start + (mnByte / d.swizzleBytes) * d.leadingByteOffset +
                    (mnByte % d.swizzleBytes) + (k / 8) * d.strideByteOffset +
                    (k % 8) * d.swizzleBytes;
  return SharedLayout::swizzle(address, d.swizzleBytes);
}

/// A (M x K) of f16/bf16, tf32 or 8-bit elements, and a K-major B (a
/// transposed slot: N x K): every instruction operand of the tile, 64 rows
/// (A) or N rows (B, 8 to 256) by 32 bytes of K.
TEST(MatrixDescriptorTest, KMajorOperandIsTheStagedTile) {
  for (int64_t elementBytes : {1, 2, 4})
    for (int64_t rows : {8, 16, 64, 128, 256})
      for (int64_t kBytes : {32, 64, 96, 128, 256}) {
        int64_t k = kBytes / elementBytes, instrK = kInstrKBytes / elementBytes;
        SharedLayout layout(rows, k, elementBytes,
                            SharedLayout::chooseSwizzle(kBytes));
        MatrixDescriptor d = MatrixDescriptor::forStagedTile(layout);
        for (int64_t instrRows = 8; instrRows <= rows; instrRows *= 2)
          for (int64_t r0 = 0; r0 < rows; r0 += instrRows)
            for (int64_t k0 = 0; k0 < k; k0 += instrK) {
              int64_t start = layout.getLinearByteOffset(r0, k0);
              for (int64_t r = 0; r < instrRows; ++r)
                for (int64_t c = 0; c < instrK; ++c)
                  ASSERT_EQ(readKMajor(d, start, r, c * elementBytes),
                            layout.getByteOffset(r0 + r, k0 + c))
                      << rows << "x" << k << " of " << elementBytes
                      << "-byte elements, " << instrRows << " rows at ("
                      << r0 + r << ", " << k0 + c << ")";
            }
      }
}

/// B (K x N): every k16 x nN instruction operand, N one or more spans.
TEST(MatrixDescriptorTest, MNMajorOperandIsTheStagedTile) {
  for (int64_t k : {16, 32, 64})
    for (int64_t n : {16, 32, 48, 64, 128, 256}) {
      SharedLayout layout(k, n, kElementBytes,
                          SharedLayout::chooseSwizzle(n * kElementBytes));
      MatrixDescriptor d = MatrixDescriptor::forStagedTile(layout);
      int64_t spanElements = layout.getSwizzleBytes() / kElementBytes;
      for (int64_t instrN = spanElements; instrN <= n; instrN += spanElements) {
        if (n % instrN != 0 || instrN > 256)
          continue;
        for (int64_t k0 = 0; k0 < k; k0 += kInstrK)
          for (int64_t n0 = 0; n0 < n; n0 += instrN) {
            int64_t start = layout.getLinearByteOffset(k0, n0);
            for (int64_t r = 0; r < kInstrK; ++r)
              for (int64_t c = 0; c < instrN; ++c)
                ASSERT_EQ(readMNMajor(d, start, r, c * kElementBytes),
                          layout.getByteOffset(k0 + r, n0 + c))
                    << k << "x" << n << " (n" << instrN << ") at ("
                    << k0 + r << ", " << n0 + c << ")";
          }
      }
    }
}

/// The fields' places (PTX ISA, "Matrix Descriptor Format"): start address
/// bits 0-13, LBO 16-29, SBO 32-45 (all >> 4), swizzle mode 62-63
/// (1: 128 B, 2: 64 B, 3: 32 B).
TEST(MatrixDescriptorTest, FieldsAreWhereTheISASays) {
  MatrixDescriptor d128{8192, 1024, 128};
  EXPECT_EQ(d128.getStrideAndSwizzleBits(),
            (uint64_t{512} << 16) | (uint64_t{64} << 32) | (uint64_t{1} << 62));
  MatrixDescriptor d64{4096, 512, 64};
  EXPECT_EQ(d64.getStrideAndSwizzleBits() >> 62, 2u);
  MatrixDescriptor d32{2048, 256, 32};
  EXPECT_EQ(d32.getStrideAndSwizzleBits() >> 62, 3u);
  EXPECT_EQ(MatrixDescriptor::getAddressBits(0x3fff0), 0x3fffu);
  EXPECT_EQ(MatrixDescriptor::getAddressBits(0x40010), 1u);
  EXPECT_EQ(MatrixDescriptor::forStagedTile(SharedLayout(64, 64, 2, 128))
                .leadingByteOffset,
            64 * 128);
}

} // namespace
