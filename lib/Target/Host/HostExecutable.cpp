//===- HostExecutable.cpp - Tile kernels compiled for the CPU -------------===//

#include "kiln/Target/Host/HostExecutable.h"
#include "kiln/Dialect/Plan/IR/PlanDialect.h"

#include "kiln/Target/Host/HostPipeline.h"

#include "InterruptWatch.h"

#include "kiln/Conversion/TileToHost/RuntimeInterface.h"
#include "kiln/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ExecutionEngine/JITEventListener.h"
#include "llvm/ExecutionEngine/Orc/CompileUtils.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/ExecutionEngine/Orc/RTDyldObjectLinkingLayer.h"
#include "llvm/ExecutionEngine/SectionMemoryManager.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

using namespace mlir;
using namespace kiln::host;

namespace {
/// Why an access is not allowed.
enum class AccessProblem { None, Outside, ReadOnly };

/// What the access checks of the launch running on this thread compare
/// against, and the first access they found not allowed.
struct CheckedLaunch {
  ArrayRef<MemoryRange> ranges;
  /// The range of each argument that is an array (null for the others).
  SmallVector<const MemoryRange *> byArgument;
  ArrayRef<AccessSite> sites;
  bool violated = false;
  AccessProblem problem = AccessProblem::None;
  /// The array the violation concerns (null: it is outside every array).
  const MemoryRange *range = nullptr;
  uint64_t address = 0, bytes = 0;
  int32_t site = 0;
  std::array<int32_t, 3> programId = {};
  /// The first tile.assert found false.
  bool assertFailed = false;
  int32_t assertSite = 0;
  int64_t assertElement = 0;
  std::array<int32_t, 3> assertProgramId = {};

  CheckedLaunch(ArrayRef<MemoryRange> ranges, ArrayRef<AccessSite> sites)
      : ranges(ranges), sites(sites) {
    for (const MemoryRange &range : ranges) {
      if (range.argument < 0)
        continue;
      if (byArgument.size() <= size_t(range.argument))
        byArgument.resize(range.argument + 1);
      byArgument[range.argument] = &range;
    }
  }

  /// Whether `site` may access bytes [begin, end); sets `found` to the
  /// array that decides it (null when none does).
  AccessProblem check(uint64_t begin, uint64_t end, int32_t site,
                      const MemoryRange *&found) const {
    const AccessSite &access = sites[site];
    auto holds = [&](const MemoryRange &range) {
      return begin <= end && begin >= range.begin && end <= range.end;
    };
    auto verdict = [&](const MemoryRange &range) {
      found = &range;
      return access.writes && range.readOnly ? AccessProblem::ReadOnly
                                             : AccessProblem::None;
    };
    if (access.origin >= 0 && size_t(access.origin) < byArgument.size() &&
        byArgument[access.origin]) {
      const MemoryRange &range = *byArgument[access.origin];
      found = &range;
      return holds(range) ? verdict(range) : AccessProblem::Outside;
    }
    found = nullptr;
    AccessProblem problem = AccessProblem::Outside;
    for (const MemoryRange &range : ranges)
      if (holds(range) &&
          (problem = verdict(range)) == AccessProblem::None)
        break;
    return problem;
  }
};
} // namespace

static thread_local CheckedLaunch *currentLaunch = nullptr;

/// Programs a launch runs between two looks for Ctrl-C.
static constexpr int64_t kProgramsPerChunk = 1024;
/// The debug sites of the executable running on this thread.
static thread_local const std::vector<DebugSite> *currentDebugSites = nullptr;

/// Index `element` (row-major) of `shape` as "(i, j, ...)".
static std::string formatIndex(int64_t element, ArrayRef<int64_t> shape) {
  SmallVector<int64_t> indices(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    indices[d] = element % shape[d];
    element /= shape[d];
  }
  std::string text = "(";
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(indices, os);
  os << ")";
  return text;
}

/// Lines from threads of one launch do not interleave.
static std::mutex printLock;

