//===- Pipeline.cpp - An array program to tile kernels and a plan ---------===//

#include "kiln/Array/Pipeline.h"

#include "kiln/Array/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void kiln::buildArrayFusionPipeline(OpPassManager &pm) {
  pm.addNestedPass<func::FuncOp>(createConvertElementwiseToLinalgPass());
  pm.addPass(createKilnFusePass());
}

void kiln::buildArrayTilingPipeline(OpPassManager &pm,
                                    std::unique_ptr<Pass> tile) {
  pm.addPass(tile ? std::move(tile) : createKilnTilePass());
  pm.addPass(createCanonicalizerPass());
}

void kiln::buildArrayPipeline(OpPassManager &pm, std::unique_ptr<Pass> tile) {
  buildArrayFusionPipeline(pm);
  buildArrayTilingPipeline(pm, std::move(tile));
}

void kiln::registerArrayPipeline() {
  // The pipeline's options are kiln-tile's (blocks of the kernels it makes):
  // `kiln-array-pipeline{row-block=4}`.
  registerPassPipeline(
      "kiln-array-pipeline",
      "Fuse an array program into kernels and tile them into tile kernels "
      "and launch plans (options: kiln-tile's)",
      [](OpPassManager &pm, StringRef options,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        std::unique_ptr<Pass> tile = createKilnTilePass();
        if (failed(tile->initializeOptions(options, errorHandler)))
          return failure();
        buildArrayPipeline(pm, std::move(tile));
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)>) {});
}
