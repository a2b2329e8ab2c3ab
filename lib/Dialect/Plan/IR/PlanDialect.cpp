//===- PlanDialect.cpp - Launch plans of array programs -------------------===//

#include "kiln/Dialect/Plan/IR/PlanDialect.h"

#include "kiln/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::plan;

#include "kiln/Dialect/Plan/IR/PlanDialect.cpp.inc"

void PlanDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "kiln/Dialect/Plan/IR/PlanOps.cpp.inc"
      >();
}

bool plan::isPlan(func::FuncOp func) {
  return func->hasAttr(PlanDialect::getInputsAttrName());
}

/// The tensor types of `attr` (an array of them), or failure with an error
/// naming `name`.
static FailureOr<SmallVector<RankedTensorType>>
tensorTypes(Operation *op, StringRef name, Attribute attr) {
  auto array = dyn_cast<ArrayAttr>(attr);
  SmallVector<RankedTensorType> types;
  for (Attribute element : array ? array.getValue() : ArrayRef<Attribute>()) {
    auto type = dyn_cast<TypeAttr>(element);
    auto tensor = type ? dyn_cast<RankedTensorType>(type.getValue()) : nullptr;
    if (!tensor)
      break;
    types.push_back(tensor);
  }
  if (!array || types.size() != array.size())
    return op->emitOpError("'") << name
                                << "' must be an array of ranked "
                                   "tensor types";
  return types;
}

LogicalResult PlanDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  // A plan's function stays one when the host target lowers it to LLVM.
  auto func = dyn_cast<FunctionOpInterface>(op);
  if (!func)
    return op->emitOpError("'") << name
                                << "' is an attribute of a launch "
                                   "plan's function";
  if (name == getSizesAttrName()) {
    if (!isa<DenseI64ArrayAttr>(attr.getValue()))
      return op->emitOpError("'") << name << "' must be an array<i64>";
    return success();
  }
  if (name != getInputsAttrName() && name != getOutputsAttrName())
    return op->emitOpError("unknown plan attribute '") << name << "'";
  if (failed(tensorTypes(op, name, attr.getValue())))
    return failure();
  // The whole signature, once (on its inputs).
  if (name != getInputsAttrName())
    return success();
  auto outputsAttr = op->getAttr(getOutputsAttrName());
  if (!outputsAttr)
    return op->emitOpError("a launch plan needs '")
           << getOutputsAttrName() << "' with '" << name << "'";
  FailureOr<SmallVector<RankedTensorType>> inputs =
      tensorTypes(op, name, attr.getValue());
  FailureOr<SmallVector<RankedTensorType>> outputs =
      tensorTypes(op, getOutputsAttrName(), outputsAttr);
  if (failed(inputs) || failed(outputs))
    return failure();
  int64_t dynamic = 0;
  for (RankedTensorType type :
       llvm::concat<RankedTensorType>(*inputs, *outputs))
    dynamic += type.getNumDynamicDims();
  ArrayRef<int64_t> sizes;
  if (auto sizesAttr = op->getAttrOfType<DenseI64ArrayAttr>(getSizesAttrName()))
    sizes = sizesAttr.asArrayRef();
  if (int64_t(sizes.size()) != dynamic)
    return op->emitOpError("'")
           << getSizesAttrName() << "' must name a size argument for each of "
           << dynamic << " dynamic dimensions, not " << sizes.size();
  int64_t numSizes = 0;
  for (int64_t size : sizes) {
    if (size < 0 || size > numSizes)
      return op->emitOpError("'")
             << getSizesAttrName()
             << "' must number the size arguments in the order the inputs "
                "meet them";
    numSizes = std::max(numSizes, size + 1);
  }
  size_t expected = inputs->size() + outputs->size() + numSizes;
  if (func.getNumArguments() != expected || func.getNumResults() != 0 ||
      !llvm::all_of(func.getArgumentTypes(),
                    [](Type type) { return type.isInteger(64); }))
    return op->emitOpError("a launch plan takes ")
           << expected
           << " i64s (the buffers' addresses, then the sizes) "
              "and returns nothing";
  return success();
}

LogicalResult FreeOp::verify() {
  if (!getBuffer().getDefiningOp<AllocOp>())
    return emitOpError("frees only what plan.alloc gave");
  return success();
}

LogicalResult LaunchOp::verifySymbolUses(SymbolTableCollection &symbols) {
  auto kernel =
      symbols.lookupNearestSymbolFrom<func::FuncOp>(*this, getKernelAttr());
  if (!kernel)
    return emitOpError("launches '")
           << getKernel() << "', which is not a function of the module";
  if (kernel.getNumArguments() != getArguments().size())
    return emitOpError("passes ")
           << getArguments().size() << " arguments to '" << getKernel()
           << "', which takes " << kernel.getNumArguments();
  for (auto [i, pair] : llvm::enumerate(
           llvm::zip(kernel.getArgumentTypes(), getArguments().getTypes()))) {
    auto [wanted, given] = pair;
    bool matches =
        isa<tile::PointerType>(wanted) ? given.isInteger(64) : wanted == given;
    if (!matches)
      return emitOpError("argument ")
             << i << " is a " << given << ", but '" << getKernel()
             << "' takes a " << wanted
             << " (a buffer's i64 address for a pointer)";
  }
  return success();
}

#define GET_OP_CLASSES
#include "kiln/Dialect/Plan/IR/PlanOps.cpp.inc"
