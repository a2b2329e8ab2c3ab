//===- MmaLayoutTest.cpp - The mma.sync layouts against the PTX ISA -------===//
//
// The accumulator and dot-operand layouts are checked element by element
// against reference tables written from the PTX ISA's fragment tables
// (not from the implementation):
//
//   accumulator, A and B of mma.m16n8k16 .f16/.bf16 (kWidth 2):
//     https://docs.nvidia.com/cuda/parallel-thread-execution/#warp-level-matrix-fragment-mma-16816-float
//   A and B of mma.m16n8k8 .tf32 (kWidth 1):
//     https://docs.nvidia.com/cuda/parallel-thread-execution/#warp-level-matrix-fragment-mma-1688
//   A and B of mma.m16n8k32 .s8/.u8 (kWidth 4):
//     https://docs.nvidia.com/cuda/parallel-thread-execution/#warp-level-matrix-fragment-mma-16832
//   accumulator D of wgmma.mma_async .m64nNk16 (sm_90a):
//     https://docs.nvidia.com/cuda/parallel-thread-execution/#wgmma-64n16-d
//
// Then every (register, lane, warp) of tiles of several shapes and warp
// arrangements is mapped: coverage and replication, the block structure of
// repeats, the register/thread offset split, and a tiled product computed
// the way the hardware reads the registers.
//
//===----------------------------------------------------------------------===//

#include "kiln/Layout/MmaLayout.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

using namespace kiln::layout;

namespace {

//===----------------------------------------------------------------------===//
// Reference tables, transcribed from the PTX ISA
//===----------------------------------------------------------------------===//

/// The ISA's helpers for every m16n8kK fragment table:
///   groupID           = %laneid >> 2
///   threadID_in_group = %laneid % 4
int64_t groupID(int64_t lane) { return lane >> 2; }
int64_t threadIDInGroup(int64_t lane) { return lane % 4; }

/// Accumulator C/D of m16n8k16 (.f32; the same table serves m16n8k8 and
/// m16n8k32), Figure 83:
///   row = groupID      for ci where i <  2
///         groupID + 8  for ci where i >= 2
///   col = (threadID_in_group * 2) + (i & 0x1)   for ci where i = {0,..,3}
Shape isaAccumulator(int64_t lane, int64_t i) {
  int64_t row = i < 2 ? groupID(lane) : groupID(lane) + 8;
  int64_t col = threadIDInGroup(lane) * 2 + (i & 0x1);
  return {row, col};
}

/// Accumulator D of wgmma .m64nNk16 (.f32), register d_i of lane `lane` of
/// warp `warp` (of four in the warpgroup; each holds N/2 registers):
///   row = 16 * (warp % 4) + groupID       for d_i where i % 4 <  2
///         16 * (warp % 4) + groupID + 8   for d_i where i % 4 >= 2
///   col = (i / 4) * 8 + threadID_in_group * 2 + (i & 0x1)
Shape isaWgmmaAccumulator(int64_t warp, int64_t lane, int64_t i) {
  int64_t row = 16 * (warp % 4) + groupID(lane) + (i % 4 < 2 ? 0 : 8);
  int64_t col = (i / 4) * 8 + threadIDInGroup(lane) * 2 + (i & 0x1);
  return {row, col};
}

/// Multiplicand A (M x K), element a_i of lane `lane`.
Shape isaA(int64_t kWidth, int64_t lane, int64_t i) {
  int64_t g = groupID(lane), t = threadIDInGroup(lane);
  switch (kWidth) {
  case 2:
    // m16n8k16 .f16/.bf16, Figure 79, a0..a7 in four .f16x2 registers:
    //   row = groupID      for ai where 0 <= i < 2 || 4 <= i < 6
    //         groupID + 8  Otherwise
    //   col = (threadID_in_group * 2) + (i & 0x1)      for ai where i <  4
    //         (threadID_in_group * 2) + (i & 0x1) + 8  for ai where i >= 4
    return {(i < 2 || (4 <= i && i < 6)) ? g : g + 8,
            i < 4 ? t * 2 + (i & 0x1) : t * 2 + (i & 0x1) + 8};
  case 1:
    // m16n8k8 .tf32, Figure 72, a0..a3 in four .b32 registers:
    //   row = groupID      for a0 and a2
    //         groupID + 8  for a1 and a3
    //   col = threadID_in_group      for a0 and a1
    //         threadID_in_group + 4  for a2 and a3
    return {(i == 0 || i == 2) ? g : g + 8, (i == 0 || i == 1) ? t : t + 4};
  case 4:
    // m16n8k32 .s8/.u8, Figure 88, a0..a15 in four .b32 registers:
    //   row = groupID      for ai where 0 <= i < 4 || 8 <= i < 12
    //         groupID + 8  otherwise
    //   col = (threadID_in_group * 4) + (i & 0x3)       for ai where i < 8
    //         (threadID_in_group * 4) + (i & 0x3) + 16  for ai where i >= 8
    return {(i < 4 || (8 <= i && i < 12)) ? g : g + 8,
            i < 8 ? t * 4 + (i & 0x3) : t * 4 + (i & 0x3) + 16};
  }
  ADD_FAILURE() << "no ISA table for kWidth " << kWidth;
  return {-1, -1};
}

/// Multiplicand B (K x N), element b_i of lane `lane`.
Shape isaB(int64_t kWidth, int64_t lane, int64_t i) {
  int64_t g = groupID(lane), t = threadIDInGroup(lane);
  switch (kWidth) {
  case 2:
    // m16n8k16 .f16/.bf16, Figure 81, b0..b3 in two .f16x2 registers:
    //   row = (threadID_in_group * 2) + (i & 0x1)      for bi where i <  2
    //         (threadID_in_group * 2) + (i & 0x1) + 8  for bi where i >= 2
    //   col = groupID
    return {i < 2 ? t * 2 + (i & 0x1) : t * 2 + (i & 0x1) + 8, g};
  case 1:
    // m16n8k8 .tf32, Figure 75, b0..b1 in two .b32 registers:
    //   row = threadID_in_group      for b0
    //         threadID_in_group + 4  for b1
    //   col = groupID
    return {i == 0 ? t : t + 4, g};
  case 4:
    // m16n8k32 .s8/.u8, Figures 90 and 91, b0..b7 in two .b32 registers:
    //   row = (threadID_in_group * 4) + (i & 0x3)       for bi where i < 4
    //         (threadID_in_group * 4) + (i & 0x3) + 16  for bi where i >= 4
    //   col = groupID
    return {i < 4 ? t * 4 + (i & 0x3) : t * 4 + (i & 0x3) + 16, g};
  }
  ADD_FAILURE() << "no ISA table for kWidth " << kWidth;
  return {-1, -1};
}

/// Elements per lane of one instruction's operand, from the ISA's tables:
/// A is 16 x K and B is K x 8, spread over 32 lanes.
int64_t isaInstrK(int64_t kWidth) { return 8 * kWidth; } // 16, 8, 32
int64_t isaARegisters(int64_t kWidth) { return 16 * isaInstrK(kWidth) / 32; }
int64_t isaBRegisters(int64_t kWidth) { return isaInstrK(kWidth) * 8 / 32; }

Shape isaOperand(int64_t opIndex, int64_t kWidth, int64_t lane, int64_t i) {
  return opIndex == 0 ? isaA(kWidth, lane, i) : isaB(kWidth, lane, i);
}
int64_t isaOperandRegisters(int64_t opIndex, int64_t kWidth) {
  return opIndex == 0 ? isaARegisters(kWidth) : isaBRegisters(kWidth);
}
/// Rows x columns of one instruction's operand.
Shape isaOperandShape(int64_t opIndex, int64_t kWidth) {
  return opIndex == 0 ? Shape{16, isaInstrK(kWidth)}
                      : Shape{isaInstrK(kWidth), 8};
}

const char *typeName(int64_t kWidth) {
  return kWidth == 2   ? "f16 m16n8k16"
         : kWidth == 1 ? "tf32 m16n8k8"
                       : "s8 m16n8k32";
}

std::string describe(const std::string &layout, const Shape &shape,
                     const Location &location) {
  std::ostringstream os;
  os << layout << " shape [" << shape[0] << ", " << shape[1] << "] reg "
     << location.reg << " lane " << location.lane << " warp " << location.warp;
  return os.str();
}

std::string operandName(int64_t opIndex, int64_t kWidth, const Shape &warps) {
  std::ostringstream os;
  os << (opIndex == 0 ? "A" : "B") << " (" << typeName(kWidth) << ", kWidth "
     << kWidth << ") warpsPerCTA [" << warps[0] << ", " << warps[1] << "]";
  return os.str();
}

std::string accName(const Shape &warps) {
  std::ostringstream os;
  os << "accumulator warpsPerCTA [" << warps[0] << ", " << warps[1] << "]";
  return os.str();
}

int64_t numElements(const Shape &shape) { return shape[0] * shape[1]; }

/// How many locations hold each element; every coordinate must be inside
/// the tile.
std::map<Shape, int64_t> holders(const DistributedLayout &layout,
                                 const Shape &shape) {
  std::map<Shape, int64_t> count;
  for (int64_t warp = 0; warp < layout.getNumWarps(); ++warp)
    for (int64_t lane = 0; lane < layout.getThreadsPerWarp(); ++lane)
      for (int64_t reg = 0; reg < layout.getNumRegisters(shape); ++reg) {
        Shape c = layout.getCoordinates(shape, {reg, lane, warp});
        EXPECT_EQ(c.size(), 2u);
        if (c.size() != 2)
          continue;
        for (size_t d = 0; d < 2; ++d) {
          EXPECT_GE(c[d], 0)
              << "reg " << reg << " lane " << lane << " warp " << warp;
          EXPECT_LT(c[d], shape[d])
              << "reg " << reg << " lane " << lane << " warp " << warp;
        }
        ++count[c];
      }
  return count;
}

const std::vector<Shape> &warpArrangements() {
  static const std::vector<Shape> arrangements = {
      {1, 1}, {2, 2}, {4, 1}, {1, 4}, {2, 4}, {4, 2}, {2, 1}, {1, 2}};
  return arrangements;
}

/// Tiles that are whole multiples of `footprint`: the footprint itself,
/// repeated along each dimension and both, and the named shapes 64x64,
/// 128x32 and 32x128 where they are multiples.
std::vector<Shape> multiplesOf(const Shape &footprint) {
  std::vector<Shape> shapes = {footprint,
                               {footprint[0] * 2, footprint[1]},
                               {footprint[0], footprint[1] * 4},
                               {footprint[0] * 2, footprint[1] * 4}};
  for (auto [rows, columns] : {std::pair<int64_t, int64_t>{64, 64},
                                {128, 32},
                                {32, 128}}) {
    Shape named = {rows, columns};
    if (rows % footprint[0] == 0 && columns % footprint[1] == 0 &&
        std::find(shapes.begin(), shapes.end(), named) == shapes.end())
      shapes.push_back(named);
  }
  return shapes;
}

Shape accFootprint(const Shape &warps) { return {16 * warps[0], 8 * warps[1]}; }

/// The footprint of an operand: A is 16·wM rows by one K step, B one K step
/// by 8·wN columns.
Shape operandFootprint(int64_t opIndex, int64_t kWidth, const Shape &warps) {
  return opIndex == 0 ? Shape{16 * warps[0], isaInstrK(kWidth)}
                      : Shape{isaInstrK(kWidth), 8 * warps[1]};
}

/// The warp's (row block, column block), as the header describes it.
Shape warpBlock(const Shape &warps, int64_t warp) {
  return {warp % warps[0], warp / warps[0]};
}

const int64_t kWidths[] = {2, 1, 4};
const int64_t opIndices[] = {0, 1};

} // namespace

