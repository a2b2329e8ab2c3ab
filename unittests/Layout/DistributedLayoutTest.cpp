//===- DistributedLayoutTest.cpp - Exhaustive tests of the layouts --------===//
//
// Every (register, lane, warp) of every layout below is mapped and checked:
// coverage, one-to-one where the tile fills the footprint, uniform
// replication where it does not, contiguity of a thread's registers, and
// the inverse.
//
//===----------------------------------------------------------------------===//

#include "kiln/Layout/DistributedLayout.h"
#include "kiln/Layout/MmaLayout.h"

#include "gtest/gtest.h"

#include <map>
#include <set>

using namespace kiln::layout;

namespace {
struct BlockedCase {
  Shape sizePerThread, threadsPerWarp, warpsPerCTA, order;
};

/// Layouts of rank 1 to 3, row- and column-major, with and without several
/// elements per thread and several warps per dimension.
std::vector<BlockedCase> blockedCases() {
  return {
      {{1}, {32}, {1}, {0}},
      {{4}, {32}, {4}, {0}},
      {{2}, {8}, {2}, {0}},
      {{1, 4}, {4, 8}, {2, 2}, {1, 0}},
      {{4, 1}, {8, 4}, {1, 4}, {0, 1}},
      {{2, 2}, {2, 16}, {4, 1}, {1, 0}},
      {{1, 1, 2}, {2, 2, 8}, {1, 2, 2}, {2, 1, 0}},
      {{2, 1, 1}, {4, 2, 4}, {2, 1, 1}, {0, 2, 1}},
  };
}

BlockedLayout make(const BlockedCase &c) {
  return BlockedLayout(c.sizePerThread, c.threadsPerWarp, c.warpsPerCTA,
                       c.order);
}

int64_t numElements(const Shape &shape) {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  return n;
}

/// How many locations hold each element of `shape`.
std::map<Shape, int64_t> holders(const DistributedLayout &layout,
                                 const Shape &shape) {
  std::map<Shape, int64_t> count;
  for (int64_t warp = 0; warp < layout.getNumWarps(); ++warp)
    for (int64_t lane = 0; lane < layout.getThreadsPerWarp(); ++lane)
      for (int64_t reg = 0; reg < layout.getNumRegisters(shape); ++reg) {
        Shape c = layout.getCoordinates(shape, {reg, lane, warp});
        for (size_t d = 0; d < shape.size(); ++d) {
          EXPECT_GE(c[d], 0);
          EXPECT_LT(c[d], shape[d]);
        }
        ++count[c];
      }
  return count;
}

/// Shapes that are the footprint scaled by `factor` (>= 1: repeated
/// footprints; < 1: a tile smaller than the footprint, sizes >= 1).
Shape scaled(const Shape &footprint, double factor) {
  Shape shape;
  for (int64_t f : footprint)
    shape.push_back(std::max<int64_t>(1, static_cast<int64_t>(f * factor)));
  return shape;
}
} // namespace

TEST(BlockedLayoutTest, FootprintMultiplesAreOneToOne) {
  for (const BlockedCase &c : blockedCases()) {
    BlockedLayout layout = make(c);
    for (double factor : {1.0, 2.0, 4.0}) {
      Shape shape = scaled(layout.getFootprint(), factor);
      int64_t slots = layout.getNumRegisters(shape) *
                      layout.getThreadsPerWarp() * layout.getNumWarps();
      ASSERT_EQ(slots, numElements(shape));
      auto count = holders(layout, shape);
      EXPECT_EQ(static_cast<int64_t>(count.size()), numElements(shape));
      for (auto &[coordinates, n] : count)
        EXPECT_EQ(n, 1);
    }
  }
}

