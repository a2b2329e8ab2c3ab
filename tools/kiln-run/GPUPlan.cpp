//===- GPUPlan.cpp - Launch plans run on the GPU --------------------------===//

#include "GPUPlan.h"

#include "kiln/Conversion/TileToHost/RuntimeInterface.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include "llvm/ADT/ScopeExit.h"

using namespace mlir;
using namespace kiln;

/// A launcher's trailing arguments: grid x, y, z, first and end program.
static constexpr size_t kLaunchTail = 5;

OwningOpRef<ModuleOp> kiln::extractTileKernels(ModuleOp module) {
  OwningOpRef<ModuleOp> kernels(cast<ModuleOp>(module->clone()));
  for (auto func :
       llvm::make_early_inc_range(kernels->getOps<func::FuncOp>()))
    if (func.isExternal() || func->hasAttr("kiln.plan"))
      func.erase();
  return kernels;
}

LogicalResult kiln::runPlanOnGPU(func::FuncOp plan, runtime::Device &device,
                                 runtime::Module &kernels,
                                 unsigned threadsPerBlock,
                                 unsigned dynamicSharedBytes,
                                 ArrayRef<uint64_t> buffers,
                                 std::string &error) {
  DenseMap<Value, uint64_t> values;
  for (auto [arg, buffer] : llvm::zip(plan.getArguments(), buffers))
    values[arg] = buffer;
  // Temporaries the plan did not free (a failure halfway) go too.
  SmallVector<runtime::CUdeviceptr> temporaries;
  auto release = llvm::scope_exit([&] {
    std::string ignored;
    for (runtime::CUdeviceptr temporary : temporaries)
      device.free(temporary, ignored);
  });
  auto where = [&](Operation *op) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "plan '" << plan.getSymName() << "', " << op->getName() << " at "
       << op->getLoc() << ": ";
    return text;
  };
  for (Operation &op : plan.getBody().front()) {
    if (auto constant = dyn_cast<arith::ConstantIntOp>(op)) {
      values[constant] = static_cast<uint64_t>(constant.value());
      continue;
    }
    if (isa<func::ReturnOp>(op))
      break;
    auto call = dyn_cast<func::CallOp>(op);
    if (!call) {
      error = where(&op) + "not something a GPU plan can run";
      return failure();
    }
    SmallVector<uint64_t> operands;
    for (Value operand : call.getOperands())
      operands.push_back(values.lookup(operand));
    StringRef callee = call.getCallee();
    if (callee == host::kAllocFunction) {
      runtime::CUdeviceptr temporary = device.allocate(operands[0], error);
      if (!temporary) {
        error = where(&op) + error;
        return failure();
      }
      temporaries.push_back(temporary);
      values[call.getResult(0)] = temporary;
      continue;
    }
    if (callee == host::kFreeFunction) {
      llvm::erase(temporaries, operands[0]);
      if (!device.free(operands[0], error)) {
        error = where(&op) + error;
        return failure();
      }
      continue;
    }
    if (!callee.consume_back("_launch") || operands.size() < kLaunchTail) {
      error = where(&op) + "calls " + call.getCallee().str() +
              ", which is not a kernel launcher";
      return failure();
    }
    // Kernel parameters: the buffers' device addresses.
    size_t numBuffers = operands.size() - kLaunchTail;
    std::vector<uint64_t> addresses(operands.begin(),
                                    operands.begin() + numBuffers);
    std::vector<void *> params;
    for (uint64_t &address : addresses)
      params.push_back(&address);
    std::array<unsigned, 3> grid = {
        static_cast<unsigned>(operands[numBuffers]),
        static_cast<unsigned>(operands[numBuffers + 1]),
        static_cast<unsigned>(operands[numBuffers + 2])};
    if (!kernels.launch(callee.str(), grid, {threadsPerBlock, 1, 1},
                        dynamicSharedBytes, nullptr, params, error)) {
      error = where(&op) + error;
      return failure();
    }
  }
  return success();
}
