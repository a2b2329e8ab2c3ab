//===- PlanExecutor.cpp - Launch plans run on the GPU ---------------------===//

#include "kiln/Runtime/PlanExecutor.h"

#include "kiln/Dialect/Plan/IR/PlanDialect.h"
#include "kiln/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringSet.h"

#include <cstring>
#include <functional>

using namespace mlir;
using namespace kiln;
using kiln::runtime::PlanGraph;

/// The alignment the kernels of a plan on the GPU take their buffers at.
static constexpr int64_t kPlanAlignment = 16;

OwningOpRef<ModuleOp> kiln::extractTileKernels(ModuleOp module,
                                               func::FuncOp plan) {
  llvm::StringSet<> launched;
  plan.walk(
      [&](plan::LaunchOp launch) { launched.insert(launch.getKernel()); });
  OwningOpRef<ModuleOp> kernels(cast<ModuleOp>(module->clone()));
  Builder b(module.getContext());
  for (auto func :
       llvm::make_early_inc_range(kernels->getOps<func::FuncOp>())) {
    if (func.isExternal() || !launched.contains(func.getSymName())) {
      func.erase();
      continue;
    }
    // Every buffer of a plan on the GPU is a device allocation, which is
    // aligned far past 16 bytes (runPlanOnGPU checks each launch): the
    // kernels may vectorize, and pipeline their matmuls' loads.
    StringRef divisibility = tile::TileDialect::getDivisibilityAttrName();
    for (auto [index, type] : llvm::enumerate(func.getArgumentTypes()))
      if (isa<tile::PointerType>(type) && !func.getArgAttr(index, divisibility))
        func.setArgAttr(index, divisibility,
                        b.getI64IntegerAttr(kPlanAlignment));
  }
  return kernels;
}

/// The value of `op`, an integer op of a plan (a constant, or arithmetic on
/// sizes) whose operands are `operands`, found by folding it.
static std::optional<uint64_t> evaluate(Operation &op,
                                        ArrayRef<uint64_t> operands) {
  SmallVector<Attribute> attrs;
  for (auto [operand, value] : llvm::zip(op.getOperands(), operands)) {
    auto type = dyn_cast<IntegerType>(operand.getType());
    if (!type)
      return std::nullopt;
    attrs.push_back(
        IntegerAttr::get(type, APInt(type.getWidth(), value)));
  }
  SmallVector<OpFoldResult> results;
  if (op.getNumResults() != 1 || failed(op.fold(attrs, results)) ||
      results.size() != 1)
    return std::nullopt;
  auto attr = dyn_cast_if_present<IntegerAttr>(
      dyn_cast<Attribute>(results.front()));
  if (!attr)
    return std::nullopt;
  return attr.getValue().getZExtValue();
}

namespace {
/// What following a plan does at its temporaries and launches.
struct PlanActions {
  /// A temporary of `bytes` bytes (at least 1: cuMemAlloc refuses 0, and an
  /// empty temporary is never read); 0 with `error` set on failure.
  std::function<runtime::CUdeviceptr(uint64_t bytes, std::string &error)>
      allocate;
  /// The plan frees a temporary.
  std::function<bool(runtime::CUdeviceptr, std::string &error)> release;
  /// A launch of `kernel` over `programs` programs (at least 1), its
  /// parameters held in `values` and pointed to by `params`.
  std::function<bool(const std::string &kernel, unsigned programs,
                     ArrayRef<uint64_t> values, std::vector<void *> &params,
                     std::string &error)>
      launch;
};
} // namespace

