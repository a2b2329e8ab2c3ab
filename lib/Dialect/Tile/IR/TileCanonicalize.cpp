//===- TileCanonicalize.cpp - Folds and canonicalizations of tile ops -----===//
//
// Shape operations collapse onto splats and onto each other, so that later
// passes see each tile built once; pointer arithmetic chains combine into
// one offset; a sum with a product from zero accumulates into the product.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/CommonFolders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace kiln::tile;

/// A splat constant `attr` re-shaped to `type`, or null if `attr` is not a
/// splat constant.
static Attribute reshapeSplat(Attribute attr, Type type) {
  auto splat = dyn_cast_if_present<SplatElementsAttr>(attr);
  if (!splat)
    return {};
  return SplatElementsAttr::get(cast<ShapedType>(type),
                                splat.getSplatValue<Attribute>());
}

namespace {
/// `shape_op(producer(%x))` is one `producer` op from `%x` to the shape
/// op's result type, when that keeps every element's value: any shape op of
/// a `tile.splat` is a splat, two broadcasts are one broadcast, and two
/// reshapes are one reshape (both keep row-major order).
template <typename ShapeOp, typename ProducerOp>
struct MergeIntoProducer : OpRewritePattern<ShapeOp> {
  using OpRewritePattern<ShapeOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(ShapeOp op,
                                PatternRewriter &rewriter) const override {
    auto producer = op.getSrc().template getDefiningOp<ProducerOp>();
    if (!producer)
      return failure();
    rewriter.replaceOpWithNewOp<ProducerOp>(op, op.getType(),
                                            producer.getSrc());
    return success();
  }
};

/// `addptr(addptr(%p, %a), %b)` is `addptr(%p, %a + %b)`: one address
/// computation instead of two. Each offset is sign-extended on its own, so
/// the sum is taken in 64 bits, where it cannot overflow differently.
struct CombineAddPtrs : OpRewritePattern<AddPtrOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AddPtrOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getPtr().getDefiningOp<AddPtrOp>();
    if (!inner || inner.getOffset().getType() != op.getOffset().getType())
      return failure();
    Location loc = op.getLoc();
    Value a = inner.getOffset(), b = op.getOffset();
    Type wide = rewriter.getI64Type();
    if (auto tensor = dyn_cast<RankedTensorType>(a.getType()))
      wide = tensor.clone(wide);
    auto widen = [&](Value offset) -> Value {
      unsigned bits = getElementTypeOrSelf(offset.getType())
                          .getIntOrFloatBitWidth();
      if (bits == 64)
        return offset;
      if (bits == 1)
        return arith::ExtUIOp::create(rewriter, loc, wide, offset);
      return arith::ExtSIOp::create(rewriter, loc, wide, offset);
    };
    Value wideA = widen(a);
    Value wideB = widen(b);
    Value sum = arith::AddIOp::create(rewriter, loc, wideA, wideB);
    rewriter.replaceOpWithNewOp<AddPtrOp>(op, op.getType(), inner.getPtr(),
                                          sum);
    return success();
  }
};
} // namespace

OpFoldResult SplatOp::fold(FoldAdaptor adaptor) {
  if (!isa_and_present<IntegerAttr, FloatAttr>(adaptor.getSrc()))
    return {};
  return SplatElementsAttr::get(getType(), adaptor.getSrc());
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  return reshapeSplat(adaptor.getSrc(), getType());
}

void BroadcastOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<MergeIntoProducer<BroadcastOp, SplatOp>,
              MergeIntoProducer<BroadcastOp, BroadcastOp>>(context);
}

OpFoldResult ExpandDimsOp::fold(FoldAdaptor adaptor) {
  return reshapeSplat(adaptor.getSrc(), getType());
}

void ExpandDimsOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                               MLIRContext *context) {
  results.add<MergeIntoProducer<ExpandDimsOp, SplatOp>>(context);
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  if (auto dense = dyn_cast_if_present<DenseElementsAttr>(adaptor.getSrc()))
    return dense.reshape(getType());
  return {};
}

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<MergeIntoProducer<ReshapeOp, SplatOp>,
              MergeIntoProducer<ReshapeOp, ReshapeOp>>(context);
}

OpFoldResult TransOp::fold(FoldAdaptor adaptor) {
  if (llvm::equal(getOrder(), llvm::seq<int32_t>(0, getOrder().size())))
    return getSrc();
  // trans(trans(x, inner), outer) is one transpose of x by the composed
  // order: result dim i is inner-source dim inner[outer[i]].
  if (auto producer = getSrc().getDefiningOp<TransOp>()) {
    SmallVector<int32_t> composed;
    for (int32_t dim : getOrder())
      composed.push_back(producer.getOrder()[dim]);
    if (llvm::equal(composed, llvm::seq<int32_t>(0, composed.size())))
      return producer.getSrc();
    getSrcMutable().assign(producer.getSrc());
    setOrder(composed);
    return getResult();
  }
  return reshapeSplat(adaptor.getSrc(), getType());
}

void TransOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                          MLIRContext *context) {
  results.add<MergeIntoProducer<TransOp, SplatOp>>(context);
}

namespace {
/// `x + dot(a, b, 0)` is `dot(a, b, x)` when the sum is the product's only
/// use: one accumulator (the tensor cores' registers) instead of two.
template <typename AddOp>
struct AccumulateIntoDot : OpRewritePattern<AddOp> {
  using OpRewritePattern<AddOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(AddOp op,
                                PatternRewriter &rewriter) const override {
    for (auto [product, other] : {std::pair(op.getLhs(), op.getRhs()),
                                  std::pair(op.getRhs(), op.getLhs())}) {
      auto dot = product.template getDefiningOp<DotOp>();
      if (!dot || !dot->hasOneUse() || other.getType() != dot.getType())
        continue;
      Value acc = dot.getAcc();
      if (auto splat = acc.getDefiningOp<SplatOp>())
        acc = splat.getSrc();
      if (!matchPattern(acc, m_AnyZeroFloat()) && !matchPattern(acc, m_Zero()))
        continue;
      rewriter.replaceOpWithNewOp<DotOp>(op, dot.getType(), dot.getA(),
                                         dot.getB(), other,
                                         dot.getInputPrecision());
      rewriter.eraseOp(dot);
      return success();
    }
    return failure();
  }
};
} // namespace

void DotOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                        MLIRContext *context) {
  results.add<AccumulateIntoDot<arith::AddFOp>,
              AccumulateIntoDot<arith::AddIOp>>(context);
}

OpFoldResult AddPtrOp::fold(FoldAdaptor adaptor) {
  if (matchPattern(adaptor.getOffset(), m_Zero()))
    return getPtr();
  return {};
}

void AddPtrOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                           MLIRContext *context) {
  results.add<CombineAddPtrs>(context);
}

OpFoldResult PtrCastOp::fold(FoldAdaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  if (auto producer = getSrc().getDefiningOp<PtrCastOp>()) {
    getSrcMutable().assign(producer.getSrc());
    return getResult();
  }
  return {};
}

OpFoldResult AdvanceOp::fold(FoldAdaptor adaptor) {
  if (llvm::all_of(adaptor.getOffsets(),
                   [](Attribute offset) { return matchPattern(offset, m_Zero()); }))
    return getBlockPtr();
  return {};
}
