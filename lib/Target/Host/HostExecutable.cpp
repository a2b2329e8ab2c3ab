//===- HostExecutable.cpp - Tile kernels compiled for the CPU -------------===//

#include "kiln/Target/Host/HostExecutable.h"

#include "kiln/Target/Host/HostPipeline.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/TargetSelect.h"

#include <mutex>

using namespace mlir;
using namespace kiln::host;

HostExecutable::~HostExecutable() = default;

FailureOr<std::unique_ptr<HostExecutable>>
HostExecutable::create(ModuleOp module) {
  static std::once_flag nativeTargetInitialized;
  std::call_once(nativeTargetInitialized, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });

  std::unique_ptr<HostExecutable> executable(new HostExecutable());
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal())
      executable->numArguments[func.getSymName()] = func.getNumArguments();

  OwningOpRef<ModuleOp> lowered(cast<ModuleOp>(module->clone()));
  PassManager pm(module.getContext());
  buildHostLoweringPipeline(pm);
  if (failed(pm.run(*lowered)))
    return failure();

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
  return executable;
}

LogicalResult HostExecutable::launch(StringRef kernel,
                                     std::array<uint32_t, 3> grid,
                                     ArrayRef<void *> args,
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
  SmallVector<void *> packed(args);
  for (uint32_t &size : grid)
    packed.push_back(&size);
  if (llvm::Error err =
          engine->invokePacked((kernel + "_launch").str(), packed)) {
    error = llvm::toString(std::move(err));
    return failure();
  }
  return success();
}
