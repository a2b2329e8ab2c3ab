//===- SpecializeArguments.cpp - Launch facts about kernel arguments ------===//

#include "kiln/Dialect/TileGPU/Transforms/Passes.h"

#include "kiln/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/Support/MathExtras.h"

#define DEBUG_TYPE "tile-specialize-arguments"

namespace kiln::tilegpu {
#define GEN_PASS_DEF_TILESPECIALIZEARGUMENTSPASS
#include "kiln/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace kiln::tilegpu

using namespace mlir;
using namespace kiln;

namespace {
struct TileSpecializeArgumentsPass
    : tilegpu::impl::TileSpecializeArgumentsPassBase<
          TileSpecializeArgumentsPass> {
  using TileSpecializeArgumentsPassBase::TileSpecializeArgumentsPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (by <= 0 || !llvm::isPowerOf2_64(by)) {
      module.emitError() << "tile-specialize-arguments: by=" << by.getValue()
                         << " is not a power of two";
      return signalPassFailure();
    }
    bool found = kernel.empty();
    for (auto func : module.getOps<func::FuncOp>()) {
      // A declaration is no kernel: nothing is launched with it.
      if (func.isExternal() || (!kernel.empty() && func.getName() != kernel))
        continue;
      found = true;
      for (int64_t index : divisible) {
        if (index < 0 || index >= func.getNumArguments()) {
          func.emitError() << "tile-specialize-arguments: no argument "
                           << index << " (the kernel takes "
                           << func.getNumArguments() << ")";
          return signalPassFailure();
        }
        Type type = func.getArgumentTypes()[index];
        if (!isa<tile::PointerType, IntegerType>(type)) {
          func.emitError() << "tile-specialize-arguments: argument " << index
                           << " is " << type
                           << ", neither a pointer nor an integer";
          return signalPassFailure();
        }
        func.setArgAttr(index, tile::TileDialect::getDivisibilityAttrName(),
                        IntegerAttr::get(IntegerType::get(&getContext(), 64),
                                         by));
      }
    }
    if (!found) {
      module.emitError() << "tile-specialize-arguments: no kernel named '"
                         << kernel.getValue() << "'";
      signalPassFailure();
    }
  }
};
} // namespace
