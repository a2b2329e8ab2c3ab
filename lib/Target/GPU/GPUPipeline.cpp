//===- GPUPipeline.cpp - Lowering tile kernels for NVIDIA GPUs ------------===//

#include "kiln/Target/GPU/GPUPipeline.h"

#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Tile/Transforms/Passes.h"
#include "kiln/Dialect/TileGPU/Transforms/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void kiln::gpu::buildGPULoweringPipeline(OpPassManager &pm,
                                         const GPULoweringOptions &options) {
  pm.addPass(tile::createTileCheckSizesPass(
      tile::TileCheckSizesPassOptions{options.numWarps * 32}));
  // Without the tensor memory accelerator, block pointers are addresses
  // written another way: their accesses become the pointer accesses the
  // vectorizer and the pipeliner know, as Triton lowers them there.
  if (options.computeCapability < 90)
    pm.addPass(tile::createTileBlockPointersToPointersPass());
  // Among others, `acc + dot(a, b, 0)` becomes `dot(a, b, acc)`: one set of
  // accumulator registers instead of two.
  pm.addPass(createCanonicalizerPass());
  // A persistent kernel's loop over tiles marked `flatten=True` and its K
  // loop become one loop, which the pipeliner then pipelines across tiles.
  pm.addPass(tile::createTileFlattenLoopsPass());
  // What a loop body computes from loop-invariant values alone (the splat
  // of a pointer step, written `ptrs += BLOCK_K * stride` inside the loop)
  // moves before the loop, where the alignment analysis sees it: otherwise
  // the loop's loads look unaligned and are not pipelined.
  pm.addPass(createLoopInvariantCodeMotionPass());
  // Block pointers made in the loop (Triton's tensor descriptors) become
  // loop-carried and advanced, which the pipeliner and TMA take.
  pm.addPass(tile::createTileCarryBlockPointersPass());
  // A 16-bit float accumulator is summed into in f32 and rounded once per
  // dot, on tensor cores, as the host computes it.
  pm.addPass(tilegpu::createTileWidenHalfAccumulatorsPass());
  // tf32x3 runs on tensor cores as three tf32 dots; on CUDA cores the
  // dot is exact f32 already.
  if (options.computeCapability >= 80)
    pm.addPass(tilegpu::createTileSplitTF32x3Pass());
  tilegpu::TileAssignLayoutsPassOptions layouts;
  layouts.numWarps = options.numWarps;
  layouts.computeCapability = options.computeCapability;
  layouts.archSpecific = options.archSpecific;
  pm.addPass(tilegpu::createTileAssignLayoutsPass(layouts));
  // cp.async, which the pipeline is made of, arrived with sm_80.
  if (options.computeCapability >= 80) {
    tilegpu::TilePipelineLoopsPassOptions pipeline;
    pipeline.numStages = options.numStages;
    pipeline.sharedMemoryLimit = options.sharedMemoryLimit;
    // The tensor memory accelerator arrived with sm_90.
    pipeline.tensorMaps = options.computeCapability >= 90;
    // setmaxnreg, which a producer warpgroup gives registers back with,
    // is sm_90a's.
    pipeline.warpSpecialize =
        options.computeCapability >= 90 && options.archSpecific;
    pm.addPass(tilegpu::createTilePipelineLoopsPass(pipeline));
  }
  // Block stores (tensor descriptors' stores) through the same tensor
  // maps, as Triton writes them on Hopper.
  if (options.computeCapability >= 90)
    pm.addPass(tilegpu::createTileTMAStoresPass());
  ConvertTileToGPUPassOptions conversion;
  conversion.sharedMemoryLimit = options.sharedMemoryLimit;
  pm.addPass(createConvertTileToGPUPass(conversion));
  // After the analyses above, which read `offsets % n` as Triton writes it.
  pm.addPass(tile::createTileTotalDivisionPass());
  // sm_89 converts e4m3 and e5m2 in pairs; LLVM has no 8-bit floats to
  // convert the others (or on older chips) with.
  if (options.computeCapability >= 89)
    pm.nest<mlir::gpu::GPUModuleOp>().addPass(createFloat8ToNVVMPass());
  pm.addPass(tile::createTileExpandFloat8Pass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  OpPassManager &kernels = pm.nest<mlir::gpu::GPUModuleOp>();
  kernels.addPass(createSCFToControlFlowPass());
  // Triton's float32 `/` and `exp`, before libdevice would take them.
  kernels.addPass(createApproximateMathToNVVMPass());
  ConvertGpuOpsToNVVMOpsOptions nvvm;
  nvvm.indexBitwidth = 64;
  kernels.addPass(createConvertGpuOpsToNVVMOps(nvvm));
  // convert-gpu-to-nvvm lowers the math ops libdevice has; the integer
  // ones (ctlz, ctpop, 64-bit absi) become LLVM's intrinsics.
  kernels.addPass(createConvertMathToLLVMPass());
  kernels.addPass(createTensorMapParamsPass());
  // NVVM ops written as PTX (wgmma.mma_async) become inline assembly.
  kernels.addPass(createConvertNVVMToLLVMPass());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void kiln::gpu::registerGPULoweringPipeline() {
  PassPipelineRegistration<GPULoweringOptions>(
      "kiln-gpu-lowering",
      "Lower tile kernels to a gpu.module in the LLVM and NVVM dialects",
      buildGPULoweringPipeline);
}

void kiln::gpu::registerGPUDialectExtensions(DialectRegistry &registry) {
  registry.insert<cf::ControlFlowDialect, mlir::gpu::GPUDialect,
                  LLVM::LLVMDialect, NVVM::NVVMDialect, ub::UBDialect,
                  vector::VectorDialect>();
  // convert-gpu-to-nvvm lowers every dialect that offers these.
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  vector::registerConvertVectorToLLVMInterface(registry);
}