TEST(BlockedLayoutTest, SmallTilesAreReplicatedUniformly) {
  for (const BlockedCase &c : blockedCases()) {
    BlockedLayout layout = make(c);
    for (double factor : {0.5, 0.25}) {
      Shape shape = scaled(layout.getFootprint(), factor);
      int64_t slots = layout.getNumRegisters(shape) *
                      layout.getThreadsPerWarp() * layout.getNumWarps();
      auto count = holders(layout, shape);
      // Every element is held, each by the same number of locations.
      ASSERT_EQ(static_cast<int64_t>(count.size()), numElements(shape));
      for (auto &[coordinates, n] : count)
        EXPECT_EQ(n, slots / numElements(shape));
    }
  }
}

TEST(BlockedLayoutTest, ThreadRegistersAreContiguousAlongTheFastestDim) {
  for (const BlockedCase &c : blockedCases()) {
    BlockedLayout layout = make(c);
    Shape shape = scaled(layout.getFootprint(), 2.0);
    int64_t fastest = c.order[0];
    for (int64_t lane = 0; lane < layout.getThreadsPerWarp(); ++lane) {
      Shape first = layout.getCoordinates(shape, {0, lane, 0});
      for (int64_t reg = 1; reg < c.sizePerThread[fastest]; ++reg) {
        Shape next = layout.getCoordinates(shape, {reg, lane, 0});
        Shape expected = first;
        expected[fastest] += reg;
        EXPECT_EQ(next, expected);
      }
    }
  }
}

TEST(BlockedLayoutTest, NeighbouringLanesTakeNeighbouringVectors) {
  // What coalescing needs: lane l's first element follows lane l - 1's
  // vector along the fastest dimension, while lanes stay in that dimension.
  BlockedLayout layout({4}, {32}, {4}, {0});
  Shape shape = {2048};
  for (int64_t warp = 0; warp < 4; ++warp)
    for (int64_t lane = 0; lane < 32; ++lane)
      EXPECT_EQ(layout.getCoordinates(shape, {0, lane, warp})[0],
                (warp * 32 + lane) * 4);
  // The next footprint starts 512 elements on, in register 4.
  EXPECT_EQ(layout.getCoordinates(shape, {4, 0, 0})[0], 512);
}

TEST(BlockedLayoutTest, LocationsInvertCoordinates) {
  for (const BlockedCase &c : blockedCases()) {
    BlockedLayout layout = make(c);
    for (double factor : {0.5, 1.0}) {
      Shape shape = scaled(layout.getFootprint(), factor);
      for (int64_t warp = 0; warp < layout.getNumWarps(); ++warp)
        for (int64_t lane = 0; lane < layout.getThreadsPerWarp(); ++lane)
          for (int64_t reg = 0; reg < layout.getNumRegisters(shape); ++reg) {
            Location location{reg, lane, warp};
            auto found = layout.getLocations(
                shape, layout.getCoordinates(shape, location));
            EXPECT_NE(std::find(found.begin(), found.end(), location),
                      found.end());
          }
    }
  }
}

TEST(BlockedLayoutTest, CoalescedAccessLayouts) {
  // 1-D f32: 4 elements (16 bytes) per thread, a warp covers 128.
  BlockedLayout a = BlockedLayout::forCoalescedAccess({1024}, {0}, 4, 4);
  EXPECT_EQ(a.getSizePerThread(), Shape({4}));
  EXPECT_EQ(a.getThreadsPerWarpShape(), Shape({32}));
  EXPECT_EQ(a.getWarpsPerCTA(), Shape({4}));
  // Row-major 64x32 f16: 8 per thread (16 bytes) along the rows, 4 lanes
  // cover a row of 32, 8 rows per warp, warps stacked down the columns.
  BlockedLayout b = BlockedLayout::forCoalescedAccess({64, 32}, {1, 0}, 8, 4);
  EXPECT_EQ(b.getSizePerThread(), Shape({1, 8}));
  EXPECT_EQ(b.getThreadsPerWarpShape(), Shape({8, 4}));
  EXPECT_EQ(b.getWarpsPerCTA(), Shape({4, 1}));
  // A tile smaller than a warp's reach replicates over what is left.
  BlockedLayout c = BlockedLayout::forCoalescedAccess({16}, {0}, 4, 4);
  EXPECT_EQ(c.getThreadsPerWarp(), 32);
  EXPECT_EQ(c.getNumWarps(), 4);
  auto count = holders(c, {16});
  EXPECT_EQ(count.size(), 16u);
  // Every case is a valid layout of the requested thread counts.
  for (auto [shape, order] :
       std::vector<std::pair<Shape, Shape>>{{{1}, {0}},
                                            {{8, 8}, {1, 0}},
                                            {{128, 64}, {0, 1}},
                                            {{2, 4, 256}, {2, 1, 0}}}) {
    for (int64_t warps : {1, 2, 4, 8}) {
      BlockedLayout l =
          BlockedLayout::forCoalescedAccess(shape, order, 4, warps);
      EXPECT_EQ(l.getThreadsPerWarp(), 32);
      EXPECT_EQ(l.getNumWarps(), warps);
      EXPECT_EQ(static_cast<int64_t>(holders(l, shape).size()),
                numElements(shape));
    }
  }
}