/// Follows `plan` op by op on `arguments` (see runPlanOnGPU), doing
/// `actions` at its temporaries and launches.
static LogicalResult followPlan(func::FuncOp plan, ArrayRef<uint64_t> arguments,
                                const PlanActions &actions,
                                std::string &error) {
  auto module = plan->getParentOfType<ModuleOp>();
  DenseMap<Value, uint64_t> values;
  for (auto [arg, value] : llvm::zip(plan.getArguments(), arguments))
    values[arg] = value;
  auto where = [&](Operation *op) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "plan '" << plan.getSymName() << "', " << op->getName() << " at "
       << op->getLoc() << ": ";
    return text;
  };
  for (Operation &op : plan.getBody().front()) {
    if (isa<func::ReturnOp>(op))
      break;
    SmallVector<uint64_t> operands;
    for (Value operand : op.getOperands())
      operands.push_back(values.lookup(operand));
    if (auto alloc = dyn_cast<plan::AllocOp>(op)) {
      runtime::CUdeviceptr temporary =
          actions.allocate(std::max<uint64_t>(operands[0], 1), error);
      if (!temporary) {
        error = where(&op) + error;
        return failure();
      }
      values[alloc.getBuffer()] = temporary;
      continue;
    }
    if (isa<plan::FreeOp>(op)) {
      if (!actions.release(operands[0], error)) {
        error = where(&op) + error;
        return failure();
      }
      continue;
    }
    auto launch = dyn_cast<plan::LaunchOp>(op);
    if (!launch) {
      std::optional<uint64_t> value = evaluate(op, operands);
      if (!value) {
        error = where(&op) + "not something a GPU plan can run";
        return failure();
      }
      values[op.getResult(0)] = *value;
      continue;
    }
    // Kernel parameters: the buffers' device addresses (i64), then sizes
    // (i32), each in storage of its own width.
    auto kernel = module.lookupSymbol<func::FuncOp>(launch.getKernelAttr());
    OperandRange args = launch.getArguments();
    std::vector<uint64_t> storage(args.size());
    std::vector<void *> params;
    for (auto [i, arg] : llvm::enumerate(args)) {
      uint64_t value = values.lookup(arg);
      // extractTileKernels compiled the pointers as aligned.
      if (kernel && isa<tile::PointerType>(kernel.getArgumentTypes()[i]) &&
          value % kPlanAlignment != 0) {
        error = where(&op) + "buffer " + std::to_string(i) + " of '" +
                launch.getKernel().str() + "' is not " +
                std::to_string(kPlanAlignment) + "-byte aligned";
        return failure();
      }
      if (arg.getType().isInteger(32)) {
        uint32_t narrow = static_cast<uint32_t>(value);
        std::memcpy(&storage[i], &narrow, sizeof(narrow));
      } else {
        storage[i] = value;
      }
      params.push_back(&storage[i]);
    }
    uint64_t programs = values.lookup(launch.getPrograms());
    // An empty tensor makes an empty grid, which CUDA refuses to launch.
    if (programs == 0)
      continue;
    if (!actions.launch(launch.getKernel().str(),
                        static_cast<unsigned>(programs), storage, params,
                        error)) {
      error = where(&op) + error;
      return failure();
    }
  }
  return success();
}

LogicalResult kiln::runPlanOnGPU(func::FuncOp plan, runtime::Device &device,
                                 runtime::Module &kernels,
                                 unsigned threadsPerBlock,
                                 unsigned dynamicSharedBytes,
                                 ArrayRef<uint64_t> arguments,
                                 runtime::CUstream stream, std::string &error) {
  // Temporaries the plan did not free (a failure halfway) go too.
  SmallVector<runtime::CUdeviceptr> temporaries;
  auto release = llvm::scope_exit([&] {
    std::string ignored;
    for (runtime::CUdeviceptr temporary : temporaries)
      device.free(temporary, ignored);
  });
  PlanActions actions;
  actions.allocate = [&](uint64_t bytes, std::string &error) {
    runtime::CUdeviceptr temporary = device.allocate(bytes, error);
    if (temporary)
      temporaries.push_back(temporary);
    return temporary;
  };
  actions.release = [&](runtime::CUdeviceptr temporary, std::string &error) {
    llvm::erase(temporaries, temporary);
    return device.free(temporary, error);
  };
  actions.launch = [&](const std::string &kernel, unsigned programs,
                       ArrayRef<uint64_t>, std::vector<void *> &params,
                       std::string &error) {
    return kernels.launch(kernel, {programs, 1, 1}, {threadsPerBlock, 1, 1},
                          dynamicSharedBytes, stream, params, error);
  };
  return followPlan(plan, arguments, actions, error);
}