/// Called by tile.print for each element and operand; `operand` is -1 for a
/// print without operands.
static void printValue(int32_t site, int32_t operand, int64_t element,
                       int32_t kind, int64_t integer, double real,
                       int32_t pidX, int32_t pidY, int32_t pidZ) {
  const DebugSite &debug = (*currentDebugSites)[site];
  std::string line;
  llvm::raw_string_ostream os(line);
  os << "pid (" << pidX << ", " << pidY << ", " << pidZ << ")";
  if (!debug.shape.empty())
    os << " idx " << formatIndex(element, debug.shape);
  os << " " << debug.text;
  if (debug.numOperands > 1)
    os << " (operand " << operand << ")";
  if (operand >= 0) {
    os << ": ";
    switch (static_cast<PrintKind>(kind)) {
    case PrintKind::Integer:
      os << integer;
      break;
    case PrintKind::Float:
      os << llvm::format("%.9g", real);
      break;
    case PrintKind::Double:
      os << llvm::format("%.17g", real);
      break;
    }
  }
  os << "\n";
  std::lock_guard<std::mutex> guard(printLock);
  std::fputs(line.c_str(), stdout);
  std::fflush(stdout);
}

/// Called by tile.assert for each element; keeps the launch's first false
/// one (the programs run on: a kernel with assertions is bounds-checked, so
/// what an assertion guards cannot reach outside the arrays). A launch
/// plan's kernels have no launch to fail: not checked there.
static void checkAssertion(int32_t site, int32_t holds, int64_t element,
                           int32_t pidX, int32_t pidY, int32_t pidZ) {
  CheckedLaunch *launch = currentLaunch;
  if (holds || !launch || launch->assertFailed)
    return;
  launch->assertFailed = true;
  launch->assertSite = site;
  launch->assertElement = element;
  launch->assertProgramId = {pidX, pidY, pidZ};
}

/// Serializes the atomics of launches that run on several threads.
static std::mutex atomicsLock;
static void lockAtomics() { atomicsLock.lock(); }
static void unlockAtomics() { atomicsLock.unlock(); }

/// The temporaries of launch plans (kiln-tile), 64-byte aligned.
static int64_t allocateTemporary(int64_t bytes) {
  return reinterpret_cast<int64_t>(
      std::aligned_alloc(64, (std::max<int64_t>(bytes, 1) + 63) / 64 * 64));
}
static void freeTemporary(int64_t address) {
  std::free(reinterpret_cast<void *>(address));
}

/// Called by kernels compiled with bounds checks before each access (see
/// kiln-convert-tile-to-host). Returns whether the access should happen.
static int32_t checkAccess(uint64_t address, uint64_t bytes, int32_t site,
                           int32_t enabled, int32_t pidX, int32_t pidY,
                           int32_t pidZ) {
  if (!enabled)
    return 0;
  CheckedLaunch *launch = currentLaunch;
  // A launch plan calls launchers directly, with no arrays to check
  // against: its accesses are not checked.
  if (!launch)
    return 1;
  const MemoryRange *range;
  AccessProblem problem = launch->check(address, address + bytes, site, range);
  if (problem == AccessProblem::None)
    return 1;
  if (!launch->violated) {
    launch->violated = true;
    launch->problem = problem;
    launch->range = range;
    launch->address = address;
    launch->bytes = bytes;
    launch->site = site;
    launch->programId = {pidX, pidY, pidZ};
  }
  return 0;
}

/// Called by kernels compiled with bounds checks before the accesses of a
/// tile, whose enabled addresses run from `lowest` to `highest`: whether
/// all of them are allowed, so that none needs its own check. Records
/// nothing: the accesses checked one by one find the first bad one.
static int32_t checkSpan(uint64_t lowest, uint64_t highest, uint64_t bytes,
                         int32_t site) {
  CheckedLaunch *launch = currentLaunch;
  if (!launch || lowest > highest)
    return 1;
  const MemoryRange *range;
  return launch->check(lowest, highest + bytes, site, range) ==
         AccessProblem::None;
}

namespace {
/// The descriptor of a ranked memref as the LLVM lowering lays it out:
/// these fields, then `rank` sizes and `rank` strides.
struct MemRefDescriptor {
  char *allocated;
  char *aligned;
  int64_t offset;

