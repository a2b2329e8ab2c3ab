//===- TensorCores.cpp - Which dots run on tensor cores -------------------===//

#include "kiln/Dialect/TileGPU/Transforms/TensorCores.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tilegpu;

/// Elements per 32-bit operand register of the mma.sync that multiplies
/// `element`s into `accumulator`s, or why there is none.
static std::optional<int64_t> getKWidth(tile::DotOp dot, std::string &whyNot) {
  Type element = getElementTypeOrSelf(dot.getA().getType());
  Type accumulator = getElementTypeOrSelf(dot.getAcc().getType());
  if (element.isF16() || element.isBF16()) {
    if (accumulator.isF32())
      return 2;
    whyNot = "mma.sync accumulates f16 and bf16 products in f32 here, not " +
             std::string(accumulator.isF16() ? "f16" : "another type");
    return std::nullopt;
  }
  if (element.isF32()) {
    switch (dot.getInputPrecision()) {
    case tile::InputPrecision::TF32:
      return 1;
    case tile::InputPrecision::IEEE:
      whyNot = "f32 products with input_precision = ieee need CUDA cores "
               "(tf32 allows tensor cores)";
      return std::nullopt;
    case tile::InputPrecision::TF32x3:
      whyNot = "input_precision = tf32x3 reaches tensor cores as three "
               "tf32 dots (tile-split-tf32x3, which the GPU pipeline runs "
               "first), not as one";
      return std::nullopt;
    }
  }
  // 8-bit floats reach here only on their way to wgmma (tile-assign-layouts
  // widens the others to f16).
  if (element.isInteger(8) || isa<Float8E4M3FNType, Float8E5M2Type>(element))
    return 4;
  whyNot = "mma.sync here takes f16, bf16, tf32 and i8 operands";
  return std::nullopt;
}

/// Warps along M and N: halves the larger per-warp extent while it holds
/// at least two instruction blocks, so each warp's share stays square-ish.
static SmallVector<int64_t, 2> chooseWarps(int64_t m, int64_t n,
                                           int64_t numWarps) {
  int64_t wm = 1, wn = 1;
  while (wm * wn < numWarps) {
    bool mSplits = m / (16 * wm) >= 2, nSplits = n / (8 * wn) >= 2;
    if (mSplits && (m / wm >= n / wn || !nSplits))
      wm *= 2;
    else if (nSplits)
      wn *= 2;
    else
      wm *= 2; // More warps than blocks: they hold replicas.
  }
  return {wm, wn};
}

/// Whether `dot` is one of a chain with a row-wise reduction between, as
/// attention's forward is (the scores, their softmax, the product with
/// V): its product is reduced along its rows and reaches another dot's A
/// or B, or its A or B comes from such a dot. Each warp then holds whole
/// rows, so that the softmax's reductions stay in the warp and the
/// probabilities convert to the next A operand in registers. (Chains
/// without the reduction, attention's backward, keep the square-ish
/// split, which holds fewer operand registers per warp.)
static bool isChainedThroughRows(tile::DotOp dot) {
  auto feedsReducedChain = [](tile::DotOp from) {
    SetVector<Operation *> forward;
    getForwardSlice(from.getResult(), &forward);
    bool reduced = false, chained = false;
    for (Operation *op : forward) {
      if (auto reduce = dyn_cast<tile::ReduceOp>(op))
        reduced |= reduce.getAxis() == 1;
      if (auto next = dyn_cast<tile::DotOp>(op))
        for (Value operand : {next.getA(), next.getB()})
          chained |= operand == from.getResult() ||
                     forward.contains(operand.getDefiningOp());
    }
    return reduced && chained;
  };
  if (feedsReducedChain(dot))
    return true;
  BackwardSliceOptions options;
  options.omitBlockArguments = true;
  for (Value operand : {dot.getA(), dot.getB()}) {
    SetVector<Operation *> backward;
    if (Operation *producer = operand.getDefiningOp()) {
      (void)getBackwardSlice(producer, &backward, options);
      backward.insert(producer);
    }
    for (Operation *op : backward)
      if (auto previous = dyn_cast<tile::DotOp>(op);
          previous && feedsReducedChain(previous))
        return true;
  }
  return false;
}

/// Whether `operand` is a cast of a tile of 8-bit elements.
static bool isCastFrom8Bits(Value operand) {
  Operation *cast = operand.getDefiningOp();
  return isa_and_nonnull<arith::ExtFOp, arith::SIToFPOp, arith::UIToFPOp>(
             cast) &&
         getElementTypeOrSelf(cast->getOperand(0).getType())
                 .getIntOrFloatBitWidth() == 8;
}

/// Why `dot` (f16, bf16, tf32 or 8-bit floats into f32, or i8 into i32) cannot
/// run on wgmma m64nNkK with operands in swizzled shared memory and `numWarps`
/// warps along M, or an empty string.
static std::string whyNotWgmma(int64_t m, int64_t n, int64_t k,
                               int64_t numWarps) {
  if (numWarps % 4 != 0)
    return llvm::formatv("wgmma is issued by warpgroups of four warps, and "
                         "num_warps is {0}",
                         numWarps);
  if (m % (16 * numWarps) != 0)
    return llvm::formatv("M = {0} is not a multiple of {1}: each of the {2} "
                         "warpgroups takes 64-row blocks",
                         m, 16 * numWarps, numWarps / 4);
  if (n % 16 != 0 || k % 16 != 0)
    return llvm::formatv("N = {0} and K = {1} are not both multiples of 16 "
                         "(swizzled operand rows, K of one wgmma)",
                         n, k);
  return "";
}

std::optional<MmaChoice> kiln::tilegpu::chooseMma(tile::DotOp dot,
                                                  int64_t capability,
                                                  bool archSpecific,
                                                  int64_t numWarps,
                                                  std::string &whyNot,
                                                  std::string &wgmmaWhyNot) {
  if (capability < 80) {
    whyNot = llvm::formatv("tensor cores need sm_80 or newer, the target is "
                           "sm_{0}",
                           capability);
    return std::nullopt;
  }
  std::optional<int64_t> kWidth = getKWidth(dot, whyNot);
  if (!kWidth)
    return std::nullopt;
  auto aType = cast<RankedTensorType>(dot.getA().getType());
  auto bType = cast<RankedTensorType>(dot.getB().getType());
  int64_t m = aType.getDimSize(0), k = aType.getDimSize(1),
          n = bType.getDimSize(1);
  int64_t instrK = 8 * *kWidth;
  if (m % 16 != 0 || n % 8 != 0 || k % instrK != 0) {
    whyNot = llvm::formatv(
        "the shape {0}x{1}x{2} (MxNxK) is not a multiple of the "
        "instruction's 16x8x{3}",
        m, n, k, instrK);
    return std::nullopt;
  }
  if (capability == 90 && archSpecific) {
    wgmmaWhyNot = whyNotWgmma(m, n, k, numWarps);
    if (wgmmaWhyNot.empty())
      return MmaChoice{*kWidth, {numWarps, 1}, /*warpgroup=*/true};
  }
  int64_t syncKWidth = *kWidth == 2 && k % 32 == 0 &&
                               isCastFrom8Bits(dot.getA()) &&
                               isCastFrom8Bits(dot.getB())
                           ? 4
                           : *kWidth;
  if (m >= 16 * numWarps && isChainedThroughRows(dot))
    return MmaChoice{syncKWidth, {numWarps, 1}};
  return MmaChoice{syncKWidth, chooseWarps(m, n, numWarps)};
}
