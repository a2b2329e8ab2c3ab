//===- SplitTF32x3.cpp - tf32x3 dots as three tf32 dots -------------------===//
//
// An f32 value is the sum of a "big" part that tf32 holds exactly (its top
// 19 bits: sign, exponent, 10 mantissa bits) and a "small" remainder. Then
// a * b ~= a_big * b_big + a_big * b_small + a_small * b_big: three tf32
// products, the small terms first, recover nearly f32 accuracy on tensor
// cores (a_small * b_small is below f32's rounding). As Triton's, the small
// terms are summed apart and a NaN among them (an infinite operand's
// remainder is inf - inf) counts as 0, so that inf * 1 stays inf.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/TileGPU/Transforms/Passes.h"

#include "kiln/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "tile-split-tf32x3"

namespace kiln::tilegpu {
#define GEN_PASS_DEF_TILESPLITTF32X3PASS
#include "kiln/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace kiln::tilegpu

using namespace mlir;
using namespace kiln;

namespace {

/// The bits of an f32 that tf32 keeps.
constexpr int32_t kTF32Bits = static_cast<int32_t>(0xffffe000u);

/// A tf32x3 dot as three tf32 dots on the operands' big and small parts.
struct SplitTF32x3Dot : OpRewritePattern<tile::DotOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tile::DotOp dot,
                                PatternRewriter &rewriter) const override {
    if (dot.getInputPrecision() != tile::InputPrecision::TF32x3)
      return failure();
    Location loc = dot.getLoc();
    auto split = [&](Value value) -> std::pair<Value, Value> {
      auto type = cast<RankedTensorType>(value.getType());
      auto bitsType = type.clone(rewriter.getI32Type());
      Value bits = arith::BitcastOp::create(rewriter, loc, bitsType, value);
      Value mask = arith::ConstantOp::create(
          rewriter, loc,
          SplatElementsAttr::get(bitsType,
                                 rewriter.getI32IntegerAttr(kTF32Bits)));
      Value big = arith::BitcastOp::create(
          rewriter, loc, type, arith::AndIOp::create(rewriter, loc, bits, mask));
      return {big, arith::SubFOp::create(rewriter, loc, value, big)};
    };
    auto [aBig, aSmall] = split(dot.getA());
    auto [bBig, bSmall] = split(dot.getB());
    auto tf32 = [&](Value a, Value b, Value acc) -> Value {
      return tile::DotOp::create(rewriter, loc, dot.getType(), a, b, acc,
                                 tile::InputPrecision::TF32);
    };
    auto accType = cast<RankedTensorType>(dot.getType());
    Value zero = arith::ConstantOp::create(
        rewriter, loc,
        SplatElementsAttr::get(
            accType, rewriter.getZeroAttr(accType.getElementType())));
    Value small = tf32(aSmall, bBig, zero);
    small = tf32(aBig, bSmall, small);
    Value nan = arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::UNO,
                                      small, small);
    small = arith::SelectOp::create(rewriter, loc, nan, zero, small);
    Value acc = arith::AddFOp::create(rewriter, loc, dot.getAcc(), small);
    rewriter.replaceOp(dot, tf32(aBig, bBig, acc));
    return success();
  }
};

/// Applies SplitTF32x3Dot everywhere.
struct TileSplitTF32x3Pass
    : tilegpu::impl::TileSplitTF32x3PassBase<TileSplitTF32x3Pass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<SplitTF32x3Dot>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
