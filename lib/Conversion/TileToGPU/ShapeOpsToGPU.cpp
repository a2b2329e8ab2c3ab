//===- ShapeOpsToGPU.cpp - Ids, ranges and element moves to GPU code ------===//

#include "Patterns.h"
#include "SharedTile.h"
#include "ThreadValues.h"

#include "kiln/Dialect/Tile/IR/TileDialect.h"
#include "kiln/Dialect/TileGPU/IR/TileGPUDialect.h"
#include "kiln/Layout/RegisterMap.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <algorithm>

using namespace mlir;
using namespace kiln;
using namespace kiln::tiletogpu;

namespace {

static gpu::Dimension toDimension(tile::ProgramAxis axis) {
  switch (axis) {
  case tile::ProgramAxis::X:
    return gpu::Dimension::x;
  case tile::ProgramAxis::Y:
    return gpu::Dimension::y;
  case tile::ProgramAxis::Z:
    return gpu::Dimension::z;
  }
  llvm_unreachable("unknown program axis");
}

/// A program is a thread block: its id and the grid's size.
template <typename SourceOp, typename GPUOp>
struct ProgramIndexLowering : OpConversionPattern<SourceOp> {
  using OpConversionPattern<SourceOp>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SourceOp op, typename SourceOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value index =
        GPUOp::create(rewriter, op.getLoc(), toDimension(op.getAxis()));
    rewriter.replaceOpWithNewOp<arith::IndexCastUIOp>(
        op, rewriter.getI32Type(), index);
    return success();
  }
};

struct RangeLowering : OpConversionPattern<tile::RangeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::RangeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FailureOr<TileCoordinates> coordinates =
        emitTileCoordinates(rewriter, loc, op.getType());
    if (failed(coordinates))
      return failure();
    Value values = coordinates->coordinates[0];
    if (int64_t start = op.getStart())
      values = arith::AddIOp::create(
          rewriter, loc, values,
          constantInt(rewriter, loc, values.getType(), start));
    rewriter.replaceOp(op, values);
    return success();
  }
};

struct SplatLowering : OpConversionPattern<tile::SplatOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::SplatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value scalar = adaptor.getSrc();
    if (isa<LLVM::LLVMPointerType>(scalar.getType()))
      scalar = LLVM::PtrToIntOp::create(rewriter, op.getLoc(),
                                        rewriter.getI64Type(), scalar);
    Type type = getTypeConverter()->convertType(op.getType());
    rewriter.replaceOpWithNewOp<vector::BroadcastOp>(op, type, scalar);
    return success();
  }
};

/// Coordinates in the result -> coordinates in the source, for the
/// compile-time register map; and the same on the per-thread coordinate
/// vectors, as a linear index into the source, for the shared-memory path.
struct ElementMove {
  std::function<layout::Shape(const layout::Shape &)> toSource;
  SourceIndexFn sourceIndex;
};

/// Moves elements into the result's layout: a permutation of registers
/// where every element stays in its thread, else through shared memory.
static LogicalResult moveElements(Operation *op, Value source,
                                  RankedTensorType sourceType,
                                  RankedTensorType resultType,
                                  const ElementMove &move,
                                  ConversionPatternRewriter &rewriter) {
  std::optional<std::vector<int64_t>> map = layout::getThreadLocalRegisterMap(
      *getLayout(sourceType), getShape(sourceType), *getLayout(resultType),
      getShape(resultType), move.toSource);
  if (map) {
    rewriter.replaceOp(op,
                       permuteRegisters(rewriter, op->getLoc(), source, *map));
    return success();
  }
  FailureOr<Value> moved = redistributeThroughSharedMemory(
      rewriter, op, source, sourceType, resultType, move.sourceIndex);
  if (failed(moved))
    return failure();
  rewriter.replaceOp(op, *moved);
  return success();
}