  const int64_t *sizes() const {
    return reinterpret_cast<const int64_t *>(this + 1);
  }
};

/// An unranked memref: its rank and a pointer to its descriptor.
struct UnrankedMemRef {
  int64_t rank;
  MemRefDescriptor *descriptor;
};
} // namespace

/// Copies dimension `dim` onwards of a strided memref; element offsets are
/// counted in elements, as the descriptors hold them.
static void copyStrided(int64_t elementBytes, int64_t rank, int64_t dim,
                        const int64_t *sizes, const char *src,
                        const int64_t *srcStrides, int64_t srcOffset,
                        char *dst, const int64_t *dstStrides,
                        int64_t dstOffset) {
  if (dim == rank) {
    std::memcpy(dst + dstOffset * elementBytes, src + srcOffset * elementBytes,
                elementBytes);
    return;
  }
  for (int64_t i = 0; i < sizes[dim]; ++i)
    copyStrided(elementBytes, rank, dim + 1, sizes, src, srcStrides,
                srcOffset + i * srcStrides[dim], dst, dstStrides,
                dstOffset + i * dstStrides[dim]);
}

/// `memref.copy` between memrefs with arbitrary strides lowers to a call to
/// this function (MLIR's runner utilities provide one; the host target
/// provides its own so that it needs no extra library).
static void memrefCopy(int64_t elementBytes, UnrankedMemRef *src,
                       UnrankedMemRef *dst) {
  int64_t rank = src->rank;
  const int64_t *sizes = src->descriptor->sizes();
  copyStrided(elementBytes, rank, 0, sizes, src->descriptor->aligned,
              sizes + rank, src->descriptor->offset, dst->descriptor->aligned,
              dst->descriptor->sizes() + rank, dst->descriptor->offset);
}

/// float to bfloat16, rounding to nearest even (NaN stays a quiet NaN).
/// LLVM's x86 backend calls it to move bf16 values it keeps as floats;
/// libgcc before GCC 13 has none. A bf16 comes back in the low 16 bits of
/// xmm0, as a _Float16 does.
static _Float16 truncateFloatToBF16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  uint16_t rounded =
      std::isnan(value)
          ? static_cast<uint16_t>((bits >> 16) | 0x40)
          : static_cast<uint16_t>((bits + 0x7fff + ((bits >> 16) & 1)) >> 16);
  _Float16 result;
  std::memcpy(&result, &rounded, sizeof(result));
  return result;
}

/// double to float, rounding to odd: toward zero, with the last bit set
/// where that dropped anything. Rounding that again to a format of at most
/// 11 significant bits (half, bfloat16) rounds the double once: float's 24
/// bits are at least twice those plus two.
static float roundToOddFloat(double value) {
  float rounded = static_cast<float>(value);
  if (std::isnan(value) || static_cast<double>(rounded) == value)
    return rounded;
  if (std::fabs(static_cast<double>(rounded)) > std::fabs(value))
    rounded = std::nextafter(rounded, 0.0f);
  uint32_t bits;
  std::memcpy(&bits, &rounded, sizeof(bits));
  bits |= 1;
  std::memcpy(&rounded, &bits, sizeof(bits));
  return rounded;
}

/// double to half and to bfloat16, rounding to nearest even: LLVM's x86
/// backend calls these (compiler-rt's names; libgcc_s exports neither) for
/// a truncf of f64 and for an f16 fma, which it computes in double.
static _Float16 truncateDoubleToHalf(double value) {
  return static_cast<_Float16>(roundToOddFloat(value));
}
static _Float16 truncateDoubleToBF16(double value) {
  return truncateFloatToBF16(roundToOddFloat(value));
}

/// x to the integer power n, for llvm.powi (math.fpowi): compiler-rt's
/// __powisf2 and __powidf2, which libgcc_s does not export. Repeated
/// squaring, as compiler-rt computes it; a negative n takes the
/// reciprocal at the end.
template <typename Float> static Float raiseToInteger(Float x, int32_t n) {
  bool reciprocal = n < 0;
  Float result = 1;
  for (int64_t bits = std::abs(static_cast<int64_t>(n)); bits != 0;
       bits >>= 1, x *= x)
    if (bits & 1)
      result *= x;
  return reciprocal ? 1 / result : result;
}

