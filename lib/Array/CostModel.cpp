//===- CostModel.cpp - FLOPs, bytes and regimes of kernels ----------------===//

#include "kiln/Array/CostModel.h"

#include "kiln/Array/Attributes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/Support/Format.h"

using namespace mlir;
using namespace kiln;

std::optional<TargetPeaks> kiln::lookupTarget(llvm::StringRef name) {
  // FP32 and dense FP16 tensor-core peaks and DRAM bandwidth of the SXM
  // parts; a kernel launch from the host costs a few microseconds.
  if (name == "a100")
    return TargetPeaks{"a100", 19.5, 312, 2.039, 3};
  if (name == "h100")
    return TargetPeaks{"h100", 67, 989, 3.35, 3};
  if (name == "h200")
    return TargetPeaks{"h200", 67, 989, 4.8, 3};
  return std::nullopt;
}

namespace {
/// What one kernel costs.
struct KernelCost {
  std::string name;
  int64_t flops = 0;
  int64_t bytes = 0;
  bool tensorCores = false;
};
} // namespace

/// Elements of `tensor`, each dynamic dimension taken as `dynamicSize`.
static int64_t elementsOf(RankedTensorType tensor, int64_t dynamicSize) {
  int64_t elements = 1;
  for (int64_t size : tensor.getShape())
    elements *= ShapedType::isDynamic(size) ? dynamicSize : size;
  return elements;
}

static int64_t bytesOfElement(Type element) {
  int64_t bits = element.isIntOrFloat() ? element.getIntOrFloatBitWidth() : 64;
  return (bits + 7) / 8;
}

static int64_t bytesOf(Type type, int64_t dynamicSize) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return 0;
  return elementsOf(tensor, dynamicSize) *
         bytesOfElement(tensor.getElementType());
}

/// Iterations of the linalg op `op`.
static int64_t iterationsOf(linalg::LinalgOp op, int64_t dynamicSize) {
  int64_t iterations = 1;
  for (int64_t range : op.getStaticLoopRanges())
    iterations *= ShapedType::isDynamic(range) ? dynamicSize : range;
  return iterations;
}

/// Bytes read of `tensor`: all of it, or, where it is only gathered from
/// (tensor.extract in bodies of linalg ops, in `within` if given), at most
/// an element per iteration of those ops.
static int64_t bytesRead(Value tensor, int64_t dynamicSize,
                         Operation *within = nullptr) {
  int64_t whole = bytesOf(tensor.getType(), dynamicSize);
  int64_t gathered = 0;
  for (Operation *user : tensor.getUsers()) {
    auto linalgOp = user->getParentOfType<linalg::LinalgOp>();
    if (within && !within->isAncestor(user))
      continue;
    if (!isa<tensor::ExtractOp>(user) || !linalgOp)
      return whole;
    gathered += iterationsOf(linalgOp, dynamicSize) *
                bytesOfElement(getElementTypeOrSelf(tensor.getType()));
  }
  return std::min(whole, gathered);
}

static bool isArithmetic(Operation &op) {
  return isa<arith::ArithDialect, math::MathDialect>(op.getDialect()) &&
         !isa<arith::ConstantOp, arith::IndexCastOp>(op);
}

/// FLOPs of `op` and whether it can run on tensor cores.
static std::pair<int64_t, bool> flopsOf(Operation *op, int64_t dynamicSize) {
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
    int64_t iterations = iterationsOf(linalgOp, dynamicSize);
    if (linalg::isaContractionOpInterface(linalgOp)) {
      Type input = getElementTypeOrSelf(op->getOperand(0).getType());
      return {2 * iterations, input.isF16() || input.isBF16()};
    }
    int64_t perIteration = 0;
    for (Operation &bodyOp : *linalgOp.getBlock())
      perIteration += isArithmetic(bodyOp);
    return {iterations * perIteration, false};
  }
  if (isArithmetic(*op))
    if (auto tensor = dyn_cast<RankedTensorType>(op->getResult(0).getType()))
      return {elementsOf(tensor, dynamicSize), false};
  return {0, false};
}

/// Whether `op` runs as a kernel of its own before fusion.
static bool isKernelOp(Operation *op) {
  if (isa<linalg::LinalgOp>(op))
    return true;
  return isArithmetic(*op) && op->getNumResults() == 1 &&
         isa<RankedTensorType>(op->getResult(0).getType());
}

