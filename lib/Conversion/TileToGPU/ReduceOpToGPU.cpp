//===- ReduceOpToGPU.cpp - tile.reduce to GPU code ------------------------===//
//
// A reduction in three steps: each thread combines the distinct elements
// of a row it holds; the lanes along the axis combine theirs with xor
// shuffles (a butterfly, so every lane ends with the row's value); the
// warps along the axis exchange partial results through shared memory.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "ThreadValues.h"

#include "kiln/Dialect/Tile/IR/TileDialect.h"
#include "kiln/Dialect/TileGPU/IR/ReductionThreads.h"
#include "kiln/Dialect/TileGPU/IR/TileGPUDialect.h"
#include "kiln/Layout/RegisterMap.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include "llvm/Support/MathExtras.h"

#include <map>

using namespace mlir;
using namespace kiln;
using namespace kiln::tiletogpu;

namespace {

struct ReduceLowering : OpConversionPattern<tile::ReduceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto sourceType = cast<RankedTensorType>(op.getSrcs().front().getType());
    int64_t axis = op.getAxis();
    if (failed(checkReduceLowerable(op)))
      return failure();
    std::optional<std::vector<std::vector<int64_t>>> groups =
        layout::getReductionRegisterGroups(getLayout(sourceType),
                                           getShape(sourceType), axis);
    // checkReduceLowerable made sure of both.
    std::string whyNot;
    std::optional<tilegpu::AxisThreads> threads = tilegpu::getAxisThreads(
        sourceType.getEncoding(), sourceType.getShape(), axis, whyNot);
    if (!groups || !threads)
      return failure();

    // Step 1: within the thread; result registers that reduce the same
    // registers (replicas) share one computation.
    std::map<std::vector<int64_t>, SmallVector<Value>> computed;
    SmallVector<SmallVector<Value>> partials;
    for (const std::vector<int64_t> &group : *groups) {
      auto it = computed.find(group);
      if (it == computed.end()) {
        SmallVector<Value> acc = getRegisters(rewriter, loc, adaptor, group[0]);
        for (int64_t reg : ArrayRef(group).drop_front())
          acc = combineValues(rewriter, op.getCombiner(), acc,
                              getRegisters(rewriter, loc, adaptor, reg));
        it = computed.emplace(group, acc).first;
      }
      partials.push_back(it->second);
    }
    // Step 2: across the lanes along the axis.
    for (auto &[group, acc] : computed) {
      for (int64_t step = 1; step < threads->lanes; step *= 2) {
        SmallVector<Value> other;
        for (Value value : acc)
          other.push_back(
              shuffleXor(rewriter, loc, value, step * threads->laneStride));
        acc = combineValues(rewriter, op.getCombiner(), acc, other);
      }
    }
    for (auto [partial, group] : llvm::zip(partials, *groups))
      partial = computed[group];
    // Step 3: across the warps along the axis.
    if (threads->warps > 1 &&
        failed(combineWarps(rewriter, op, *threads, partials)))
      return failure();

    SmallVector<Value> results;
    for (auto [index, result] : llvm::enumerate(op.getResults())) {
      auto resultTensor = dyn_cast<RankedTensorType>(result.getType());
      if (!resultTensor) {
        results.push_back(partials.front()[index]);
        continue;
      }
      SmallVector<Value> registers;
      for (const SmallVector<Value> &partial : partials)
        registers.push_back(partial[index]);
      results.push_back(fromRegisters(
          rewriter, loc,
          cast<VectorType>(getTypeConverter()->convertType(resultTensor)),
          registers));
    }
    rewriter.replaceOp(op, results);
    return success();
  }