//===----------------------------------------------------------------------===//
// The reference tables themselves
//===----------------------------------------------------------------------===//

TEST(MmaIsaReferenceTest, TablesAreOneToOneAndMatchHandPickedEntries) {
  // Each table covers its matrix exactly once: a transcription slip would
  // show up as a duplicate or a hole.
  std::set<Shape> acc;
  for (int64_t lane = 0; lane < 32; ++lane)
    for (int64_t i = 0; i < 4; ++i)
      acc.insert(isaAccumulator(lane, i));
  EXPECT_EQ(acc.size(), 128u);
  for (int64_t kWidth : kWidths)
    for (int64_t opIndex : opIndices) {
      std::set<Shape> seen;
      Shape s = isaOperandShape(opIndex, kWidth);
      for (int64_t lane = 0; lane < 32; ++lane)
        for (int64_t i = 0; i < isaOperandRegisters(opIndex, kWidth); ++i) {
          Shape c = isaOperand(opIndex, kWidth, lane, i);
          EXPECT_TRUE(c[0] >= 0 && c[0] < s[0] && c[1] >= 0 && c[1] < s[1]);
          seen.insert(c);
        }
      EXPECT_EQ(static_cast<int64_t>(seen.size()), numElements(s))
          << (opIndex == 0 ? "A " : "B ") << typeName(kWidth);
    }
  // Lane 5: groupID 1, threadID_in_group 1, read off the ISA's figures.
  EXPECT_EQ(isaAccumulator(5, 0), Shape({1, 2}));
  EXPECT_EQ(isaAccumulator(5, 3), Shape({9, 3}));
  EXPECT_EQ(isaA(2, 5, 0), Shape({1, 2}));
  EXPECT_EQ(isaA(2, 5, 3), Shape({9, 3}));
  EXPECT_EQ(isaA(2, 5, 5), Shape({1, 11}));
  EXPECT_EQ(isaA(2, 5, 6), Shape({9, 10}));
  EXPECT_EQ(isaB(2, 5, 1), Shape({3, 1}));
  EXPECT_EQ(isaB(2, 5, 2), Shape({10, 1}));
  EXPECT_EQ(isaA(1, 5, 1), Shape({9, 1}));
  EXPECT_EQ(isaA(1, 5, 2), Shape({1, 5}));
  EXPECT_EQ(isaB(1, 5, 1), Shape({5, 1}));
  EXPECT_EQ(isaA(4, 5, 3), Shape({1, 7}));
  EXPECT_EQ(isaA(4, 5, 4), Shape({9, 4}));
  EXPECT_EQ(isaA(4, 5, 9), Shape({1, 21}));
  EXPECT_EQ(isaA(4, 5, 15), Shape({9, 23}));
  EXPECT_EQ(isaB(4, 5, 6), Shape({22, 1}));
  // Lane 31: groupID 7, threadID_in_group 3, the far corner.
  EXPECT_EQ(isaAccumulator(31, 3), Shape({15, 7}));
  EXPECT_EQ(isaA(2, 31, 7), Shape({15, 15}));
  EXPECT_EQ(isaB(2, 31, 3), Shape({15, 7}));
  EXPECT_EQ(isaA(1, 31, 3), Shape({15, 7}));
  EXPECT_EQ(isaB(1, 31, 1), Shape({7, 7}));
  EXPECT_EQ(isaA(4, 31, 15), Shape({15, 31}));
  EXPECT_EQ(isaB(4, 31, 7), Shape({31, 7}));
}

