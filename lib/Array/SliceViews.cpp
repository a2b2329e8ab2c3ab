//===- SliceViews.cpp - Slices kernels read in place ----------------------===//
//
// A slice of constant offsets and strides is not copied: each kernel that
// reads it takes its source as an input and reads it through the slice's
// offsets and strides composed with its own indexing map. (Folding the
// slice into the indexing map at the array level is no valid linalg: a
// prefix, x[:-1], would read its source through a plain dimension of
// another size.)
//
//===----------------------------------------------------------------------===//

#include "SliceViews.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"

using namespace mlir;
using namespace kiln;

/// Whether dimension `dim` of `slice`'s source is taken whole: offset 0,
/// stride 1, and a size provably the source's (whatever names it: the
/// source's tensor.dim, or that of what sized the source).
static bool takesWhole(tensor::ExtractSliceOp slice, unsigned dim) {
  if (!isConstantIntValue(slice.getMixedOffsets()[dim], 0) ||
      !isConstantIntValue(slice.getMixedStrides()[dim], 1))
    return false;
  FailureOr<bool> equal = ValueBoundsConstraintSet::areEqual(
      ValueBoundsConstraintSet::Variable(slice.getMixedSizes()[dim]),
      ValueBoundsConstraintSet::Variable(slice.getSource(), dim));
  return succeeded(equal) && *equal;
}

/// The dimension of `slice`'s source that makes no view of it, if any.
static std::optional<unsigned> firstNonView(tensor::ExtractSliceOp slice) {
  for (unsigned dim = 0; dim < slice.getSourceType().getRank(); ++dim)
    if (!getConstantIntValue(slice.getMixedOffsets()[dim]) ||
        !getConstantIntValue(slice.getMixedStrides()[dim]) ||
        (slice.getSourceType().isDynamicDim(dim) && !takesWhole(slice, dim)))
      return dim;
  return std::nullopt;
}

bool kiln::isSliceView(Operation *op) {
  auto slice = dyn_cast_if_present<tensor::ExtractSliceOp>(op);
  return slice && !firstNonView(slice);
}

/// The indices of `slice`'s source that element i of the slice is: the
/// offset plus the stride times i along each dimension it keeps, the
/// offset along those it drops.
static AffineMap sliceMap(tensor::ExtractSliceOp slice) {
  MLIRContext *ctx = slice.getContext();
  llvm::SmallBitVector dropped = slice.getDroppedDims();
  SmallVector<AffineExpr> indices;
  unsigned kept = 0;
  for (unsigned dim = 0; dim < slice.getSourceType().getRank(); ++dim) {
    int64_t offset = *getConstantIntValue(slice.getMixedOffsets()[dim]);
    int64_t stride = *getConstantIntValue(slice.getMixedStrides()[dim]);
    indices.push_back(dropped.test(dim)
                          ? getAffineConstantExpr(offset, ctx)
                          : getAffineDimExpr(kept++, ctx) * stride + offset);
  }
  return AffineMap::get(slice.getType().getRank(), 0, indices, ctx);
}

OperandRead kiln::readThroughSlices(linalg::LinalgOp op, OpOperand &operand) {
  OperandRead read{operand.get(), op.getMatchingIndexingMap(&operand)};
  while (auto slice = read.source.getDefiningOp<tensor::ExtractSliceOp>()) {
    if (!isSliceView(slice))
      break;
    read.map = sliceMap(slice).compose(read.map);
    read.source = slice.getSource();
    read.sliced = true;
  }
  return read;
}

Value kiln::sliceRoot(Value value) {
  while (auto slice = value.getDefiningOp<tensor::ExtractSliceOp>()) {
    if (!isSliceView(slice))
      break;
    value = slice.getSource();
  }
  return value;
}

namespace {
/// slice(G(inputs)) -> G'(slices of inputs) for an elementwise generic G
/// whose one result is written in place: G' runs over the slice's shape,
/// and reads each input through the slice of it that the slice of G's
/// result reads (the dimensions an input reads at a constant index, or
/// along a loop the slice drops, are dropped from its slice).
struct BubbleSliceThroughElementwise : OpRewritePattern<tensor::ExtractSliceOp> {
  BubbleSliceThroughElementwise(
      MLIRContext *ctx, std::function<bool(linalg::GenericOp)> mayRecompute)
      : OpRewritePattern(ctx), mayRecompute(std::move(mayRecompute)) {}

