//===- SharedLayoutTest.cpp - Swizzled shared-memory tiles ----------------===//
//
// The swizzle is checked against the tensor map's definition, written here
// from the CUDA documentation rather than from the implementation:
// CU_TENSOR_MAP_SWIZZLE_32B / _64B / _128B "swizzle 16B chunks within a
// 32B / 64B / 128B span"
// (https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__TENSOR__MEMORY.html):
// the index of a 16-byte chunk within its span is XORed with the index of
// the 128-byte row it is in, modulo the number of chunks in a span (CUTLASS
// names these modes Swizzle<1,4,3>, <2,4,3> and <3,4,3> in
// include/cute/atom/copy_traits_sm90_tma_swizzle.hpp). Every byte of tiles
// of several shapes is then mapped: bijectivity, 16-byte chunks kept whole,
// and bank-conflict-free ldmatrix reads.
//
//===----------------------------------------------------------------------===//

#include "kiln/Layout/SharedLayout.h"

#include "gtest/gtest.h"

#include <set>
#include <vector>

using namespace kiln::layout;

namespace {
/// The tensor map swizzle of `offset`, by chunk and row arithmetic.
int64_t referenceSwizzle(int64_t offset, int64_t swizzleBytes) {
  if (swizzleBytes == 0)
    return offset;
  int64_t chunksPerSpan = swizzleBytes / 16;
  int64_t spanStart = offset / swizzleBytes * swizzleBytes;
  int64_t chunk = offset % swizzleBytes / 16; // 16-byte chunk in its span
  int64_t row = offset / 128 % chunksPerSpan; // 128-byte row, modulo
  int64_t byteInChunk = offset % 16;
  return spanStart + (chunk ^ row) * 16 + byteInChunk;
}

const int64_t swizzles[] = {32, 64, 128};
} // namespace

TEST(SharedLayoutTest, SwizzleIsTheTensorMapSwizzle) {
  for (int64_t s : swizzles)
    for (int64_t offset = 0; offset < 2048; ++offset)
      EXPECT_EQ(SharedLayout::swizzle(offset, s), referenceSwizzle(offset, s))
          << "offset " << offset << " swizzle " << s;
  // Hand-picked: the second 128-byte row moves chunk 0 to chunk 1 in every
  // mode; the pattern repeats every 8 (128B), 4 (64B) and 2 (32B) rows.
  EXPECT_EQ(SharedLayout::swizzle(128, 128), 144);
  EXPECT_EQ(SharedLayout::swizzle(144, 128), 128);
  EXPECT_EQ(SharedLayout::swizzle(7 * 128 + 5, 128), 7 * 128 + 7 * 16 + 5);
  EXPECT_EQ(SharedLayout::swizzle(3 * 128 + 2 * 16, 128), 3 * 128 + 1 * 16);
  EXPECT_EQ(SharedLayout::swizzle(1024 + 16, 128), 1024 + 16);
  EXPECT_EQ(SharedLayout::swizzle(128, 64), 144);
  EXPECT_EQ(SharedLayout::swizzle(128 + 64, 64), 128 + 64 + 16);
  EXPECT_EQ(SharedLayout::swizzle(3 * 128 + 64, 64), 3 * 128 + 64 + 3 * 16);
  EXPECT_EQ(SharedLayout::swizzle(512 + 32, 64), 512 + 32);
  EXPECT_EQ(SharedLayout::swizzle(128, 32), 144);
  EXPECT_EQ(SharedLayout::swizzle(128 + 32 + 16, 32), 128 + 32);
  EXPECT_EQ(SharedLayout::swizzle(256 + 16, 32), 256 + 16);
}

TEST(SharedLayoutTest, NoSwizzleIsTheIdentity) {
  for (int64_t offset = 0; offset < 2048; ++offset)
    EXPECT_EQ(SharedLayout::swizzle(offset, 0), offset);
  SharedLayout layout(16, 24, 2, 0);
  for (int64_t row = 0; row < 16; ++row)
    for (int64_t col = 0; col < 24; ++col)
      EXPECT_EQ(layout.getByteOffset(row, col), (row * 24 + col) * 2);
}

TEST(SharedLayoutTest, SwizzleIsAnInvolutionWithinEach1024Bytes) {
  for (int64_t s : swizzles)
    for (int64_t offset = 0; offset < 2048; ++offset) {
      int64_t once = SharedLayout::swizzle(offset, s);
      EXPECT_EQ(once / 1024, offset / 1024);
      EXPECT_EQ(SharedLayout::swizzle(once, s), offset);
    }
}