//===----------------------------------------------------------------------===//
// One instruction, one warp
//===----------------------------------------------------------------------===//

TEST(MmaLayoutTest, OneInstructionMatchesTheIsaAccumulatorTable) {
  MmaLayout layout({1, 1});
  Shape shape = {16, 8};
  EXPECT_EQ(layout.getRank(), 2);
  EXPECT_EQ(layout.getThreadsPerWarp(), 32);
  EXPECT_EQ(layout.getNumWarps(), 1);
  EXPECT_EQ(MmaLayout::kInstrM, 16);
  EXPECT_EQ(MmaLayout::kInstrN, 8);
  EXPECT_EQ(MmaLayout::kAccRegisters, 4);
  ASSERT_EQ(layout.getNumRegisters(shape), 4);
  EXPECT_EQ(layout.getRepeats(shape), Shape({1, 1}));
  for (int64_t lane = 0; lane < 32; ++lane)
    for (int64_t i = 0; i < 4; ++i)
      EXPECT_EQ(layout.getCoordinates(shape, {i, lane, 0}),
                isaAccumulator(lane, i))
          << "accumulator c" << i << " of lane " << lane;
}

// With four warps along M, the accumulator of a 64xN tile is the one
// wgmma.mma_async m64nNk16 writes for a warpgroup, for every N it takes;
// with eight, two warpgroups stack along M, each with its own rows.
TEST(MmaLayoutTest, FourWarpsAlongMAreTheWgmmaAccumulator) {
  for (int64_t n : {8, 16, 24, 64, 128, 256}) {
    for (int64_t warpgroups : {1, 2}) {
      MmaLayout layout({4 * warpgroups, 1});
      Shape shape = {64 * warpgroups, n};
      ASSERT_EQ(layout.getNumRegisters(shape), n / 2) << "N = " << n;
      for (int64_t warp = 0; warp < 4 * warpgroups; ++warp)
        for (int64_t lane = 0; lane < 32; ++lane)
          for (int64_t i = 0; i < n / 2; ++i) {
            Shape expected = isaWgmmaAccumulator(warp, lane, i);
            expected[0] += 64 * (warp / 4);
            EXPECT_EQ(layout.getCoordinates(shape, {i, lane, warp}),
                      expected)
                << "d" << i << " of lane " << lane << ", warp " << warp
                << ", N = " << n;
          }
    }
  }
}

TEST(DotOperandLayoutTest, OneInstructionMatchesTheIsaFragmentTables) {
  for (int64_t kWidth : kWidths)
    for (int64_t opIndex : opIndices) {
      DotOperandLayout layout(opIndex, MmaLayout({1, 1}), kWidth);
      Shape shape = isaOperandShape(opIndex, kWidth);
      int64_t n = isaOperandRegisters(opIndex, kWidth);
      std::string name = operandName(opIndex, kWidth, {1, 1});
      EXPECT_EQ(layout.getOpIndex(), opIndex);
      EXPECT_EQ(layout.getKWidth(), kWidth);
      EXPECT_EQ(layout.getFragmentK(), isaInstrK(kWidth)) << name;
      EXPECT_EQ(layout.getNumWarps(), 1);
      EXPECT_EQ(layout.getThreadsPerWarp(), 32);
      // The header says getInstrRegisters is the elements of one
      // instruction's operand per lane: A's 8/4/16, B's 4/2/8.
      EXPECT_EQ(layout.getFragmentRegisters(), n) << name;
      ASSERT_EQ(layout.getNumRegisters(shape), n) << name;
      EXPECT_EQ(layout.getRepeats(shape), Shape({1, 1})) << name;
      for (int64_t lane = 0; lane < 32; ++lane)
        for (int64_t i = 0; i < n; ++i)
          EXPECT_EQ(layout.getCoordinates(shape, {i, lane, 0}),
                    isaOperand(opIndex, kWidth, lane, i))
              << name << ": element " << (opIndex == 0 ? "a" : "b") << i
              << " (32-bit register " << i / kWidth << ", position "
              << i % kWidth << ") of lane " << lane;
    }
}

TEST(DotOperandLayoutTest, OneInstructionTakesTheFragmentInOrder) {
  for (int64_t kWidth : kWidths)
    for (int64_t opIndex : opIndices) {
      DotOperandLayout layout(opIndex, MmaLayout({1, 1}), kWidth);
      Shape inOrder;
      for (int64_t i = 0; i < layout.getFragmentRegisters(); ++i)
        inOrder.push_back(i);
      EXPECT_EQ(layout.getInstrsPerFragment(kWidth), 1);
      EXPECT_EQ(layout.getInstrRegisters(kWidth, 0), inOrder)
          << operandName(opIndex, kWidth, {1, 1});
    }
}