  LogicalResult matchAndRewrite(tensor::ExtractSliceOp slice,
                                PatternRewriter &rewriter) const override {
    auto producer = slice.getSource().getDefiningOp<linalg::GenericOp>();
    if (!producer || !isSliceView(slice) || producer->getNumResults() != 1 ||
        producer.getNumLoops() != producer.getNumParallelLoops() ||
        !producer.getMatchingIndexingMap(producer.getDpsInitOperand(0))
             .isIdentity() ||
        producer.payloadUsesValueFromOperand(producer.getDpsInitOperand(0)) ||
        producer.hasIndexSemantics())
      return failure();
    // Sizes asked of the producer's result are no reason to keep it.
    bool onlyUser = llvm::all_of(producer->getUsers(), [&](Operation *user) {
      return user == slice || isa<tensor::DimOp>(user);
    });
    if (!onlyUser && !mayRecompute(producer))
      return failure();
    // Every input must be a tensor read through a projection, and its
    // slice a view: a dynamic dimension only along a loop the slice takes
    // whole. (Checked before anything is built.)
    for (OpOperand *input : producer.getDpsInputOperands()) {
      auto type = dyn_cast<RankedTensorType>(input->get().getType());
      if (!type)
        return failure();
      for (auto [dim, index] : llvm::enumerate(
               producer.getMatchingIndexingMap(input).getResults())) {
        auto loop = dyn_cast<AffineDimExpr>(index);
        if (!loop && !isa<AffineConstantExpr>(index))
          return failure();
        if (type.isDynamicDim(dim) &&
            (!loop || !takesWhole(slice, loop.getPosition())))
          return failure();
      }
    }
    SmallVector<OpFoldResult> offsets = slice.getMixedOffsets();
    SmallVector<OpFoldResult> sizes = slice.getMixedSizes();
    SmallVector<OpFoldResult> strides = slice.getMixedStrides();
    llvm::SmallBitVector dropped = slice.getDroppedDims();
    // The slice's dimension each loop of the producer keeps, if any.
    SmallVector<std::optional<unsigned>> kept;
    unsigned count = 0;
    for (unsigned loop = 0; loop < producer.getNumLoops(); ++loop)
      kept.push_back(dropped.test(loop) ? std::nullopt
                                        : std::optional<unsigned>(count++));
    MLIRContext *ctx = rewriter.getContext();
    Location loc = slice.getLoc();
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    for (OpOperand *input : producer.getDpsInputOperands()) {
      auto type = cast<RankedTensorType>(input->get().getType());
      SmallVector<OpFoldResult> inputOffsets, inputSizes, inputStrides;
      SmallVector<AffineExpr> indices;
      SmallVector<int64_t> keptShape;
      for (auto [dim, index] : llvm::enumerate(
               producer.getMatchingIndexingMap(input).getResults())) {
        auto loop = dyn_cast<AffineDimExpr>(index);
        if (!loop || !kept[loop.getPosition()]) {
          // Read at one index: the constant, or the dropped loop's offset.
          inputOffsets.push_back(
              loop ? offsets[loop.getPosition()]
                   : rewriter.getIndexAttr(
                         cast<AffineConstantExpr>(index).getValue()));
          inputSizes.push_back(rewriter.getIndexAttr(1));
          inputStrides.push_back(rewriter.getIndexAttr(1));
          continue;
        }
        unsigned position = loop.getPosition();
        inputOffsets.push_back(offsets[position]);
        inputStrides.push_back(strides[position]);
        // A dynamic dimension is taken whole (checked above): the input's
        // own size.
        inputSizes.push_back(
            type.isDynamicDim(dim)
                ? OpFoldResult(
                      tensor::DimOp::create(rewriter, loc, input->get(), dim)
                          .getResult())
                : sizes[position]);
        indices.push_back(getAffineDimExpr(*kept[position], ctx));
        keptShape.push_back(slice.getType().getDimSize(*kept[position]));
      }
      auto sliceType = RankedTensorType::get(keptShape, type.getElementType());
      inputs.push_back(tensor::ExtractSliceOp::create(
          rewriter, loc, sliceType, input->get(), inputOffsets, inputSizes,
          inputStrides));
      maps.push_back(AffineMap::get(count, 0, indices, ctx));
    }
    RankedTensorType type = slice.getType();
    SmallVector<OpFoldResult> resultSizes;
    for (auto [dim, size] : llvm::enumerate(sizes))
      if (!dropped.test(dim))
        resultSizes.push_back(size);
    Value init = tensor::EmptyOp::create(rewriter, loc, resultSizes,
                                         type.getElementType());
    maps.push_back(rewriter.getMultiDimIdentityMap(count));
    auto sliced = linalg::GenericOp::create(
        rewriter, loc, type, inputs, ValueRange{init}, maps,
        SmallVector<utils::IteratorType>(count,
                                         utils::IteratorType::parallel));
    rewriter.cloneRegionBefore(producer.getRegion(), sliced.getRegion(),
                               sliced.getRegion().begin());
    rewriter.replaceOp(slice, sliced.getResult(0));
    return success();
  }