/// Whether $KILN_HOST_PROFILE asks for the JIT listeners of gdb and perf.
static bool isProfilingRequested() {
  const char *value = std::getenv("KILN_HOST_PROFILE");
  return value && *value && StringRef(value) != "0";
}

static void initializeNativeTarget() {
  static std::once_flag initialized;
  std::call_once(initialized, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

/// The run-time functions the lowered kernels call, by name.
static llvm::orc::SymbolMap runtimeSymbols(llvm::orc::MangleAndInterner &mangle) {
  llvm::orc::SymbolMap symbols;
  auto add = [&](StringRef name, auto *function) {
    symbols[mangle(name)] = {llvm::orc::ExecutorAddr::fromPtr(function),
                             llvm::JITSymbolFlags::Exported};
  };
  add(kCheckFunction, &checkAccess);
  add(kCheckSpanFunction, &checkSpan);
  add(kPrintFunction, &printValue);
  add(kAssertFunction, &checkAssertion);
  add("memrefCopy", &memrefCopy);
  add("__truncsfbf2", &truncateFloatToBF16);
  add("__truncdfhf2", &truncateDoubleToHalf);
  add("__truncdfbf2", &truncateDoubleToBF16);
  add("__powisf2", &raiseToInteger<float>);
  add("__powidf2", &raiseToInteger<double>);
  add(kAllocFunction, &allocateTemporary);
  add(kFreeFunction, &freeTemporary);
  add(kLockFunction, &lockAtomics);
  add(kUnlockFunction, &unlockAtomics);
  return symbols;
}

/// Adds `_mlir_<name>(void **args)` beside each function defined in
/// `module`, as mlir::ExecutionEngine's packed interface: args[i] points to
/// argument i and args[n] to where the result goes. Launches call kernels
/// and plans through it, whatever their signatures.
static void addPackedEntryPoints(llvm::Module &module) {
  SmallVector<llvm::Function *> defined;
  for (llvm::Function &function : module)
    if (!function.isDeclaration() && function.hasExternalLinkage())
      defined.push_back(&function);
  llvm::LLVMContext &context = module.getContext();
  auto *pointer = llvm::PointerType::getUnqual(context);
  auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(context),
                                       {pointer}, /*isVarArg=*/false);
  for (llvm::Function *function : defined) {
    auto *packed =
        llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage,
                               "_mlir_" + function->getName(), module);
    llvm::IRBuilder<> builder(
        llvm::BasicBlock::Create(context, "entry", packed));
    auto slot = [&](unsigned index) {
      return builder.CreateLoad(
          pointer,
          builder.CreateConstGEP1_64(pointer, packed->getArg(0), index));
    };
    SmallVector<llvm::Value *> arguments;
    for (llvm::Argument &argument : function->args())
      arguments.push_back(
          builder.CreateLoad(argument.getType(), slot(argument.getArgNo())));
    llvm::CallInst *call = builder.CreateCall(function, arguments);
    if (!call->getType()->isVoidTy())
      builder.CreateStore(call, slot(function->arg_size()));
    builder.CreateRetVoid();
  }
}

/// Drops Kiln's facts about kernel arguments (`tile.divisibility`, which
/// the GPU's analyses read): LLVM's translation knows no such attribute and
/// warns of each.
static void dropTileArgumentAttributes(ModuleOp lowered) {
  lowered.walk([](LLVM::LLVMFuncOp func) {
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
      if (DictionaryAttr attributes = func.getArgAttrDict(i))
        for (NamedAttribute attribute : llvm::to_vector(attributes))
          if (attribute.getName().strref().starts_with("tile."))
            func.removeArgAttr(i, attribute.getName());
  });
}