// 16-bit elements with kWidth 4 make two m16n8k16 instructions per
// fragment. Each instruction position (A: row, K; B: K, column) must hold
// an element of that row or column, every fragment register must go to
// exactly one position, and the K each position reads must be the same
// for A and B: then the two instructions sum exactly the fragment's
// products, in another order of K.
TEST(DotOperandLayoutTest, TwoF16InstructionsShareOneKPermutation) {
  const int64_t kWidth = 4, perRegister = 2, instrK = 16;
  std::map<int64_t, std::vector<int64_t>> kOfPosition; // by operand
  for (int64_t opIndex : opIndices) {
    DotOperandLayout layout(opIndex, MmaLayout({1, 1}), kWidth);
    Shape shape = opIndex == 0 ? Shape{16, 32} : Shape{32, 8};
    ASSERT_EQ(layout.getInstrsPerFragment(perRegister), 2);
    std::vector<int64_t> &kOf = kOfPosition[opIndex];
    kOf.assign(2 * instrK, -1);
    std::set<int64_t> taken;
    for (int64_t instr = 0; instr < 2; ++instr) {
      Shape registers = layout.getInstrRegisters(perRegister, instr);
      ASSERT_EQ(static_cast<int64_t>(registers.size()),
                isaOperandRegisters(opIndex, perRegister));
      for (int64_t i = 0; i < static_cast<int64_t>(registers.size()); ++i) {
        EXPECT_TRUE(taken.insert(registers[i]).second)
            << "register " << registers[i] << " taken twice";
        for (int64_t lane = 0; lane < 32; ++lane) {
          Shape position = isaOperand(opIndex, perRegister, lane, i);
          Shape element = layout.getCoordinates(shape, {registers[i], lane, 0});
          int64_t kDim = opIndex == 0 ? 1 : 0, other = 1 - kDim;
          EXPECT_EQ(element[other], position[other])
              << operandName(opIndex, kWidth, {1, 1}) << " instruction "
              << instr << " element " << i << " lane " << lane;
          int64_t &k = kOf[instr * instrK + position[kDim]];
          if (k == -1)
            k = element[kDim];
          EXPECT_EQ(k, element[kDim])
              << "instruction " << instr << " reads two K at position "
              << position[kDim] << " of operand " << opIndex;
        }
      }
    }
    EXPECT_EQ(static_cast<int64_t>(taken.size()),
              layout.getFragmentRegisters());
    std::vector<int64_t> sorted = kOf;
    std::sort(sorted.begin(), sorted.end());
    for (int64_t k = 0; k < 2 * instrK; ++k)
      EXPECT_EQ(sorted[k], k) << "K " << k << " of operand " << opIndex;
  }
  EXPECT_EQ(kOfPosition[0], kOfPosition[1]);
}

TEST(DotOperandLayoutTest, ElementsOfOneRegisterAreAdjacentAlongK) {
  // The ISA packs kWidth elements into each 32-bit register: consecutive
  // elements of one register are consecutive along K (the columns of A,
  // the rows of B), which is what lets the lowering load a register as one
  // kWidth-wide vector.
  for (int64_t kWidth : kWidths)
    for (int64_t opIndex : opIndices) {
      DotOperandLayout layout(opIndex, MmaLayout({1, 1}), kWidth);
      Shape shape = isaOperandShape(opIndex, kWidth);
      int64_t kDim = opIndex == 0 ? 1 : 0;
      for (int64_t lane = 0; lane < 32; ++lane)
        for (int64_t reg32 = 0;
             reg32 < isaOperandRegisters(opIndex, kWidth) / kWidth; ++reg32) {
          Shape first = layout.getCoordinates(shape, {reg32 * kWidth, lane, 0});
          for (int64_t e = 1; e < kWidth; ++e) {
            Shape expected = first;
            expected[kDim] += e;
            EXPECT_EQ(
                layout.getCoordinates(shape, {reg32 * kWidth + e, lane, 0}),
                expected)
                << operandName(opIndex, kWidth, {1, 1}) << " lane " << lane
                << " register " << reg32 << " position " << e;
          }
        }
    }
}

TEST(DotOperandLayoutTest, OperandsAndAccumulatorAgreeWithinALane) {
  // mma.sync is warp-collective, so no lane needs all of its row or column;
  // what the ISA's tables do imply per lane: a lane's A rows are its
  // accumulator rows (groupID and groupID + 8), and a lane's A columns are
  // its B rows (the same K indices).
  //
  // Note: a lane's B columns are NOT its accumulator columns: B's column is
  // groupID, the accumulator's are 2 * threadID_in_group + {0, 1}.
  MmaLayout acc({1, 1});
  for (int64_t kWidth : kWidths) {
    DotOperandLayout a(0, acc, kWidth), b(1, acc, kWidth);
    Shape aShape = isaOperandShape(0, kWidth),
          bShape = isaOperandShape(1, kWidth);
    for (int64_t lane = 0; lane < 32; ++lane) {
      std::set<int64_t> accRows, accCols, aRows, aCols, bRows, bCols;
      for (int64_t i = 0; i < 4; ++i) {
        Shape c = acc.getCoordinates({16, 8}, {i, lane, 0});
        accRows.insert(c[0]);
        accCols.insert(c[1]);
      }
      for (int64_t i = 0; i < isaARegisters(kWidth); ++i) {
        Shape c = a.getCoordinates(aShape, {i, lane, 0});
        aRows.insert(c[0]);
        aCols.insert(c[1]);
      }
      for (int64_t i = 0; i < isaBRegisters(kWidth); ++i) {
        Shape c = b.getCoordinates(bShape, {i, lane, 0});
        bRows.insert(c[0]);
        bCols.insert(c[1]);
      }
      EXPECT_EQ(aRows, accRows) << typeName(kWidth) << " lane " << lane;
      EXPECT_EQ(aRows, std::set<int64_t>({lane / 4, lane / 4 + 8}))
          << typeName(kWidth) << " lane " << lane;
      EXPECT_EQ(aCols, bRows) << typeName(kWidth) << " lane " << lane;
      EXPECT_EQ(static_cast<int64_t>(aCols.size()), 2 * kWidth);
      EXPECT_EQ(bCols, std::set<int64_t>({lane / 4}))
          << typeName(kWidth) << " lane " << lane;
      EXPECT_EQ(accCols,
                std::set<int64_t>({2 * (lane % 4), 2 * (lane % 4) + 1}))
          << typeName(kWidth) << " lane " << lane;
    }
  }
}

//===----------------------------------------------------------------------===//
// Tiles that are multiples of the footprint, several warps
//===----------------------------------------------------------------------===//

TEST(MmaLayoutTest, WarpsAndRepeats) {
  for (const Shape &warps : warpArrangements()) {
    MmaLayout layout(warps);
    EXPECT_EQ(layout.getNumWarps(), warps[0] * warps[1]);
    EXPECT_EQ(layout.getWarpsPerCTA(), warps);
    for (int64_t warp = 0; warp < layout.getNumWarps(); ++warp)
      EXPECT_EQ(layout.getWarpIndex(warp), warpBlock(warps, warp))
          << accName(warps) << " warp " << warp;
    for (const Shape &shape : multiplesOf(accFootprint(warps))) {
      Shape repeats = {shape[0] / (16 * warps[0]), shape[1] / (8 * warps[1])};
      EXPECT_EQ(layout.getRepeats(shape), repeats) << accName(warps);
      EXPECT_EQ(layout.getNumRegisters(shape), 4 * repeats[0] * repeats[1])
          << accName(warps);
    }
  }
}

TEST(MmaLayoutTest, FootprintMultiplesAreOneToOne) {
  for (const Shape &warps : warpArrangements()) {
    MmaLayout layout(warps);
    for (const Shape &shape : multiplesOf(accFootprint(warps))) {
      SCOPED_TRACE(describe(accName(warps), shape, {}));
      int64_t slots = layout.getNumRegisters(shape) * 32 * layout.getNumWarps();
      EXPECT_EQ(slots, numElements(shape));
      auto count = holders(layout, shape);
      EXPECT_EQ(static_cast<int64_t>(count.size()), numElements(shape));
      for (auto &[coordinates, n] : count)
        EXPECT_EQ(n, 1) << "(" << coordinates[0] << ", " << coordinates[1]
                        << ")";
    }
  }
}

