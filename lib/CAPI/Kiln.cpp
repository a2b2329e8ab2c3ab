//===- Kiln.cpp - The Kiln C API ------------------------------------------===//

#include "kiln-c/Kiln.h"

#include "kiln/Array/LaunchPlan.h"
#include "kiln/Dialect/Plan/IR/PlanDialect.h"
#include "kiln/InitAll.h"
#include "kiln/Runtime/CudaDriver.h"
#include "kiln/Runtime/PlanExecutor.h"
#include "kiln/Support/InputLimits.h"
#include "kiln/Target/GPU/GPUCompiler.h"
#include "kiln/Target/Host/HostExecutable.h"
#include "kiln/Target/NVPTX/NVPTXTarget.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"

#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

using namespace mlir;

struct KilnError {
  std::string message;
  /// Owns the strings that `diagnostics` point into.
  std::vector<std::pair<std::string, std::string>> storage;
  std::vector<KilnDiagnostic> diagnostics;
};

struct KilnContext {
  /// Kiln's modules hold a kernel or a few, whose passes gain nothing from
  /// MLIR's thread pool and pay for it (a tenth of a small kernel's pass
  /// time); a context is used by one thread at a time.
  MLIRContext context{MLIRContext::Threading::DISABLED};
};

struct KilnModule {
  KilnContext *context;
  OwningOpRef<ModuleOp> module;
  std::string text;
  /// Argument types of kernels, printed, by kernel name.
  llvm::StringMap<std::vector<std::string>> argumentTypes;
  /// Printed function attributes, by "function/attribute".
  llvm::StringMap<std::string> attributes;
  /// The last pipeline run's remarks (DiagnosticCollector::takeRemarks).
  std::string remarks;
};

struct KilnHostExecutable {
  std::unique_ptr<kiln::host::HostExecutable> executable;
  /// The "description" artifact, made when first asked for.
  std::string description;
};

struct KilnGPUBinary {
  explicit KilnGPUBinary(kiln::gpu::GPUBinary compiled)
      : binary(std::move(compiled)),
        tensorMaps(kiln::runtime::printTensorMapSpecs(binary.tensorMaps)) {
    llvm::raw_string_ostream os(timings);
    for (const auto &[step, seconds] : binary.timings)
      os << step << "\t" << llvm::format("%.6f", seconds) << "\n";
  }

  kiln::gpu::GPUBinary binary;
  /// The "tensor-maps" artifact: binary.tensorMaps as text.
  std::string tensorMaps;
  /// The "remarks" artifact: the compile's remarks and warnings.
  std::string remarks;
  /// The "timings" artifact: each step's seconds, a tab-separated line.
  std::string timings;
};

struct KilnCudaModule {
  // Declared first, destroyed last: the module unloads while the device
  // still holds the context it lives in.
  std::unique_ptr<kiln::runtime::Device> device;
  std::unique_ptr<kiln::runtime::Module> module;
  unsigned threadsPerBlock;
  unsigned dynamicSharedBytes;
};

namespace {
/// Collects the diagnostics emitted in a context while it is alive, instead
/// of printing them.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext &context)
      : handler(&context, [this](Diagnostic &diag) {
          record(diag);
          for (Diagnostic &note : diag.getNotes())
            record(note);
          return success();
        }) {}

  /// A new error with `message` and the diagnostics collected so far.
  KilnError *takeError(std::string message) {
    auto *error = new KilnError{std::move(message), std::move(records), {}};
    error->diagnostics.reserve(error->storage.size());
    for (auto [i, strings] : llvm::enumerate(error->storage)) {
      KilnDiagnostic diag = locations[i];
      diag.file = strings.first.c_str();
      diag.message = strings.second.c_str();
      error->diagnostics.push_back(diag);
    }
    return error;
  }