/// The machine host kernels compile for: this CPU, without its bf16
/// conversion instructions (AVX512-BF16's and AVX-NE-CONVERT's flush
/// subnormals to zero, where the GPU's cvt.rn.bf16.f32 keeps them).
static llvm::Expected<llvm::orc::JITTargetMachineBuilder> detectHostMachine() {
  auto machineBuilder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!machineBuilder)
    return machineBuilder.takeError();
  machineBuilder->getFeatures().AddFeature("avx512bf16", false);
  machineBuilder->getFeatures().AddFeature("avxneconvert", false);
  return machineBuilder;
}

/// `lowered` (the LLVM dialect) as an object file for this CPU, optimized
/// at -O3, with packed entry points.
static llvm::Expected<std::string> compileToObject(ModuleOp lowered) {
  auto machineBuilder = detectHostMachine();
  if (!machineBuilder)
    return machineBuilder.takeError();
  auto machine = machineBuilder->createTargetMachine();
  if (!machine)
    return machine.takeError();
  llvm::LLVMContext context;
  dropTileArgumentAttributes(lowered);
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(lowered, context);
  if (!llvmModule)
    return llvm::createStringError("translation to LLVM IR failed");
  llvmModule->setDataLayout((*machine)->createDataLayout());
  llvmModule->setTargetTriple((*machine)->getTargetTriple());
  addPackedEntryPoints(*llvmModule);
  if (llvm::Error error = makeOptimizingTransformer(
          /*optLevel=*/3, /*sizeLevel=*/0, machine->get())(llvmModule.get()))
    return std::move(error);
  llvm::orc::SimpleCompiler compile(**machine);
  auto object = compile(*llvmModule);
  if (!object)
    return object.takeError();
  return (*object)->getBuffer().str();
}

LogicalResult HostExecutable::link(std::string &error) {
  // The debugger's and perf's JIT listeners write a dump per process under
  // $TMPDIR/.debug (and a full disk aborts the process at exit): only for
  // a user who asks to profile JIT-compiled kernels.
  bool profile = isProfilingRequested();
  auto created =
      llvm::orc::LLJITBuilder()
          .setObjectLinkingLayerCreator(
              [profile](llvm::orc::ExecutionSession &session)
                  -> llvm::Expected<std::unique_ptr<llvm::orc::ObjectLayer>> {
                auto layer =
                    std::make_unique<llvm::orc::RTDyldObjectLinkingLayer>(
                        session, [](const llvm::MemoryBuffer &) {
                          return std::make_unique<llvm::SectionMemoryManager>();
                        });
                if (profile) {
                  layer->registerJITEventListener(
                      *llvm::JITEventListener::createGDBRegistrationListener());
                  if (llvm::JITEventListener *perf =
                          llvm::JITEventListener::createPerfJITEventListener())
                    layer->registerJITEventListener(*perf);
                }
                return std::move(layer);
              })
          .create();
  if (!created) {
    error = llvm::toString(created.takeError());
    return failure();
  }
  jit = std::move(*created);
  llvm::orc::JITDylib &library = jit->getMainJITDylib();
  llvm::orc::MangleAndInterner mangle(jit->getExecutionSession(),
                                      jit->getDataLayout());
  // libm's and libc's functions from the process, the runtime's our own.
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      jit->getDataLayout().getGlobalPrefix());
  llvm::Error linked =
      process ? llvm::Error::success() : process.takeError();
  if (!linked) {
    library.addGenerator(std::move(*process));
    linked = library.define(llvm::orc::absoluteSymbols(runtimeSymbols(mangle)));
  }
  // tile.extern_elementwise calls libm by name (hypotf, jnf, ...). A
  // program that loaded this library with dlopen's RTLD_LOCAL and does not
  // link libm itself has libm outside the process's global scope: search
  // it by its soname too (where that fails, the process's scope is all
  // there is, and a function missing from it is named when linking).
  if (!linked) {
    auto libm = llvm::orc::DynamicLibrarySearchGenerator::Load(
        "libm.so.6", jit->getDataLayout().getGlobalPrefix());
    if (libm)
      library.addGenerator(std::move(*libm));
    else
      llvm::consumeError(libm.takeError());
  }
  if (!linked)
    linked = jit->addObjectFile(llvm::MemoryBuffer::getMemBuffer(
        object, "kiln-host-kernels", /*RequiresNullTerminator=*/false));
  if (linked) {
    error = llvm::toString(std::move(linked));
    return failure();
  }
  return success();
}