std::unique_ptr<PlanGraph>
PlanGraph::capture(func::FuncOp plan, runtime::Device &device,
                   runtime::Module &kernels, unsigned threadsPerBlock,
                   unsigned dynamicSharedBytes, ArrayRef<uint64_t> arguments,
                   std::string &error) {
  std::unique_ptr<PlanGraph> graph(new PlanGraph(
      plan, device, kernels, threadsPerBlock, dynamicSharedBytes));
  graph->graph = runtime::Graph::create(device, error);
  if (!graph->graph)
    return nullptr;
  // Each temporary is allocated once and held; the plan's frees are left
  // to the graph's end.
  PlanActions building;
  building.allocate = [&](uint64_t bytes, std::string &error) {
    runtime::CUdeviceptr temporary = device.allocate(bytes, error);
    if (temporary)
      graph->temporaries.push_back({temporary, bytes});
    return temporary;
  };
  building.release = [](runtime::CUdeviceptr, std::string &) { return true; };
  building.launch = [&](const std::string &kernel, unsigned programs,
                        ArrayRef<uint64_t> values, std::vector<void *> &params,
                        std::string &error) {
    runtime::KernelLaunch launch;
    if (!graph->prepare(kernel, programs, params, launch, error) ||
        !graph->graph->addKernel(launch, error))
      return false;
    graph->launches.push_back(
        {programs, std::vector<uint64_t>(values.begin(), values.end())});
    return true;
  };
  if (failed(followPlan(plan, arguments, building, error)) ||
      !graph->graph->instantiate(error))
    return nullptr;
  return graph;
}

bool PlanGraph::prepare(const std::string &kernel, unsigned programs,
                        std::vector<void *> &params,
                        runtime::KernelLaunch &launch, std::string &error) {
  return kernels.prepare(kernel, {programs, 1, 1}, {threadsPerBlock, 1, 1},
                         dynamicSharedBytes, params, launch, error);
}

bool PlanGraph::launch(runtime::CUstream stream, std::string &error) {
  return graph->launch(stream, error);
}

bool PlanGraph::launch(ArrayRef<uint64_t> arguments, runtime::CUstream stream,
                       std::string &error) {
  std::lock_guard<std::mutex> lock(mutex);
  // The plan followed on the new arguments: its temporaries must be the
  // sizes captured and its grids the same, and the kernels whose
  // parameters differ (buffers elsewhere) get the new ones.
  size_t nextTemporary = 0, nextLaunch = 0;
  auto differs = [&](std::string &error) {
    error = "plan '" + plan.getSymName().str() +
            "': these arguments' sizes are not the ones the graph was "
            "captured with";
    return false;
  };
  PlanActions updating;
  updating.allocate = [&](uint64_t bytes,
                          std::string &error) -> runtime::CUdeviceptr {
    if (nextTemporary == temporaries.size() ||
        temporaries[nextTemporary].bytes != bytes) {
      differs(error);
      return 0;
    }
    return temporaries[nextTemporary++].address;
  };
  updating.release = [](runtime::CUdeviceptr, std::string &) { return true; };
  updating.launch = [&](const std::string &kernel, unsigned programs,
                        ArrayRef<uint64_t> values, std::vector<void *> &params,
                        std::string &error) {
    if (nextLaunch == launches.size() ||
        launches[nextLaunch].programs != programs)
      return differs(error);
    CapturedLaunch &captured = launches[nextLaunch];
    if (ArrayRef<uint64_t>(captured.values) != values) {
      runtime::KernelLaunch launch;
      if (!prepare(kernel, programs, params, launch, error) ||
          !graph->setKernel(nextLaunch, launch, error))
        return false;
      captured.values.assign(values.begin(), values.end());
    }
    ++nextLaunch;
    return true;
  };
  if (failed(followPlan(plan, arguments, updating, error)))
    return false;
  if (nextLaunch != launches.size() || nextTemporary != temporaries.size())
    return differs(error);
  return graph->launch(stream, error);
}

PlanGraph::~PlanGraph() {
  graph.reset();
  std::string ignored;
  for (const Temporary &temporary : temporaries)
    device.free(temporary.address, ignored);
}
