//===- kiln-translate.cpp - GPU kernels to LLVM IR, PTX or a cubin --------===//
//
// kiln-translate [FILE] [--emit=llvm|ptx|cubin] [--chip=sm_80]
//                [--ptx-version=ptxNN] [--opt-level=N] [--num-warps=N]
//                [-o OUT]
//                [--ptxas-verbose] [--split-input-file] [--verify-diagnostics]
//
// Reads tile kernels (lowered with kiln-gpu-lowering for --num-warps warps
// per program first), or a module in the LLVM dialect with NVVM ops (alone,
// or as the one gpu.module of the input), from FILE or stdin, and writes
// optimized LLVM IR for nvptx64-nvidia-cuda, PTX (the default) or a cubin
// assembled by ptxas.
// --ptxas-verbose prints ptxas's report (registers, spills) to stderr.
//
//===----------------------------------------------------------------------===//

#include "kiln/InitAll.h"
#include "kiln/Support/CommandLine.h"
#include "kiln/Support/InputLimits.h"
#include "kiln/Support/Version.h"
#include "kiln/Target/GPU/GPUCompiler.h"
#include "kiln/Target/NVPTX/NVPTXTarget.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "mlir/Support/ToolUtilities.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

using namespace mlir;
namespace cl = llvm::cl;
namespace nvptx = kiln::nvptx;

namespace {
enum class Emit { LLVM, PTX, Cubin };
} // namespace

/// The options --help shows: libLLVM registers hundreds of its own.
static cl::OptionCategory toolOptions("kiln-translate options");

static cl::opt<std::string> inputFilename(cl::Positional,
                                          cl::desc("<input .mlir>"),
                                          cl::init("-"), cl::cat(toolOptions));
static cl::opt<std::string> outputFilename("o", cl::desc("Output file"),
                                           cl::value_desc("filename"),
                                           cl::init("-"), cl::cat(toolOptions));
static cl::opt<Emit> emit(
    "emit", cl::desc("What to write"),
    cl::values(clEnumValN(Emit::LLVM, "llvm", "LLVM IR"),
               clEnumValN(Emit::PTX, "ptx", "PTX assembly"),
               clEnumValN(Emit::Cubin, "cubin", "a cubin, assembled by ptxas")),
    cl::init(Emit::PTX), cl::cat(toolOptions));
static cl::opt<std::string> chip("chip", cl::desc("GPU architecture"),
                                 cl::init(nvptx::TargetOptions().chip),
                                 cl::cat(toolOptions));
static cl::opt<std::string>
    ptxVersion("ptx-version",
               cl::desc("PTX ISA version, such as ptx80 (default: the "
                        "lowest one the chip supports)"),
               cl::cat(toolOptions));
static cl::opt<unsigned>
    optLevel("opt-level", cl::desc("Optimization level of LLVM and ptxas"),
             cl::init(nvptx::TargetOptions().optLevel), cl::cat(toolOptions));
static cl::opt<unsigned>
    maxRegisters("maxnreg",
                 cl::desc("The most registers a thread may use (PTX's "
                          ".maxnreg; 0: ptxas chooses)"),
                 cl::init(0), cl::cat(toolOptions));
static cl::opt<bool>
    fpFusion("fp-fusion",
             cl::desc("Let a float multiply feeding an add become one fma "
                      "(Triton's enable_fp_fusion)"),
             cl::init(true), cl::cat(toolOptions));
static cl::opt<bool>
    ptxasVerbose("ptxas-verbose",
                 cl::desc("Print ptxas's report (registers, spills) to "
                          "stderr"),
                 cl::cat(toolOptions));
static cl::opt<bool>
    splitInputFile("split-input-file",
                   cl::desc("Translate each chunk between '// -----' lines "
                            "on its own"),
                   cl::cat(toolOptions));
static cl::opt<bool>
    verifyDiagnostics("verify-diagnostics",
                      cl::desc("Check diagnostics against expected-* "
                               "comments in the input"),
                      cl::cat(toolOptions));

static cl::opt<int64_t> numWarps("num-warps",
                                 cl::desc("Warps per program of tile kernels"),
                                 cl::init(4), cl::cat(toolOptions));

static cl::opt<int64_t>
    numStages("num-stages",
              cl::desc("Depth of the software pipeline of loops feeding "
                       "tensor cores (1 turns it off)"),
              cl::init(3), cl::cat(toolOptions));