TEST(BlockedLayoutTest, VerifyNamesTheProblem) {
  EXPECT_EQ(BlockedLayout::verify({1}, {32}, {4}, {0}), "");
  EXPECT_EQ(BlockedLayout::verify({}, {}, {}, {}),
            "a blocked layout needs at least one dimension");
  EXPECT_EQ(BlockedLayout::verify({1, 1}, {32}, {4, 1}, {1, 0}),
            "sizePerThread, threadsPerWarp, warpsPerCTA and order must have "
            "one rank");
  EXPECT_EQ(BlockedLayout::verify({0}, {32}, {4}, {0}),
            "sizes must be positive");
  EXPECT_EQ(BlockedLayout::verify({1, 1}, {4, 8}, {1, 1}, {1, 1}),
            "order must be a permutation of the dimensions");
}

TEST(SliceLayoutTest, ReducedDimensionIsDropped) {
  for (const BlockedCase &c : blockedCases()) {
    if (c.order.size() < 2)
      continue;
    auto parent = std::make_shared<BlockedLayout>(make(c));
    for (int64_t dim = 0; dim < parent->getRank(); ++dim) {
      SliceLayout slice(dim, parent);
      Shape parentShape = scaled(parent->getFootprint(), 2.0);
      Shape shape = parentShape;
      shape.erase(shape.begin() + dim);
      // Every element of the reduced tile is held, uniformly.
      auto count = holders(slice, shape);
      ASSERT_EQ(static_cast<int64_t>(count.size()), numElements(shape));
      int64_t slots = slice.getNumRegisters(shape) *
                      slice.getThreadsPerWarp() * slice.getNumWarps();
      for (auto &[coordinates, n] : count)
        EXPECT_EQ(n, slots / numElements(shape));
      // A thread holds, in the slice, exactly the rows it held in the
      // parent: what a reduction within the thread needs.
      for (int64_t lane = 0; lane < parent->getThreadsPerWarp(); ++lane) {
        std::map<Shape, bool> fromParent, fromSlice;
        for (int64_t reg = 0; reg < parent->getNumRegisters(parentShape);
             ++reg) {
          Shape c2 = parent->getCoordinates(parentShape, {reg, lane, 0});
          c2.erase(c2.begin() + dim);
          fromParent[c2] = true;
        }
        for (int64_t reg = 0; reg < slice.getNumRegisters(shape); ++reg)
          fromSlice[slice.getCoordinates(shape, {reg, lane, 0})] = true;
        EXPECT_EQ(fromParent, fromSlice);
      }
    }
  }
}

/// That a thread's registers of `slice` hold distinct elements, and that
/// the parent registers each stands for hold its element in every thread.
static void expectOneRegisterPerElement(const SliceLayout &slice,
                                        const Shape &shape) {
  Shape parentShape = slice.getParentShape(shape);
  const auto &groups = slice.getParentRegisters(shape);
  for (int64_t warp = 0; warp < slice.getNumWarps(); ++warp) {
    for (int64_t lane = 0; lane < slice.getThreadsPerWarp(); ++lane) {
      std::set<Shape> held;
      for (int64_t reg = 0; reg < slice.getNumRegisters(shape); ++reg) {
        Shape element = slice.getCoordinates(shape, {reg, lane, warp});
        EXPECT_TRUE(held.insert(element).second)
            << "register " << reg << " repeats an element";
        for (int64_t parentReg : groups[reg]) {
          Shape c = slice.getParent().getCoordinates(parentShape,
                                                     {parentReg, lane, warp});
          c.erase(c.begin() + slice.getDim());
          EXPECT_EQ(c, element);
        }
      }
    }
  }
}

