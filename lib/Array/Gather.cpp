//===- Gather.cpp - Loading the elements a body extracts ------------------===//
//
// A generic's body may read an element of a tensor it captures at indices
// it computes (`tensor.extract %table[%id, %j]`: an embedding lookup, a
// gather, as torch-mlir writes them; a concatenation as kiln.fuse writes
// it). In a tile kernel that is one load through a tile of pointers, each
// lane's at its own indices.
//
//===----------------------------------------------------------------------===//

#include "SliceViews.h"
#include "TiledKernel.h"

#include "kiln/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace kiln;

GatherView::GatherView(RankedTensorType table)
    : offsets(table.getRank(), 0) {
  for (int64_t d = 0; d < table.getRank(); ++d)
    indices.push_back({static_cast<unsigned>(d), 1, table.getDimSize(d)});
}

void GatherView::throughSlice(tensor::ExtractSliceOp slice) {
  // The slice's dimension t is its source's dimension kept[t].
  SmallVector<unsigned> kept;
  llvm::SmallBitVector dropped = slice.getDroppedDims();
  for (unsigned d = 0; d < slice.getSourceType().getRank(); ++d)
    if (!dropped.test(d))
      kept.push_back(d);
  ArrayRef<int64_t> sliceOffsets = slice.getStaticOffsets();
  ArrayRef<int64_t> sliceStrides = slice.getStaticStrides();
  SmallVector<int64_t> sourceOffsets(sliceOffsets);
  for (auto [t, d] : llvm::enumerate(kept))
    sourceOffsets[d] += sliceStrides[d] * offsets[t];
  for (Index &index : indices) {
    index.dim = kept[index.dim];
    index.stride *= sliceStrides[index.dim];
  }
  offsets = sourceOffsets;
}

Value kiln::loadGathered(OpBuilder &b, Location loc, Value base,
                         RankedTensorType source, const GatherView &view,
                         ArrayRef<Value> indices, Value mask) {
  // Lanes of a tile, or one scalar (a row's value, in a row kernel).
  auto lanes = dyn_cast<RankedTensorType>(mask.getType());
  auto typeOf = [&](Type element) -> Type {
    return lanes ? Type(RankedTensorType::get(lanes.getShape(), element))
                 : element;
  };
  auto splat = [&](Type element, int64_t value) -> Value {
    if (!lanes)
      return arith::ConstantOp::create(b, loc,
                                       b.getIntegerAttr(element, value));
    return arith::ConstantOp::create(
        b, loc,
        SplatElementsAttr::get(cast<ShapedType>(typeOf(element)),
                               b.getIntegerAttr(element, value)));
  };
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  SmallVector<int64_t> strides(source.getRank(), 1);
  for (int64_t d = source.getRank() - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * source.getDimSize(d + 1);
  // Where the view starts, then each index placed by its stride. An index
  // outside the view reads nothing (tensor.extract leaves its element
  // undefined; kiln.fuse checks indices as numpy does): its lane is masked
  // off and its offset kept inside. Indices are checked at 64 bits, so
  // that none wraps into range; offsets, inside a tensor of less than 2^31
  // elements, are 32-bit.
  int64_t start = 0;
  for (auto [offset, stride] : llvm::zip(view.offsets, strides))
    start += offset * stride;
  Value offset = splat(i32, start);
  for (auto [index, placed] : llvm::zip(indices, view.indices)) {
    Value wide = arith::IndexCastOp::create(b, loc, typeOf(i64), index);
    Value zero = splat(i64, 0);
    Value inside = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, wide, zero),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, wide,
                              splat(i64, placed.bound)));
    mask = arith::AndIOp::create(b, loc, mask, inside);
    Value narrow = arith::TruncIOp::create(
        b, loc, typeOf(i32),
        arith::SelectOp::create(b, loc, inside, wide, zero));
    offset = arith::AddIOp::create(
        b, loc, offset,
        arith::MulIOp::create(
            b, loc, narrow,
            splat(i32, placed.stride * strides[placed.dim])));
  }
  Type ptrs = typeOf(base.getType());
  Value at = tile::AddPtrOp::create(
      b, loc, ptrs, lanes ? tile::SplatOp::create(b, loc, ptrs, base) : base,
      offset);
  Type value = typeOf(source.getElementType());
  Value other = arith::ConstantOp::create(b, loc, b.getZeroAttr(value));
  return tile::LoadOp::create(b, loc, value, at, mask, other);
}

FailureOr<Value>
kiln::gatherInKernel(OpBuilder &b, tensor::ExtractOp extract,
                     func::FuncOp kernel, Block &tileEntry, Value mask,
                     function_ref<Value(Value)> indexTile) {
  if (!extract.getTensor().getType().hasStaticShape())
    return extract.emitError("kiln-tile: a body extracts elements of ")
           << extract.getTensor().getType()
           << ", a tensor of dynamic shape (gathers read static ones)";
  // Slices of an input (which the kernel recreates) are read in place.
  Value table = extract.getTensor();
  GatherView view(extract.getTensor().getType());
  while (auto slice = table.getDefiningOp<tensor::ExtractSliceOp>()) {
    if (!isSliceView(slice) || !slice.getSourceType().hasStaticShape())
      break;
    view.throughSlice(slice);
    table = slice.getSource();
  }
  auto source = dyn_cast<BlockArgument>(table);
  if (!source || source.getOwner() != &kernel.getBody().front())
    return extract.emitError("kiln-tile: a body extracts elements of a "
                             "tensor that is not an input of its kernel "
                             "(or a slice of one)");
  SmallVector<Value> indices;
  for (Value index : extract.getIndices()) {
    indices.push_back(indexTile(index));
    if (!indices.back())
      return failure();
  }
  return loadGathered(b, extract.getLoc(),
                      tileEntry.getArgument(source.getArgNumber()),
                      cast<RankedTensorType>(table.getType()), view, indices,
                      mask);
}