/// Brings `module` to the LLVM dialect: tile kernels through Kiln's GPU
/// lowering; anything else must be in the LLVM dialect already (with NVVM
/// ops, possibly inside a gpu.module).
static LogicalResult lowerToLLVMDialect(ModuleOp module) {
  kiln::gpu::GPUCompileOptions options;
  options.numWarps = numWarps;
  options.numStages = numStages;
  options.target.chip = chip;
  options.commandLineOptions = true;
  if (kiln::gpu::hasTileKernels(module) &&
      failed(kiln::gpu::lowerTileKernels(module, options)))
    return failure();
  WalkResult result = module.walk([](Operation *op) {
    if (isa<ModuleOp, gpu::GPUModuleOp>(op) ||
        isa<LLVM::LLVMDialect, NVVM::NVVMDialect>(op->getDialect()))
      return WalkResult::advance();
    op->emitError() << "input must be tile kernels or in the LLVM dialect, "
                       "found '"
                    << op->getName() << "'";
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

/// Translates `module` and writes what --emit asks for to `os`.
static LogicalResult translate(ModuleOp module, nvptx::TargetOptions options,
                               raw_ostream &os) {
  options.libdeviceFlushesSubnormals |=
      kiln::gpu::hasLibdeviceFtzKernels(module);
  if (failed(lowerToLLVMDialect(module)))
    return failure();
  llvm::LLVMContext llvmContext;
  FailureOr<std::unique_ptr<llvm::Module>> llvmModule =
      nvptx::translateToLLVMIR(module, llvmContext, options);
  if (failed(llvmModule))
    return failure();
  if (emit == Emit::LLVM) {
    (*llvmModule)->print(os, nullptr);
    return success();
  }

  std::string error;
  FailureOr<std::string> ptx = nvptx::emitPTX(**llvmModule, options, error);
  if (failed(ptx))
    return emitError(module.getLoc(), error);
  if (emit == Emit::PTX) {
    os << *ptx;
    return success();
  }

  std::string log;
  FailureOr<std::string> cubin =
      nvptx::assembleCubin(*ptx, options, error, ptxasVerbose ? &log : nullptr);
  if (failed(cubin))
    return emitError(module.getLoc(), error);
  llvm::errs() << log;
  os << *cubin;
  return success();
}

/// Parses and translates one input buffer, reporting diagnostics with their
/// file:line:col (or checking them, with --verify-diagnostics).
static LogicalResult processBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer,
                                   raw_ostream &os,
                                   const DialectRegistry &registry,
                                   const nvptx::TargetOptions &options) {
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  MLIRContext context(registry);
  // As mlir-opt does: expected-* comments cannot match the op a diagnostic
  // carries as a note.
  context.printOpOnDiagnostic(!verifyDiagnostics);
  auto parseAndTranslate = [&] {
    if (failed(kiln::checkNestingDepth(sourceMgr, &context)))
      return failure();
    OwningOpRef<ModuleOp> module =
        parseSourceFile<ModuleOp>(sourceMgr, &context);
    return success(module && succeeded(translate(*module, options, os)));
  };
  if (!verifyDiagnostics) {
    SourceMgrDiagnosticHandler handler(sourceMgr, &context);
    return parseAndTranslate();
  }
  SourceMgrDiagnosticVerifierHandler handler(sourceMgr, &context);
  (void)parseAndTranslate();
  return handler.verify();
}

static int fail(const Twine &message) {
  llvm::WithColor::error(llvm::errs(), "kiln-translate") << message << "\n";
  return 1;
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  kiln::registerVersionPrinter();
  kiln::moveOtherOptionsToHelpHidden({&toolOptions});
  // MLIR's debugging options, as kiln-opt takes them: IR printing around
  // the lowering's passes (named as registered), crash reproducers, pass
  // timing, and how IR and diagnostics print.
  kiln::registerAllPasses();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  registerMLIRContextCLOptions();
  registerAsmPrinterCLOptions();
  cl::ParseCommandLineOptions(
      argc, argv,
      "Kiln's translator of GPU kernels to LLVM IR, PTX and "
      "cubins\n");

  nvptx::TargetOptions options;
  options.chip = chip;
  options.ptxVersion = ptxVersion;
  options.optLevel = optLevel;
  options.maxRegisters = maxRegisters;
  options.fpFusion = fpFusion;
  std::string error;
  if (failed(nvptx::verifyTargetOptions(options, error)))
    return fail(error);

  std::unique_ptr<llvm::MemoryBuffer> input =
      kiln::openRegularInputFile(inputFilename, error);
  if (!input)
    return fail(error);
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFilename, &error);
  if (!output)
    return fail(error);
  if (emit == Emit::Cubin && output->os().is_displayed())
    return fail("refusing to write a cubin to a terminal; use -o FILE");

  DialectRegistry registry;
  kiln::registerAllDialects(registry);
  auto processChunk = [&](std::unique_ptr<llvm::MemoryBuffer> chunk,
                          raw_ostream &os) {
    return processBuffer(std::move(chunk), os, registry, options);
  };
  LogicalResult result = failure();
  kiln::runOnLargeStack([&] {
    result = splitInputFile ? splitAndProcessBuffer(std::move(input),
                                                    processChunk, output->os())
                            : processChunk(std::move(input), output->os());
  });
  if (failed(result))
    return 1;
  output->keep();
  return 0;
}
