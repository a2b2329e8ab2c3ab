//===- LdmatrixLoadsTest.cpp - ldmatrix reads the dot operands' elements --===//
//
// The ldmatrix loads of a staged dot operand, run on paper: each lane names
// a 16-byte row of one of the 8x8 matrices of 16-bit words, and lane t
// receives row t/4, words 2(t%4) and 2(t%4)+1 of each (of the transpose
// with .trans). The elements that land in each register must be the ones
// DotOperandLayout puts there, for every thread, load and element, for
// 16-bit fragments (kWidth 2) and 8-bit ones (kWidth 4: a word is two
// bytes), A and B, B staged N-major (read with .trans) or K-major.
//
//===----------------------------------------------------------------------===//

#include "../../../lib/Conversion/TileToGPU/SharedTile.h"

#include "kiln/Layout/MmaLayout.h"

#include "gtest/gtest.h"

#include <set>
#include <sstream>

using namespace kiln;
using kiln::layout::Shape;

namespace {

struct Case {
  int64_t opIndex, kWidth;
  Shape warps, shape;
  bool transposed;
};

std::string describe(const Case &c) {
  std::ostringstream os;
  os << (c.opIndex == 0 ? "A " : "B ") << c.shape[0] << "x" << c.shape[1]
     << " kWidth " << c.kWidth << " warps " << c.warps[0] << "x" << c.warps[1]
     << (c.transposed ? " K-major" : "");
  return os.str();
}

void checkLoads(const Case &c) {
  tiletogpu::LdmatrixLoads loads = tiletogpu::LdmatrixLoads::get(
      c.opIndex, c.kWidth, c.warps, c.shape, c.transposed);
  layout::DotOperandLayout fragment(c.opIndex, layout::MmaLayout(c.warps),
                                    c.kWidth);
  int64_t perWord = c.kWidth / 2; // elements per 16-bit word
  bool trans = !loads.isA && !c.transposed;
  int64_t warps = c.warps[0] * c.warps[1];
  std::set<int64_t> written;
  for (int64_t warp = 0; warp < warps; ++warp) {
    for (int64_t block = 0; block < loads.blocks; ++block) {
      for (int64_t k = 0; k < loads.kSteps; k += loads.kPerLoad) {
        // Matrix j's row r is named by lane 8j + r.
        auto rowStart = [&](int64_t matrix, int64_t row) {
          return loads.getCoordinates<int64_t>(8 * matrix + row, warp, block,
                                               k);
        };
        for (int64_t matrix = 0; matrix < loads.getWords(); ++matrix)
          for (int64_t row = 0; row < 8; ++row) {
            // A row is 16 contiguous bytes: aligned along the slot's rows.
            auto [r, col] = rowStart(matrix, row);
            int64_t alongRow = loads.isA ? col : c.transposed ? r : col;
            int64_t bytes = 4 / c.kWidth;
            ASSERT_EQ(alongRow * bytes % 16, 0)
                << describe(c) << ": matrix " << matrix << " row " << row;
          }
        for (int64_t lane = 0; lane < 32; ++lane) {
          for (int64_t word = 0; word < loads.getWords(); ++word) {
            for (int64_t e = 0; e < c.kWidth; ++e) {
              // Element e of the lane's 32-bit word: 16-bit word e / perWord
              // of the two it receives, byte e % perWord of that.
              int64_t half = e / perWord, byte = e % perWord;
              Shape element;
              if (trans) {
                auto [r, col] = rowStart(word, 2 * (lane % 4) + half);
                element = {r, col + lane / 4};
              } else {
                auto [r, col] = rowStart(word, lane / 4);
                int64_t along = (2 * (lane % 4) + half) * perWord + byte;
                element = loads.isA || !c.transposed ? Shape{r, col + along}
                                                     : Shape{r + along, col};
              }
              element[0] %= c.shape[0];
              element[1] %= c.shape[1];
              int64_t reg = loads.getRegister(block, k, word, e);
              ASSERT_LT(reg, fragment.getNumRegisters(c.shape));
              written.insert(reg);
              EXPECT_EQ(fragment.getCoordinates(c.shape, {reg, lane, warp}),
                        element)
                  << describe(c) << ": warp " << warp << " lane " << lane
                  << " block " << block << " K step " << k << " word " << word
                  << " element " << e << " (register " << reg << ")";
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(static_cast<int64_t>(written.size()),
            fragment.getNumRegisters(c.shape))
      << describe(c) << ": every register is loaded";
}

TEST(LdmatrixLoadsTest, EveryRegisterGetsItsElement) {
  const Case cases[] = {
      // 16-bit: A; B N-major (.trans), one K step per load or two;
      // B K-major.
      {0, 2, {1, 1}, {16, 16}, false},
      {0, 2, {2, 2}, {64, 64}, false},
      {1, 2, {1, 1}, {16, 8}, false},
      {1, 2, {2, 2}, {64, 64}, false},
      {1, 2, {4, 2}, {32, 128}, true},
      {1, 2, {1, 4}, {16, 32}, true},
      // 8-bit (kWidth 4): A, B K-major.
      {0, 4, {1, 1}, {16, 32}, false},
      {0, 4, {2, 4}, {128, 128}, false},
      {1, 4, {1, 1}, {32, 8}, true},
      {1, 4, {1, 1}, {64, 16}, true},
      {1, 4, {2, 4}, {128, 256}, true},
  };
  for (const Case &c : cases)
    checkLoads(c);
}

} // namespace
