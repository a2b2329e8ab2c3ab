//===- GPUCompiler.cpp - Tile kernels to PTX and cubin --------------------===//

#include "kiln/Target/GPU/GPUCompiler.h"
#include "kiln/Dialect/Plan/IR/PlanDialect.h"

#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/TileGPU/IR/TileGPUDialect.h"
#include "kiln/Dialect/TileGPU/Transforms/TensorMaps.h"
#include "kiln/Runtime/TensorMap.h"
#include "kiln/Target/GPU/GPUPipeline.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace mlir;

bool kiln::gpu::hasTileKernels(ModuleOp module) {
  return !module.getOps<func::FuncOp>().empty();
}

bool kiln::gpu::hasLibdeviceFtzKernels(ModuleOp module) {
  return llvm::any_of(module.getOps<func::FuncOp>(), [](func::FuncOp kernel) {
    return kernel->hasAttr(kLibdeviceFtzAttrName);
  });
}

int64_t kiln::gpu::getCapabilityOfChip(llvm::StringRef chip) {
  int64_t capability = 0;
  chip.consume_front("sm_");
  chip.consumeInteger(10, capability);
  return capability;
}

int64_t kiln::gpu::getMaxSharedBytesPerBlock(int64_t capability) {
  switch (capability) {
  case 70:
    return 96 * 1024;
  case 75:
    return 64 * 1024;
  case 80:
  case 87:
    return 163 * 1024;
  case 86:
  case 89:
  case 120:
  case 121:
    return 99 * 1024;
  case 90:
  case 100:
  case 103:
    return 227 * 1024;
  default:
    return 48 * 1024;
  }
}

/// Whether `name` is an identifier of PTX: a letter then letters, digits,
/// '_' and '$', or one of '_', '$' and '%' then at least one of those.
static bool isPTXIdentifier(llvm::StringRef name) {
  if (name.empty() || !llvm::all_of(name.drop_front(), [](char c) {
        return llvm::isAlnum(c) || c == '_' || c == '$';
      }))
    return false;
  return llvm::isAlpha(name.front()) ||
         (llvm::is_contained("_$%", name.front()) && name.size() > 1);
}

LogicalResult kiln::gpu::lowerTileKernels(ModuleOp module,
                                          const GPUCompileOptions &compile,
                                          llvm::raw_ostream *passes) {
  int64_t numWarps = compile.numWarps;
  llvm::StringRef chip = compile.target.chip;
  if (numWarps <= 0 || numWarps > 32 || (numWarps & (numWarps - 1)) != 0)
    return module.emitError()
           << "target nvptx: num_warps must be a power of two from 1 to 32, "
              "not "
           << numWarps;
  // A tile argument would become the registers each thread holds of it,
  // and each thread would take its own value (a silent wrong result).
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal() || kiln::plan::isPlan(func))
      continue;
    // LLVM's NVPTX backend aborts on a name PTX cannot spell (Unicode), and
    // ptxas refuses one with a dot.
    if (!isPTXIdentifier(func.getSymName()))
      return func.emitOpError("target nvptx: the kernel name '")
             << func.getSymName()
             << "' is not a PTX identifier (ASCII letters, digits, '_' and "
                "'$', not starting with a digit)";
    for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
      if (isa<RankedTensorType>(type))
        return func.emitOpError("target nvptx: kernel argument ")
               << i << " is a tile (" << type
               << "); a kernel takes scalars and pointers (pass a pointer "
                  "and load the tile)";
  }
  PassManager pm(module.getContext());
  GPULoweringOptions options;
  options.numWarps = numWarps;
  options.computeCapability = getCapabilityOfChip(chip);
  options.archSpecific = chip.ends_with("a");
  options.sharedMemoryLimit =
      getMaxSharedBytesPerBlock(options.computeCapability);
  options.numStages = compile.numStages;
  buildGPULoweringPipeline(pm, options);
  if (compile.commandLineOptions) {
    if (failed(applyPassManagerCLOptions(pm)))
      return failure();
    applyDefaultTimingPassManagerCLOptions(pm);
  }
  // Into a stream, not files: LLVM's output files would install its signal
  // handlers in the host process.
  if (passes)
    pm.enableIRPrinting([](Pass *, Operation *) { return false; },
                        [](Pass *, Operation *) { return true; },
                        /*printModuleScope=*/false,
                        /*printAfterOnlyOnChange=*/true,
                        /*printAfterOnlyOnFailure=*/false, *passes);
  return pm.run(module);
}

