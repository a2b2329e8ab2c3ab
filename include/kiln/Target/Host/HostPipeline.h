//===- HostPipeline.h - Lowering tile kernels for the CPU -------*- C++ -*-===//

#ifndef KILN_TARGET_HOST_HOSTPIPELINE_H
#define KILN_TARGET_HOST_HOSTPIPELINE_H

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class DialectRegistry;
class OpPassManager;
} // namespace mlir

namespace kiln::host {

struct HostLoweringOptions
    : mlir::PassPipelineOptions<HostLoweringOptions> {
  Option<bool> boundsCheck{
      *this, "bounds-check",
      llvm::cl::desc("Check every memory access against the launch's arrays"),
      llvm::cl::init(false)};
};

/// Adds the passes that lower a module of tile kernels to the LLVM dialect
/// for the CPU: kiln-convert-tile-to-host, one-shot bufferization with
/// deallocation, linalg to loops, then everything to LLVM.
void buildHostLoweringPipeline(mlir::OpPassManager &pm,
                               const HostLoweringOptions &options);

/// Registers the pipeline as `kiln-host-lowering`.
void registerHostLoweringPipeline();

/// Adds the external models the pipeline needs (bufferization of the
/// upstream dialects, translation of the LLVM dialect to LLVM IR).
void registerHostDialectExtensions(mlir::DialectRegistry &registry);

} // namespace kiln::host

#endif // KILN_TARGET_HOST_HOSTPIPELINE_H
