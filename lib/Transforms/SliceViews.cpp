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

using namespace mlir;
using namespace kiln;

/// Whether dimension `dim` of `slice`'s source is taken whole: offset 0,
/// stride 1, and its static size or the tensor.dim of it.
static bool takesWhole(tensor::ExtractSliceOp slice, unsigned dim) {
  if (!isConstantIntValue(slice.getMixedOffsets()[dim], 0) ||
      !isConstantIntValue(slice.getMixedStrides()[dim], 1))
    return false;
  RankedTensorType source = slice.getSourceType();
  OpFoldResult size = slice.getMixedSizes()[dim];
  if (!source.isDynamicDim(dim))
    return isConstantIntValue(size, source.getDimSize(dim));
  auto sizeValue = dyn_cast<Value>(size);
  auto dimOp =
      sizeValue ? sizeValue.getDefiningOp<tensor::DimOp>() : tensor::DimOp();
  return dimOp && dimOp.getSource() == slice.getSource() &&
         dimOp.getConstantIndex() == static_cast<int64_t>(dim);
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

/// Whether `use` reads its slice in place: as an input of a generic, or
/// as the source of another slice.
static bool readsInPlace(OpOperand &use) {
  Operation *user = use.getOwner();
  if (auto generic = dyn_cast<linalg::GenericOp>(user))
    return generic.isDpsInput(&use);
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
    SmallVector<OpOperand *> copied;
    for (OpOperand &use : slice->getUses())
      if (!readsInPlace(use))
        copied.push_back(&use);
    if (copied.empty())
      continue;
    RankedTensorType type = slice.getType();
    rewriter.setInsertionPointAfter(slice);
    Location loc = slice.getLoc();
    llvm::SmallBitVector dropped = slice.getDroppedDims();
    SmallVector<OpFoldResult> sizes;
    for (auto [dim, size] : llvm::enumerate(slice.getMixedSizes()))
      if (!dropped.test(dim))
        sizes.push_back(size);
    Value init =
        tensor::EmptyOp::create(rewriter, loc, sizes, type.getElementType());
    unsigned rank = type.getRank();
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    auto copy = linalg::GenericOp::create(
        rewriter, loc, type, ValueRange{slice.getResult()}, ValueRange{init},
        ArrayRef<AffineMap>{identity, identity},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [](OpBuilder &b, Location loc, ValueRange args) {
          linalg::YieldOp::create(b, loc, args[0]);
        });
    for (OpOperand *use : copied)
      use->set(copy.getResult(0));
  }
  return success();
}
