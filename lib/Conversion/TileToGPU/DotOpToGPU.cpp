//===- DotOpToGPU.cpp - tile.dot with fused multiply-adds -----------------===//
//
// The CUDA-core path of tile.dot, for what tensor cores do not take (and
// until they are lowered): both operands go to shared memory, and each
// thread walks K, multiplying the row of `a` and the column of `b` of every
// accumulator element it holds, one vector fma per step for all of them.
// IEEE products, which is at least as precise as any `input_precision`.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "ThreadValues.h"

#include "kiln/Dialect/Tile/IR/TileDialect.h"
#include "kiln/Dialect/TileGPU/IR/TileGPUDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tiletogpu;

/// Bytes of shared memory the FMA path stages `a` and `b` in.
static int64_t getStagingBytes(tile::DotOp op) {
  int64_t bytes = 0;
  for (Value operand : {op.getA(), op.getB()}) {
    auto type = cast<RankedTensorType>(operand.getType());
    bytes += type.getNumElements() * getStorageBytes(type.getElementType());
  }
  return bytes;
}

LogicalResult kiln::tiletogpu::checkDotLowerable(Operation *op,
                                                 int64_t sharedMemoryLimit) {
  auto dot = cast<tile::DotOp>(op);
  if (tilegpu::runsOnTensorCores(dot))
    return success();
  Type element = getElementTypeOrSelf(dot.getA().getType());
  if (!element.isF16() && !element.isBF16() && !element.isF32() &&
      !element.isF64() && !element.isInteger(8))
    return op->emitOpError()
           << "has no lowering for target nvptx: " << element
           << " products run on wgmma, or on their f16 widenings "
              "(tile-assign-layouts widens them)";
  int64_t bytes = getStagingBytes(dot);
  if (bytes > sharedMemoryLimit)
    return op->emitOpError()
           << "target nvptx: without tensor cores, the operands are staged "
              "in "
           << bytes << " bytes of shared memory, over the "
           << sharedMemoryLimit << " a kernel has; use smaller tiles";
  return success();
}

namespace {

struct DotLowering : OpConversionPattern<tile::DotOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // The pass checked every dot before converting (checkDotLowerable).
    if (tilegpu::runsOnTensorCores(op))
      return failure();
    Location loc = op.getLoc();
    auto aType = cast<RankedTensorType>(op.getA().getType());
    auto bType = cast<RankedTensorType>(op.getB().getType());
    auto accType = cast<RankedTensorType>(op.getAcc().getType());
    int64_t k = aType.getDimSize(1), n = bType.getDimSize(1);
    Type i32 = rewriter.getI32Type();

    FailureOr<TileCoordinates> aAt = emitTileCoordinates(rewriter, loc, aType);
    FailureOr<TileCoordinates> bAt = emitTileCoordinates(rewriter, loc, bType);
    FailureOr<TileCoordinates> accAt =
        emitTileCoordinates(rewriter, loc, accType);
    if (failed(aAt) || failed(bAt) || failed(accAt))
      return failure();

    // Both operands, row-major, in shared memory.
    SmallVector<Value> staged = allocateSharedMemory(
        rewriter, op,
        {aType.getNumElements() * getStorageBytes(aType.getElementType()),
         bType.getNumElements() * getStorageBytes(bType.getElementType())});
    Value aShared = staged[0], bShared = staged[1];
    // The first barrier keeps a loop's next stores from overtaking this
    // iteration's readers.
    gpu::BarrierOp::create(rewriter, loc);
    for (auto [shared, registers, at, type] :
         {std::tuple(aShared, adaptor.getA(), *aAt, aType),
          std::tuple(bShared, adaptor.getB(), *bAt, bType)}) {
      Value index = linearize(rewriter, loc, at.coordinates, type.getShape());
      for (int64_t reg = 0, e = getNumRegisters(type); reg < e; ++reg)
        storeShared(rewriter, loc, shared,
                    extractRegister(rewriter, loc, index, reg),
                    extractRegister(rewriter, loc, registers, reg));
    }
    gpu::BarrierOp::create(rewriter, loc);

    // acc[m, n] += a[m, kk] * b[kk, n], for every kk, all registers at once.
    int64_t registers = getNumRegisters(accType);
    auto accVector = cast<VectorType>(adaptor.getAcc().getType());
    auto indexType = VectorType::get({registers}, i32);
    Value rowStart = arith::MulIOp::create(
        rewriter, loc, accAt->coordinates[0],
        constantInt(rewriter, loc, indexType, k));
    Value column = accAt->coordinates[1];
    Value lower = constantInt(rewriter, loc, i32, 0);
    Value upper = constantInt(rewriter, loc, i32, k);
    Value step = constantInt(rewriter, loc, i32, 1);
    auto loop = scf::ForOp::create(rewriter, loc, lower, upper, step,
                                   ValueRange{adaptor.getAcc()});
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(loop.getBody());
      OpBuilder &b = rewriter;
      Location l = loc;
      Value kk = loop.getInductionVar();
      Value acc = loop.getRegionIterArgs()[0];
      Value kks = vector::BroadcastOp::create(b, l, indexType, kk);
      Value aIndex = arith::AddIOp::create(b, l, rowStart, kks);
      Value bIndex = arith::AddIOp::create(
          b, l, arith::MulIOp::create(b, l, kks, constantInt(b, l, indexType, n)),
          column);
      auto gather = [&](Value shared, Value index, Type element) {
        SmallVector<Value> values;
        for (int64_t reg = 0; reg < registers; ++reg)
          values.push_back(loadShared(b, l, shared,
                                      extractRegister(b, l, index, reg),
                                      element));
        Value gathered = fromRegisters(
            b, l, VectorType::get({registers}, element), values);
        if (element == accVector.getElementType())
          return gathered;
        if (isa<FloatType>(element))
          return Value(arith::ExtFOp::create(b, l, accVector, gathered));
        return Value(arith::ExtSIOp::create(b, l, accVector, gathered));
      };
      Value a = gather(aShared, aIndex, aType.getElementType());
      Value bv = gather(bShared, bIndex, bType.getElementType());
      Value next;
      if (isa<FloatType>(accVector.getElementType()))
        next = math::FmaOp::create(b, l, a, bv, acc);
      else
        next = arith::AddIOp::create(b, l, arith::MulIOp::create(b, l, a, bv),
                                     acc);
      scf::YieldOp::create(b, l, next);
    }
    rewriter.replaceOp(op, loop.getResult(0));
    return success();
  }
};

} // namespace

void kiln::tiletogpu::populateDotOpToGPUPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<DotLowering>(converter, patterns.getContext());
}