llvm::Expected<void (*)(void **)>
HostExecutable::lookupPacked(StringRef function) {
  auto address = jit->lookup(("_mlir_" + function).str());
  if (!address)
    return address.takeError();
  return address->toPtr<void (*)(void **)>();
}

std::string HostExecutable::getHostTarget() {
  auto machineBuilder = detectHostMachine();
  if (!machineBuilder) {
    llvm::consumeError(machineBuilder.takeError());
    return "unknown";
  }
  return machineBuilder->getTargetTriple().str() + " " +
         machineBuilder->getCPU() + " " +
         machineBuilder->getFeatures().getString();
}

std::string HostExecutable::describe() const {
  llvm::json::Object functions;
  for (const auto &entry : numArguments)
    functions[entry.getKey()] = llvm::json::Object{
        {"arguments", static_cast<int64_t>(entry.getValue())},
        {"plan", plans.contains(entry.getKey())}};
  llvm::json::Array access, debug;
  for (const AccessSite &site : accessSites)
    access.push_back(llvm::json::Array{site.text, site.origin, site.writes});
  for (const DebugSite &site : debugSites)
    debug.push_back(llvm::json::Array{
        site.text, llvm::json::Array(site.shape), site.numOperands});
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::json::Value(llvm::json::Object{{"functions", std::move(functions)},
                                             {"access_sites", std::move(access)},
                                             {"debug_sites", std::move(debug)}});
  return text;
}

std::unique_ptr<HostExecutable> HostExecutable::load(StringRef object,
                                                     StringRef description,
                                                     std::string &error) {
  initializeNativeTarget();
  std::unique_ptr<HostExecutable> executable(new HostExecutable());
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(description);
  if (!parsed) {
    error = "its description is not JSON: " + llvm::toString(parsed.takeError());
    return nullptr;
  }
  // Every field checked: a damaged description is an error, not a crash.
  auto read = [&](const llvm::json::Value &value) {
    const llvm::json::Object *top = value.getAsObject();
    const llvm::json::Object *functions =
        top ? top->getObject("functions") : nullptr;
    const llvm::json::Array *access =
        top ? top->getArray("access_sites") : nullptr;
    const llvm::json::Array *debug =
        top ? top->getArray("debug_sites") : nullptr;
    if (!functions || !access || !debug)
      return false;
    for (const auto &[name, function] : *functions) {
      const llvm::json::Object *fields = function.getAsObject();
      std::optional<int64_t> arguments =
          fields ? fields->getInteger("arguments") : std::nullopt;
      std::optional<bool> plan =
          fields ? fields->getBoolean("plan") : std::nullopt;
      if (!arguments || *arguments < 0 || !plan)
        return false;
      executable->numArguments[name] = *arguments;
      if (*plan)
        executable->plans.insert(name);
    }
    for (const llvm::json::Value &site : *access) {
      const llvm::json::Array *fields = site.getAsArray();
      if (!fields || fields->size() != 3)
        return false;
      std::optional<StringRef> text = (*fields)[0].getAsString();
      std::optional<int64_t> origin = (*fields)[1].getAsInteger();
      std::optional<bool> writes = (*fields)[2].getAsBoolean();
      if (!text || !origin || !writes)
        return false;
      executable->accessSites.push_back(
          {text->str(), static_cast<int32_t>(*origin), *writes});
    }
    for (const llvm::json::Value &site : *debug) {
      const llvm::json::Array *fields = site.getAsArray();
      if (!fields || fields->size() != 3)
        return false;
      std::optional<StringRef> text = (*fields)[0].getAsString();
      const llvm::json::Array *shape = (*fields)[1].getAsArray();
      std::optional<int64_t> operands = (*fields)[2].getAsInteger();
      if (!text || !shape || !operands)
        return false;
      std::vector<int64_t> sizes;
      for (const llvm::json::Value &size : *shape) {
        std::optional<int64_t> value = size.getAsInteger();
        if (!value)
          return false;
        sizes.push_back(*value);
      }
      executable->debugSites.push_back(
          {text->str(), std::move(sizes), static_cast<int32_t>(*operands)});
    }
    return true;
  };
  if (!read(*parsed)) {
    error = "its description is not one describe() writes";
    return nullptr;
  }
  executable->object = object.str();
  if (failed(executable->link(error)))
    return nullptr;
  return executable;
}