  std::function<bool(linalg::GenericOp)> mayRecompute;
};
} // namespace

void kiln::populateSliceBubblingPatterns(
    RewritePatternSet &patterns,
    std::function<bool(linalg::GenericOp)> mayRecompute) {
  patterns.add<BubbleSliceThroughElementwise>(patterns.getContext(),
                                              std::move(mayRecompute));
}

SmallVector<Operation *> kiln::readersOf(Value value) {
  SmallVector<Operation *> readers;
  for (Operation *user : value.getUsers()) {
    if (!isSliceView(user)) {
      readers.push_back(user);
      continue;
    }
    llvm::append_range(readers, readersOf(user->getResult(0)));
  }
  return readers;
}

/// Whether `use` reads its slice in place: as an input of a generic, or
/// as the source of another slice.
static bool readsInPlace(OpOperand &use) {
  Operation *user = use.getOwner();
  if (auto generic = dyn_cast<linalg::GenericOp>(user))
    return generic.isDpsInput(&use);
  // A gather (an extract in a body) reads a static slice in place.
  if (isa<tensor::ExtractOp>(user))
    return isa<linalg::GenericOp>(user->getParentOp()) &&
           cast<RankedTensorType>(use.get().getType()).hasStaticShape();
  return isa<tensor::ExtractSliceOp>(user);
}

LogicalResult kiln::prepareSliceViews(func::FuncOp func) {
  SmallVector<tensor::ExtractSliceOp> slices;
  func.walk([&](tensor::ExtractSliceOp slice) { slices.push_back(slice); });
  IRRewriter rewriter(func.getContext());
  for (tensor::ExtractSliceOp slice : slices) {
    if (std::optional<unsigned> dim = firstNonView(slice))
      return slice.emitError("kiln-fuse: dimension ")
             << *dim << " of this slice needs a constant offset and stride "
             << "(and to be taken whole where its size is dynamic)";
    // A dynamic dimension taken whole is sized by the source's own
    // tensor.dim, so that it stays provably whole once the source comes
    // from another kernel (whose sizes are not visible here).
    rewriter.setInsertionPoint(slice);
    SmallVector<OpFoldResult> wholeSizes = slice.getMixedSizes();
    bool resized = false;
    for (unsigned dim = 0; dim < wholeSizes.size(); ++dim) {
      if (!slice.getSourceType().isDynamicDim(dim))
        continue;
      auto size = dyn_cast<Value>(wholeSizes[dim]);
      auto dimOp = size ? size.getDefiningOp<tensor::DimOp>() : nullptr;
      if (dimOp && dimOp.getSource() == slice.getSource() &&
          dimOp.getConstantIndex() == static_cast<int64_t>(dim))
        continue;
      wholeSizes[dim] = tensor::DimOp::create(rewriter, slice.getLoc(),
                                              slice.getSource(), dim)
                            .getResult();
      resized = true;
    }
    if (resized)
      slice = rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
          slice, slice.getType(), slice.getSource(), slice.getMixedOffsets(),
          wholeSizes, slice.getMixedStrides());
    SmallVector<OpOperand *> copied;
    for (OpOperand &use : slice->getUses())
      if (!readsInPlace(use))
        copied.push_back(&use);
    // A copy per use: each is a buffer of its own (a slice returned and
    // also returned reshaped is two results).
    RankedTensorType type = slice.getType();
    llvm::SmallBitVector dropped = slice.getDroppedDims();
    SmallVector<OpFoldResult> sizes;
    for (auto [dim, size] : llvm::enumerate(slice.getMixedSizes()))
      if (!dropped.test(dim))
        sizes.push_back(size);
    unsigned rank = type.getRank();
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    for (OpOperand *use : copied) {
      rewriter.setInsertionPointAfter(slice);
      Location loc = slice.getLoc();
      Value init =
          tensor::EmptyOp::create(rewriter, loc, sizes, type.getElementType());
      auto copy = linalg::GenericOp::create(
          rewriter, loc, type, ValueRange{slice.getResult()},
          ValueRange{init}, ArrayRef<AffineMap>{identity, identity},
          SmallVector<utils::IteratorType>(rank,
                                           utils::IteratorType::parallel),
          [](OpBuilder &b, Location loc, ValueRange args) {
            linalg::YieldOp::create(b, loc, args[0]);
          });
      use->set(copy.getResult(0));
    }
  }
  return success();
}