namespace {
struct TileCase {
  int64_t rows, rowBytes, elementBytes, swizzleBytes;
};

/// Tiles of 8 to 128 rows of 32 to 256 bytes, of 1-, 2- and 4-byte
/// elements, with the chosen swizzle and every other whose span divides a
/// row.
std::vector<TileCase> tileCases() {
  std::vector<TileCase> cases;
  for (int64_t rows : {8, 16, 24, 64, 128})
    for (int64_t rowBytes : {32, 48, 64, 96, 128, 256})
      for (int64_t elementBytes : {1, 2, 4}) {
        std::set<int64_t> modes = {0, SharedLayout::chooseSwizzle(rowBytes)};
        for (int64_t s : swizzles)
          if (rowBytes % s == 0)
            modes.insert(s);
        for (int64_t s : modes)
          cases.push_back({rows, rowBytes, elementBytes, s});
      }
  return cases;
}

/// Row-major offset of (row, col) within its slab of columns as wide as the
/// swizzle span (the whole row without swizzle), slabs one after another.
int64_t slabbedOffset(const TileCase &c, int64_t row, int64_t col) {
  int64_t slabBytes = c.swizzleBytes == 0 ? c.rowBytes : c.swizzleBytes;
  int64_t byte = col * c.elementBytes;
  int64_t slab = byte / slabBytes;
  return slab * c.rows * slabBytes + row * slabBytes + byte % slabBytes;
}
} // namespace

TEST(SharedLayoutTest, ByteOffsetsAreRowMajorSlabsThenSwizzled) {
  for (const TileCase &c : tileCases()) {
    int64_t columns = c.rowBytes / c.elementBytes;
    SharedLayout layout(c.rows, columns, c.elementBytes, c.swizzleBytes);
    EXPECT_EQ(layout.getRows(), c.rows);
    EXPECT_EQ(layout.getColumns(), columns);
    EXPECT_EQ(layout.getElementBytes(), c.elementBytes);
    EXPECT_EQ(layout.getSwizzleBytes(), c.swizzleBytes);
    EXPECT_EQ(layout.getSizeInBytes(), c.rows * c.rowBytes);
    for (int64_t row = 0; row < c.rows; ++row)
      for (int64_t col = 0; col < columns; ++col)
        // Rows wider than the swizzle span are split into slabs of
        // columns that wide, stored one after another.
        EXPECT_EQ(layout.getByteOffset(row, col),
                  referenceSwizzle(slabbedOffset(c, row, col), c.swizzleBytes))
            << c.rows << "x" << columns << " elements of " << c.elementBytes
            << " bytes, swizzle " << c.swizzleBytes << ", element (" << row
            << ", " << col << ")";
  }
}

TEST(SharedLayoutTest, ByteOffsetsAreABijectionOntoTheTile) {
  // Every byte of [0, size) belongs to exactly one element.
  for (const TileCase &c : tileCases()) {
    int64_t columns = c.rowBytes / c.elementBytes;
    SharedLayout layout(c.rows, columns, c.elementBytes, c.swizzleBytes);
    std::vector<int> owners(layout.getSizeInBytes(), 0);
    bool inRange = true;
    for (int64_t row = 0; row < c.rows; ++row)
      for (int64_t col = 0; col < columns; ++col) {
        int64_t offset = layout.getByteOffset(row, col);
        EXPECT_EQ(offset % c.elementBytes, 0);
        for (int64_t b = 0; b < c.elementBytes; ++b) {
          int64_t byte = offset + b;
          if (byte < 0 || byte >= layout.getSizeInBytes()) {
            inRange = false;
            continue;
          }
          ++owners[byte];
        }
      }
    EXPECT_TRUE(inRange) << c.rows << " rows of " << c.rowBytes
                         << " bytes, swizzle " << c.swizzleBytes;
    for (size_t byte = 0; byte < owners.size(); ++byte)
      EXPECT_EQ(owners[byte], 1)
          << "byte " << byte << " of " << c.rows << " rows of " << c.rowBytes
          << " bytes, elements of " << c.elementBytes << ", swizzle "
          << c.swizzleBytes;
  }
}

TEST(SharedLayoutTest, SixteenByteChunksStayWholeAndInOrder) {
  // What vector loads and ldmatrix rows rely on: the elements of one
  // logical 16-byte chunk stay contiguous, in order, in one aligned
  // physical 16-byte chunk.
  for (const TileCase &c : tileCases()) {
    int64_t columns = c.rowBytes / c.elementBytes;
    int64_t perChunk = 16 / c.elementBytes;
    SharedLayout layout(c.rows, columns, c.elementBytes, c.swizzleBytes);
    for (int64_t row = 0; row < c.rows; ++row)
      for (int64_t col = 0; col < columns; col += perChunk) {
        int64_t base = layout.getByteOffset(row, col);
        EXPECT_EQ(base % 16, 0);
        for (int64_t e = 1; e < perChunk; ++e)
          EXPECT_EQ(layout.getByteOffset(row, col + e),
                    base + e * c.elementBytes)
              << "element (" << row << ", " << col + e << "), " << c.rowBytes
              << "-byte rows, swizzle " << c.swizzleBytes;
      }
  }
}

