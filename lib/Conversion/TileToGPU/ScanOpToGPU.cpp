//===- ScanOpToGPU.cpp - tile.scan to GPU code ----------------------------===//
//
// An inclusive scan as log2(n) rounds of Hillis and Steele through shared
// memory: in round d every element combines the value d places before it
// along the axis (after it, in reverse) with its own. Any layout works, as
// elements are addressed by their coordinates; each round is a store and a
// load per register between barriers.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "ThreadValues.h"

#include "kiln/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tiletogpu;

namespace {

struct ScanLowering : OpConversionPattern<tile::ScanOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::ScanOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getSrcs().front().getType());
    int64_t axis = op.getAxis();
    int64_t size = type.getDimSize(axis);
    // Row-major stride of the axis: how far apart neighbours along it are.
    int64_t stride = 1;
    for (int64_t d = axis + 1; d < type.getRank(); ++d)
      stride *= type.getDimSize(d);
    FailureOr<TileCoordinates> at = emitTileCoordinates(rewriter, loc, type);
    if (failed(at))
      return failure();
    Value linear = linearize(rewriter, loc, at->coordinates, type.getShape());
    Value along = at->coordinates[axis];
    int64_t registers = getNumRegisters(type);

    SmallVector<int64_t> bytes;
    SmallVector<SmallVector<Value>> values(registers);
    for (Value source : adaptor.getSrcs()) {
      Type element = cast<VectorType>(source.getType()).getElementType();
      bytes.push_back(type.getNumElements() * getStorageBytes(element));
      for (int64_t reg = 0; reg < registers; ++reg)
        values[reg].push_back(extractRegister(rewriter, loc, source, reg));
    }
    SmallVector<Value> buffers = allocateSharedMemory(rewriter, op, bytes);
    Type i32 = rewriter.getI32Type();
    for (int64_t distance = 1; distance < size; distance *= 2) {
      gpu::BarrierOp::create(rewriter, loc);
      for (int64_t reg = 0; reg < registers; ++reg) {
        Value index = extractRegister(rewriter, loc, linear, reg);
        for (auto [buffer, value] : llvm::zip(buffers, values[reg]))
          storeShared(rewriter, loc, buffer, index, value);
      }
      gpu::BarrierOp::create(rewriter, loc);
      for (int64_t reg = 0; reg < registers; ++reg) {
        Value index = extractRegister(rewriter, loc, linear, reg);
        Value position = extractRegister(rewriter, loc, along, reg);
        // The partner exists when it is inside the tile.
        Value has = op.getReverse()
                        ? arith::CmpIOp::create(
                              rewriter, loc, arith::CmpIPredicate::slt,
                              position,
                              constantInt(rewriter, loc, i32, size - distance))
                        : arith::CmpIOp::create(
                              rewriter, loc, arith::CmpIPredicate::sge,
                              position, constantInt(rewriter, loc, i32, distance));
        Value offset = constantInt(rewriter, loc, i32,
                                   (op.getReverse() ? 1 : -1) * distance * stride);
        Value partnerIndex = arith::SelectOp::create(
            rewriter, loc, has,
            arith::AddIOp::create(rewriter, loc, index, offset), index);
        SmallVector<Value> partner;
        for (auto [buffer, value] : llvm::zip(buffers, values[reg]))
          partner.push_back(
              loadShared(rewriter, loc, buffer, partnerIndex, value.getType()));
        SmallVector<Value> combined =
            combineValues(rewriter, op.getCombiner(), partner, values[reg]);
        for (auto [value, next] : llvm::zip(values[reg], combined))
          value = arith::SelectOp::create(rewriter, loc, has, next, value);
      }
    }
    SmallVector<Value> results;
    for (auto [index, result] : llvm::enumerate(op.getResults())) {
      SmallVector<Value> scalars;
      for (int64_t reg = 0; reg < registers; ++reg)
        scalars.push_back(values[reg][index]);
      results.push_back(fromRegisters(
          rewriter, loc,
          cast<VectorType>(getTypeConverter()->convertType(result.getType())),
          scalars));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void kiln::tiletogpu::populateScanOpToGPUPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ScanLowering>(converter, patterns.getContext());
}