TEST(DotOperandLayoutTest, WarpsAndRepeats) {
  for (const Shape &warps : warpArrangements())
    for (int64_t kWidth : kWidths)
      for (int64_t opIndex : opIndices) {
        DotOperandLayout layout(opIndex, MmaLayout(warps), kWidth);
        EXPECT_EQ(layout.getNumWarps(), warps[0] * warps[1]);
        EXPECT_EQ(layout.getParent().getWarpsPerCTA(), warps);
        for (const Shape &shape :
             multiplesOf(operandFootprint(opIndex, kWidth, warps))) {
          Shape repeats = opIndex == 0 ? Shape{shape[0] / (16 * warps[0]),
                                               shape[1] / isaInstrK(kWidth)}
                                       : Shape{shape[0] / isaInstrK(kWidth),
                                               shape[1] / (8 * warps[1])};
          std::string name = operandName(opIndex, kWidth, warps);
          EXPECT_EQ(layout.getRepeats(shape), repeats) << name;
          EXPECT_EQ(layout.getNumRegisters(shape),
                    repeats[0] * repeats[1] *
                        isaOperandRegisters(opIndex, kWidth))
              << name;
        }
      }
}

TEST(DotOperandLayoutTest, FootprintMultiplesAreReplicatedAcrossTheOtherWarps) {
  // A is needed by every warp of its row block (replicated across
  // warpsPerCTA[1] warps), B by every warp of its column block (across
  // warpsPerCTA[0]); within one warp each element is held once.
  for (const Shape &warps : warpArrangements())
    for (int64_t kWidth : kWidths)
      for (int64_t opIndex : opIndices) {
        DotOperandLayout layout(opIndex, MmaLayout(warps), kWidth);
        int64_t copies = opIndex == 0 ? warps[1] : warps[0];
        for (const Shape &shape :
             multiplesOf(operandFootprint(opIndex, kWidth, warps))) {
          std::string name = operandName(opIndex, kWidth, warps);
          SCOPED_TRACE(describe(name, shape, {}));
          int64_t slots =
              layout.getNumRegisters(shape) * 32 * layout.getNumWarps();
          EXPECT_EQ(slots, numElements(shape) * copies);
          // Locations holding each element, by row * columns + column.
          std::vector<std::vector<Location>> held(numElements(shape));
          for (int64_t warp = 0; warp < layout.getNumWarps(); ++warp)
            for (int64_t lane = 0; lane < 32; ++lane)
              for (int64_t reg = 0; reg < layout.getNumRegisters(shape);
                   ++reg) {
                Shape c = layout.getCoordinates(shape, {reg, lane, warp});
                ASSERT_EQ(c.size(), 2u);
                ASSERT_TRUE(c[0] >= 0 && c[0] < shape[0] && c[1] >= 0 &&
                            c[1] < shape[1])
                    << describe(name, shape, {reg, lane, warp}) << " holds ("
                    << c[0] << ", " << c[1] << ")";
                held[c[0] * shape[1] + c[1]].push_back({reg, lane, warp});
              }
          // The copies are in the warps of the element's block, one each.
          for (int64_t index = 0; index < numElements(shape); ++index) {
            int64_t row = index / shape[1], col = index % shape[1];
            const std::vector<Location> &locations = held[index];
            EXPECT_EQ(static_cast<int64_t>(locations.size()), copies)
                << "(" << row << ", " << col << ")";
            std::set<int64_t> warpsHolding;
            for (const Location &l : locations) {
              warpsHolding.insert(l.warp);
              Shape block = warpBlock(warps, l.warp);
              if (opIndex == 0) {
                EXPECT_EQ(block[0], row / 16 % warps[0])
                    << "A row " << row << " in warp " << l.warp;
              } else {
                EXPECT_EQ(block[1], col / 8 % warps[1])
                    << "B column " << col << " in warp " << l.warp;
              }
            }
            EXPECT_EQ(static_cast<int64_t>(warpsHolding.size()), copies)
                << "(" << row << ", " << col << ")";
          }
          // getLocations finds them all (sampled: it searches every
          // location).
          if (shape == operandFootprint(opIndex, kWidth, warps))
            for (int64_t index = 0; index < numElements(shape); index += 5) {
              int64_t row = index / shape[1], col = index % shape[1];
              auto found = layout.getLocations(shape, {row, col});
              EXPECT_EQ(found.size(), held[index].size());
              for (const Location &l : held[index])
                EXPECT_NE(std::find(found.begin(), found.end(), l), found.end())
                    << describe(name, shape, l);
            }
        }
      }
}

namespace {
/// Checks that every register of every thread of `layout` lies in a block
/// that is exactly one instruction's ISA table shifted by the block's
/// origin, with origins on instruction boundaries, the same for all lanes
/// of a warp, in the warp's row (column) block, and distinct within a warp
/// where the tile has room for all of them. The order of the blocks is left
/// to the RepeatsComeInTheDocumentedOrder tests.
void checkBlockStructure(const DistributedLayout &layout, const Shape &shape,
                         const Shape &warps, int64_t blockRegisters,
                         const Shape &instrShape,
                         Shape (*isa)(int64_t kWidth, int64_t lane, int64_t i),
                         int64_t kWidth, bool accumulator, int64_t opIndex,
                         const std::string &name) {
  int64_t numRegisters = layout.getNumRegisters(shape);
  ASSERT_EQ(numRegisters % blockRegisters, 0) << name;
  int64_t blocks = numRegisters / blockRegisters;
  for (int64_t warp = 0; warp < layout.getNumWarps(); ++warp) {
    Shape wb = warpBlock(warps, warp);
    std::set<Shape> origins;
    for (int64_t b = 0; b < blocks; ++b) {
      Shape origin;
      for (int64_t lane = 0; lane < 32; ++lane)
        for (int64_t i = 0; i < blockRegisters; ++i) {
          Location loc{b * blockRegisters + i, lane, warp};
          Shape c = layout.getCoordinates(shape, loc);
          Shape ref = isa(kWidth, lane, i);
          Shape o = {c[0] - ref[0], c[1] - ref[1]};
          if (origin.empty()) {
            origin = o;
            EXPECT_EQ(o[0] % instrShape[0], 0) << describe(name, shape, loc);
            EXPECT_EQ(o[1] % instrShape[1], 0) << describe(name, shape, loc);
          } else {
            EXPECT_EQ(o, origin)
                << describe(name, shape, loc) << ": holds (" << c[0] << ", "
                << c[1] << "), the ISA's element " << i << " of lane " << lane
                << " is (" << ref[0] << ", " << ref[1]
                << ") in its instruction, so the block is not one "
                   "instruction's table";
          }
        }
      // The block belongs to the warp's row block (accumulator and A) and
      // column block (accumulator and B), where the tile has several.
      if (accumulator || opIndex == 0) {
        int64_t rowBlocks = shape[0] / 16;
        if (rowBlocks >= warps[0]) {
          EXPECT_EQ(origin[0] / 16 % warps[0], wb[0])
              << name << " warp " << warp << " block " << b;
        }
      }
      if (accumulator || opIndex == 1) {
        int64_t colBlocks = shape[1] / 8;
        if (colBlocks >= warps[1]) {
          EXPECT_EQ(origin[1] / 8 % warps[1], wb[1])
              << name << " warp " << warp << " block " << b;
        }
      }
      origins.insert(origin);
    }
    // A warp's blocks are distinct where the tile has room for them all.
    if (numElements(shape) >=
        numElements(instrShape) * blocks *
            (accumulator ? warps[0] * warps[1]
                         : (opIndex == 0 ? warps[0] : warps[1]))) {
      EXPECT_EQ(static_cast<int64_t>(origins.size()), blocks)
          << name << " warp " << warp;
    }
  }
}

/// The origin of block `b` of `warp` in the order the header documents:
/// accumulator: row repeats outermost, then column repeats;
/// A: row (M) blocks outermost, then K steps;
/// B: column (N) blocks outermost, then K steps.
Shape documentedOrigin(bool accumulator, int64_t opIndex, int64_t kWidth,
                       const Shape &warps, const Shape &repeats, int64_t warp,
                       int64_t b) {
  Shape wb = warpBlock(warps, warp);
  if (accumulator) {
    int64_t m = b / repeats[1], n = b % repeats[1];
    return {(m * warps[0] + wb[0]) * 16, (n * warps[1] + wb[1]) * 8};
  }
  int64_t instrK = isaInstrK(kWidth);
  if (opIndex == 0) {
    int64_t m = b / repeats[1], k = b % repeats[1];
    return {(m * warps[0] + wb[0]) * 16, k * instrK};
  }
  int64_t n = b / repeats[0], k = b % repeats[0];
  return {k * instrK, (n * warps[1] + wb[1]) * 8};
}

Shape accTable(int64_t, int64_t lane, int64_t i) {
  return isaAccumulator(lane, i);
}
Shape aTable(int64_t kWidth, int64_t lane, int64_t i) {
  return isaA(kWidth, lane, i);
}
Shape bTable(int64_t kWidth, int64_t lane, int64_t i) {
  return isaB(kWidth, lane, i);
}
} // namespace