namespace {
/// For every group of 8 consecutive rows starting at a multiple of 8 and
/// every logical 16-byte column chunk, the bank groups (physical offset /
/// 16 % 8: four 4-byte banks each) ldmatrix's one phase reads. Adds a
/// failure for any read that is not spread over 8 distinct groups.
void checkLdmatrixConflictFree(int64_t rowBytes, int64_t swizzleBytes) {
  int64_t elementBytes = 2, rows = 64;
  SharedLayout layout(rows, rowBytes / elementBytes, elementBytes,
                      swizzleBytes);
  for (int64_t first = 0; first < rows; first += 8)
    for (int64_t chunk = 0; chunk < rowBytes / 16; ++chunk) {
      std::set<int64_t> groups;
      for (int64_t r = first; r < first + 8; ++r)
        groups.insert(layout.getByteOffset(r, chunk * 16 / elementBytes) / 16 %
                      8);
      EXPECT_EQ(groups.size(), 8u)
          << rowBytes << "-byte rows, swizzle " << swizzleBytes << ": rows "
          << first << ".." << first + 7 << " of column chunk " << chunk
          << " share bank groups";
    }
}
} // namespace

TEST(SharedLayoutTest, LdmatrixReadsAreConflictFreeWithTheChosenSwizzle) {
  for (int64_t rowBytes : {32, 48, 64, 96, 128, 160, 192})
    checkLdmatrixConflictFree(rowBytes, SharedLayout::chooseSwizzle(rowBytes));
}

TEST(SharedLayoutTest, LdmatrixReadsAreConflictFreeForRowsWiderThan128Bytes) {
  // With whole 256-byte rows, row r and row r + 4 would get the same XOR;
  // the layout splits them into 128-byte slabs, as TMA boxes are.
  checkLdmatrixConflictFree(256, SharedLayout::chooseSwizzle(256));
  checkLdmatrixConflictFree(512, SharedLayout::chooseSwizzle(512));
}

TEST(SharedLayoutTest, ChosenSwizzles) {
  // Rows under 32 bytes cannot be swizzled.
  EXPECT_EQ(SharedLayout::chooseSwizzle(16), 0);
  EXPECT_EQ(SharedLayout::chooseSwizzle(32), 32);
  // 48-byte rows: unswizzled, 8 rows at one column chunk already fall in 8
  // bank groups (48 = 3 * 16, 3 odd); a 32-byte swizzle would make rows
  // 0 and 3 collide. Only 0 is conflict-free, and no span divides the row.
  EXPECT_EQ(SharedLayout::chooseSwizzle(48), 0);
  EXPECT_EQ(SharedLayout::chooseSwizzle(64), 64);
  // 96-byte rows: the widest span dividing the row is 32 bytes, the only
  // swizzle here that is conflict-free.
  EXPECT_EQ(SharedLayout::chooseSwizzle(96), 32);
  EXPECT_EQ(SharedLayout::chooseSwizzle(128), 128);
  EXPECT_EQ(SharedLayout::chooseSwizzle(256), 128);
  // Not a multiple of 16.
  EXPECT_EQ(SharedLayout::chooseSwizzle(40), 0);
  EXPECT_EQ(SharedLayout::chooseSwizzle(8), 0);
}

TEST(SharedLayoutTest, TMABoxesWriteEachSlabAsTheLayoutSays) {
  // tile-pipeline-loops copies a staged tile by TMA as one box per slab:
  // box {swizzle / elementBytes columns, rows} at slab s's start (s * rows
  // * swizzle bytes, a multiple of the 8-row swizzle repeat), at tensor
  // column s * boxColumns. TMA lays a box out row-major, one swizzle span
  // per row, and swizzles the shared address (referenceSwizzle): every
  // element must land where the layout, which ldmatrix and wgmma read,
  // puts it.
  for (int64_t elementBytes : {1, 2, 4})
    for (int64_t rows : {8, 16, 64, 128})
      for (int64_t columns : {16, 32, 64, 128, 256}) {
        int64_t swizzle = SharedLayout::chooseSwizzle(columns * elementBytes);
        if (!swizzle)
          continue;
        SharedLayout layout(rows, columns, elementBytes, swizzle);
        int64_t boxColumns = swizzle / elementBytes;
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t c = 0; c < columns; ++c) {
            int64_t slab = c / boxColumns;
            int64_t inBox = r * swizzle + c % boxColumns * elementBytes;
            int64_t written =
                referenceSwizzle(slab * rows * swizzle + inBox, swizzle);
            ASSERT_EQ(layout.getByteOffset(r, c), written)
                << rows << "x" << columns << " of " << elementBytes
                << "-byte elements, element (" << r << ", " << c << ")";
          }
      }
}
