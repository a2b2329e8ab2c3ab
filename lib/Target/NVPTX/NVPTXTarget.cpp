//===- NVPTXTarget.cpp - LLVM dialect to LLVM IR and PTX ------------------===//
//
// Target options, the NVPTX target machine, the translation of the LLVM
// dialect to LLVM IR linked with libdevice and optimized, and PTX emission.
//
//===----------------------------------------------------------------------===//

#include "kiln/Target/NVPTX/NVPTXTarget.h"
#include "kiln/Target/NVPTX/ScalarizeMaskLanes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMRequiresSMTraits.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/DiagnosticHandler.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/IPO/Internalize.h"

#include <algorithm>
#include <utility>

using namespace mlir;
using namespace kiln::nvptx;

static constexpr llvm::StringLiteral kTriple = "nvptx64-nvidia-cuda";

namespace {
/// A GPU architecture and the first PTX version that supports it and what
/// Kiln emits for it (the .target directive in the PTX ISA manual, as
/// LLVM 22 picks them; but for sm_90, whose TMA copies and their waits
/// arrived with 8.0 and which LLVM cannot select from 7.8).
struct Chip {
  llvm::StringLiteral name;
  unsigned minPtxVersion;
};
} // namespace

static constexpr Chip kChips[] = {
    {"sm_70", 60},   {"sm_72", 61},   {"sm_75", 63},   {"sm_80", 70},
    {"sm_86", 71},   {"sm_87", 74},   {"sm_88", 90},   {"sm_89", 78},
    {"sm_90", 80},   {"sm_90a", 80},  {"sm_100", 86},  {"sm_100a", 86},
    {"sm_100f", 88}, {"sm_101", 86},  {"sm_101a", 86}, {"sm_101f", 88},
    {"sm_103", 88},  {"sm_103a", 88}, {"sm_103f", 88}, {"sm_110", 90},
    {"sm_110a", 90}, {"sm_110f", 90}, {"sm_120", 87},  {"sm_120a", 87},
    {"sm_120f", 88}, {"sm_121", 88},  {"sm_121a", 88}, {"sm_121f", 88},
};

static const Chip *findChip(StringRef name) {
  const Chip *chip = llvm::find_if(
      kChips, [&](const Chip &chip) { return chip.name == name; });
  return chip == std::end(kChips) ? nullptr : chip;
}

/// The spelling of PTX version `version`, as LLVM's feature: ptx80 for 8.0.
static std::string formatPtxVersion(unsigned version) {
  return "ptx" + std::to_string(version);
}

/// The number of a PTX version spelled "ptxNN" (major and minor digits).
static std::optional<unsigned> parsePtxVersion(StringRef version) {
  unsigned number;
  if (!version.consume_front("ptx") || version.size() < 2 ||
      !llvm::all_of(version, llvm::isDigit) || version.getAsInteger(10, number))
    return std::nullopt;
  return number;
}

static void initializeNVPTX() {
  [[maybe_unused]] static const bool initialized = [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    return true;
  }();
}

static const llvm::Target &getNVPTXTarget() {
  initializeNVPTX();
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(llvm::Triple(kTriple), error);
  assert(target && "LLVM is built without the NVPTX target");
  return *target;
}