TEST(MmaLayoutTest, RepeatsAreTheIsaTableAtBlockOrigins) {
  for (const Shape &warps : warpArrangements()) {
    MmaLayout layout(warps);
    for (const Shape &shape : multiplesOf(accFootprint(warps)))
      checkBlockStructure(layout, shape, warps, 4, {16, 8}, accTable, 0,
                          /*accumulator=*/true, 0, accName(warps));
  }
}

TEST(MmaLayoutTest, RepeatsComeInTheDocumentedOrder) {
  for (const Shape &warps : warpArrangements()) {
    MmaLayout layout(warps);
    for (const Shape &shape : multiplesOf(accFootprint(warps))) {
      Shape repeats = {shape[0] / (16 * warps[0]), shape[1] / (8 * warps[1])};
      for (int64_t warp = 0; warp < layout.getNumWarps(); ++warp)
        for (int64_t b = 0; b < repeats[0] * repeats[1]; ++b) {
          Shape origin = documentedOrigin(true, 0, 0, warps, repeats, warp, b);
          for (int64_t lane = 0; lane < 32; ++lane)
            for (int64_t i = 0; i < 4; ++i) {
              Location loc{b * 4 + i, lane, warp};
              Shape ref = isaAccumulator(lane, i);
              EXPECT_EQ(layout.getCoordinates(shape, loc),
                        Shape({origin[0] + ref[0], origin[1] + ref[1]}))
                  << describe(accName(warps), shape, loc);
            }
        }
    }
  }
}

TEST(DotOperandLayoutTest, RepeatsAreTheIsaTableAtBlockOrigins) {
  for (const Shape &warps : warpArrangements())
    for (int64_t kWidth : kWidths)
      for (int64_t opIndex : opIndices) {
        DotOperandLayout layout(opIndex, MmaLayout(warps), kWidth);
        for (const Shape &shape :
             multiplesOf(operandFootprint(opIndex, kWidth, warps)))
          checkBlockStructure(layout, shape, warps,
                              isaOperandRegisters(opIndex, kWidth),
                              isaOperandShape(opIndex, kWidth),
                              opIndex == 0 ? aTable : bTable, kWidth,
                              /*accumulator=*/false, opIndex,
                              operandName(opIndex, kWidth, warps));
      }
}

TEST(DotOperandLayoutTest, RepeatsComeInTheDocumentedOrder) {
  for (const Shape &warps : warpArrangements())
    for (int64_t kWidth : kWidths)
      for (int64_t opIndex : opIndices) {
        DotOperandLayout layout(opIndex, MmaLayout(warps), kWidth);
        int64_t n = isaOperandRegisters(opIndex, kWidth);
        for (const Shape &shape :
             multiplesOf(operandFootprint(opIndex, kWidth, warps))) {
          Shape repeats = opIndex == 0 ? Shape{shape[0] / (16 * warps[0]),
                                               shape[1] / isaInstrK(kWidth)}
                                       : Shape{shape[0] / isaInstrK(kWidth),
                                               shape[1] / (8 * warps[1])};
          for (int64_t warp = 0; warp < layout.getNumWarps(); ++warp)
            for (int64_t b = 0; b < repeats[0] * repeats[1]; ++b) {
              Shape origin = documentedOrigin(false, opIndex, kWidth, warps,
                                              repeats, warp, b);
              for (int64_t lane = 0; lane < 32; ++lane)
                for (int64_t i = 0; i < n; ++i) {
                  Location loc{b * n + i, lane, warp};
                  Shape ref = isaOperand(opIndex, kWidth, lane, i);
                  EXPECT_EQ(layout.getCoordinates(shape, loc),
                            Shape({origin[0] + ref[0], origin[1] + ref[1]}))
                      << describe(operandName(opIndex, kWidth, warps), shape,
                                  loc);
                }
            }
        }
      }
}

//===----------------------------------------------------------------------===//
// Tiles smaller than the footprint
//===----------------------------------------------------------------------===//

namespace {
struct SmallCase {
  Shape warps, shape;
};

/// Accumulator tiles of at least one instruction that do not fill the
/// warps' footprint along at least one dimension.
std::vector<SmallCase> smallAccumulatorCases() {
  return {{{2, 2}, {16, 8}},  {{2, 2}, {16, 16}}, {{2, 2}, {32, 8}},
          {{4, 1}, {16, 8}},  {{4, 1}, {32, 16}}, {{1, 4}, {16, 8}},
          {{1, 4}, {64, 16}}, {{2, 4}, {16, 8}},  {{2, 4}, {32, 16}},
          {{2, 4}, {64, 16}}, {{4, 2}, {16, 64}}};
}

/// Operand tiles of at least one instruction that do not fill the footprint.
std::vector<SmallCase> smallOperandCases(int64_t opIndex, int64_t kWidth) {
  int64_t k = isaInstrK(kWidth);
  if (opIndex == 0)
    return {{{2, 2}, {16, k}},     {{4, 1}, {16, k}}, {{4, 1}, {32, 2 * k}},
            {{2, 4}, {16, 4 * k}}, {{4, 2}, {32, k}}, {{1, 4}, {16, k}}};
  return {{{2, 2}, {k, 8}},     {{1, 4}, {k, 8}}, {{1, 4}, {2 * k, 16}},
          {{2, 4}, {4 * k, 8}}, {{4, 2}, {k, 8}}, {{4, 1}, {k, 8}}};
}
} // namespace

