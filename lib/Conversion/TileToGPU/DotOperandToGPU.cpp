//===- DotOperandToGPU.cpp - Tiles into mma.sync fragments ----------------===//
//
// tilegpu.convert_layout into a dot operand: the tile is staged in
// swizzled shared memory (SharedTile.h), each thread writing its registers
// as wide as its layout allows, and read back as fragments.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "SharedTile.h"
#include "ThreadValues.h"

#include "kiln/Dialect/TileGPU/IR/TileGPUDialect.h"
#include "kiln/Layout/SharedLayout.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tiletogpu;

namespace {

/// Registers a thread of `layout` holds contiguously along the rows it
/// stores: its block's width along dimension 1 when that is the fastest,
/// at most 16 bytes.
int64_t getStoreWidth(Attribute encoding, int64_t elementBytes) {
  auto blocked = dyn_cast<tilegpu::BlockedEncodingAttr>(encoding);
  if (!blocked || blocked.getOrder()[0] != 1)
    return 1;
  return std::min<int64_t>(blocked.getSizePerThread()[1], 16 / elementBytes);
}

struct DotOperandLowering : OpConversionPattern<tilegpu::ConvertLayoutOp> {
  DotOperandLowering(const TypeConverter &converter, MLIRContext *context)
      : OpConversionPattern(converter, context, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(tilegpu::ConvertLayoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getType());
    auto sourceType = cast<RankedTensorType>(op.getSrc().getType());
    if (!isa<tilegpu::DotOperandEncodingAttr>(resultType.getEncoding()))
      return failure();
    Location loc = op.getLoc();
    Type element = resultType.getElementType();
    int64_t elementBytes = getStorageBytes(element);
    layout::SharedLayout shared = getStagingLayout(resultType);
    SharedTile tile{allocateSharedMemory(rewriter, op, shared.getSizeInBytes()),
                    shared};

    FailureOr<TileCoordinates> from =
        emitTileCoordinates(rewriter, loc, sourceType);
    if (failed(from))
      return failure();
    // The first barrier keeps a loop's next stores from overtaking this
    // iteration's readers.
    gpu::BarrierOp::create(rewriter, loc);
    Value offsets = tile.byteOffset(rewriter, loc, from->coordinates[0],
                                    from->coordinates[1]);
    int64_t width = getStoreWidth(sourceType.getEncoding(), elementBytes);
    for (int64_t reg = 0, e = getNumRegisters(sourceType); reg < e;
         reg += width) {
      SmallVector<Value> values;
      for (int64_t i = 0; i < width; ++i)
        values.push_back(extractRegister(rewriter, loc, adaptor.getSrc(), reg + i));
      Value value = width == 1 ? values.front()
                               : fromRegisters(rewriter, loc,
                                               VectorType::get({width}, element),
                                               values);
      LLVM::StoreOp::create(
          rewriter, loc, value,
          tile.address(rewriter, loc, extractRegister(rewriter, loc, offsets, reg)),
          /*alignment=*/width * elementBytes);
    }
    gpu::BarrierOp::create(rewriter, loc);

    FailureOr<Value> fragments = loadSharedTile(rewriter, loc, tile, resultType);
    if (failed(fragments))
      return failure();
    rewriter.replaceOp(op, *fragments);
    return success();
  }
};

} // namespace

void kiln::tiletogpu::populateDotOperandToGPUPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<DotOperandLowering>(converter, patterns.getContext());
}
