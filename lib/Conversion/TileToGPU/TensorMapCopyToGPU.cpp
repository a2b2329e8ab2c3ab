//===- TensorMapCopyToGPU.cpp - TMA copies --------------------------------===//
//
// The TMA ops of sm_90. Loads (tile-pipeline-loops' block loads): one
// thread initializes a slot's mbarrier, arrives on it expecting the bytes
// of the slot's copies and starts them (cp.async.bulk.tensor.2d, one per
// slab of the slot's swizzled layout, through the tensor map parameter);
// every thread waits for the phase before reading the slot. Stores
// (tile-tma-stores' block stores): every thread writes its share of the
// tile into swizzled shared memory and fences it into the async proxy,
// then one thread copies each slab out and waits until they are read.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "SharedTile.h"
#include "ThreadValues.h"

#include "kiln/Dialect/Tile/IR/BlockPointerLayout.h"
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

/// `pred` and "this is the one thread that issues for all": thread 0, or
/// in a warp-specialized kernel's producer (`op` is in its region), the
/// producer's first thread, which follows the consumers'.
static Value onIssuingThread(OpBuilder &b, Operation *op, Value pred) {
  Location loc = op->getLoc();
  Value issuing =
      op->getParentOfType<tilegpu::WarpSpecializeOp>()
          ? arith::CmpIOp::create(
                b, loc, arith::CmpIPredicate::eq,
                gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x),
                constantInt(b, loc, b.getIndexType(), getLayoutThreads(op)))
                .getResult()
          : isThreadZero(b, loc);
  return arith::AndIOp::create(b, loc, pred, issuing);
}

/// The tensor map of the kernel parameter `arg` (in the converted kernel)
/// that `op` copies through.
static FailureOr<tilegpu::TensorMapAttr> getTensorMap(Operation *op,
                                                      Value arg) {
  auto param = dyn_cast<BlockArgument>(arg);
  Operation *kernel = param ? param.getOwner()->getParentOp() : nullptr;
  auto maps = kernel ? kernel->getAttrOfType<ArrayAttr>(
                           tilegpu::TensorMapAttr::kAttrName)
                     : nullptr;
  if (maps && param.getOwner()->isEntryBlock())
    for (auto map : maps.getAsRange<tilegpu::TensorMapAttr>())
      if (map.getArgument() == param.getArgNumber())
        return map;
  return op->emitOpError() << "target nvptx: the tensor map is not a "
                              "kernel parameter listed in "
                           << tilegpu::TensorMapAttr::kAttrName;
}

/// Calls `copy` with the shared address and the (column, row) coordinates
/// of each slab of `tile` (the swizzle's width of columns, all rows): one
/// TMA copy each, of the block `blockPtr` points at, through the tensor
/// map parameter `mapArg` of `op`, whose boxes must be those slabs.
static LogicalResult
copySlabs(OpBuilder &b, Operation *op, Value mapArg, const SharedTile &tile,
          Value blockPtr,
          llvm::function_ref<void(Value, ValueRange)> copy) {
  Location loc = op->getLoc();
  FailureOr<tilegpu::TensorMapAttr> map = getTensorMap(op, mapArg);
  if (failed(map))
    return failure();
  const layout::SharedLayout &layout = tile.layout;
  int64_t swizzle = layout.getSwizzleBytes();
  int64_t slabColumns =
      swizzle ? swizzle / layout.getElementBytes() : layout.getColumns();
  if (map->getBox() != ArrayRef<int64_t>{layout.getRows(), slabColumns} ||
      map->getSwizzle() != swizzle)
    return op->emitOpError()
           << "target nvptx: the tensor map's boxes are not the slabs of "
              "the tile's layout ("
           << layout.getRows() << "x" << slabColumns << ", swizzle "
           << swizzle << ")";
  Type i32 = b.getI32Type();
  auto coordinate = [&](int64_t d) {
    return arith::TruncIOp::create(
        b, loc, i32,
        extractRegister(b, loc, blockPtr,
                        tile::BlockPointerLayout(2).offset(d)));
  };
  Value row = coordinate(0), column = coordinate(1);
  int64_t slabBytes =
      layout.getRows() * slabColumns * layout.getElementBytes();
  for (int64_t slab = 0; slab * slabColumns < layout.getColumns(); ++slab) {
    Value slabColumn = arith::AddIOp::create(
        b, loc, column, constantInt(b, loc, i32, slab * slabColumns));
    copy(tile.address(b, loc, constantInt(b, loc, i32, slab * slabBytes)),
         ValueRange{slabColumn, row});
  }
  return success();
}

