//===- TensorMapCopyToGPU.cpp - TMA copies completed on mbarriers ---------===//
//
// The ops tile-pipeline-loops uses for block loads on sm_90: one thread
// initializes a slot's mbarrier, arrives on it expecting the bytes of the
// slot's copies and starts them (cp.async.bulk.tensor.2d, one per slab of
// the slot's swizzled layout, through the tensor map parameter); every
// thread waits for the phase before reading the slot.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "SharedTile.h"
#include "ThreadValues.h"

#include "kiln/Dialect/TileGPU/IR/TileGPUDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tiletogpu;

/// The address of mbarrier `index` (i32) of the buffer at `barriers`.
static Value getBarrier(OpBuilder &b, Location loc, Value barriers,
                        Value index) {
  return LLVM::GEPOp::create(b, loc, barriers.getType(), b.getI64Type(),
                             barriers, ValueRange{index});
}

/// `pred` and "this is thread 0": the one thread that issues for all.
static Value onThreadZero(OpBuilder &b, Location loc, Value pred) {
  return arith::AndIOp::create(b, loc, pred, isThreadZero(b, loc));
}

namespace {

struct InitBarriersLowering : OpConversionPattern<tilegpu::InitBarriersOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tilegpu::InitBarriersOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value first = isThreadZero(rewriter, loc);
    Value one = constantInt(rewriter, loc, rewriter.getI32Type(), 1);
    for (int64_t i = 0, e = op.getBarriers().getType().getDimSize(0); i < e;
         ++i)
      NVVM::MBarrierInitOp::create(
          rewriter, loc,
          getBarrier(rewriter, loc, adaptor.getBarriers(),
                     constantInt(rewriter, loc, rewriter.getI32Type(), i)),
          one, first);
    // The initialization is visible to the async proxy (the copies'
    // completions) and to every thread before any uses the barriers.
    NVVM::FenceMbarrierInitOp::create(rewriter, loc);
    rewriter.replaceOpWithNewOp<gpu::BarrierOp>(op);
    return success();
  }
};

struct BarrierExpectLowering : OpConversionPattern<tilegpu::BarrierExpectOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tilegpu::BarrierExpectOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value barrier = getBarrier(rewriter, loc, adaptor.getBarriers(),
                               adaptor.getIndex());
    NVVM::MBarrierArriveExpectTxOp::create(
        rewriter, loc, Type(), barrier,
        constantInt(rewriter, loc, rewriter.getI32Type(), op.getBytes()),
        NVVM::MemScopeKind::CTA, /*relaxed=*/false,
        onThreadZero(rewriter, loc, adaptor.getPred()));
    rewriter.eraseOp(op);
    return success();
  }
};

struct TensorMapCopyLowering : OpConversionPattern<tilegpu::TensorMapCopyOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tilegpu::TensorMapCopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FailureOr<tilegpu::TensorMapAttr> map =
        getTensorMap(op, adaptor.getTensorMap());
    if (failed(map))
      return failure();
    MemRefType bufferType = op.getBuffer().getType();
    SharedTile slot = getBufferSlot(rewriter, loc, adaptor.getBuffer(),
                                    bufferType, adaptor.getSlot());
    const layout::SharedLayout &layout = slot.layout;
    int64_t swizzle = layout.getSwizzleBytes();
    int64_t slabColumns = swizzle ? swizzle / layout.getElementBytes()
                                  : layout.getColumns();
    if (map->getBox() != ArrayRef<int64_t>{layout.getRows(), slabColumns} ||
        map->getSwizzle() != swizzle)
      return op.emitOpError()
             << "target nvptx: the tensor map's boxes are not the slabs of "
                "the slot's layout ("
             << layout.getRows() << "x" << slabColumns << ", swizzle "
             << swizzle << ")";
    Value pred = onThreadZero(rewriter, loc, adaptor.getPred());
    Value barrier = getBarrier(rewriter, loc, adaptor.getBarriers(),
                               adaptor.getSlot());
    Type i32 = rewriter.getI32Type();
    auto coordinate = [&](int64_t d) {
      return arith::TruncIOp::create(
          rewriter, loc, i32,
          extractRegister(rewriter, loc, adaptor.getBlockPtr(),
                          BlockPointerFields::offset(2, d)));
    };
    Value row = coordinate(0), column = coordinate(1);
    auto cluster = LLVM::LLVMPointerType::get(rewriter.getContext(), 7);
    int64_t slabBytes = layout.getRows() * slabColumns *
                        layout.getElementBytes();
    for (int64_t slab = 0; slab * slabColumns < layout.getColumns(); ++slab) {
      // The copy writes the slab's rows swizzled as the layout says; on a
      // launch without clusters the block's shared memory is its
      // cluster's.
      Value destination = LLVM::AddrSpaceCastOp::create(
          rewriter, loc, cluster,
          slot.address(rewriter, loc,
                       constantInt(rewriter, loc, i32, slab * slabBytes)));
      Value slabColumn = arith::AddIOp::create(
          rewriter, loc, column,
          constantInt(rewriter, loc, i32, slab * slabColumns));
      NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
          rewriter, loc, destination, adaptor.getTensorMap(),
          ValueRange{slabColumn, row}, barrier, ValueRange(), Value(),
          Value(), NVVM::TMALoadMode::TILE, /*isCTAOnly=*/false,
          NVVM::CTAGroupKindAttr(), pred);
    }
    rewriter.eraseOp(op);
    return success();
  }

  /// The tensor map of the kernel parameter `op` copies through (`arg`,
  /// in the converted kernel).
  static FailureOr<tilegpu::TensorMapAttr>
  getTensorMap(tilegpu::TensorMapCopyOp op, Value arg) {
    auto param = dyn_cast<BlockArgument>(arg);
    Operation *kernel =
        param ? param.getOwner()->getParentOp() : nullptr;
    auto maps = kernel ? kernel->getAttrOfType<ArrayAttr>(
                             tilegpu::TensorMapAttr::kAttrName)
                       : nullptr;
    if (maps && param.getOwner()->isEntryBlock())
      for (auto map : maps.getAsRange<tilegpu::TensorMapAttr>())
        if (map.getArgument() == param.getArgNumber())
          return map;
    return op.emitOpError() << "target nvptx: the tensor map is not a "
                               "kernel parameter listed in "
                            << tilegpu::TensorMapAttr::kAttrName;
  }
};

struct BarrierWaitLowering : OpConversionPattern<tilegpu::BarrierWaitOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tilegpu::BarrierWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    // The hint bounds each try's suspension (ns) before the loop retries.
    rewriter.replaceOpWithNewOp<NVVM::MBarrierTryWaitParityOp>(
        op,
        getBarrier(rewriter, loc, adaptor.getBarriers(), adaptor.getIndex()),
        adaptor.getPhase(),
        constantInt(rewriter, loc, rewriter.getI32Type(), 1000000));
    return success();
  }
};

} // namespace

void kiln::tiletogpu::populateTensorMapCopyToGPUPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<InitBarriersLowering, BarrierExpectLowering,
               TensorMapCopyLowering, BarrierWaitLowering>(
      converter, patterns.getContext());
}