struct BroadcastLowering : OpConversionPattern<tile::BroadcastOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::BroadcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto sourceType = cast<RankedTensorType>(op.getSrc().getType());
    ArrayRef<int64_t> sourceShape = sourceType.getShape();
    ElementMove move;
    move.toSource = [&](const layout::Shape &c) {
      layout::Shape s = c;
      for (size_t d = 0; d < s.size(); ++d)
        if (sourceShape[d] == 1)
          s[d] = 0;
      return s;
    };
    move.sourceIndex = [&](OpBuilder &b, Location loc,
                           ArrayRef<Value> coordinates) {
      SmallVector<Value> s(coordinates);
      for (size_t d = 0; d < s.size(); ++d)
        if (sourceShape[d] == 1)
          s[d] = constantInt(b, loc, s[d].getType(), 0);
      return linearize(b, loc, s, sourceShape);
    };
    return moveElements(op, adaptor.getSrc(), sourceType, op.getType(), move,
                        rewriter);
  }
};

struct ExpandDimsLowering : OpConversionPattern<tile::ExpandDimsOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::ExpandDimsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto sourceType = cast<RankedTensorType>(op.getSrc().getType());
    int64_t axis = op.getAxis();
    ElementMove move;
    move.toSource = [&](const layout::Shape &c) {
      layout::Shape s = c;
      s.erase(s.begin() + axis);
      return s;
    };
    move.sourceIndex = [&](OpBuilder &b, Location loc,
                           ArrayRef<Value> coordinates) {
      SmallVector<Value> s(coordinates);
      s.erase(s.begin() + axis);
      return linearize(b, loc, s, sourceType.getShape());
    };
    return moveElements(op, adaptor.getSrc(), sourceType, op.getType(), move,
                        rewriter);
  }
};

struct ReshapeLowering : OpConversionPattern<tile::ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto sourceType = cast<RankedTensorType>(op.getSrc().getType());
    RankedTensorType resultType = op.getType();
    // Row-major order is what a reshape keeps.
    ElementMove move;
    move.toSource = [&](const layout::Shape &c) {
      int64_t linear = 0;
      for (auto [coordinate, size] : llvm::zip(c, resultType.getShape()))
        linear = linear * size + coordinate;
      layout::Shape s(sourceType.getRank());
      for (int64_t d = sourceType.getRank() - 1; d >= 0; --d) {
        s[d] = linear % sourceType.getDimSize(d);
        linear /= sourceType.getDimSize(d);
      }
      return s;
    };
    move.sourceIndex = [&](OpBuilder &b, Location loc,
                           ArrayRef<Value> coordinates) {
      return linearize(b, loc, coordinates, resultType.getShape());
    };
    return moveElements(op, adaptor.getSrc(), sourceType, resultType, move,
                        rewriter);
  }
};

struct TransLowering : OpConversionPattern<tile::TransOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::TransOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto sourceType = cast<RankedTensorType>(op.getSrc().getType());
    ArrayRef<int32_t> order = op.getOrder();
    // Result dimension i is source dimension order[i].
    ElementMove move;
    move.toSource = [&](const layout::Shape &c) {
      layout::Shape s(c.size());
      for (size_t i = 0; i < c.size(); ++i)
        s[order[i]] = c[i];
      return s;
    };
    move.sourceIndex = [&](OpBuilder &b, Location loc,
                           ArrayRef<Value> coordinates) {
      SmallVector<Value> s(coordinates.size());
      for (size_t i = 0; i < coordinates.size(); ++i)
        s[order[i]] = coordinates[i];
      return linearize(b, loc, s, sourceType.getShape());
    };
    return moveElements(op, adaptor.getSrc(), sourceType, op.getType(), move,
                        rewriter);
  }
};