LogicalResult kiln::nvptx::verifyTargetOptions(const TargetOptions &options,
                                               std::string &error) {
  const Chip *chip = findChip(options.chip);
  if (!chip) {
    error = "unknown chip '" + options.chip + "' (known chips: " +
            llvm::join(llvm::map_range(kChips,
                                       [](const Chip &chip) -> StringRef {
                                         return chip.name;
                                       }),
                       ", ") +
            ")";
    return failure();
  }
  if (options.optLevel > 3) {
    error = "optimization level " + std::to_string(options.optLevel) +
            " is out of range (0 to 3)";
    return failure();
  }
  if (options.ptxVersion.empty())
    return success();

  std::optional<unsigned> version = parsePtxVersion(options.ptxVersion);
  if (!version) {
    error = "malformed PTX version '" + options.ptxVersion +
            "' (expected 'ptx' and the major and minor digits, such as ptx80)";
    return failure();
  }
  // A feature LLVM does not know would only be warned about and ignored.
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget(
      getNVPTXTarget().createMCSubtargetInfo(llvm::Triple(kTriple),
                                             options.chip, ""));
  unsigned newest = 0;
  bool known = false;
  for (const llvm::SubtargetFeatureKV &feature :
       subtarget->getAllProcessorFeatures()) {
    std::optional<unsigned> featureVersion = parsePtxVersion(feature.Key);
    if (!featureVersion)
      continue;
    newest = std::max(newest, *featureVersion);
    known |= *featureVersion == *version;
  }
  if (!known) {
    error = "PTX version " + options.ptxVersion +
            " is unknown to LLVM's NVPTX back end (the newest it knows is " +
            formatPtxVersion(newest) + ")";
    return failure();
  }
  if (*version < chip->minPtxVersion) {
    error = "PTX version " + options.ptxVersion + " is too old for chip " +
            options.chip + ", which needs " +
            formatPtxVersion(chip->minPtxVersion) + " or newer";
    return failure();
  }
  return success();
}

std::string kiln::nvptx::getPtxVersion(const TargetOptions &options) {
  if (!options.ptxVersion.empty())
    return options.ptxVersion;
  const Chip *chip = findChip(options.chip);
  assert(chip && "target options must be verified");
  return formatPtxVersion(chip->minPtxVersion);
}

/// Makes the NVPTX target address shared, constant and local memory with
/// 32-bit pointers, as Triton does: shared addresses then take one register
/// instead of two (and inline PTX takes them as such). The option is the
/// NVPTX backend's own (a process-wide command-line option), set once
/// before the first target machine; false if this LLVM lacks it.
static bool useShortPointers() {
  static const bool set = [] {
    auto &registered = llvm::cl::getRegisteredOptions();
    auto found = registered.find("nvptx-short-ptr");
    if (found == registered.end())
      return false;
    static_cast<llvm::cl::opt<bool> *>(found->second)->setValue(true);
    return true;
  }();
  return set;
}

std::unique_ptr<llvm::TargetMachine>
kiln::nvptx::createTargetMachine(const TargetOptions &options,
                                 std::string &error) {
  if (failed(verifyTargetOptions(options, error)))
    return nullptr;
  if (!useShortPointers()) {
    error = "LLVM's NVPTX target has no nvptx-short-ptr option, which "
            "Kiln's code for 32-bit shared addresses needs";
    return nullptr;
  }
  // With fusion, a multiply feeding an add may become one fma (and ptxas
  // may contract them: NVPTX then emits no .rn); without, NVPTX marks every
  // float add and multiply .rn, which ptxas never contracts.
  llvm::TargetOptions machineOptions;
  machineOptions.AllowFPOpFusion =
      options.fpFusion ? llvm::FPOpFusion::Fast : llvm::FPOpFusion::Strict;
  // The PTX version is always given, so that LLVM never picks its own.
  return std::unique_ptr<llvm::TargetMachine>(
      getNVPTXTarget().createTargetMachine(
          llvm::Triple(kTriple), options.chip, "+" + getPtxVersion(options),
          machineOptions, std::nullopt, std::nullopt,
          *llvm::CodeGenOpt::getLevel(options.optLevel)));
}

namespace {
/// Collects the errors LLVM reports through an LLVMContext while it lives.
/// Without a handler of its own, LLVMContext prints an error and exits the
/// process. Warnings and remarks are dropped.
class LLVMErrorCollector {
public:
  explicit LLVMErrorCollector(llvm::LLVMContext &context)
      : context(context), previous(context.getDiagnosticHandler()) {
    context.setDiagnosticHandler(std::make_unique<Handler>(errors));
  }
  ~LLVMErrorCollector() { context.setDiagnosticHandler(std::move(previous)); }