private:
  /// Register `reg` of every operand.
  static SmallVector<Value> getRegisters(OpBuilder &b, Location loc,
                                         OpAdaptor adaptor, int64_t reg) {
    SmallVector<Value> values;
    for (Value source : adaptor.getSrcs())
      values.push_back(extractRegister(b, loc, source, reg));
    return values;
  }

  /// Every warp writes its partial rows to its own row of a shared buffer,
  /// then every thread combines the rows of the warps along the axis.
  LogicalResult combineWarps(ConversionPatternRewriter &rewriter,
                             tile::ReduceOp op,
                             const tilegpu::AxisThreads &threads,
                             SmallVector<SmallVector<Value>> &partials) const {
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type();
    // Where each result register's row sits among the results.
    int64_t rows = 1;
    Value rowIndex;
    if (auto resultType =
            dyn_cast<RankedTensorType>(op.getResult(0).getType())) {
      FailureOr<TileCoordinates> coordinates =
          emitTileCoordinates(rewriter, loc, resultType);
      if (failed(coordinates))
        return failure();
      rowIndex =
          linearize(rewriter, loc, coordinates->coordinates,
                    resultType.getShape());
      rows = resultType.getNumElements();
    }
    auto rowOf = [&](int64_t reg) -> Value {
      return rowIndex ? extractRegister(rewriter, loc, rowIndex, reg)
                      : constantInt(rewriter, loc, i32, 0);
    };
    Value warp = getLaneAndWarp(rewriter, loc).second;
    Value warpIndex = arith::RemUIOp::create(
        rewriter, loc,
        arith::DivUIOp::create(
            rewriter, loc, warp,
            constantInt(rewriter, loc, i32, threads.warpStride)),
        constantInt(rewriter, loc, i32, threads.warpsAlong));
    Value rowBase = arith::MulIOp::create(
        rewriter, loc, warpIndex, constantInt(rewriter, loc, i32, rows));

    SmallVector<int64_t> bytes;
    for (Value result : op.getResults())
      bytes.push_back(getStorageBytes(getElementTypeOrSelf(result.getType())) *
                      rows * threads.warpsAlong);
    SmallVector<Value> buffers = allocateSharedMemory(rewriter, op, bytes);
    gpu::BarrierOp::create(rewriter, loc);
    for (auto [reg, partial] : llvm::enumerate(partials)) {
      Value at = arith::AddIOp::create(rewriter, loc, rowBase, rowOf(reg));
      for (auto [buffer, value] : llvm::zip(buffers, partial))
        storeShared(rewriter, loc, buffer, at, value);
    }
    gpu::BarrierOp::create(rewriter, loc);
    for (auto [reg, partial] : llvm::enumerate(partials)) {
      SmallVector<Value> acc;
      for (int64_t w = 0; w < threads.warps; ++w) {
        Value at = arith::AddIOp::create(
            rewriter, loc, rowOf(reg),
            constantInt(rewriter, loc, i32, w * rows));
        SmallVector<Value> row;
        for (auto [buffer, value] : llvm::zip(buffers, partial))
          row.push_back(
              loadShared(rewriter, loc, buffer, at, value.getType()));
        acc = w == 0 ? row
                     : combineValues(rewriter, op.getCombiner(), acc, row);
      }
      partial = acc;
    }
    return success();
  }
};

} // namespace

LogicalResult kiln::tiletogpu::checkReduceLowerable(Operation *op) {
  auto reduce = cast<tile::ReduceOp>(op);
  auto sourceType = cast<RankedTensorType>(reduce.getSrcs().front().getType());
  int64_t axis = reduce.getAxis();
  for (Value source : reduce.getSrcs()) {
    Type element = getElementTypeOrSelf(source.getType());
    if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() > 64)
      return op->emitOpError()
             << "target nvptx: cannot reduce elements of type " << element;
  }
  if (!layout::getReductionRegisterGroups(getLayout(sourceType),
                                          getShape(sourceType), axis))
    return op->emitOpError() << "target nvptx: the rows of " << sourceType
                             << " are not held alike by every thread";
  std::string whyNot;
  if (!tilegpu::getAxisThreads(sourceType.getEncoding(), sourceType.getShape(),
                               axis, whyNot))
    return emitError(op->getLoc()) << "target nvptx: " << whyNot;
  return success();
}

void kiln::tiletogpu::populateReduceOpToGPUPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ReduceLowering>(converter, patterns.getContext());
}
