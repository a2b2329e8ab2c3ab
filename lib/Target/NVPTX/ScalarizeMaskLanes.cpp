//===- ScalarizeMaskLanes.cpp - Mask lanes computed as scalars ------------===//

#include "kiln/Target/NVPTX/ScalarizeMaskLanes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Analysis/VectorUtils.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace {
/// Lanes of i1 vectors computed as scalars. Each lane is placed right after
/// the vector value it is a lane of, so it dominates every place the
/// vector reaches, and is made once.
class LaneScalarizer {
public:
  /// Lane `index` of `vector`, a vector of i1.
  Value *lane(Value *vector, unsigned index);

private:
  /// Lane `index` of `vector` (of any element type) as it is: a value the
  /// vector was built from, else an extractelement after its definition.
  Value *element(Value *vector, unsigned index);
  /// Where a value computed from `vector` goes: after its definition (after
  /// the PHIs of its block for a PHI, at the function's entry for an
  /// argument).
  static Instruction *after(Value *vector);

  DenseMap<std::pair<Value *, unsigned>, Value *> lanes;
};
} // namespace

Instruction *LaneScalarizer::after(Value *vector) {
  if (auto *argument = dyn_cast<Argument>(vector))
    return &*argument->getParent()->getEntryBlock().getFirstInsertionPt();
  auto *definition = cast<Instruction>(vector);
  if (isa<PHINode>(definition))
    return &*definition->getParent()->getFirstInsertionPt();
  return definition->getNextNode();
}

Value *LaneScalarizer::element(Value *vector, unsigned index) {
  if (Value *found = findScalarElement(vector, index))
    return found;
  if (auto *constant = dyn_cast<Constant>(vector))
    if (Constant *lane = constant->getAggregateElement(index))
      return lane;
  if (!isa<Instruction, Argument>(vector))
    return nullptr;
  return ExtractElementInst::Create(
      vector, ConstantInt::get(Type::getInt32Ty(vector->getContext()), index),
      "", after(vector)->getIterator());
}

Value *LaneScalarizer::lane(Value *vector, unsigned index) {
  auto key = std::make_pair(vector, index);
  if (Value *known = lanes.lookup(key))
    return known;
  auto *instruction = dyn_cast<Instruction>(vector);
  Value *result = nullptr;
  if (auto *insert = dyn_cast_if_present<InsertElementInst>(instruction)) {
    auto *position = dyn_cast<ConstantInt>(insert->getOperand(2));
    if (position && position->getZExtValue() == index)
      result = insert->getOperand(1);
    else if (position)
      result = lane(insert->getOperand(0), index);
  } else if (auto *shuffle =
                 dyn_cast_if_present<ShuffleVectorInst>(instruction)) {
    int picked = shuffle->getMaskValue(index);
    unsigned width = cast<FixedVectorType>(shuffle->getOperand(0)->getType())
                         ->getNumElements();
    if (picked < 0)
      result = PoisonValue::get(shuffle->getType()->getScalarType());
    else if (static_cast<unsigned>(picked) < width)
      result = lane(shuffle->getOperand(0), picked);
    else
      result = lane(shuffle->getOperand(1), picked - width);
  } else if (auto *binary = dyn_cast_if_present<BinaryOperator>(instruction)) {
    Value *lhs = lane(binary->getOperand(0), index);
    Value *rhs = lane(binary->getOperand(1), index);
    if (lhs && rhs) {
      auto *scalar = BinaryOperator::Create(binary->getOpcode(), lhs, rhs, "",
                                            after(binary)->getIterator());
      scalar->copyIRFlags(binary);
      result = scalar;
    }
  } else if (auto *compare = dyn_cast_if_present<CmpInst>(instruction)) {
    // The operands are vectors of another type: their lanes as they are.
    Value *lhs = element(compare->getOperand(0), index);
    Value *rhs = element(compare->getOperand(1), index);
    if (lhs && rhs) {
      auto *scalar =
          CmpInst::Create(compare->getOpcode(), compare->getPredicate(), lhs,
                          rhs, "", after(compare)->getIterator());
      scalar->copyIRFlags(compare);
      result = scalar;
    }
  } else if (auto *select = dyn_cast_if_present<SelectInst>(instruction)) {
    Value *condition = select->getCondition();
    if (condition->getType()->isVectorTy())
      condition = lane(condition, index);
    Value *chosen = lane(select->getTrueValue(), index);
    Value *other = lane(select->getFalseValue(), index);
    if (condition && chosen && other) {
      auto *scalar = SelectInst::Create(condition, chosen, other, "",
                                        after(select)->getIterator());
      scalar->copyIRFlags(select);
      result = scalar;
    }
  }
  if (!result)
    result = element(vector, index);
  lanes[key] = result;
  return result;
}

/// Whether `vector` is an operation on i1 vectors whose lanes the
/// scalarizer computes (not a value it can only extract from).
static bool isLaneWise(Value *vector) {
  return isa<InsertElementInst, ShuffleVectorInst, BinaryOperator, CmpInst,
             SelectInst>(vector);
}

PreservedAnalyses
kiln::nvptx::ScalarizeMaskLanesPass::run(Function &function,
                                         FunctionAnalysisManager &) {
  SmallVector<ExtractElementInst *> extracts;
  for (Instruction &instruction : instructions(function))
    if (auto *extract = dyn_cast<ExtractElementInst>(&instruction))
      if (auto *index = dyn_cast<ConstantInt>(extract->getIndexOperand())) {
        auto *type = dyn_cast<FixedVectorType>(extract->getVectorOperandType());
        if (type && extract->getType()->isIntegerTy(1) &&
            index->getValue().ult(type->getNumElements()) &&
            isLaneWise(extract->getVectorOperand()))
          extracts.push_back(extract);
      }
  if (extracts.empty())
    return PreservedAnalyses::all();
  LaneScalarizer scalarizer;
  for (ExtractElementInst *extract : extracts) {
    auto index = cast<ConstantInt>(extract->getIndexOperand());
    Value *scalar =
        scalarizer.lane(extract->getVectorOperand(), index->getZExtValue());
    extract->replaceAllUsesWith(scalar);
    extract->eraseFromParent();
  }
  PreservedAnalyses preserved;
  preserved.preserveSet<CFGAnalyses>();
  return preserved;
}