  /// The errors so far, separated by "; ", or an empty string.
  std::string takeErrors() { return std::exchange(errors, {}); }

private:
  struct Handler : llvm::DiagnosticHandler {
    explicit Handler(std::string &errors) : errors(errors) {}
    bool handleDiagnostics(const llvm::DiagnosticInfo &info) override {
      if (info.getSeverity() != llvm::DS_Error)
        return true;
      if (!errors.empty())
        errors += "; ";
      llvm::raw_string_ostream os(errors);
      llvm::DiagnosticPrinterRawOStream printer(os);
      info.print(printer);
      return true;
    }
    std::string &errors;
  };

  llvm::LLVMContext &context;
  std::unique_ptr<llvm::DiagnosticHandler> previous;
  std::string errors;
};
} // namespace

/// The functions `module` calls that libdevice is to define: those
/// declared, used and named __nv_*.
static SmallVector<const llvm::Function *>
findLibdeviceCalls(const llvm::Module &module) {
  SmallVector<const llvm::Function *> calls;
  for (const llvm::Function &function : module.functions())
    if (function.isDeclaration() && !function.use_empty() &&
        function.getName().starts_with("__nv_"))
      calls.push_back(&function);
  return calls;
}

/// `type` as LLVM prints it, for a message.
static std::string printType(const llvm::Type *type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type->print(os);
  return text;
}

/// Links into `llvmModule`, translated from `root`, the libdevice functions
/// it calls, as internal functions so that those inlined everywhere
/// disappear. Errors point at the declaration of the function concerned
/// (the first one, for libdevice as a whole).
static LogicalResult linkLibdevice(Operation *root, llvm::Module &llvmModule,
                                   const TargetOptions &options) {
  SmallVector<const llvm::Function *> calls = findLibdeviceCalls(llvmModule);
  if (calls.empty())
    return success();
  auto locate = [&](const llvm::Function *function) {
    Operation *declaration =
        SymbolTable::lookupSymbolIn(root, function->getName());
    return declaration ? declaration->getLoc() : root->getLoc();
  };
  Location loc = locate(calls.front());
  std::string searched;
  std::optional<std::string> path = findLibdevice(options, &searched);
  if (!path)
    return emitError(loc)
           << "'" << calls.front()->getName()
           << "' comes from libdevice, which was not found (searched "
           << searched << ")";

  // Read lazily: the linker materializes only the functions it takes, a
  // few of libdevice's hundreds (parsing all of it cost ~25 ms a compile).
  llvm::SMDiagnostic diagnostic;
  std::unique_ptr<llvm::Module> libdevice =
      llvm::getLazyIRFileModule(*path, diagnostic, llvmModule.getContext());
  if (!libdevice)
    return emitError(loc) << "cannot read libdevice from " << *path << ": "
                          << diagnostic.getMessage();
  // libdevice is built for a triple of its own (nvptx64-nvidia-gpulibs);
  // taking the module's keeps the linker from warning about the mismatch.
  libdevice->setTargetTriple(llvmModule.getTargetTriple());
  libdevice->setDataLayout(llvmModule.getDataLayout());
  // A name libdevice lacks would reach ptxas as an unresolved call, and
  // one of other types would be linked as a call through the wrong
  // prototype (tile.extern_elementwise names functions as it likes).
  for (const llvm::Function *call : calls) {
    const llvm::Function *definition = libdevice->getFunction(call->getName());
    if (!definition)
      return emitError(locate(call))
             << "'" << call->getName() << "' is not a libdevice function ("
             << *path << " has none of that name)";
    if (definition->getFunctionType() != call->getFunctionType())
      return emitError(locate(call))
             << "'" << call->getName() << "' is called as '"
             << printType(call->getFunctionType())
             << "', but libdevice defines it as '"
             << printType(definition->getFunctionType()) << "'";
  }
  if (llvm::Linker::linkModules(
          llvmModule, std::move(libdevice), llvm::Linker::LinkOnlyNeeded,
          [](llvm::Module &linked, const llvm::StringSet<> &imported) {
            llvm::internalizeModule(
                linked, [&](const llvm::GlobalValue &value) {
                  return !value.hasName() ||
                         !imported.contains(value.getName());
                });
          }))
    return emitError(loc) << "cannot link libdevice from " << *path;
  return success();
}

