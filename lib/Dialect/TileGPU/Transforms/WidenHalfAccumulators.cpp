//===- WidenHalfAccumulators.cpp - 16-bit float dots accumulate in f32 ----===//
//
// A dot into an f16 or bf16 accumulator becomes one into f32, rounded to
// the accumulator's type once: mma.sync and wgmma accumulate f16 and bf16
// products in f32 here, and the CUDA cores' alternative would round after
// every product.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/TileGPU/Transforms/Passes.h"

#include "kiln/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "tile-widen-half-accumulators"

namespace kiln::tilegpu {
#define GEN_PASS_DEF_TILEWIDENHALFACCUMULATORSPASS
#include "kiln/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace kiln::tilegpu

using namespace mlir;
using namespace kiln;

namespace {

/// dot(a, b, acc) into an f16 or bf16 acc as truncf(dot(a, b, extf(acc))).
struct WidenHalfAccumulator : OpRewritePattern<tile::DotOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tile::DotOp dot,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(dot.getType());
    if (!type.getElementType().isF16() && !type.getElementType().isBF16())
      return failure();
    Location loc = dot.getLoc();
    auto wide = type.clone(rewriter.getF32Type());
    Value acc = arith::ExtFOp::create(rewriter, loc, wide, dot.getAcc());
    Value sum =
        tile::DotOp::create(rewriter, loc, wide, dot.getA(), dot.getB(), acc,
                            dot.getInputPrecision());
    rewriter.replaceOpWithNewOp<arith::TruncFOp>(dot, type, sum);
    return success();
  }
};

/// Applies WidenHalfAccumulator everywhere.
struct TileWidenHalfAccumulatorsPass
    : tilegpu::impl::TileWidenHalfAccumulatorsPassBase<
          TileWidenHalfAccumulatorsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<WidenHalfAccumulator>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
