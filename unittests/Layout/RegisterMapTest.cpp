//===- RegisterMapTest.cpp - Register maps within one thread --------------===//

#include "kiln/Layout/RegisterMap.h"
#include "kiln/Layout/MmaLayout.h"

#include "gtest/gtest.h"

#include <map>

using namespace kiln::layout;

namespace {
Shape identity(const Shape &coordinates) { return coordinates; }
} // namespace

TEST(RegisterMapTest, SameLayoutIsTheIdentity) {
  BlockedLayout layout({1, 4}, {4, 8}, {2, 2}, {1, 0});
  Shape shape = {16, 64};
  auto map = getThreadLocalRegisterMap(layout, shape, layout, shape, identity);
  ASSERT_TRUE(map);
  for (int64_t reg = 0, e = map->size(); reg < e; ++reg)
    EXPECT_EQ((*map)[reg], reg);
}

TEST(RegisterMapTest, BroadcastReadsTheThreadsOwnRow) {
  // [16, 1] -> [16, 64] in one layout: every register of a row reads the
  // register holding that row's single element.
  BlockedLayout layout({1, 4}, {4, 8}, {2, 2}, {1, 0});
  Shape from = {16, 1}, to = {16, 64};
  auto map = getThreadLocalRegisterMap(
      layout, from, layout, to, [](const Shape &c) { return Shape{c[0], 0}; });
  ASSERT_TRUE(map);
  for (int64_t warp = 0; warp < 4; ++warp)
    for (int64_t lane = 0; lane < 32; ++lane)
      for (int64_t reg = 0, e = map->size(); reg < e; ++reg)
        EXPECT_EQ(layout.getCoordinates(from, {(*map)[reg], lane, warp})[0],
                  layout.getCoordinates(to, {reg, lane, warp})[0]);
}

TEST(RegisterMapTest, DataThatMovesBetweenThreadsHasNoMap) {
  BlockedLayout rows({1, 4}, {4, 8}, {4, 1}, {1, 0});
  BlockedLayout cols({4, 1}, {8, 4}, {1, 4}, {0, 1});
  Shape shape = {32, 32};
  EXPECT_FALSE(getThreadLocalRegisterMap(rows, shape, cols, shape, identity));
}

TEST(RegisterMapTest, ReductionGroupsCoverEachRowOnce) {
  // Rows of 64 over 8 lanes of 4 elements, two warps along the rows: each
  // thread reduces its 2 x 4 elements of a row, and the lanes and warps
  // along the row together hold each element exactly once.
  auto layout = std::make_shared<BlockedLayout>(
      Shape{1, 4}, Shape{4, 8}, Shape{2, 2}, Shape{1, 0});
  Shape shape = {16, 128};
  auto groups = getReductionRegisterGroups(layout, shape, 1);
  ASSERT_TRUE(groups);
  SliceLayout result(1, layout);
  Shape rowShape = {16};
  ASSERT_EQ(static_cast<int64_t>(groups->size()),
            result.getNumRegisters(rowShape));
  std::map<Shape, int64_t> seen;
  for (int64_t warp = 0; warp < 4; ++warp)
    for (int64_t lane = 0; lane < 32; ++lane)
      for (int64_t reg = 0, e = groups->size(); reg < e; ++reg) {
        int64_t row = result.getCoordinates(rowShape, {reg, lane, warp})[0];
        for (int64_t source : (*groups)[reg]) {
          Shape c = layout->getCoordinates(shape, {source, lane, warp});
          EXPECT_EQ(c[0], row);
          ++seen[c];
        }
      }
  // Replicated result registers see the same elements: count per element
  // is the number of result registers holding its row in one thread.
  ASSERT_EQ(static_cast<int64_t>(seen.size()), 16 * 128);
  int64_t copies = seen.begin()->second;
  for (auto &[c, n] : seen)
    EXPECT_EQ(n, copies);
}

TEST(RegisterMapTest, ReductionDropsReplicatedRegisters) {
  // A tile of 2 along the axis in a layout of 4 per thread: registers 2
  // and 3 repeat 0 and 1 and must not be counted twice. The result, a
  // scalar, is one register, not one per parent register.
  auto layout = std::make_shared<BlockedLayout>(Shape{4}, Shape{32},
                                                Shape{1}, Shape{0});
  auto groups = getReductionRegisterGroups(layout, {2}, 0);
  ASSERT_TRUE(groups);
  ASSERT_EQ(groups->size(), 1u);
  EXPECT_EQ(groups->front(), (std::vector<int64_t>{0, 1}));
}

TEST(RegisterMapTest, BlockedRowsMoveAsWideAsTheirThreadsBlocks) {
  BlockedLayout layout({1, 8}, {4, 8}, {4, 1}, {1, 0});
  EXPECT_EQ(getContiguousRegisterRun(layout, {64, 64}, 8), 8);
  // No wider than asked, nor than the row.
  EXPECT_EQ(getContiguousRegisterRun(layout, {64, 64}, 4), 4);
  EXPECT_EQ(getContiguousRegisterRun(layout, {64, 2}, 8), 2);
  // A footprint wider than the tile wraps onto whole runs.
  EXPECT_EQ(getContiguousRegisterRun(layout, {64, 32}, 8), 8);
}

TEST(RegisterMapTest, ColumnMajorThreadsHaveNoRowRuns) {
  BlockedLayout layout({4, 1}, {8, 4}, {1, 4}, {0, 1});
  EXPECT_EQ(getContiguousRegisterRun(layout, {64, 64}, 8), 1);
}

TEST(RegisterMapTest, AccumulatorsHoldPairsOfColumns) {
  // c0, c1 (and c2, c3) of mma.sync's accumulator are two columns of a
  // row, the first even.
  MmaLayout mma({4, 2});
  EXPECT_EQ(getContiguousRegisterRun(mma, {128, 256}, 8), 2);
  EXPECT_EQ(getContiguousRegisterRun(mma, {64, 16}, 8), 2);
}

TEST(RegisterMapTest, RunsMustStartAligned) {
  // Three-element blocks: registers 0-1 are consecutive but a second pair
  // straddles two blocks, so nothing is wider than one.
  BlockedLayout layout({1, 3}, {1, 32}, {1, 1}, {1, 0});
  EXPECT_EQ(getContiguousRegisterRun(layout, {1, 96}, 4), 1);
}