TEST(SliceLayoutTest, ThreadsHoldEachElementOnce) {
  for (const BlockedCase &c : blockedCases()) {
    if (c.order.size() < 2)
      continue;
    auto parent = std::make_shared<BlockedLayout>(make(c));
    for (int64_t dim = 0; dim < parent->getRank(); ++dim) {
      Shape shape = scaled(parent->getFootprint(), 2.0);
      shape.erase(shape.begin() + dim);
      expectOneRegisterPerElement(SliceLayout(dim, parent), shape);
    }
  }
  // The rows of mma.sync's accumulator: c0 and c1 (c2 and c3) are one row.
  for (Shape warps : {Shape{4, 1}, Shape{2, 2}, Shape{8, 1}}) {
    auto mma = std::make_shared<MmaLayout>(warps);
    for (int64_t rows : {16, 64, 128}) {
      SliceLayout slice(1, mma);
      expectOneRegisterPerElement(slice, {rows});
      EXPECT_EQ(slice.getNumRegisters({rows}),
                2 * std::max<int64_t>(1, rows / (16 * warps[0])));
      expectOneRegisterPerElement(SliceLayout(0, mma), {rows});
    }
  }
}

TEST(BlockedLayoutTest, ExactlyOneCopyOfEachElementIsCanonical) {
  // Generated code stores and performs atomics only from the canonical copy
  // (register offset + thread offset below the shape), so there must be one.
  for (const BlockedCase &c : blockedCases()) {
    BlockedLayout layout = make(c);
    for (double factor : {0.25, 0.5, 1.0, 2.0}) {
      Shape shape = scaled(layout.getFootprint(), factor);
      std::map<Shape, int64_t> canonical;
      for (int64_t warp = 0; warp < layout.getNumWarps(); ++warp)
        for (int64_t lane = 0; lane < layout.getThreadsPerWarp(); ++lane)
          for (int64_t reg = 0; reg < layout.getNumRegisters(shape); ++reg) {
            Shape regPart = layout.getRegisterOffsets(shape, reg);
            Shape threadPart = layout.getThreadOffsets(lane, warp);
            bool inside = true;
            for (size_t d = 0; d < shape.size(); ++d)
              inside &= regPart[d] + threadPart[d] < shape[d];
            if (inside)
              ++canonical[layout.getCoordinates(shape, {reg, lane, warp})];
          }
      EXPECT_EQ(static_cast<int64_t>(canonical.size()), numElements(shape));
      for (auto &[coordinates, n] : canonical)
        EXPECT_EQ(n, 1);
    }
  }
}

TEST(BlockedLayoutTest, ThreadOffsetsFollowTheStrides) {
  // The formula the GPU lowering emits for a thread's offsets.
  for (const BlockedCase &c : blockedCases()) {
    BlockedLayout layout = make(c);
    for (int64_t warp = 0; warp < layout.getNumWarps(); ++warp)
      for (int64_t lane = 0; lane < layout.getThreadsPerWarp(); ++lane) {
        Shape offsets = layout.getThreadOffsets(lane, warp);
        for (int64_t d = 0; d < layout.getRank(); ++d) {
          int64_t laneIndex =
              lane / layout.getLaneStride(d) % c.threadsPerWarp[d];
          int64_t warpIndex = warp / layout.getWarpStride(d) % c.warpsPerCTA[d];
          EXPECT_EQ(offsets[d], (warpIndex * c.threadsPerWarp[d] + laneIndex) *
                                    c.sizePerThread[d]);
        }
      }
  }
}
