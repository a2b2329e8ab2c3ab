//===- HostExecutable.cpp - Tile kernels compiled for the CPU -------------===//

#include "kiln/Target/Host/HostExecutable.h"

#include "kiln/Target/Host/HostPipeline.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/TargetSelect.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

using namespace mlir;
using namespace kiln::host;

namespace {
/// What the access checks of the launch running on this thread compare
/// against, and the first access they found out of bounds.
struct CheckedLaunch {
  ArrayRef<MemoryRange> ranges;
  bool violated = false;
  uint64_t address = 0, bytes = 0;
  int32_t site = 0;
  std::array<int32_t, 3> programId = {};
};
} // namespace

static thread_local CheckedLaunch *currentLaunch = nullptr;

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
  for (const MemoryRange &range : launch->ranges)
    if (address >= range.begin && address + bytes <= range.end &&
        address + bytes >= address)
      return 1;
  if (!launch->violated) {
    launch->violated = true;
    launch->address = address;
    launch->bytes = bytes;
    launch->site = site;
    launch->programId = {pidX, pidY, pidZ};
  }
  return 0;
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

HostExecutable::~HostExecutable() = default;

FailureOr<std::unique_ptr<HostExecutable>>
HostExecutable::create(ModuleOp module, bool boundsCheck) {
  static std::once_flag nativeTargetInitialized;
  std::call_once(nativeTargetInitialized, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });

  std::unique_ptr<HostExecutable> executable(new HostExecutable());
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    executable->numArguments[func.getSymName()] = func.getNumArguments();
    if (func->hasAttr("kiln.plan"))
      executable->plans.insert(func.getSymName());
  }

  OwningOpRef<ModuleOp> lowered(cast<ModuleOp>(module->clone()));
  PassManager pm(module.getContext());
  HostLoweringOptions lowering;
  lowering.boundsCheck = boundsCheck;
  buildHostLoweringPipeline(pm, lowering);
  if (failed(pm.run(*lowered)))
    return failure();
  if (auto sites = (*lowered)->getAttrOfType<ArrayAttr>(
          "kiln.host.access_sites"))
    for (auto site : sites.getAsValueRange<StringAttr>())
      executable->accessSites.push_back(site.str());

  ExecutionEngineOptions options;
  auto transformer = makeOptimizingTransformer(/*optLevel=*/3,
                                               /*sizeLevel=*/0,
                                               /*targetMachine=*/nullptr);
  options.transformer = transformer;
  auto engine = ExecutionEngine::create(*lowered, options);
  if (!engine) {
    std::string message = llvm::toString(engine.takeError());
    return module.emitError("host JIT compilation failed: ") << message;
  }
  executable->engine = std::move(*engine);
  executable->engine->registerSymbols([](llvm::orc::MangleAndInterner mangle) {
    llvm::orc::SymbolMap symbols;
    symbols[mangle("__kiln_host_check_access")] = {
        llvm::orc::ExecutorAddr::fromPtr(&checkAccess),
        llvm::JITSymbolFlags::Exported};
    symbols[mangle("memrefCopy")] = {
        llvm::orc::ExecutorAddr::fromPtr(&memrefCopy),
        llvm::JITSymbolFlags::Exported};
    symbols[mangle("__kiln_host_alloc")] = {
        llvm::orc::ExecutorAddr::fromPtr(&allocateTemporary),
        llvm::JITSymbolFlags::Exported};
    symbols[mangle("__kiln_host_free")] = {
        llvm::orc::ExecutorAddr::fromPtr(&freeTemporary),
        llvm::JITSymbolFlags::Exported};
    symbols[mangle("__kiln_host_lock")] = {
        llvm::orc::ExecutorAddr::fromPtr(&lockAtomics),
        llvm::JITSymbolFlags::Exported};
    symbols[mangle("__kiln_host_unlock")] = {
        llvm::orc::ExecutorAddr::fromPtr(&unlockAtomics),
        llvm::JITSymbolFlags::Exported};
    return symbols;
  });
  return executable;
}

LogicalResult HostExecutable::runPlan(StringRef plan,
                                      ArrayRef<int64_t> addresses,
                                      std::string &error) {
  auto it = numArguments.find(plan);
  if (it == numArguments.end() || !plans.contains(plan)) {
    error = ("no launch plan named '" + plan + "'").str();
    return failure();
  }
  if (addresses.size() != it->second) {
    error = ("plan '" + plan + "' takes " + llvm::Twine(it->second) +
             " buffers, but " + llvm::Twine(addresses.size()) +
             " were given")
                .str();
    return failure();
  }
  SmallVector<int64_t> values(addresses);
  SmallVector<void *> packed;
  for (int64_t &value : values)
    packed.push_back(&value);
  if (llvm::Error err = engine->invokePacked(plan, packed)) {
    error = llvm::toString(std::move(err));
    return failure();
  }
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
  auto function = engine->lookupPacked((kernel + "_launch").str());
  if (!function) {
    error = llvm::toString(function.takeError());
    return failure();
  }
  uint64_t total = uint64_t(grid[0]) * grid[1] * grid[2];
  unsigned parts = std::max<uint64_t>(1, std::min<uint64_t>(threads, total));
  std::vector<CheckedLaunch> checks(parts);
  auto runPart = [&](unsigned part) {
    int64_t begin = total * part / parts, end = total * (part + 1) / parts;
    SmallVector<void *> packed(args);
    for (uint32_t &size : grid)
      packed.push_back(&size);
    packed.push_back(&begin);
    packed.push_back(&end);
    checks[part].ranges = ranges;
    currentLaunch = &checks[part];
    (*function)(packed.data());
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
  // The first bad access of the lowest range of program instances.
  auto violated = llvm::find_if(
      checks, [](const CheckedLaunch &check) { return check.violated; });
  if (violated == checks.end())
    return success();
  const CheckedLaunch &checked = *violated;
  llvm::raw_string_ostream os(error);
  os << "out-of-bounds access at " << accessSites[checked.site]
     << " in program (" << checked.programId[0] << ", "
     << checked.programId[1] << ", " << checked.programId[2] << "): bytes ["
     << llvm::format_hex(checked.address, 0) << ", +" << checked.bytes
     << ") are outside every array passed to '" << kernel
     << "'; the access was skipped";
  return failure();
}