/// What the launches of `module`'s kernels build their tensor maps from.
static FailureOr<std::vector<kiln::runtime::TensorMapSpec>>
getTensorMapSpecs(ModuleOp module) {
  std::vector<kiln::runtime::TensorMapSpec> specs;
  WalkResult result = module.walk([&](LLVM::LLVMFuncOp func) {
    auto maps = func->getAttrOfType<ArrayAttr>(kiln::tilegpu::TensorMapAttr::kAttrName);
    if (!maps)
      return WalkResult::advance();
    for (auto map : maps.getAsRange<kiln::tilegpu::TensorMapAttr>()) {
      kiln::runtime::TensorMapSpec spec;
      spec.kernel = func.getName().str();
      spec.parameter = map.getArgument();
      spec.dataType = kiln::tilegpu::getTensorMapDataType(map.getElementType());
      if (spec.dataType < 0) {
        func.emitError() << "target nvptx: TMA has no data type for "
                         << map.getElementType();
        return WalkResult::interrupt();
      }
      spec.elementBytes = map.getElementType().getIntOrFloatBitWidth() / 8;
      spec.boxRows = map.getBox()[0];
      spec.boxColumns = map.getBox()[1];
      spec.swizzle = map.getSwizzle();
      llvm::copy(map.getSources(), spec.sources.begin());
      llvm::copy(map.getValues(), spec.values.begin());
      specs.push_back(std::move(spec));
    }
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  return specs;
}

FailureOr<kiln::gpu::GPUBinary>
kiln::gpu::compileForGPU(ModuleOp module, const GPUCompileOptions &options) {
  std::string error;
  // Options first: LLVM aborts on some combinations.
  if (failed(nvptx::verifyTargetOptions(options.target, error)))
    return module.emitError() << error;
  GPUBinary binary;
  // Each step's wall-clock time, as it ends.
  auto started = std::chrono::steady_clock::now();
  auto timed = [&](llvm::StringRef step) {
    auto now = std::chrono::steady_clock::now();
    binary.timings.emplace_back(
        step.str(), std::chrono::duration<double>(now - started).count());
    started = now;
  };
  llvm::raw_string_ostream passes(binary.passes);
  nvptx::TargetOptions target = options.target;
  target.libdeviceFlushesSubnormals |= hasLibdeviceFtzKernels(module);
  if (hasTileKernels(module) &&
      failed(lowerTileKernels(module, options,
                              options.recordPasses ? &passes : nullptr)))
    return failure();
  timed("MLIR passes");
  // A warp-specialized kernel has its producer's warps besides those the
  // options ask for; a module with one has no other kernel.
  binary.threadsPerBlock = options.numWarps * 32;
  module.walk([&](LLVM::LLVMFuncOp kernel) {
    if (auto threads = kernel->getAttrOfType<DenseI32ArrayAttr>(
            NVVM::NVVMDialect::getMaxntidAttrName()))
      binary.threadsPerBlock = threads[0];
  });
  module.walk([&](mlir::gpu::GPUModuleOp kernels) {
    if (auto bytes =
            kernels->getAttrOfType<IntegerAttr>(kDynamicSharedBytesAttrName))
      binary.dynamicSharedBytes = bytes.getInt();
  });
  FailureOr<std::vector<kiln::runtime::TensorMapSpec>> tensorMaps =
      getTensorMapSpecs(module);
  if (failed(tensorMaps))
    return failure();
  binary.tensorMaps = std::move(*tensorMaps);
  llvm::LLVMContext llvmContext;
  FailureOr<std::unique_ptr<llvm::Module>> llvmModule =
      nvptx::translateToLLVMIR(module, llvmContext, target);
  if (failed(llvmModule))
    return failure();
  llvm::raw_string_ostream(binary.llvmIR) << **llvmModule;
  timed("LLVM IR");
  FailureOr<std::string> ptx = nvptx::emitPTX(**llvmModule, target, error);
  if (failed(ptx))
    return module.emitError() << error;
  binary.ptx = std::move(*ptx);
  timed("LLVM to PTX");
  if (options.assemble && nvptx::findPtxAssembler()) {
    FailureOr<std::string> cubin =
        nvptx::assembleCubin(binary.ptx, target, error, &binary.ptxasLog);
    if (failed(cubin))
      return module.emitError() << error;
    binary.cubin = std::move(*cubin);
    timed("ptxas");
  }
  return binary;
}

std::string kiln::gpu::getChipForCapability(int capability) {
  std::string chip = "sm_" + std::to_string(capability);
  if (capability == 90)
    chip += "a";
  return chip;
}