  /// The remarks and warnings collected so far, one JSON object a line
  /// (severity, file, line, column, message): why a loop was not
  /// pipelined, why a dot is not on wgmma, ...
  std::string takeRemarks() const {
    std::string lines;
    llvm::raw_string_ostream os(lines);
    for (auto [where, text] : llvm::zip(locations, records)) {
      if (where.severity != KILN_SEVERITY_REMARK &&
          where.severity != KILN_SEVERITY_WARNING)
        continue;
      os << llvm::json::Value(llvm::json::Object{
                {"severity", where.severity == KILN_SEVERITY_REMARK
                                 ? "remark"
                                 : "warning"},
                {"file", text.first},
                {"line", where.line},
                {"column", where.column},
                {"message", text.second}})
         << "\n";
    }
    return lines;
  }

private:
  void record(Diagnostic &diag) {
    KilnDiagnostic out{};
    out.severity = severityOf(diag.getSeverity());
    std::string file;
    if (auto loc = diag.getLocation()->findInstanceOf<FileLineColLoc>()) {
      file = loc.getFilename().str();
      out.line = loc.getLine();
      out.column = loc.getColumn();
    }
    records.emplace_back(std::move(file), diag.str());
    locations.push_back(out);
  }

  static int severityOf(DiagnosticSeverity severity) {
    switch (severity) {
    case DiagnosticSeverity::Error:
      return KILN_SEVERITY_ERROR;
    case DiagnosticSeverity::Warning:
      return KILN_SEVERITY_WARNING;
    case DiagnosticSeverity::Note:
      return KILN_SEVERITY_NOTE;
    case DiagnosticSeverity::Remark:
      return KILN_SEVERITY_REMARK;
    }
    return KILN_SEVERITY_ERROR;
  }

  std::vector<std::pair<std::string, std::string>> records;
  std::vector<KilnDiagnostic> locations;
  ScopedDiagnosticHandler handler;
};
} // namespace

int kilnGetAPIVersion(void) { return KILN_C_API_VERSION; }

const char *kilnErrorGetMessage(const KilnError *error) {
  return error->message.c_str();
}

size_t kilnErrorGetNumDiagnostics(const KilnError *error) {
  return error->diagnostics.size();
}

const KilnDiagnostic *kilnErrorGetDiagnostic(const KilnError *error,
                                             size_t index) {
  if (index >= error->diagnostics.size())
    return nullptr;
  return &error->diagnostics[index];
}

void kilnErrorDestroy(KilnError *error) { delete error; }

KilnContext *kilnContextCreate(void) {
  // Pass registration is global to the process; do it once.
  static std::once_flag passesRegistered;
  std::call_once(passesRegistered, kiln::registerAllPasses);
  auto *context = new KilnContext();
  DialectRegistry registry;
  kiln::registerAllDialects(registry);
  context->context.appendDialectRegistry(registry);
  context->context.loadAllAvailableDialects();
  // A diagnostic points at the user's source; the generic form of the
  // failing op, which MLIR attaches by default, is noise there.
  context->context.printOpOnDiagnostic(false);
  return context;
}

void kilnContextDestroy(KilnContext *context) { delete context; }

KilnError *kilnModuleCreateParse(KilnContext *context, const char *text,
                                 size_t length, const char *filename,
                                 KilnModule **module) {
  *module = nullptr;
  DiagnosticCollector collector(context->context);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(StringRef(text, length),
                                           filename ? filename : "<string>"),
      llvm::SMLoc());
  OwningOpRef<ModuleOp> parsed;
  kiln::runOnLargeStack([&] {
    if (succeeded(kiln::checkNestingDepth(sourceMgr, &context->context)))
      parsed = parseSourceFile<ModuleOp>(sourceMgr,
                                         ParserConfig(&context->context));
  });
  if (!parsed)
    return collector.takeError("failed to parse " +
                               std::string(filename ? filename : "<string>"));
  *module = new KilnModule{context, std::move(parsed), {}, {}, {}};
  return nullptr;
}

void kilnModuleDestroy(KilnModule *module) { delete module; }

KilnError *kilnModuleRunPipeline(KilnModule *module, const char *pipeline) {
  MLIRContext &context = module->context->context;
  DiagnosticCollector collector(context);
  module->remarks.clear();
  std::string parseErrors;
  llvm::raw_string_ostream parseErrorStream(parseErrors);
  FailureOr<OpPassManager> parsed =
      parsePassPipeline(pipeline, parseErrorStream);
  if (failed(parsed))
    return collector.takeError("invalid pass pipeline '" +
                               std::string(pipeline) + "': " + parseErrors);
  if (parsed->getOpAnchorName() != ModuleOp::getOperationName())
    return collector.takeError("pass pipeline '" + std::string(pipeline) +
                               "' must be anchored on builtin.module");
  PassManager passManager(&context);
  static_cast<OpPassManager &>(passManager) = *parsed;
  module->text.clear();
  module->argumentTypes.clear();
  module->attributes.clear();
  // A failed pass may leave invalid IR behind: run on a copy, and keep the
  // module as it was unless the whole pipeline succeeds.
  OwningOpRef<ModuleOp> copy(cast<ModuleOp>((*module->module)->clone()));
  LogicalResult result = failure();
  kiln::runOnLargeStack([&] { result = passManager.run(*copy); });
  module->remarks = collector.takeRemarks();
  if (failed(result))
    return collector.takeError("pass pipeline '" + std::string(pipeline) +
                               "' failed");
  module->module = std::move(copy);
  return nullptr;
}

