//===- RecreatedOps.cpp - Ops each kernel makes for itself ----------------===//

#include "RecreatedOps.h"

#include "SliceViews.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace kiln;

/// isRecreatedByKernels, remembering what it found of each op (scalar
/// arithmetic may share operands).
static bool isRecreated(Operation *op, DenseMap<Operation *, bool> &known) {
  if (!op)
    return false;
  if (auto found = known.find(op); found != known.end())
    return found->second;
  bool recreated =
      isa<tensor::EmptyOp, tensor::DimOp, arith::ConstantOp>(op) ||
      isSliceView(op) ||
      (isa<arith::ArithDialect>(op->getDialect()) &&
       op->getNumRegions() == 0 && isMemoryEffectFree(op) &&
       llvm::all_of(op->getResultTypes(),
                    [](Type type) { return type.isIntOrIndexOrFloat(); }) &&
       llvm::all_of(op->getOperands(), [&](Value operand) {
         return isRecreated(operand.getDefiningOp(), known);
       }));
  return known[op] = recreated;
}

bool kiln::isRecreatedByKernels(Operation *op) {
  DenseMap<Operation *, bool> known;
  return isRecreated(op, known);
}

LogicalResult kiln::checkCaptured(Operation *user, Value value) {
  if (isRecreatedByKernels(value.getDefiningOp()) &&
      value.getType().isIntOrIndexOrFloat())
    return success();
  return user->emitError("kiln-tile: a body uses a value from outside it "
                         "that is neither a constant nor computed from the "
                         "sizes of the kernel's inputs");
}

FailureOr<Value> kiln::recreateScalar(OpBuilder &b, Operation *user,
                                      Value value, func::FuncOp kernel,
                                      ArrayRef<SizeTie> ties,
                                      function_ref<Value(unsigned)> domainSize,
                                      IRMapping &recreated) {
  if (Value known = recreated.lookupOrNull(value))
    return known;
  if (failed(checkCaptured(user, value)))
    return failure();
  Operation *op = value.getDefiningOp();
  Location loc = op->getLoc();
  Value result;
  if (auto dim = dyn_cast<tensor::DimOp>(op)) {
    auto input = dyn_cast<BlockArgument>(dim.getSource());
    std::optional<int64_t> index = dim.getConstantIndex();
    auto type = dyn_cast<RankedTensorType>(dim.getSource().getType());
    if (!input || input.getOwner() != &kernel.getBody().front() || !index ||
        !type || *index < 0 || *index >= type.getRank())
      return user->emitError("kiln-tile: a body uses a size that is not a "
                             "dimension of a kernel input");
    if (!type.isDynamicDim(*index)) {
      result = arith::ConstantIndexOp::create(b, loc, type.getDimSize(*index));
    } else {
      const SizeTie *tie = llvm::find_if(ties, [&](const SizeTie &tie) {
        return tie.operand == input.getArgNumber() && tie.dim == *index;
      });
      if (tie == ties.end())
        return user->emitError("kiln-tile: a body uses the size of "
                               "dimension ")
               << *index << " of input " << input.getArgNumber()
               << ", which none of the kernel's loops spans";
      result = arith::IndexCastOp::create(b, loc, b.getIndexType(),
                                          domainSize(tie->domainDim));
    }
  } else {
    IRMapping operands;
    for (Value operand : op->getOperands()) {
      FailureOr<Value> made = recreateScalar(b, user, operand, kernel, ties,
                                             domainSize, recreated);
      if (failed(made))
        return failure();
      operands.map(operand, *made);
    }
    result = b.clone(*op, operands)
                 ->getResult(cast<OpResult>(value).getResultNumber());
  }
  recreated.map(value, result);
  return result;
}
