//===- NVPTXTarget.h - LLVM dialect to PTX and cubin ------------*- C++ -*-===//
//
// The NVIDIA back end of Kiln: a module in the LLVM dialect (with NVVM ops)
// becomes LLVM IR for nvptx64-nvidia-cuda, PTX through LLVM's NVPTX back end,
// and a cubin through ptxas (in process where Kiln has the PTX compiler
// library).
//
// Every option is checked before LLVM sees it, because LLVM answers a chip
// and PTX version it cannot combine with report_fatal_error, which would end
// the process hosting the compiler (a Python interpreter, say).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TARGET_NVPTX_NVPTXTARGET_H
#define KILN_TARGET_NVPTX_NVPTXTARGET_H

#include "mlir/Support/LLVM.h"

#include <memory>
#include <optional>
#include <string>

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
} // namespace llvm

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace kiln::nvptx {

/// What to compile for and how.
struct TargetOptions {
  /// The GPU architecture: sm_80, sm_86, sm_89, sm_90, sm_90a, ...
  std::string chip = "sm_80";
  /// The PTX ISA version, spelled as LLVM's feature: ptx80 is PTX 8.0. Empty
  /// selects the lowest version that supports `chip`.
  std::string ptxVersion;
  /// LLVM's optimization level and ptxas's, 0 to 3.
  unsigned optLevel = 3;
  /// libdevice.10.bc, linked when the module calls `__nv_*` functions. Empty
  /// searches for it (see findLibdevice).
  std::string libdevicePath;
  /// libdevice flushes subnormal inputs and results to zero (its
  /// __nvvm_reflect("__CUDA_FTZ") is 1), as Triton links it by default
  /// (`enable_reflect_ftz`): exp2 is then ex2.approx.ftz.f32, and the other
  /// functions their FTZ forms.
  bool libdeviceFlushesSubnormals = false;
  /// The most registers a kernel's thread may use (PTX's `.maxnreg`, as
  /// Triton's `maxnreg`); 0 leaves the choice to ptxas. A kernel that sets
  /// its own (a warp-specialized one) keeps it.
  unsigned maxRegisters = 0;
  /// A multiply feeding an add may become one fma, as Triton compiles by
  /// default (`enable_fp_fusion`); false rounds each float add and multiply
  /// on its own (LLVM and ptxas both told so).
  bool fpFusion = true;
};

/// Checks that `chip` is known, that `ptxVersion` is well formed, known to
/// LLVM and supports `chip`, and that `optLevel` is in range. On failure
/// `error` says what was wrong in one sentence.
mlir::LogicalResult verifyTargetOptions(const TargetOptions &options,
                                        std::string &error);

/// The PTX version `options` compile for: `ptxVersion`, or the lowest one
/// that supports `chip` when it is empty. The options must be valid.
std::string getPtxVersion(const TargetOptions &options);

/// The NVPTX target machine for `options`, or null with `error` set when the
/// options are invalid.
std::unique_ptr<llvm::TargetMachine>
createTargetMachine(const TargetOptions &options, std::string &error);

/// Translates `module` to optimized LLVM IR for nvptx64-nvidia-cuda. The
/// module is either in the LLVM dialect (with NVVM ops and attributes), or
/// holds exactly one `gpu.module` in the LLVM dialect, which is translated
/// alone (other ops, host code for instance, are ignored). NVVM ops that
/// `chip` lacks are refused here, since LLVM would abort on them. When the
/// module calls `__nv_*` functions, libdevice is linked in, and the functions
/// taken from it become internal. The result is optimized at `optLevel` by
/// LLVM's pipeline for the NVPTX target, which folds libdevice's
/// __nvvm_reflect calls. Failures, LLVM's errors included, are reported as
/// diagnostics, at the op at fault when there is one.
mlir::FailureOr<std::unique_ptr<llvm::Module>>
translateToLLVMIR(mlir::ModuleOp module, llvm::LLVMContext &llvmContext,
                  const TargetOptions &options);

/// Compiles `module` to PTX text with LLVM's NVPTX back end. The module gets
/// the target's triple and data layout, and code generation changes it. On
/// failure `error` says why.
mlir::FailureOr<std::string>
emitPTX(llvm::Module &module, const TargetOptions &options, std::string &error);

/// The libdevice to link: `options.libdevicePath` if it is set, else
/// $KILN_LIBDEVICE if it is set (and nothing else then: a test can make
/// libdevice missing), else the first of
/// $CUDA_HOME/nvvm/libdevice/libdevice.10.bc and
/// /usr/local/cuda/nvvm/libdevice/libdevice.10.bc that exists. With
/// `searched`, lists the places looked at for an error message.
std::optional<std::string> findLibdevice(const TargetOptions &options,
                                         std::string *searched = nullptr);

/// A program of the CUDA toolkit (`name`: "ptxas", "cuobjdump", ...):
/// $KILN_<NAME> if it is set (and nothing else then), else the first
/// executable `name` on PATH, in $CUDA_HOME/bin and in /usr/local/cuda/bin.
/// With `searched`, lists the places looked at. The one search of the
/// toolkit's programs: the Python package asks it through the C API.
std::optional<std::string> findCudaProgram(llvm::StringRef name,
                                           std::string *searched = nullptr);

/// The ptxas to run (findCudaProgram("ptxas")).
std::optional<std::string> findPtxas(std::string *searched = nullptr);

/// The version ("13.0") of the PTX compiler library (nvPTXCompiler: ptxas
/// as a library) Kiln was built with; std::nullopt where it has none.
std::optional<std::string> getPtxCompilerLibraryVersion();

/// What assembleCubin assembles with: the program at $KILN_PTXAS alone
/// where that is set; else ptxas in process, through the PTX compiler
/// library, where Kiln has it; else the program findPtxas finds. Returns
/// it for reports ("ptxas 13.0, in process", or the program's path), or
/// std::nullopt where there is none; `searched` then lists the places
/// looked at.
std::optional<std::string> findPtxAssembler(std::string *searched = nullptr);

/// Assembles `ptx` into a cubin for `options.chip` with findPtxAssembler's
/// choice. With `ptxasLog`, ptxas runs verbosely and its report (registers,
/// spills, shared memory per kernel) is stored there. On failure `error`
/// says why, with what ptxas printed.
mlir::FailureOr<std::string> assembleCubin(llvm::StringRef ptx,
                                           const TargetOptions &options,
                                           std::string &error,
                                           std::string *ptxasLog = nullptr);

/// assembleCubin through the PTX compiler library, whatever $KILN_PTXAS
/// says; fails, saying so, where Kiln was built without it.
mlir::FailureOr<std::string>
assembleCubinInProcess(llvm::StringRef ptx, const TargetOptions &options,
                       std::string &error, std::string *ptxasLog = nullptr);

} // namespace kiln::nvptx

#endif // KILN_TARGET_NVPTX_NVPTXTARGET_H