/// Bytes a kernel op moves: tensors it reads and writes, an init only when
/// its value is read.
static int64_t bytesOfOp(Operation *op, int64_t dynamicSize) {
  int64_t bytes = 0;
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
    for (OpOperand *input : linalgOp.getDpsInputOperands())
      bytes += bytesOf(input->get().getType(), dynamicSize);
    for (OpOperand &init : linalgOp.getDpsInitsMutable())
      if (linalgOp.payloadUsesValueFromOperand(&init))
        bytes += bytesOf(init.get().getType(), dynamicSize);
    llvm::SetVector<Value> captured;
    getUsedValuesDefinedAbove(op->getRegions(), captured);
    for (Value value : captured)
      bytes += bytesRead(value, dynamicSize, op);
  } else {
    for (Value operand : op->getOperands())
      bytes += bytesOf(operand.getType(), dynamicSize);
  }
  for (Value result : op->getResults())
    bytes += bytesOf(result.getType(), dynamicSize);
  return bytes;
}

static std::vector<KernelCost> kernelsOf(func::FuncOp func,
                                         SymbolTable &symbols,
                                         int64_t dynamicSize) {
  std::vector<KernelCost> kernels;
  func.walk([&](Operation *op) {
    if (auto call = dyn_cast<func::CallOp>(op)) {
      auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
      if (!callee || !callee->hasAttr(array::kKernelAttr))
        return;
      KernelCost cost{("@" + call.getCallee()).str()};
      for (BlockArgument input : callee.getArguments())
        cost.bytes += bytesRead(input, dynamicSize);
      for (Type type : call->getResultTypes())
        cost.bytes += bytesOf(type, dynamicSize);
      callee.walk([&](Operation *inner) {
        auto [flops, tensorCores] = flopsOf(inner, dynamicSize);
        cost.flops += flops;
        cost.tensorCores |= tensorCores;
      });
      kernels.push_back(cost);
      return;
    }
    if (!isKernelOp(op))
      return;
    auto [flops, tensorCores] = flopsOf(op, dynamicSize);
    kernels.push_back(KernelCost{op->getName().getStringRef().str(), flops,
                                 bytesOfOp(op, dynamicSize), tensorCores});
  });
  return kernels;
}

void kiln::printCostReport(ModuleOp module, const TargetPeaks &target,
                           int64_t dynamicSize, llvm::raw_ostream &os) {
  SymbolTable symbols(module);
  double ridge = target.fp32Tflops / target.bandwidthTbps;
  for (auto func : module.getOps<func::FuncOp>()) {
    // Array functions only: not their kernels, tile kernels or plans.
    bool onTensors = llvm::all_of(func.getArgumentTypes(), [](Type type) {
      return isa<RankedTensorType>(type);
    });
    if (func.isExternal() || func->hasAttr(array::kKernelAttr) || !onTensors)
      continue;
    std::vector<KernelCost> kernels = kernelsOf(func, symbols, dynamicSize);
    os << "kiln cost report: @" << func.getSymName() << " on " << target.name
       << " (" << llvm::format("%g", target.fp32Tflops) << " TFLOP/s fp32, "
       << llvm::format("%g", target.tensorTflops)
       << " TFLOP/s tensor cores, " << llvm::format("%g", target.bandwidthTbps)
       << " TB/s, ridge " << llvm::format("%.1f", ridge) << " FLOP/B)";
    bool dynamic = llvm::any_of(func.getArgumentTypes(), [](Type type) {
      return !cast<RankedTensorType>(type).hasStaticShape();
    });
    if (dynamic)
      os << ", each dynamic dimension taken as " << dynamicSize;
    os << "\n";
    double computeMicros = 0, memoryMicros = 0;
    int64_t totalFlops = 0, totalBytes = 0;
    for (const KernelCost &kernel : kernels) {
      double peak = kernel.tensorCores ? target.tensorTflops
                                       : target.fp32Tflops;
      double compute = kernel.flops / (peak * 1e6);
      double memory = kernel.bytes / (target.bandwidthTbps * 1e6);
      computeMicros += compute;
      memoryMicros += memory;
      totalFlops += kernel.flops;
      totalBytes += kernel.bytes;
      double intensity =
          kernel.bytes ? double(kernel.flops) / kernel.bytes : 0.0;
      os << "  kernel " << kernel.name << ": " << kernel.flops << " FLOPs, "
         << kernel.bytes << " bytes, " << llvm::format("%.2f", intensity)
         << " FLOP/B, " << (compute > memory ? "compute" : "memory")
         << "-bound\n";
    }
    double launchMicros = kernels.size() * target.launchMicros;
    const char *regime = "memory";
    double worst = memoryMicros;
    if (computeMicros > worst)
      regime = "compute", worst = computeMicros;
    if (launchMicros > worst)
      regime = "overhead";
    os << "  total: " << kernels.size() << " kernels, " << totalFlops
       << " FLOPs, " << totalBytes << " bytes; estimated "
       << llvm::format("%.2f", computeMicros) << " us arithmetic, "
       << llvm::format("%.2f", memoryMicros) << " us memory, "
       << llvm::format("%.2f", launchMicros) << " us launches: " << regime
       << "-bound\n";
  }
}