/// The chips that satisfy `required`, for an error message: "sm_90a",
/// "sm_100a or sm_101a", "sm_80 or newer".
static std::string describe(const NVVM::NVVMCheckSMVersion &required) {
  if (!required.archAccelerated)
    return "sm_" + std::to_string(required.smVersionList.front()) + " or newer";
  return llvm::join(llvm::map_range(required.smVersionList,
                                    [](int version) {
                                      return "sm_" + std::to_string(version) +
                                             "a";
                                    }),
                    " or ");
}

/// Checks that `chip` has what the NVVM ops of `root` need: LLVM aborts on
/// an instruction it cannot select for the chip.
static LogicalResult verifyChipSupportsOps(Operation *root, StringRef chip) {
  NVVM::NVVMCheckSMVersion target =
      NVVM::NVVMCheckSMVersion::getTargetSMVersionFromStr(chip);
  WalkResult result = root->walk([&](Operation *op) {
    std::optional<NVVM::NVVMCheckSMVersion> required;
    if (auto needs = dyn_cast<NVVM::RequiresSMInterface>(op))
      required = needs.getRequiredMinSMVersion();
    // The async proxy's fences (before wgmma and TMA) and the mbarrier
    // operations TMA completes on came with sm_90; upstream's ops do not
    // say so.
    else if (auto fence = dyn_cast<NVVM::FenceProxyOp>(op);
             (fence && fence.getKind() != NVVM::ProxyKind::alias &&
              fence.getKind() != NVVM::ProxyKind::GENERIC) ||
             isa<NVVM::FenceMbarrierInitOp, NVVM::MBarrierArriveExpectTxOp,
                 NVVM::MBarrierExpectTxOp, NVVM::MBarrierCompleteTxOp,
                 NVVM::MBarrierTryWaitParityOp>(op))
      required = NVVM::NVVMCheckSMVersion(/*archAccelerated=*/false, 90);
    if (!required)
      return WalkResult::advance();
    if (required->isCompatibleWith(target))
      return WalkResult::advance();
    op->emitError() << "'" << op->getName() << "' needs " << describe(*required)
                    << ", but the target chip is " << chip;
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

/// Runs LLVM's default pipeline at `optLevel` with the passes the target
/// adds to it (NVVMReflect among them), and mask lanes computed as scalars
/// after each InstCombine.
static void optimize(llvm::Module &llvmModule, llvm::TargetMachine &machine,
                     unsigned optLevel) {
  llvm::LoopAnalysisManager loopAnalyses;
  llvm::FunctionAnalysisManager functionAnalyses;
  llvm::CGSCCAnalysisManager cgsccAnalyses;
  llvm::ModuleAnalysisManager moduleAnalyses;
  llvm::PassBuilder builder(&machine);
  builder.registerModuleAnalyses(moduleAnalyses);
  builder.registerCGSCCAnalyses(cgsccAnalyses);
  builder.registerFunctionAnalyses(functionAnalyses);
  builder.registerLoopAnalyses(loopAnalyses);
  builder.crossRegisterProxies(loopAnalyses, functionAnalyses, cgsccAnalyses,
                               moduleAnalyses);
  builder.registerPeepholeEPCallback(
      [](llvm::FunctionPassManager &passes, llvm::OptimizationLevel) {
        passes.addPass(kiln::nvptx::ScalarizeMaskLanesPass());
      });

  const llvm::OptimizationLevel levels[] = {
      llvm::OptimizationLevel::O0, llvm::OptimizationLevel::O1,
      llvm::OptimizationLevel::O2, llvm::OptimizationLevel::O3};
  llvm::ModulePassManager passes =
      optLevel == 0 ? builder.buildO0DefaultPipeline(levels[0])
                    : builder.buildPerModuleDefaultPipeline(levels[optLevel]);
  passes.run(llvmModule, moduleAnalyses);
}

FailureOr<std::unique_ptr<llvm::Module>>
kiln::nvptx::translateToLLVMIR(ModuleOp module, llvm::LLVMContext &llvmContext,
                               const TargetOptions &options) {
  std::string error;
  std::unique_ptr<llvm::TargetMachine> machine =
      createTargetMachine(options, error);
  if (!machine)
    return emitError(module.getLoc(), error);

  Operation *root = module;
  auto gpuModules = module.getOps<gpu::GPUModuleOp>();
  if (size_t count = llvm::range_size(gpuModules); count > 1)
    return emitError((*std::next(gpuModules.begin())).getLoc())
           << "expected one gpu.module to translate, found " << count;
  if (!gpuModules.empty())
    root = *gpuModules.begin();

  if (failed(verifyChipSupportsOps(root, options.chip)))
    return failure();

  DialectRegistry registry;
  registerBuiltinDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  module->getContext()->appendDialectRegistry(registry);

  LLVMErrorCollector llvmErrors(llvmContext);
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(root, llvmContext, "kiln");
  if (!llvmModule)
    return failure();
  llvmModule->setTargetTriple(machine->getTargetTriple());
  llvmModule->setDataLayout(machine->createDataLayout());
  if (failed(linkLibdevice(root, *llvmModule, options)))
    return failure();
  // A warp-specialized kernel keeps its own limit, which its setmaxnreg
  // instructions are counted from.
  if (options.maxRegisters)
    for (llvm::Function &function : *llvmModule)
      if (function.getCallingConv() == llvm::CallingConv::PTX_Kernel &&
          !function.hasFnAttribute("nvvm.maxnreg"))
        function.addFnAttr("nvvm.maxnreg",
                           std::to_string(options.maxRegisters));
  // NVVMReflect reads __CUDA_FTZ from this flag.
  if (options.libdeviceFlushesSubnormals)
    llvmModule->addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", 1);
  optimize(*llvmModule, *machine, options.optLevel);
  if (std::string errors = llvmErrors.takeErrors(); !errors.empty())
    return emitError(root->getLoc(), errors);
  return llvmModule;
}

FailureOr<std::string> kiln::nvptx::emitPTX(llvm::Module &module,
                                            const TargetOptions &options,
                                            std::string &error) {
  std::unique_ptr<llvm::TargetMachine> machine =
      createTargetMachine(options, error);
  if (!machine)
    return failure();
  module.setTargetTriple(machine->getTargetTriple());
  module.setDataLayout(machine->createDataLayout());

  // Code generation assumes valid IR and crashes on anything else.
  std::string verifierMessage;
  llvm::raw_string_ostream verifierOut(verifierMessage);
  if (llvm::verifyModule(module, &verifierOut)) {
    error = "invalid LLVM IR: " + StringRef(verifierMessage).trim().str();
    return failure();
  }

  LLVMErrorCollector llvmErrors(module.getContext());
  llvm::SmallString<0> ptx;
  llvm::raw_svector_ostream ptxOut(ptx);
  llvm::legacy::PassManager passes;
  if (machine->addPassesToEmitFile(passes, ptxOut, nullptr,
                                   llvm::CodeGenFileType::AssemblyFile)) {
    error = "LLVM's NVPTX back end cannot emit PTX";
    return failure();
  }
  passes.run(module);
  if (std::string errors = llvmErrors.takeErrors(); !errors.empty()) {
    error = "cannot compile to PTX: " + errors;
    return failure();
  }
  return ptx.str().str();
}