namespace {

struct InitBarriersLowering : OpConversionPattern<tilegpu::InitBarriersOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tilegpu::InitBarriersOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value first = isThreadZero(rewriter, loc);
    Value count =
        constantInt(rewriter, loc, rewriter.getI32Type(), op.getCount());
    for (int64_t i = 0, e = op.getBarriers().getType().getDimSize(0); i < e;
         ++i)
      NVVM::MBarrierInitOp::create(
          rewriter, loc,
          getBarrier(rewriter, loc, adaptor.getBarriers(),
                     constantInt(rewriter, loc, rewriter.getI32Type(), i)),
          count, first);
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
        onIssuingThread(rewriter, op, adaptor.getPred()));
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
    SharedTile slot = getBufferSlot(rewriter, loc, adaptor.getBuffer(),
                                    op.getBuffer().getType(), adaptor.getSlot());
    Value pred = onIssuingThread(rewriter, op, adaptor.getPred());
    Value barrier = getBarrier(rewriter, loc, adaptor.getBarriers(),
                               adaptor.getSlot());
    // On a launch without clusters the block's shared memory is its
    // cluster's.
    auto cluster = LLVM::LLVMPointerType::get(rewriter.getContext(), 7);
    if (failed(copySlabs(
            rewriter, op, adaptor.getTensorMap(), slot, adaptor.getBlockPtr(),
            [&](Value slab, ValueRange coordinates) {
              NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
                  rewriter, loc,
                  LLVM::AddrSpaceCastOp::create(rewriter, loc, cluster, slab),
                  adaptor.getTensorMap(), coordinates, barrier, ValueRange(),
                  Value(), Value(), NVVM::TMALoadMode::TILE,
                  /*isCTAOnly=*/false, NVVM::CTAGroupKindAttr(), pred);
            })))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

struct TensorMapStoreLowering
    : OpConversionPattern<tilegpu::TensorMapStoreOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tilegpu::TensorMapStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    // TMA applies the swizzle to address bits [4, 10): the staged tile
    // starts on a 1024-byte boundary, as the pipeline's slots do.
    FailureOr<SharedTile> tile =
        stageTile(rewriter, op, adaptor.getValue(),
                  cast<RankedTensorType>(op.getValue().getType()),
                  /*alignment=*/1024);
    if (failed(tile))
      return failure();
    // The copies read the tile through the async proxy.
    NVVM::FenceProxyOp::create(
        rewriter, loc,
        NVVM::ProxyKindAttr::get(op.getContext(), NVVM::ProxyKind::async_shared),
        NVVM::SharedSpaceAttr::get(op.getContext(),
                                   NVVM::SharedSpace::shared_cta));
    gpu::BarrierOp::create(rewriter, loc);
    Value first = isThreadZero(rewriter, loc);
    if (failed(copySlabs(rewriter, op, adaptor.getTensorMap(), *tile,
                         adaptor.getBlockPtr(),
                         [&](Value slab, ValueRange coordinates) {
                           NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
                               rewriter, loc, adaptor.getTensorMap(), slab,
                               coordinates, Value(), NVVM::TMAStoreMode::TILE,
                               first);
                         })))
      return failure();
    // Only the issuing thread has copies in its group; it waits until they
    // have read the tile, before any later barrier lets the memory be
    // written again (or the block exit).
    NVVM::CpAsyncBulkCommitGroupOp::create(rewriter, loc);
    NVVM::CpAsyncBulkWaitGroupOp::create(rewriter, loc,
                                         rewriter.getI32IntegerAttr(0),
                                         rewriter.getUnitAttr());
    rewriter.eraseOp(op);
    return success();
  }
};

struct BarrierArriveLowering : OpConversionPattern<tilegpu::BarrierArriveOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tilegpu::BarrierArriveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    // A release at CTA scope: the thread's reads of the slot happen
    // before the producer's next copies into it.
    NVVM::MBarrierArriveOp::create(
        rewriter, loc, Type(),
        getBarrier(rewriter, loc, adaptor.getBarriers(), adaptor.getIndex()),
        Value());
    rewriter.eraseOp(op);
    return success();
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
  patterns
      .add<InitBarriersLowering, BarrierExpectLowering, BarrierArriveLowering,
           TensorMapCopyLowering, TensorMapStoreLowering, BarrierWaitLowering>(
          converter, patterns.getContext());
}
