//===- HostPipeline.cpp - Lowering tile kernels for the CPU ---------------===//

#include "kiln/Target/Host/HostPipeline.h"

#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void kiln::host::buildHostLoweringPipeline(
    OpPassManager &pm, const HostLoweringOptions &options) {
  pm.addPass(tile::createTileCheckSizesPass());
  // As on the GPU, so that the host runs (and tests) the loop the GPU's
  // pipeline is built on.
  pm.addPass(tile::createTileFlattenLoopsPass());
  // A CPU traps on x / 0; Kiln's kernels define it as 0.
  pm.addPass(tile::createTileTotalDivisionPass());
  // Nor does it shift or convert out of range as the GPU does.
  pm.addPass(createHostGPUResultsPass());
  // LLVM has no 8-bit floats to convert.
  pm.addPass(tile::createTileExpandFloat8Pass());
  pm.addPass(createConvertPlanToHostPass());
  ConvertTileToHostPassOptions conversion;
  conversion.boundsCheck = options.boundsCheck;
  pm.addPass(createConvertTileToHostPass(conversion));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Before the tiles become linalg ops: a nest of run-time ifs that update
  // a tile is otherwise about n^4 to bufferize.
  pm.addNestedPass<func::FuncOp>(tile::createTileSpeculateIfsPass());
  pm.addNestedPass<func::FuncOp>(createConvertElementwiseToLinalgPass());
  // A loop may carry a tile it computes anew in each iteration (a row
  // kernel's running values over a block of rows), not one updated in
  // place.
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.allowReturnAllocsFromLoops = true;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  // The CPU has no bf16 arithmetic and libgcc no bf16 conversions: expand
  // them to integer operations.
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
  pm.addPass(createHostExactMathPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void kiln::host::registerHostLoweringPipeline() {
  PassPipelineRegistration<HostLoweringOptions>(
      "kiln-host-lowering",
      "Lower tile kernels to the LLVM dialect for the CPU",
      buildHostLoweringPipeline);
}

void kiln::host::registerHostDialectExtensions(DialectRegistry &registry) {
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  linalg::registerBufferizableOpInterfaceExternalModels(registry);
  scf::registerBufferizableOpInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
}