const char *kilnModuleGetRemarks(KilnModule *module) {
  return module->remarks.c_str();
}

const char *kilnModuleGetText(KilnModule *module) {
  if (module->text.empty()) {
    llvm::raw_string_ostream os(module->text);
    module->module->print(os);
  }
  return module->text.c_str();
}

/// A plain error with no diagnostics.
static KilnError *makeError(std::string message) {
  return new KilnError{std::move(message), {}, {}};
}

/// The printed argument types of kernel `name`, or null if there is none.
static const std::vector<std::string> *kernelArgumentTypes(KilnModule *module,
                                                           StringRef name) {
  auto cached = module->argumentTypes.find(name);
  if (cached != module->argumentTypes.end())
    return &cached->second;
  auto func = module->module->lookupSymbol<func::FuncOp>(name);
  if (!func || func.isExternal())
    return nullptr;
  std::vector<std::string> types;
  for (Type type : func.getArgumentTypes()) {
    std::string text;
    llvm::raw_string_ostream os(text);
    type.print(os);
    types.push_back(std::move(text));
  }
  return &(module->argumentTypes[name] = std::move(types));
}

KilnError *kilnModuleGetKernelNumArguments(KilnModule *module,
                                           const char *name, size_t *count) {
  const auto *types = kernelArgumentTypes(module, name);
  if (!types)
    return makeError("no kernel named '" + std::string(name) + "'");
  *count = types->size();
  return nullptr;
}

KilnError *kilnModuleGetKernelArgumentType(KilnModule *module,
                                           const char *name, size_t index,
                                           const char **type) {
  const auto *types = kernelArgumentTypes(module, name);
  if (!types)
    return makeError("no kernel named '" + std::string(name) + "'");
  if (index >= types->size())
    return makeError("kernel '" + std::string(name) + "' has " +
                     std::to_string(types->size()) + " arguments, not " +
                     std::to_string(index + 1));
  *type = (*types)[index].c_str();
  return nullptr;
}

KilnError *kilnHostExecutableCreate(KilnModule *module, int checkBounds,
                                    KilnHostExecutable **executable) {
  *executable = nullptr;
  DiagnosticCollector collector(module->context->context);
  FailureOr<std::unique_ptr<kiln::host::HostExecutable>> created =
      failure();
  kiln::runOnLargeStack([&] {
    created =
        kiln::host::HostExecutable::create(*module->module, checkBounds != 0);
  });
  if (failed(created))
    return collector.takeError("compiling for the host failed");
  // Why a loop was not flattened, ...: the module's last pipeline run.
  module->remarks = collector.takeRemarks();
  *executable = new KilnHostExecutable{std::move(*created), {}};
  return nullptr;
}

void kilnHostExecutableDestroy(KilnHostExecutable *executable) {
  delete executable;
}

KilnError *kilnHostExecutableGetArtifact(KilnHostExecutable *executable,
                                         const char *name, const char **data,
                                         size_t *size) {
  StringRef artifact;
  if (StringRef(name) == "object") {
    artifact = executable->executable->getObject();
  } else if (StringRef(name) == "description") {
    if (executable->description.empty())
      executable->description = executable->executable->describe();
    artifact = executable->description;
  } else {
    return makeError("no artifact '" + std::string(name) +
                     "' (object or description)");
  }
  *data = artifact.data();
  *size = artifact.size();
  return nullptr;
}

KilnError *kilnHostExecutableCreateFromArtifacts(
    const char *object, size_t objectSize, const char *description,
    KilnHostExecutable **executable) {
  *executable = nullptr;
  std::string error;
  std::unique_ptr<kiln::host::HostExecutable> loaded =
      kiln::host::HostExecutable::load(StringRef(object, objectSize),
                                       description, error);
  if (!loaded)
    return makeError("loading a host executable failed: " + error);
  *executable = new KilnHostExecutable{std::move(loaded), {}};
  return nullptr;
}