HostExecutable::~HostExecutable() = default;

FailureOr<std::unique_ptr<HostExecutable>>
HostExecutable::create(ModuleOp module, bool boundsCheck) {
  initializeNativeTarget();
  std::unique_ptr<HostExecutable> executable(new HostExecutable());
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    executable->numArguments[func.getSymName()] = func.getNumArguments();
    if (kiln::plan::isPlan(func))
      executable->plans.insert(func.getSymName());
  }

  OwningOpRef<ModuleOp> lowered(cast<ModuleOp>(module->clone()));
  PassManager pm(module.getContext());
  HostLoweringOptions lowering;
  // Programs run on past a failed assertion (the launch fails at its end):
  // the accesses it guards are checked, so they cannot leave the arrays.
  lowering.boundsCheck =
      boundsCheck ||
      module.walk([](tile::AssertOp) { return WalkResult::interrupt(); })
          .wasInterrupted();
  buildHostLoweringPipeline(pm, lowering);
  if (failed(pm.run(*lowered)))
    return failure();
  if (auto sites = (*lowered)->getAttrOfType<ArrayAttr>(
          kAccessSitesAttr))
    for (auto site : sites.getAsRange<ArrayAttr>())
      executable->accessSites.push_back(
          {cast<StringAttr>(site[0]).str(),
           static_cast<int32_t>(cast<IntegerAttr>(site[1]).getInt()),
           cast<BoolAttr>(site[2]).getValue()});
  if (auto sites = (*lowered)->getAttrOfType<ArrayAttr>(
          kDebugSitesAttr))
    for (auto site : sites.getAsRange<ArrayAttr>()) {
      ArrayRef<int64_t> shape = cast<DenseI64ArrayAttr>(site[1]).asArrayRef();
      executable->debugSites.push_back(
          {cast<StringAttr>(site[0]).str(),
           std::vector<int64_t>(shape.begin(), shape.end()),
           static_cast<int32_t>(cast<IntegerAttr>(site[2]).getInt())});
    }

  auto object = compileToObject(*lowered);
  if (!object)
    return module.emitError("host compilation failed: ")
           << llvm::toString(object.takeError());
  executable->object = std::move(*object);
  std::string error;
  if (failed(executable->link(error)))
    return module.emitError("host JIT linking failed: ") << error;
  return executable;
}

LogicalResult HostExecutable::runPlan(StringRef plan,
                                      ArrayRef<int64_t> arguments,
                                      std::string &error) {
  auto it = numArguments.find(plan);
  if (it == numArguments.end() || !plans.contains(plan)) {
    error = ("no launch plan named '" + plan + "'").str();
    return failure();
  }
  if (arguments.size() != it->second) {
    error = ("plan '" + plan + "' takes " + llvm::Twine(it->second) +
             " arguments (buffers and sizes), but " +
             llvm::Twine(arguments.size()) + " were given")
                .str();
    return failure();
  }
  SmallVector<int64_t> values(arguments);
  SmallVector<void *> packed;
  for (int64_t &value : values)
    packed.push_back(&value);
  auto function = lookupPacked(plan);
  if (!function) {
    error = llvm::toString(function.takeError());
    return failure();
  }
  currentDebugSites = &debugSites;
  (*function)(packed.data());
  return success();
}

