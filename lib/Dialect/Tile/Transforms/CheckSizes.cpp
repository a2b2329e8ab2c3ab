//===- CheckSizes.cpp - Refuse tiles too large to compile -----------------===//
//
// Code generation unrolls the elements of a tile (per thread on the GPU, in
// element loops on the host, in constants everywhere), so a tile of a
// billion elements made LLVM abort and one of a million never finished
// compiling for the GPU. Each target checks first and names the tile.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"

#define DEBUG_TYPE "tile-check-sizes"

namespace kiln::tile {
#define GEN_PASS_DEF_TILECHECKSIZESPASS
#include "kiln/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace kiln::tile

using namespace mlir;

/// The most elements a tile has: Triton's TRITON_MAX_TENSOR_NUMEL.
static constexpr int64_t kMaxTileElements = int64_t(1) << 20;

/// The most elements of one tile a GPU thread holds.
static constexpr int64_t kMaxElementsPerThread = 1024;

namespace {
struct TileCheckSizesPass
    : kiln::tile::impl::TileCheckSizesPassBase<TileCheckSizesPass> {
  using TileCheckSizesPassBase::TileCheckSizesPassBase;

  void runOnOperation() override {
    bool tooLarge = false;
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      func.walk([&](Operation *op) {
        for (Type type : llvm::concat<const Type>(op->getOperandTypes(),
                                                  op->getResultTypes()))
          if (auto tensor = dyn_cast<RankedTensorType>(type);
              tensor && tensor.hasStaticShape() && failed(check(op, tensor))) {
            tooLarge = true;
            return WalkResult::interrupt();
          }
        return WalkResult::advance();
      });
    }
    if (tooLarge)
      signalPassFailure();
  }

  LogicalResult check(Operation *op, RankedTensorType tensor) const {
    int64_t elements = tensor.getNumElements(), threads = this->threads;
    if (elements > kMaxTileElements)
      return op->emitOpError()
             << "tile of " << elements << " elements (" << tensor
             << ") is more than the " << kMaxTileElements
             << " a tile may have";
    if (threads > 0 && elements / threads > kMaxElementsPerThread)
      return op->emitOpError()
             << "tile of " << elements << " elements (" << tensor
             << ") is " << elements / threads << " per thread with "
             << threads << " threads, more than the "
             << kMaxElementsPerThread
             << " the GPU lowering takes (use more warps or a smaller block)";
    return success();
  }
};
} // namespace