const char *kilnGetHostTarget(void) {
  static const std::string target = kiln::host::HostExecutable::getHostTarget();
  return target.c_str();
}

void kilnHostExecutableSetThreads(KilnHostExecutable *executable,
                                  unsigned threads) {
  executable->executable->setThreads(threads);
}

KilnError *kilnHostExecutableLaunch(KilnHostExecutable *executable,
                                    const char *kernel, const unsigned grid[3],
                                    void **args, size_t numArgs,
                                    const KilnMemoryRange *ranges,
                                    size_t numRanges) {
  static_assert(sizeof(KilnMemoryRange) == sizeof(kiln::host::MemoryRange),
                "KilnMemoryRange mirrors kiln::host::MemoryRange");
  std::string error;
  if (failed(executable->executable->launch(
          kernel, {grid[0], grid[1], grid[2]}, ArrayRef(args, numArgs),
          ArrayRef(reinterpret_cast<const kiln::host::MemoryRange *>(ranges),
                   numRanges),
          error)))
    return makeError(std::move(error));
  return nullptr;
}

KilnError *kilnCudaGetDeviceCount(int *count) {
  *count = 0;
  std::string error;
  kiln::runtime::CudaDriver *driver = kiln::runtime::CudaDriver::get(error);
  if (!driver)
    return makeError(error);
  int devices = driver->getDeviceCount(error);
  if (devices < 0)
    return makeError(error);
  *count = devices;
  return nullptr;
}

KilnError *kilnCudaGetDeviceInfo(int ordinal, char *name, size_t nameSize,
                                 int *capability, int *multiprocessors) {
  std::string error;
  kiln::runtime::CudaDriver *driver = kiln::runtime::CudaDriver::get(error);
  if (!driver)
    return makeError(error);
  auto device = kiln::runtime::Device::open(*driver, ordinal, error);
  if (!device)
    return makeError(error);
  if (nameSize) {
    std::strncpy(name, device->getName().c_str(), nameSize - 1);
    name[nameSize - 1] = '\0';
  }
  *capability = device->getComputeCapability();
  *multiprocessors = static_cast<int>(device->getLimits().multiprocessorCount);
  return nullptr;
}

KilnError *kilnModuleGetFunctionAttribute(KilnModule *module,
                                          const char *function,
                                          const char *name,
                                          const char **text) {
  *text = nullptr;
  auto func = module->module->lookupSymbol<func::FuncOp>(function);
  if (!func)
    return makeError("no function named '" + std::string(function) + "'");
  Attribute attr = func->getAttr(name);
  if (!attr)
    return nullptr;
  std::string &printed =
      module->attributes[std::string(function) + "/" + name];
  printed.clear();
  llvm::raw_string_ostream os(printed);
  attr.print(os);
  *text = printed.c_str();
  return nullptr;
}

KilnError *kilnModuleBindLaunchPlan(KilnModule *module, const char *plan,
                                    const size_t *ranks, size_t numInputs,
                                    const int64_t *inputDims, int64_t *sizes,
                                    size_t maxSizes, size_t *numSizes,
                                    int64_t *outputDims,
                                    size_t maxOutputDims) {
  *numSizes = 0;
  auto func = module->module->lookupSymbol<func::FuncOp>(plan);
  if (!func)
    return makeError("no function named '" + std::string(plan) + "'");
  SmallVector<SmallVector<int64_t>> inputShapes;
  for (size_t rank : ArrayRef(ranks, numInputs)) {
    inputShapes.emplace_back(inputDims, inputDims + rank);
    inputDims += rank;
  }
  std::string error;
  FailureOr<kiln::PlanCall> call =
      kiln::bindLaunchPlan(func, inputShapes, error);
  if (failed(call))
    return makeError(std::move(error));
  size_t numOutputDims = 0;
  for (const SmallVector<int64_t> &shape : call->outputShapes)
    numOutputDims += shape.size();
  if (call->sizes.size() > maxSizes || numOutputDims > maxOutputDims)
    return makeError("'" + std::string(plan) + "' has " +
                     std::to_string(call->sizes.size()) + " sizes and " +
                     std::to_string(numOutputDims) +
                     " result dimensions, more than there is room for");
  llvm::copy(call->sizes, sizes);
  *numSizes = call->sizes.size();
  for (const SmallVector<int64_t> &shape : call->outputShapes)
    outputDims = llvm::copy(shape, outputDims);
  return nullptr;
}