/// The source goes to shared memory by element; each result register
/// reads the element at its coordinates with the axis's replaced by its
/// index register, clamped into the axis. The result is laid out as the
/// index (tile-assign-layouts).
struct GatherLowering : OpConversionPattern<tile::GatherOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto sourceType = cast<RankedTensorType>(op.getSrc().getType());
    int64_t axis = op.getAxis();
    Value index = adaptor.getIndex();
    SourceIndexFn sourceIndex = [&](OpBuilder &b, Location loc,
                                    ArrayRef<Value> coordinates) {
      SmallVector<Value> at(coordinates);
      auto coordinateType = cast<VectorType>(at[axis].getType());
      auto indexType = cast<VectorType>(index.getType());
      unsigned from = indexType.getElementTypeBitWidth();
      unsigned to = coordinateType.getElementTypeBitWidth();
      // Clamped in the wider of the two types: a boolean index is 0 or 1
      // (Triton's int1 is unsigned), others are signed.
      auto wide = VectorType::get(indexType.getShape(),
                                  b.getIntegerType(std::max(from, to)));
      Value picked = index;
      if (from == 1)
        picked = arith::ExtUIOp::create(b, loc, wide, picked);
      else if (from < to)
        picked = arith::ExtSIOp::create(b, loc, wide, picked);
      auto splat = [&](int64_t value) -> Value {
        return arith::ConstantOp::create(
            b, loc, DenseElementsAttr::get(
                        wide, b.getIntegerAttr(wide.getElementType(), value)));
      };
      picked = arith::MinSIOp::create(
          b, loc, arith::MaxSIOp::create(b, loc, picked, splat(0)),
          splat(sourceType.getDimSize(axis) - 1));
      if (wide != coordinateType)
        picked = arith::TruncIOp::create(b, loc, coordinateType, picked);
      at[axis] = picked;
      return linearize(b, loc, at, sourceType.getShape());
    };
    FailureOr<Value> gathered = redistributeThroughSharedMemory(
        rewriter, op, adaptor.getSrc(), sourceType, op.getType(),
        sourceIndex);
    if (failed(gathered))
      return failure();
    rewriter.replaceOp(op, *gathered);
    return success();
  }
};

/// A 2-D tile that leaves its threads is staged in swizzled shared memory,
/// each thread's runs of a row written and read as vectors (dot operands
/// of 16-bit elements read with ldmatrix); other ranks move element by
/// element.
struct ConvertLayoutLowering
    : OpConversionPattern<tilegpu::ConvertLayoutOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tilegpu::ConvertLayoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto sourceType = cast<RankedTensorType>(op.getSrc().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    auto identity = [](const layout::Shape &c) { return c; };
    if (sourceType.getRank() != 2 ||
        layout::getThreadLocalRegisterMap(
            *getLayout(sourceType), getShape(sourceType),
            *getLayout(resultType), getShape(resultType), identity)) {
      ElementMove move;
      move.toSource = identity;
      move.sourceIndex = [&](OpBuilder &b, Location loc,
                             ArrayRef<Value> coordinates) {
        return linearize(b, loc, coordinates, sourceType.getShape());
      };
      return moveElements(op, adaptor.getSrc(), sourceType, resultType, move,
                          rewriter);
    }
    Location loc = op.getLoc();
    FailureOr<SharedTile> tile =
        stageTile(rewriter, op, adaptor.getSrc(), sourceType);
    if (failed(tile))
      return failure();
    gpu::BarrierOp::create(rewriter, loc);
    FailureOr<Value> loaded = loadSharedTile(rewriter, loc, *tile, resultType);
    if (failed(loaded))
      return failure();
    rewriter.replaceOp(op, *loaded);
    return success();
  }
};

} // namespace

void kiln::tiletogpu::populateShapeOpsToGPUPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ProgramIndexLowering<tile::ProgramIdOp, gpu::BlockIdOp>,
               ProgramIndexLowering<tile::NumProgramsOp, gpu::GridDimOp>,
               RangeLowering, SplatLowering, BroadcastLowering,
               ExpandDimsLowering, ReshapeLowering, TransLowering,
               GatherLowering, ConvertLayoutLowering>(converter,
                                                      patterns.getContext());
}