TEST(MmaLayoutTest, SmallTilesAreReplicatedUniformly) {
  for (const SmallCase &c : smallAccumulatorCases()) {
    MmaLayout layout(c.warps);
    SCOPED_TRACE(describe(accName(c.warps), c.shape, {}));
    EXPECT_EQ(layout.getNumRegisters(c.shape) % 4, 0);
    int64_t slots = layout.getNumRegisters(c.shape) * 32 * layout.getNumWarps();
    auto count = holders(layout, c.shape);
    ASSERT_EQ(static_cast<int64_t>(count.size()), numElements(c.shape));
    for (auto &[coordinates, n] : count)
      EXPECT_EQ(n, slots / numElements(c.shape))
          << "(" << coordinates[0] << ", " << coordinates[1] << ")";
    // Every warp still runs whole instructions: its blocks are the ISA's
    // table at instruction origins inside the tile.
    checkBlockStructure(layout, c.shape, c.warps, 4, {16, 8}, accTable, 0, true,
                        0, accName(c.warps));
  }
}

TEST(DotOperandLayoutTest, SmallTilesAreReplicatedUniformly) {
  for (int64_t kWidth : kWidths)
    for (int64_t opIndex : opIndices)
      for (const SmallCase &c : smallOperandCases(opIndex, kWidth)) {
        DotOperandLayout layout(opIndex, MmaLayout(c.warps), kWidth);
        std::string name = operandName(opIndex, kWidth, c.warps);
        SCOPED_TRACE(describe(name, c.shape, {}));
        int64_t n = isaOperandRegisters(opIndex, kWidth);
        EXPECT_EQ(layout.getNumRegisters(c.shape) % n, 0);
        int64_t slots =
            layout.getNumRegisters(c.shape) * 32 * layout.getNumWarps();
        auto count = holders(layout, c.shape);
        ASSERT_EQ(static_cast<int64_t>(count.size()), numElements(c.shape));
        for (auto &[coordinates, held] : count)
          EXPECT_EQ(held, slots / numElements(c.shape))
              << "(" << coordinates[0] << ", " << coordinates[1] << ")";
        checkBlockStructure(
            layout, c.shape, c.warps, n, isaOperandShape(opIndex, kWidth),
            opIndex == 0 ? aTable : bTable, kWidth, false, opIndex, name);
      }
}

TEST(MmaLayoutTest, LocationsInvertCoordinates) {
  // Every location of the smallest tiles, and a sample (getLocations
  // searches every location) of the others.
  std::vector<SmallCase> cases = smallAccumulatorCases();
  for (const Shape &warps : {Shape{2, 2}, Shape{1, 4}, Shape{2, 4}})
    cases.push_back({warps, {64, 64}});
  for (const SmallCase &c : cases) {
    MmaLayout layout(c.warps);
    auto count = holders(layout, c.shape);
    int64_t step =
        layout.getNumRegisters(c.shape) * 32 * layout.getNumWarps() > 1024 ? 7
                                                                           : 1;
    for (int64_t warp = 0; warp < layout.getNumWarps(); ++warp)
      for (int64_t lane = 0; lane < 32; lane += step)
        for (int64_t reg = 0; reg < layout.getNumRegisters(c.shape);
             reg += step) {
          Location location{reg, lane, warp};
          Shape coordinates = layout.getCoordinates(c.shape, location);
          auto found = layout.getLocations(c.shape, coordinates);
          EXPECT_NE(std::find(found.begin(), found.end(), location),
                    found.end())
              << describe(accName(c.warps), c.shape, location);
          EXPECT_EQ(static_cast<int64_t>(found.size()), count[coordinates]);
        }
  }
}

//===----------------------------------------------------------------------===//
// Register and thread offsets
//===----------------------------------------------------------------------===//

namespace {
template <typename Layout>
void checkOffsets(const Layout &layout, const Shape &shape, bool multiple,
                  const std::string &name) {
  for (int64_t warp = 0; warp < layout.getNumWarps(); ++warp)
    for (int64_t lane = 0; lane < 32; ++lane) {
      Shape thread = layout.getThreadOffsets(lane, warp);
      ASSERT_EQ(thread.size(), 2u);
      for (int64_t reg = 0; reg < layout.getNumRegisters(shape); ++reg) {
        Location loc{reg, lane, warp};
        Shape regPart = layout.getRegisterOffsets(shape, reg);
        ASSERT_EQ(regPart.size(), 2u);
        Shape c = layout.getCoordinates(shape, loc);
        for (size_t d = 0; d < 2; ++d) {
          EXPECT_GE(regPart[d], 0) << describe(name, shape, loc);
          EXPECT_GE(thread[d], 0) << describe(name, shape, loc);
          int64_t sum = regPart[d] + thread[d];
          EXPECT_EQ(sum % shape[d], c[d])
              << describe(name, shape, loc) << " dimension " << d;
          if (multiple) {
            EXPECT_LT(sum, shape[d])
                << describe(name, shape, loc) << " dimension " << d;
          }
        }
      }
    }
}
} // namespace

TEST(MmaLayoutTest, OffsetsSumToCoordinates) {
  for (const Shape &warps : warpArrangements()) {
    MmaLayout layout(warps);
    for (const Shape &shape : multiplesOf(accFootprint(warps)))
      checkOffsets(layout, shape, true, accName(warps));
  }
  for (const SmallCase &c : smallAccumulatorCases())
    checkOffsets(MmaLayout(c.warps), c.shape, false, accName(c.warps));
}

TEST(DotOperandLayoutTest, OffsetsSumToCoordinates) {
  for (int64_t kWidth : kWidths)
    for (int64_t opIndex : opIndices) {
      for (const Shape &warps : warpArrangements()) {
        DotOperandLayout layout(opIndex, MmaLayout(warps), kWidth);
        for (const Shape &shape :
             multiplesOf(operandFootprint(opIndex, kWidth, warps)))
          checkOffsets(layout, shape, true,
                       operandName(opIndex, kWidth, warps));
      }
      for (const SmallCase &c : smallOperandCases(opIndex, kWidth))
        checkOffsets(DotOperandLayout(opIndex, MmaLayout(c.warps), kWidth),
                     c.shape, false, operandName(opIndex, kWidth, c.warps));
    }
}