KilnError *kilnHostExecutableRunPlan(KilnHostExecutable *executable,
                                     const char *plan,
                                     const int64_t *arguments,
                                     size_t numArguments) {
  std::string error;
  if (failed(executable->executable->runPlan(
          plan, ArrayRef(arguments, numArguments), error)))
    return makeError(std::move(error));
  return nullptr;
}

/// Device `ordinal` through its primary context, or an error.
static KilnError *openDevice(int ordinal,
                             std::unique_ptr<kiln::runtime::Device> &device) {
  std::string error;
  kiln::runtime::CudaDriver *driver = kiln::runtime::CudaDriver::get(error);
  if (!driver)
    return makeError(error);
  device = kiln::runtime::Device::open(*driver, ordinal, error);
  if (!device)
    return makeError(error);
  return nullptr;
}

KilnError *kilnCudaGetDeviceChip(int ordinal, char *chip, size_t chipSize) {
  std::unique_ptr<kiln::runtime::Device> device;
  if (KilnError *error = openDevice(ordinal, device))
    return error;
  std::string name =
      kiln::gpu::getChipForCapability(device->getComputeCapability());
  if (chipSize) {
    std::strncpy(chip, name.c_str(), chipSize - 1);
    chip[chipSize - 1] = '\0';
  }
  return nullptr;
}

/// kilnSetRecordPasses's setting, per thread.
static thread_local bool recordPasses = false;

void kilnSetRecordPasses(int record) { recordPasses = record != 0; }

const char *kilnFindCudaProgram(const char *name) {
  static thread_local std::string found;
  std::optional<std::string> path = kiln::nvptx::findCudaProgram(name);
  if (!path)
    return nullptr;
  found = std::move(*path);
  return found.c_str();
}

const char *kilnFindPtxAssembler(void) {
  static thread_local std::string found;
  std::optional<std::string> assembler = kiln::nvptx::findPtxAssembler();
  if (!assembler)
    return nullptr;
  found = std::move(*assembler);
  return found.c_str();
}

KilnError *kilnGPUBinaryCreate(KilnModule *module, const char *chip,
                               const KilnGPUOptions *given,
                               KilnGPUBinary **binary) {
  *binary = nullptr;
  KilnGPUOptions asked = given ? *given : KilnGPUOptions{4, 3, 0, 1};
  if (asked.numStages < 1)
    return makeError("num_stages must be 1 or more, not " +
                     std::to_string(asked.numStages));
  if (asked.maxRegisters < 0)
    return makeError("maxnreg must be positive, not " +
                     std::to_string(asked.maxRegisters));
  DiagnosticCollector collector(module->context->context);
  kiln::gpu::GPUCompileOptions options;
  options.numWarps = asked.numWarps;
  options.numStages = asked.numStages;
  options.target.chip = chip;
  options.target.maxRegisters = asked.maxRegisters;
  options.target.fpFusion = asked.fpFusion != 0;
  options.recordPasses = recordPasses;
  // The lowering rewrites the module: compile a copy.
  OwningOpRef<ModuleOp> copy(cast<ModuleOp>((*module->module)->clone()));
  FailureOr<kiln::gpu::GPUBinary> compiled = failure();
  kiln::runOnLargeStack(
      [&] { compiled = kiln::gpu::compileForGPU(*copy, options); });
  if (failed(compiled))
    return collector.takeError("compiling for " + std::string(chip) +
                               " failed");
  *binary = new KilnGPUBinary(std::move(*compiled));
  (*binary)->remarks = collector.takeRemarks();
  return nullptr;
}

KilnError *kilnGPUBinaryCreateFromArtifacts(const char *ptx, size_t ptxSize,
                                            const char *cubin,
                                            size_t cubinSize,
                                            unsigned threadsPerBlock,
                                            unsigned dynamicSharedBytes,
                                            const char *tensorMaps,
                                            KilnGPUBinary **binary) {
  *binary = nullptr;
  if (!ptxSize || !threadsPerBlock)
    return makeError("a GPU binary needs its PTX and its threads per block");
  kiln::gpu::GPUBinary artifacts;
  std::string error;
  if (tensorMaps && !kiln::runtime::parseTensorMapSpecs(
                        tensorMaps, artifacts.tensorMaps, error))
    return makeError(error);
  artifacts.ptx.assign(ptx, ptxSize);
  artifacts.cubin.assign(cubin ? cubin : "", cubin ? cubinSize : 0);
  artifacts.threadsPerBlock = threadsPerBlock;
  artifacts.dynamicSharedBytes = dynamicSharedBytes;
  *binary = new KilnGPUBinary(std::move(artifacts));
  return nullptr;
}