LogicalResult HostExecutable::launch(StringRef kernel,
                                     std::array<uint32_t, 3> grid,
                                     ArrayRef<void *> args,
                                     ArrayRef<MemoryRange> ranges,
                                     std::string &error) {
  auto it = numArguments.find(kernel);
  if (it == numArguments.end()) {
    error = ("no kernel named '" + kernel + "'").str();
    return failure();
  }
  if (args.size() != it->second) {
    error = ("kernel '" + kernel + "' takes " + llvm::Twine(it->second) +
             " arguments, but " + llvm::Twine(args.size()) + " were given")
                .str();
    return failure();
  }
  auto function = lookupPacked((kernel + "_launch").str());
  if (!function) {
    error = llvm::toString(function.takeError());
    return failure();
  }
  uint64_t total = uint64_t(grid[0]) * grid[1] * grid[2];
  unsigned parts = std::max<uint64_t>(1, std::min<uint64_t>(threads, total));
  std::vector<CheckedLaunch> checks(parts, CheckedLaunch(ranges, accessSites));
  InterruptWatch interrupt;
  std::atomic<uint64_t> done{0};
  // Each part runs its programs in chunks, so that Ctrl-C stops it between
  // two.
  auto runPart = [&](unsigned part) {
    int64_t first = total * part / parts, last = total * (part + 1) / parts;
    int64_t begin, end;
    SmallVector<void *> packed(args);
    for (uint32_t &size : grid)
      packed.push_back(&size);
    packed.push_back(&begin);
    packed.push_back(&end);
    currentLaunch = &checks[part];
    currentDebugSites = &debugSites;
    for (begin = first; begin < last && !interrupt.interrupted();
         begin = end) {
      end = std::min<int64_t>(begin + kProgramsPerChunk, last);
      (*function)(packed.data());
      done.fetch_add(end - begin, std::memory_order_relaxed);
    }
    currentLaunch = nullptr;
  };
  if (parts == 1) {
    runPart(0);
  } else {
    std::vector<std::thread> workers;
    for (unsigned part = 0; part < parts; ++part)
      workers.emplace_back(runPart, part);
    for (std::thread &worker : workers)
      worker.join();
  }
  if (interrupt.interrupted()) {
    error = ("launch of '" + kernel + "' interrupted (SIGINT) after " +
             llvm::Twine(done.load()) + " of " + llvm::Twine(total) +
             " programs")
                .str();
    return failure();
  }
  // A failed assertion of the lowest range of program instances, else its
  // first bad access.
  auto violated = llvm::find_if(
      checks, [](const CheckedLaunch &check) { return check.violated; });
  auto failed = llvm::find_if(
      checks, [](const CheckedLaunch &check) { return check.assertFailed; });
  if (failed != checks.end()) {
    const DebugSite &site = debugSites[failed->assertSite];
    llvm::raw_string_ostream os(error);
    os << "assertion failed at " << site.text << " in program ("
       << failed->assertProgramId[0] << ", " << failed->assertProgramId[1]
       << ", " << failed->assertProgramId[2] << ")";
    if (!site.shape.empty())
      os << ", element " << formatIndex(failed->assertElement, site.shape);
    return failure();
  }
  if (violated == checks.end())
    return success();
  const CheckedLaunch &checked = *violated;
  const AccessSite &site = accessSites[checked.site];
  llvm::raw_string_ostream os(error);
  std::string array;
  if (const MemoryRange *range = checked.range) {
    llvm::raw_string_ostream arrayOs(array);
    if (range->name)
      arrayOs << range->name;
    else
      arrayOs << "argument " << range->argument;
    arrayOs << " (bytes [" << llvm::format_hex(range->begin, 0) << ", "
            << llvm::format_hex(range->end, 0) << "))";
  }
  os << (checked.problem == AccessProblem::ReadOnly ? "write to a read-only "
                                                      "array"
                                                    : "out-of-bounds access")
     << " at " << site.text << " in program (" << checked.programId[0]
     << ", " << checked.programId[1] << ", " << checked.programId[2]
     << "): bytes [" << llvm::format_hex(checked.address, 0) << ", +"
     << checked.bytes << ") ";
  if (checked.problem == AccessProblem::ReadOnly)
    os << "are in " << array << ", which is read-only";
  else if (checked.range)
    os << "are outside " << array
       << ", the array its pointer was derived from";
  else
    os << "are outside every array passed to '" << kernel << "'";
  os << "; the access was skipped";
  return failure();
}