TEST(MmaLayoutTest, ExactlyOneCopyOfEachElementIsCanonical) {
  // The accumulator is what generated code stores: only the canonical copy
  // (register offset + thread offset below the shape) may store, so every
  // element needs exactly one, also where small tiles are replicated.
  std::vector<SmallCase> cases = smallAccumulatorCases();
  for (const Shape &warps : warpArrangements())
    for (const Shape &shape : multiplesOf(accFootprint(warps)))
      cases.push_back({warps, shape});
  for (const SmallCase &c : cases) {
    MmaLayout layout(c.warps);
    std::map<Shape, int64_t> canonical;
    for (int64_t warp = 0; warp < layout.getNumWarps(); ++warp)
      for (int64_t lane = 0; lane < 32; ++lane)
        for (int64_t reg = 0; reg < layout.getNumRegisters(c.shape); ++reg) {
          Shape regPart = layout.getRegisterOffsets(c.shape, reg);
          Shape threadPart = layout.getThreadOffsets(lane, warp);
          if (regPart[0] + threadPart[0] < c.shape[0] &&
              regPart[1] + threadPart[1] < c.shape[1])
            ++canonical[layout.getCoordinates(c.shape, {reg, lane, warp})];
        }
    SCOPED_TRACE(describe(accName(c.warps), c.shape, {}));
    EXPECT_EQ(static_cast<int64_t>(canonical.size()), numElements(c.shape));
    for (auto &[coordinates, n] : canonical)
      EXPECT_EQ(n, 1) << "(" << coordinates[0] << ", " << coordinates[1] << ")";
  }
}

//===----------------------------------------------------------------------===//
// The three layouts together: a tiled product as the hardware computes it
//===----------------------------------------------------------------------===//

namespace {
/// Distributes A (M x K) and B (K x N) into registers by the operand
/// layouts, runs for every warp and every accumulator block the K steps of
/// mma.sync, each reading its operands out of the registers through the
/// ISA's fragment tables (which is what the hardware does), and checks
/// every accumulator register against the product.
void checkTiledProduct(const Shape &warps, int64_t kWidth, int64_t M, int64_t N,
                       int64_t K) {
  std::string name = accName(warps) + " " + typeName(kWidth);
  SCOPED_TRACE(name + " M " + std::to_string(M) + " N " + std::to_string(N) +
               " K " + std::to_string(K));
  MmaLayout cLayout(warps);
  DotOperandLayout aLayout(0, cLayout, kWidth), bLayout(1, cLayout, kWidth);
  Shape aShape = {M, K}, bShape = {K, N}, cShape = {M, N};
  auto aValue = [](int64_t m, int64_t k) { return (m * 7 + k * 3) % 11 - 5; };
  auto bValue = [](int64_t k, int64_t n) { return (k * 5 + n * 2) % 13 - 6; };
  int64_t instrK = isaInstrK(kWidth);
  int64_t aRegs = isaARegisters(kWidth), bRegs = isaBRegisters(kWidth);
  Shape cRep = cLayout.getRepeats(cShape);
  int64_t kSteps = K / instrK;
  ASSERT_EQ(cRep, Shape({M / (16 * warps[0]), N / (8 * warps[1])}));
  ASSERT_EQ(aLayout.getRepeats(aShape), Shape({cRep[0], kSteps}));
  ASSERT_EQ(bLayout.getRepeats(bShape), Shape({kSteps, cRep[1]}));

  for (int64_t warp = 0; warp < cLayout.getNumWarps(); ++warp) {
    // registers[lane][reg]
    std::vector<std::vector<int64_t>> a(32), b(32), c(32);
    for (int64_t lane = 0; lane < 32; ++lane) {
      for (int64_t r = 0; r < aLayout.getNumRegisters(aShape); ++r) {
        Shape x = aLayout.getCoordinates(aShape, {r, lane, warp});
        a[lane].push_back(aValue(x[0], x[1]));
      }
      for (int64_t r = 0; r < bLayout.getNumRegisters(bShape); ++r) {
        Shape x = bLayout.getCoordinates(bShape, {r, lane, warp});
        b[lane].push_back(bValue(x[0], x[1]));
      }
      c[lane].assign(cLayout.getNumRegisters(cShape), 0);
    }
    for (int64_t m = 0; m < cRep[0]; ++m)
      for (int64_t n = 0; n < cRep[1]; ++n)
        for (int64_t k = 0; k < kSteps; ++k) {
          // Register blocks in the documented order: accumulator (m, n) row
          // repeats outermost, A (m, k) M blocks then K steps, B (k, n) N
          // blocks then K steps.
          int64_t aBase = (m * kSteps + k) * aRegs;
          int64_t bBase = (n * kSteps + k) * bRegs;
          int64_t cBase = (m * cRep[1] + n) * 4;
          // The instruction's view of its operands.
          std::vector<std::vector<int64_t>> fa(16,
                                               std::vector<int64_t>(instrK)),
              fb(instrK, std::vector<int64_t>(8)),
              fc(16, std::vector<int64_t>(8));
          for (int64_t lane = 0; lane < 32; ++lane) {
            for (int64_t i = 0; i < aRegs; ++i) {
              Shape x = isaA(kWidth, lane, i);
              fa[x[0]][x[1]] = a[lane][aBase + i];
            }
            for (int64_t i = 0; i < bRegs; ++i) {
              Shape x = isaB(kWidth, lane, i);
              fb[x[0]][x[1]] = b[lane][bBase + i];
            }
            for (int64_t i = 0; i < 4; ++i) {
              Shape x = isaAccumulator(lane, i);
              fc[x[0]][x[1]] = c[lane][cBase + i];
            }
          }
          for (int64_t row = 0; row < 16; ++row)
            for (int64_t col = 0; col < 8; ++col)
              for (int64_t kk = 0; kk < instrK; ++kk)
                fc[row][col] += fa[row][kk] * fb[kk][col];
          for (int64_t lane = 0; lane < 32; ++lane)
            for (int64_t i = 0; i < 4; ++i) {
              Shape x = isaAccumulator(lane, i);
              c[lane][cBase + i] = fc[x[0]][x[1]];
            }
        }
    for (int64_t lane = 0; lane < 32; ++lane)
      for (int64_t r = 0; r < cLayout.getNumRegisters(cShape); ++r) {
        Shape x = cLayout.getCoordinates(cShape, {r, lane, warp});
        int64_t expected = 0;
        for (int64_t kk = 0; kk < K; ++kk)
          expected += aValue(x[0], kk) * bValue(kk, x[1]);
        EXPECT_EQ(c[lane][r], expected)
            << describe("accumulator", cShape, {r, lane, warp});
      }
  }
}
} // namespace

TEST(DotOperandLayoutTest, TiledProductThroughTheIsaTablesIsTheMatmul) {
  for (int64_t kWidth : kWidths) {
    int64_t k = isaInstrK(kWidth);
    checkTiledProduct({1, 1}, kWidth, 16, 8, k);
    checkTiledProduct({1, 1}, kWidth, 32, 16, 2 * k);
    checkTiledProduct({2, 2}, kWidth, 64, 64, 2 * k);
    checkTiledProduct({4, 1}, kWidth, 128, 32, 2 * k);
    checkTiledProduct({1, 4}, kWidth, 32, 128, k);
    checkTiledProduct({2, 4}, kWidth, 64, 64, 3 * k);
    checkTiledProduct({4, 2}, kWidth, 64, 32, 2 * k);
  }
}
