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

using namespace mlir;

Value kiln::loadGathered(OpBuilder &b, Location loc, Value base,
                         RankedTensorType source, ArrayRef<Value> indices,
                         Value mask, tensor::ExtractSliceOp slice) {
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
  // Each index of the slice (of the source, without one) is placed in the
  // source at offset + stride * index, along the dimensions it keeps.
  SmallVector<int64_t> offsets(source.getRank(), 0),
      strides(source.getRank(), 1), sizes(source.getShape());
  llvm::SmallBitVector dropped(source.getRank());
  if (slice) {
    offsets = llvm::to_vector(slice.getStaticOffsets());
    strides = llvm::to_vector(slice.getStaticStrides());
    sizes = llvm::to_vector(slice.getStaticSizes());
    dropped = slice.getDroppedDims();
  }
  // An index outside the tensor read reads nothing (tensor.extract leaves
  // its element undefined; kiln.fuse checks indices as numpy does): its
  // lane is masked off and its offset kept inside the tensor. Indices are
  // checked at 64 bits, so that none wraps into range; offsets, inside a
  // tensor of less than 2^31 elements, are 32-bit.
  Value offset = splat(i32, 0);
  int64_t stride = 1;
  unsigned next = indices.size();
  for (int64_t d = source.getRank() - 1; d >= 0; --d) {
    int64_t at = offsets[d];
    if (!dropped.test(d)) {
      Value index =
          arith::IndexCastOp::create(b, loc, typeOf(i64), indices[--next]);
      Value zero = splat(i64, 0);
      Value inside = arith::AndIOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, index,
                                zero),
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, index,
                                splat(i64, sizes[d])));
      mask = arith::AndIOp::create(b, loc, mask, inside);
      index = arith::TruncIOp::create(
          b, loc, typeOf(i32),
          arith::SelectOp::create(b, loc, inside, index, zero));
      offset = arith::AddIOp::create(
          b, loc, offset,
          arith::MulIOp::create(b, loc, index, splat(i32, strides[d] * stride)));
    }
    if (at != 0)
      offset = arith::AddIOp::create(b, loc, offset, splat(i32, at * stride));
    stride *= source.getDimSize(d);
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
  // A slice of an input (which the kernel recreates) is read in place.
  Value table = extract.getTensor();
  auto slice = table.getDefiningOp<tensor::ExtractSliceOp>();
  if (slice && isSliceView(slice))
    table = slice.getSource();
  else
    slice = {};
  auto source = dyn_cast<BlockArgument>(table);
  if (!source || source.getOwner() != &kernel.getBody().front())
    return extract.emitError("kiln-tile: a body extracts elements of a "
                             "tensor that is not an input of its kernel "
                             "(or a slice of one)");
  auto type = cast<RankedTensorType>(table.getType());
  if (!type.hasStaticShape() || !extract.getTensor().getType().hasStaticShape())
    return extract.emitError("kiln-tile: a body extracts elements of ")
           << extract.getTensor().getType()
           << ", a tensor of dynamic shape (gathers read static ones)";
  SmallVector<Value> indices;
  for (Value index : extract.getIndices()) {
    indices.push_back(indexTile(index));
    if (!indices.back())
      return failure();
  }
  return loadGathered(b, extract.getLoc(),
                      tileEntry.getArgument(source.getArgNumber()), type,
                      indices, mask, slice);
}