void kilnGPUBinaryDestroy(KilnGPUBinary *binary) { delete binary; }

KilnError *kilnGPUBinaryGetArtifact(KilnGPUBinary *binary, const char *stage,
                                    const char **data, size_t *size) {
  const std::string *artifact =
      llvm::StringSwitch<const std::string *>(stage)
          .Case("llvm", &binary->binary.llvmIR)
          .Case("ptx", &binary->binary.ptx)
          .Case("cubin", &binary->binary.cubin)
          .Case("ptxas-log", &binary->binary.ptxasLog)
          .Case("tensor-maps", &binary->tensorMaps)
          .Case("remarks", &binary->remarks)
          .Case("timings", &binary->timings)
          .Case("passes", &binary->binary.passes)
          .Default(nullptr);
  if (!artifact)
    return makeError("no stage '" + std::string(stage) +
                     "' (llvm, ptx, cubin, ptxas-log, tensor-maps, remarks, "
                     "timings or passes)");
  *data = artifact->data();
  *size = artifact->size();
  return nullptr;
}

unsigned kilnGPUBinaryGetThreadsPerBlock(const KilnGPUBinary *binary) {
  return binary->binary.threadsPerBlock;
}

unsigned kilnGPUBinaryGetDynamicSharedBytes(const KilnGPUBinary *binary) {
  return binary->binary.dynamicSharedBytes;
}

KilnError *kilnCudaModuleCreate(KilnGPUBinary *binary, int ordinal,
                                KilnCudaModule **module) {
  *module = nullptr;
  std::unique_ptr<kiln::runtime::Device> device;
  if (KilnError *error = openDevice(ordinal, device))
    return error;
  std::string error;
  const kiln::gpu::GPUBinary &compiled = binary->binary;
  std::unique_ptr<kiln::runtime::Module> loaded =
      device->loadModule(compiled.getImage(), error, compiled.tensorMaps);
  if (!loaded)
    return makeError(error);
  *module = new KilnCudaModule{
      std::move(device), std::move(loaded),
      static_cast<unsigned>(compiled.threadsPerBlock),
      static_cast<unsigned>(compiled.dynamicSharedBytes)};
  return nullptr;
}

void kilnCudaModuleDestroy(KilnCudaModule *module) { delete module; }

KilnError *kilnCudaModuleLaunch(KilnCudaModule *module, const char *kernel,
                                const unsigned grid[3], void **args,
                                size_t numArgs, uint64_t stream) {
  std::string error;
  std::vector<void *> params(args, args + numArgs);
  if (!module->module->launch(
          kernel, {grid[0], grid[1], grid[2]},
          {module->threadsPerBlock, 1, 1}, module->dynamicSharedBytes,
          reinterpret_cast<kiln::runtime::CUstream>(stream), params, error))
    return makeError(std::move(error));
  return nullptr;
}

/// The launch plan `plan` of `module` whose `numArguments` arguments a
/// caller passes, or an error.
static KilnError *lookupPlan(KilnModule *module, const char *plan,
                             size_t numArguments, func::FuncOp &func) {
  func = module->module->lookupSymbol<func::FuncOp>(plan);
  if (!func || !kiln::plan::isPlan(func))
    return makeError("'" + std::string(plan) + "' is not a launch plan");
  if (numArguments != func.getNumArguments())
    return makeError("'" + std::string(plan) + "' takes " +
                     std::to_string(func.getNumArguments()) +
                     " arguments, not " + std::to_string(numArguments));
  return nullptr;
}

KilnError *kilnPlanGPUBinaryCreate(KilnModule *module, const char *plan,
                                   const char *chip, int numWarps,
                                   int numStages, KilnGPUBinary **binary) {
  *binary = nullptr;
  auto func = module->module->lookupSymbol<func::FuncOp>(plan);
  if (!func || !kiln::plan::isPlan(func))
    return makeError("'" + std::string(plan) +
                     "' is not a launch plan (run kiln-fuse and kiln-tile "
                     "on the array function)");
  KilnModule kernels{module->context,
                     kiln::extractTileKernels(*module->module, func),
                     {},
                     {},
                     {},
                     {}};
  KilnGPUOptions options{numWarps, numStages, 0, 1};
  return kilnGPUBinaryCreate(&kernels, chip, &options, binary);
}

