//===- GPUPipeline.h - Lowering tile kernels for NVIDIA GPUs ----*- C++ -*-===//

#ifndef KILN_TARGET_GPU_GPUPIPELINE_H
#define KILN_TARGET_GPU_GPUPIPELINE_H

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class DialectRegistry;
class OpPassManager;
} // namespace mlir

namespace kiln::gpu {

struct GPULoweringOptions : mlir::PassPipelineOptions<GPULoweringOptions> {
  Option<int64_t> numWarps{*this, "num-warps",
                           llvm::cl::desc("Warps per program"),
                           llvm::cl::init(4)};
  Option<int64_t> computeCapability{
      *this, "compute-capability",
      llvm::cl::desc("Compute capability of the target (major * 10 + minor)"),
      llvm::cl::init(80)};
  Option<bool> archSpecific{
      *this, "arch-specific",
      llvm::cl::desc("The target has its architecture-specific features "
                     "(sm_90a: wgmma)"),
      llvm::cl::init(false)};
  Option<int64_t> sharedMemoryLimit{
      *this, "shared-memory-limit",
      llvm::cl::desc("Shared memory a block of the target may have, in "
                     "bytes; beyond 48 KiB kernels use dynamic shared memory"),
      llvm::cl::init(48 * 1024)};
  Option<int64_t> numStages{
      *this, "num-stages",
      llvm::cl::desc("Slots of the software pipeline of loops feeding "
                     "tensor cores (sm_80+); 1 turns it off"),
      llvm::cl::init(3)};
};

/// Adds the passes that lower a module of tile kernels to a gpu.module in
/// the LLVM and NVVM dialects: tile-assign-layouts, tile-pipeline-loops
/// (sm_80+), kiln-convert-tile-to-gpu, then upstream convert-gpu-to-nvvm
/// (math through libdevice calls) and convert-nvvm-to-llvm (wgmma).
void buildGPULoweringPipeline(mlir::OpPassManager &pm,
                              const GPULoweringOptions &options);

/// Registers the pipeline as `kiln-gpu-lowering`.
void registerGPULoweringPipeline();

/// Adds the dialects and the to-LLVM conversion interfaces the pipeline
/// needs.
void registerGPUDialectExtensions(mlir::DialectRegistry &registry);

} // namespace kiln::gpu

#endif // KILN_TARGET_GPU_GPUPIPELINE_H
