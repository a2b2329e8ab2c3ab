//===- Tile.cpp - Fused kernels to tile kernels and a launch plan ---------===//
//
// kiln-tile: each kernel kiln-fuse outlined becomes a tile kernel, by the
// tiler of its kind: a matmul kernel (TileMatmul.cpp), a row kernel, which
// reduces (TileRows.cpp), or an elementwise one (TileElementwise.cpp). The
// calling function becomes a launch plan (LaunchPlan.cpp).
//
//===----------------------------------------------------------------------===//

#include "kiln/Array/Attributes.h"
#include "kiln/Array/Passes.h"

#include "GeneralizeNamedOps.h"
#include "TiledKernel.h"

#include "kiln/Dialect/Plan/IR/PlanDialect.h"
#include "kiln/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/MathExtras.h"

namespace kiln {
#define GEN_PASS_DEF_KILNTILEPASS
#include "kiln/Array/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;

namespace {
struct KilnTilePass : kiln::impl::KilnTilePassBase<KilnTilePass> {
  using KilnTilePassBase::KilnTilePassBase;

  void runOnOperation() override;
};
} // namespace

/// Fails, with an error, where an operand of `kernel` has more elements
/// than the 32-bit offsets of its tile kernel reach.
static LogicalResult checkOffsets(func::FuncOp kernel) {
  for (Type type : llvm::concat<const Type>(kernel.getArgumentTypes(),
                                            kernel.getResultTypes())) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (tensor && tensor.hasStaticShape() &&
        tensor.getNumElements() > std::numeric_limits<int32_t>::max())
      return kernel.emitError("kiln-tile: kernel '")
             << kernel.getSymName() << "' has an operand of "
             << tensor.getNumElements()
             << " elements; element offsets are 32-bit";
  }
  return success();
}

/// Whether `kernel` is a row kernel: it reduces, or some of its generics
/// run over its rows alone beside others over [rows, columns].
static bool isRowKernel(func::FuncOp kernel) {
  if (hasReductions(kernel))
    return true;
  std::optional<unsigned> loops;
  WalkResult differ = kernel.walk([&](linalg::GenericOp generic) {
    if (loops && *loops != generic.getNumLoops())
      return WalkResult::interrupt();
    loops = generic.getNumLoops();
    return WalkResult::advance();
  });
  return differ.wasInterrupted();
}

void KilnTilePass::runOnOperation() {
  ModuleOp module = getOperation();
  if (block <= 0 || !llvm::isPowerOf2_64(block)) {
    module.emitError("kiln-tile: block must be a power of two, not ")
        << static_cast<int64_t>(block);
    return signalPassFailure();
  }
  if (maxRow <= 0) {
    module.emitError("kiln-tile: max-row must be positive, not ")
        << static_cast<int64_t>(maxRow);
    return signalPassFailure();
  }
  if (rowChunk <= 0 || !llvm::isPowerOf2_64(rowChunk)) {
    module.emitError("kiln-tile: row-chunk must be a power of two, not ")
        << static_cast<int64_t>(rowChunk);
    return signalPassFailure();
  }
  if (rowBlock < 0 ||
      (rowBlock && (!llvm::isPowerOf2_64(rowBlock) || rowBlock > rowChunk))) {
    module.emitError("kiln-tile: row-block must be 0 or a power of two of "
                     "at most row-chunk, not ")
        << static_cast<int64_t>(rowBlock);
    return signalPassFailure();
  }
  for (int64_t size : {int64_t(blockM), int64_t(blockN), int64_t(blockK)})
    if (size < 16 || !llvm::isPowerOf2_64(size)) {
      module.emitError("kiln-tile: matmul blocks must be powers of two of "
                       "at least 16, not ")
          << size;
      return signalPassFailure();
    }
  DenseMap<StringRef, TiledKernel> tiled;
  SmallVector<func::FuncOp> kernels, callers;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func->hasAttr(array::kKernelAttr))
      kernels.push_back(func);
    else if (!func.isExternal())
      callers.push_back(func);
  }
  for (func::FuncOp kernel : kernels) {
    // kiln-fuse generalizes these; a kernel written by hand may have them.
    if (failed(generalizeFixedMapOps(kernel)) || failed(checkOffsets(kernel)))
      return signalPassFailure();
    FailureOr<TiledKernel> result =
        isMatmulKernel(kernel)
            ? tileMatmul(kernel, MatmulBlocks{blockM, blockN, blockK})
        : isRowKernel(kernel) ? tileRows(kernel, maxRow, rowChunk, rowBlock)
                              : tileElementwise(kernel, block);
    if (failed(result))
      return signalPassFailure();
    tiled[kernel.getSymName()] = *result;
  }
  for (func::FuncOp caller : callers)
    if (failed(buildLaunchPlan(caller, tiled)))
      return signalPassFailure();
  for (func::FuncOp kernel : kernels)
    kernel.erase();
}