KilnError *kilnPlanRunOnGPU(KilnModule *module, const char *plan,
                            KilnCudaModule *kernels, const uint64_t *arguments,
                            size_t numArguments, uint64_t stream) {
  func::FuncOp func;
  if (KilnError *error = lookupPlan(module, plan, numArguments, func))
    return error;
  std::string error;
  if (failed(kiln::runPlanOnGPU(
          func, *kernels->device, *kernels->module, kernels->threadsPerBlock,
          kernels->dynamicSharedBytes, ArrayRef(arguments, numArguments),
          reinterpret_cast<kiln::runtime::CUstream>(stream), error)))
    return makeError(std::move(error));
  return nullptr;
}

struct KilnPlanGraph {
  std::unique_ptr<kiln::runtime::PlanGraph> graph;
};

KilnError *kilnPlanGraphCreate(KilnModule *module, const char *plan,
                               KilnCudaModule *kernels,
                               const uint64_t *arguments, size_t numArguments,
                               KilnPlanGraph **graph) {
  *graph = nullptr;
  func::FuncOp func;
  if (KilnError *error = lookupPlan(module, plan, numArguments, func))
    return error;
  std::string error;
  std::unique_ptr<kiln::runtime::PlanGraph> captured =
      kiln::runtime::PlanGraph::capture(
          func, *kernels->device, *kernels->module, kernels->threadsPerBlock,
          kernels->dynamicSharedBytes, ArrayRef(arguments, numArguments),
          error);
  if (!captured)
    return makeError(std::move(error));
  *graph = new KilnPlanGraph{std::move(captured)};
  return nullptr;
}

KilnError *kilnPlanGraphLaunch(KilnPlanGraph *graph, const uint64_t *arguments,
                               size_t numArguments, uint64_t stream) {
  std::string error;
  auto on = reinterpret_cast<kiln::runtime::CUstream>(stream);
  if (!(arguments
            ? graph->graph->launch(ArrayRef(arguments, numArguments), on, error)
            : graph->graph->launch(on, error)))
    return makeError(std::move(error));
  return nullptr;
}

void kilnPlanGraphDestroy(KilnPlanGraph *graph) { delete graph; }

/// `action` (which sets its error on failure) on device `ordinal`.
static KilnError *onDevice(
    int ordinal,
    llvm::function_ref<bool(kiln::runtime::Device &, std::string &)> action) {
  std::unique_ptr<kiln::runtime::Device> device;
  if (KilnError *error = openDevice(ordinal, device))
    return error;
  std::string error;
  if (!action(*device, error))
    return makeError(std::move(error));
  return nullptr;
}

KilnError *kilnCudaAllocate(int ordinal, size_t bytes, uint64_t *address) {
  *address = 0;
  return onDevice(
      ordinal, [&](kiln::runtime::Device &device, std::string &error) {
        // cuMemAlloc refuses 0 bytes.
        *address = device.allocate(std::max<size_t>(bytes, 1), error);
        return *address != 0;
      });
}

KilnError *kilnCudaFree(int ordinal, uint64_t address) {
  return onDevice(ordinal,
                  [&](kiln::runtime::Device &device, std::string &error) {
                    return device.free(address, error);
                  });
}

KilnError *kilnCudaCopyToDevice(int ordinal, uint64_t to, const void *from,
                                size_t bytes) {
  return onDevice(ordinal,
                  [&](kiln::runtime::Device &device, std::string &error) {
                    return device.copyToDevice(to, from, bytes, error);
                  });
}

KilnError *kilnCudaCopyToHost(int ordinal, void *to, uint64_t from,
                              size_t bytes) {
  return onDevice(ordinal,
                  [&](kiln::runtime::Device &device, std::string &error) {
                    return device.copyToHost(to, from, bytes, error);
                  });
}

KilnError *kilnCudaSynchronize(int ordinal) {
  return onDevice(ordinal,
                  [&](kiln::runtime::Device &device, std::string &error) {
                    return device.synchronize(error);
                  });
}
