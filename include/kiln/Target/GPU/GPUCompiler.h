//===- GPUCompiler.h - Tile kernels to PTX and cubin ------------*- C++ -*-===//
//
// The whole GPU compilation of a module of tile kernels: the
// kiln-gpu-lowering pipeline, LLVM IR, PTX, and a cubin where there is a
// ptxas (nvptx::findPtxAssembler). kiln-translate, kiln-run and the C API share
// it.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TARGET_GPU_GPUCOMPILER_H
#define KILN_TARGET_GPU_GPUCOMPILER_H

#include "kiln/Runtime/TensorMap.h"
#include "kiln/Target/NVPTX/NVPTXTarget.h"

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace kiln::gpu {

struct GPUCompileOptions {
  /// Warps per program: the kernels' block is numWarps * 32 threads.
  int64_t numWarps = 4;
  /// Depth of the software pipeline of loops feeding tensor cores (1: off).
  int64_t numStages = 3;
  nvptx::TargetOptions target;
  /// Assemble a cubin where there is a ptxas.
  bool assemble = true;
  /// The lowering takes MLIR's pass manager and timing options
  /// (--mlir-print-ir-after-all, --mlir-timing, ...), which the calling
  /// tool registered.
  bool commandLineOptions = false;
  /// Keep the IR after each lowering pass that changes it (GPUBinary's
  /// `passes`).
  bool recordPasses = false;
};

/// What a compilation produced.
struct GPUBinary {
  std::string llvmIR;
  std::string ptx;
  /// Empty where there was no ptxas (or none was asked for): the driver then
  /// compiles the PTX itself.
  std::string cubin;
  /// ptxas's report (registers, spills, shared memory), with the cubin.
  std::string ptxasLog;
  /// Threads per block every kernel was compiled for.
  int64_t threadsPerBlock = 0;
  /// Dynamic shared memory every launch must give (0: the kernels' shared
  /// memory is static).
  int64_t dynamicSharedBytes = 0;
  /// The tensor maps each launch builds for the kernels that copy with
  /// TMA (empty when none does).
  std::vector<runtime::TensorMapSpec> tensorMaps;
  /// Wall-clock seconds of each step of the compile, in order: the MLIR
  /// lowering passes, translation to LLVM IR, LLVM's optimization and PTX
  /// emission, ptxas.
  std::vector<std::pair<std::string, double>> timings;
  /// With GPUCompileOptions::recordPasses, the IR after each lowering pass
  /// that changed it, as --mlir-print-ir-after-change prints it.
  std::string passes;

  /// What the driver loads: the cubin, else the PTX.
  const std::string &getImage() const { return cubin.empty() ? ptx : cubin; }
};

/// Whether `module` still holds tile kernels (func.func) to lower, rather
/// than a gpu.module or LLVM dialect already.
bool hasTileKernels(mlir::ModuleOp module);

/// Lowers the tile kernels of `module` (rewritten in place) to the LLVM and
/// NVVM dialects with kiln-gpu-lowering, for `options.target.chip` (sm_80,
/// sm_90a, ...) with its warps and stages. Diagnostics go to the module's
/// context. `passes`, when given, receives the IR after each pass that
/// changes it.
mlir::LogicalResult lowerTileKernels(mlir::ModuleOp module,
                                     const GPUCompileOptions &options,
                                     llvm::raw_ostream *passes = nullptr);

/// The compute capability (major * 10 + minor) of `chip`, e.g. 90 for
/// sm_90a.
int64_t getCapabilityOfChip(llvm::StringRef chip);

/// Shared memory a block may opt in to on a device of compute capability
/// `capability` (the CUDA programming guide's table: 227 KiB on 9.0,
/// 163 KiB on 8.0, 99 KiB on 8.6), or the static 48 KiB where unknown.
int64_t getMaxSharedBytesPerBlock(int64_t capability);

/// The unit attribute of a tile kernel (func.func) written in Triton's
/// idiom, which links libdevice as Triton does: flushing subnormals
/// (nvptx::TargetOptions::libdeviceFlushesSubnormals). The Python front end
/// sets it; kernels of the array level, which computes as numpy does, do
/// not have it.
inline constexpr llvm::StringLiteral kLibdeviceFtzAttrName =
    "tile.libdevice_ftz";

/// Whether a tile kernel of `module` has kLibdeviceFtzAttrName: then
/// libdevice is linked flushing subnormals for the whole module.
bool hasLibdeviceFtzKernels(mlir::ModuleOp module);

/// Compiles `module` (tile kernels, or already lowered) for `options`;
/// libdevice flushes subnormals where hasLibdeviceFtzKernels says so.
/// Diagnostics go to the module's context; the returned failure has been
/// reported there.
mlir::FailureOr<GPUBinary> compileForGPU(mlir::ModuleOp module,
                                         const GPUCompileOptions &options);

/// The chip Kiln compiles for on a device of compute capability
/// `capability` (major * 10 + minor): sm_90a on Hopper, for wgmma and TMA.
std::string getChipForCapability(int capability);

} // namespace kiln::gpu

#endif // KILN_TARGET_GPU_GPUCOMPILER_H
