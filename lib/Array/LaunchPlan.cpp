//===- LaunchPlan.cpp - An array function as a launch plan ----------------===//
//
// After kiln-tile, an array function's body is calls of kernels. Its launch
// plan (the plan dialect) is a function of i64s: the addresses of its
// inputs, then of its results, then one size per class of dynamic
// dimensions the program needs equal; its body allocates temporaries
// (plan.alloc), launches each kernel (plan.launch) and frees them
// (plan.free). Each kernel ties operand dimensions to its domain
// (SizeTie), so the classes come from joining along those ties; a class
// that holds a static size anywhere is that constant, and every other
// class is a size argument, which some input dimension must give. The
// plan's attributes (plan.inputs, plan.outputs, plan.sizes) say how to call
// it.
//
//===----------------------------------------------------------------------===//

#include "kiln/Array/LaunchPlan.h"

#include "RecreatedOps.h"
#include "TiledKernel.h"

#include "kiln/Dialect/Plan/IR/PlanDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/EquivalenceClasses.h"

using namespace mlir;
using namespace kiln;

/// Whether `op` reshapes a tensor, which a plan does without a launch.
static bool isReshape(Operation *op) {
  return isa_and_present<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(op);
}

/// `value` before the reshapes that made it.
static Value beforeReshapes(Value value) {
  while (isReshape(value.getDefiningOp()))
    value = value.getDefiningOp()->getOperand(0);
  return value;
}

namespace {
/// Classes of dimensions of an array function's tensors that have one size.
class SizeClasses {
public:
  /// The nodes of `value`'s dimensions, made from its type on first use.
  ArrayRef<unsigned> dimsOf(Value value) {
    auto [it, inserted] = dims.try_emplace(value);
    if (inserted)
      for (int64_t size : cast<RankedTensorType>(value.getType()).getShape())
        it->second.push_back(newNode(size));
    return it->second;
  }

  /// A new class of one dimension of `size` (maybe dynamic).
  unsigned newNode(int64_t size) {
    unsigned node = sizes.size();
    sizes.push_back(size);
    classes.insert(node);
    return node;
  }

  /// Joins the classes of `a` and `b`; fails when they have two static
  /// sizes.
  LogicalResult join(unsigned a, unsigned b) {
    int64_t sizeA = size(a), sizeB = size(b);
    if (!ShapedType::isDynamic(sizeA) && !ShapedType::isDynamic(sizeB) &&
        sizeA != sizeB)
      return failure();
    classes.unionSets(a, b);
    sizes[leader(a)] = ShapedType::isDynamic(sizeA) ? sizeB : sizeA;
    return success();
  }

  unsigned leader(unsigned node) const {
    return classes.getLeaderValue(node);
  }
  /// The static size of `node`'s class, or ShapedType::kDynamic.
  int64_t size(unsigned node) const { return sizes[leader(node)]; }

private:
  DenseMap<Value, SmallVector<unsigned>> dims;
  SmallVector<int64_t> sizes;
  llvm::EquivalenceClasses<unsigned> classes;
};
} // namespace

LogicalResult
kiln::buildLaunchPlan(func::FuncOp func,
                      DenseMap<StringRef, TiledKernel> &tiled) {
  MLIRContext *ctx = func.getContext();
  Block &body = func.getBody().front();
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  for (auto [i, type] : llvm::enumerate(llvm::concat<const Type>(
           func.getArgumentTypes(), func.getResultTypes())))
    if (!isa<RankedTensorType>(type))
      return func.emitError("kiln-tile: a launch plan takes and returns "
                            "ranked tensors, but operand ")
             << i << " of '" << func.getSymName() << "' is a " << type;

  // The launches, and the classes of sizes their ties make.
  SizeClasses sizes;
  struct Launch {
    func::CallOp call;
    TiledKernel *kernel;
    SmallVector<unsigned> domain;
  };
  SmallVector<Launch> launches;
  for (Operation &op : body.without_terminator()) {
    // Kernels make their own constants and empty tensors; one that is
    // returned has no kernel to write it.
    if (isRecreatedByKernels(&op)) {
      if (llvm::is_contained(op.getUsers(), ret.getOperation()))
        return op.emitError("kiln-tile: a launch plan does not return a ")
               << op.getName() << " (no kernel writes it)";
      continue;
    }
    // A reshape of a row-major tensor is its buffer seen with another
    // shape; one of dynamic sizes would need them computed from others.
    if (isReshape(&op)) {
      if (!cast<RankedTensorType>(op.getOperand(0).getType())
               .hasStaticShape() ||
          !cast<RankedTensorType>(op.getResult(0).getType()).hasStaticShape())
        return op.emitError("kiln-tile: a launch plan reshapes only tensors "
                            "of static shape");
      continue;
    }
    auto call = dyn_cast<func::CallOp>(op);
    auto it = call ? tiled.find(call.getCallee()) : tiled.end();
    if (it == tiled.end())
      return op.emitError("kiln-tile: a launch plan holds only calls of "
                          "kernels, not ")
             << op.getName();
    Launch launch{call, &it->second, {}};
    for (int64_t size : launch.kernel->domain)
      launch.domain.push_back(sizes.newNode(size));
    SmallVector<Value> operands(call.getOperands());
    llvm::append_range(operands, call.getResults());
    for (SizeTie tie : launch.kernel->ties)
      if (failed(sizes.join(sizes.dimsOf(operands[tie.operand])[tie.dim],
                            launch.domain[tie.domainDim])))
        return call.emitError("kiln-tile: dimension ")
               << tie.dim << " of operand " << tie.operand
               << " would need two different static sizes";
    launches.push_back(std::move(launch));
  }

  // A size argument per dynamic class, in the order the inputs meet them;
  // the types the caller passes, with the fixed sizes made static.
  DenseMap<unsigned, unsigned> sizeArgument;
  SmallVector<int64_t> sizeOrder;
  auto callerType = [&](Value value, bool isInput) -> FailureOr<Type> {
    SmallVector<int64_t> shape;
    for (unsigned node : sizes.dimsOf(value)) {
      shape.push_back(sizes.size(node));
      if (!ShapedType::isDynamic(shape.back()))
        continue;
      auto [it, inserted] =
          sizeArgument.try_emplace(sizes.leader(node), sizeArgument.size());
      if (inserted && !isInput)
        return failure();
      sizeOrder.push_back(it->second);
    }
    return cast<RankedTensorType>(value.getType()).clone(shape);
  };
  SmallVector<Type> inputTypes, outputTypes;
  for (Value arg : func.getArguments())
    inputTypes.push_back(*callerType(arg, true));
  for (auto [i, result] : llvm::enumerate(ret.getOperands())) {
    FailureOr<Type> type = callerType(result, false);
    if (failed(type))
      return func.emitError("kiln-tile: result ")
             << i << " of '" << func.getSymName()
             << "' has a dynamic size that no input dimension gives";
    outputTypes.push_back(*type);
  }
  auto isKnown = [&](unsigned node) {
    return !ShapedType::isDynamic(sizes.size(node)) ||
           sizeArgument.contains(sizes.leader(node));
  };
  for (Launch &launch : launches) {
    bool known = llvm::all_of(launch.domain, isKnown);
    for (Value result : launch.call.getResults())
      known &= llvm::all_of(sizes.dimsOf(result), isKnown);
    if (!known)
      return launch.call.emitError("kiln-tile: a dynamic size of this "
                                   "kernel is given by no input dimension");
  }

  // The plan: addresses of inputs and results, then the sizes.
  OpBuilder b(func);
  Location loc = func.getLoc();
  Type i64 = b.getI64Type(), i32 = b.getI32Type();
  unsigned numBuffers = func.getNumArguments() + func.getNumResults();
  SmallVector<Type> argTypes(numBuffers + sizeArgument.size(), i64);
  auto plan = func::FuncOp::create(b, loc, func.getSymName(),
                                   FunctionType::get(ctx, argTypes, {}));
  plan->setAttr(plan::PlanDialect::getInputsAttrName(),
                b.getTypeArrayAttr(inputTypes));
  plan->setAttr(plan::PlanDialect::getOutputsAttrName(),
                b.getTypeArrayAttr(outputTypes));
  if (!sizeOrder.empty())
    plan->setAttr(plan::PlanDialect::getSizesAttrName(),
                  b.getDenseI64ArrayAttr(sizeOrder));
  Block *entry = plan.addEntryBlock();
  b.setInsertionPointToStart(entry);
  auto sizeOf = [&](unsigned node) -> Value {
    int64_t size = sizes.size(node);
    if (!ShapedType::isDynamic(size))
      return arith::ConstantIntOp::create(b, loc, size, 64);
    return entry->getArgument(numBuffers +
                              sizeArgument.lookup(sizes.leader(node)));
  };
  auto product = [&](ArrayRef<unsigned> nodes, int64_t factor) {
    Value result = arith::ConstantIntOp::create(b, loc, factor, 64);
    for (unsigned node : nodes)
      result = b.createOrFold<arith::MulIOp>(loc, result, sizeOf(node));
    return result;
  };

  // Each tensor value is a buffer: an address.
  DenseMap<Value, Value> address;
  for (auto [arg, value] : llvm::zip(func.getArguments(),
                                     entry->getArguments()))
    address[arg] = value;
  // A value the function returns (maybe reshaped) goes straight into the
  // caller's buffer.
  DenseMap<Value, Value> resultBuffer;
  for (auto [i, returned] : llvm::enumerate(ret.getOperands())) {
    Value result = beforeReshapes(returned);
    if (isa<BlockArgument>(result) || resultBuffer.count(result))
      return func.emitError("kiln-tile: result ")
             << i << " is an input or another result; copies are not "
                     "planned yet";
    resultBuffer[result] = entry->getArgument(func.getNumArguments() + i);
  }
  SmallVector<Value> temporaries;
  for (Launch &launch : launches) {
    func::CallOp call = launch.call;
    SmallVector<Value> args;
    for (Value operand : call.getOperands()) {
      Value buffer = address.lookup(beforeReshapes(operand));
      if (!buffer)
        return call.emitError("kiln-tile: operand has no buffer");
      args.push_back(buffer);
    }
    for (Value result : call.getResults()) {
      Value buffer = resultBuffer.lookup(result);
      if (!buffer) {
        auto type = cast<RankedTensorType>(result.getType());
        Value bytes = product(sizes.dimsOf(result),
                              (type.getElementTypeBitWidth() + 7) / 8);
        buffer = plan::AllocOp::create(b, loc, i64, bytes);
        temporaries.push_back(buffer);
      }
      address[result] = buffer;
      args.push_back(buffer);
    }
    TiledKernel &kernel = *launch.kernel;
    for (unsigned d : kernel.sizeDims)
      args.push_back(
          b.createOrFold<arith::TruncIOp>(loc, i32, sizeOf(launch.domain[d])));
    Value programs64 = arith::ConstantIntOp::create(b, loc, 1, 64);
    for (const GridFactor &factor : kernel.grid) {
      SmallVector<unsigned> nodes = llvm::map_to_vector(
          factor.dims, [&](unsigned d) { return launch.domain[d]; });
      Value blocks = b.createOrFold<arith::DivUIOp>(
          loc,
          b.createOrFold<arith::AddIOp>(
              loc, product(nodes, 1),
              arith::ConstantIntOp::create(b, loc, factor.divisor - 1, 64)),
          arith::ConstantIntOp::create(b, loc, factor.divisor, 64));
      programs64 = b.createOrFold<arith::MulIOp>(loc, programs64, blocks);
    }
    plan::LaunchOp::create(b, loc, kernel.tileKernel.getSymName(), programs64,
                           args);
  }
  for (Value temporary : temporaries)
    plan::FreeOp::create(b, loc, temporary);
  func::ReturnOp::create(b, loc);
  func.erase();
  return success();
}

FailureOr<PlanCall>
kiln::bindLaunchPlan(func::FuncOp plan,
                     ArrayRef<SmallVector<int64_t>> inputShapes,
                     std::string &error) {
  auto typesOf = [&](StringRef name) {
    SmallVector<RankedTensorType> types;
    if (auto array = plan->getAttrOfType<ArrayAttr>(name))
      for (Attribute attr : array)
        if (auto type = dyn_cast<TypeAttr>(attr))
          types.push_back(dyn_cast<RankedTensorType>(type.getValue()));
    return types;
  };
  SmallVector<RankedTensorType> inputs =
      typesOf(plan::PlanDialect::getInputsAttrName());
  SmallVector<RankedTensorType> outputs =
      typesOf(plan::PlanDialect::getOutputsAttrName());
  ArrayRef<int64_t> order;
  if (auto sizes = plan->getAttrOfType<DenseI64ArrayAttr>(
          plan::PlanDialect::getSizesAttrName()))
    order = sizes.asArrayRef();
  std::string name = ("'" + plan.getSymName() + "'").str();
  if (!plan::isPlan(plan) || llvm::is_contained(inputs, nullptr) ||
      llvm::is_contained(outputs, nullptr)) {
    error = name + " is not a launch plan (run kiln-fuse and kiln-tile on "
                   "the array function)";
    return failure();
  }
  if (inputShapes.size() != inputs.size()) {
    error = name + " takes " + std::to_string(inputs.size()) +
            " tensors, but " + std::to_string(inputShapes.size()) +
            " were given";
    return failure();
  }
  PlanCall call;
  SmallVector<std::string> givenBy;
  size_t next = 0;
  for (auto [i, type, shape] : llvm::enumerate(inputs, inputShapes)) {
    std::string input = "input " + std::to_string(i) + " of " + name;
    if (shape.size() != size_t(type.getRank())) {
      error = input + " must have " + std::to_string(type.getRank()) +
              " dimensions, not " + std::to_string(shape.size());
      return failure();
    }
    for (auto [d, size] : llvm::enumerate(shape)) {
      std::string where = input + ", dimension " + std::to_string(d);
      int64_t wanted = type.getDimSize(d);
      if (size < 0) {
        error = where + ": a size cannot be negative";
        return failure();
      }
      if (!ShapedType::isDynamic(wanted)) {
        if (size == wanted)
          continue;
        error = where + ": the function needs " + std::to_string(wanted) +
                ", not " + std::to_string(size);
        return failure();
      }
      if (next >= order.size()) {
        error = name + " has a malformed plan.sizes";
        return failure();
      }
      size_t index = order[next++];
      if (index == call.sizes.size()) {
        call.sizes.push_back(size);
        givenBy.push_back("input " + std::to_string(i) + "'s dimension " +
                          std::to_string(d));
      }
      if (index >= call.sizes.size()) {
        error = name + " has a malformed plan.sizes";
        return failure();
      }
      if (call.sizes[index] != size) {
        error = where + ": the function needs it equal to " +
                givenBy[index] + ", " + std::to_string(call.sizes[index]) +
                ", not " + std::to_string(size);
        return failure();
      }
    }
  }
  for (RankedTensorType type : outputs) {
    SmallVector<int64_t> shape(type.getShape());
    for (int64_t &size : shape) {
      if (!ShapedType::isDynamic(size))
        continue;
      if (next >= order.size() || size_t(order[next]) >= call.sizes.size()) {
        error = name + " has a malformed plan.sizes";
        return failure();
      }
      size = call.sizes[order[next++]];
    }
    call.outputShapes.push_back(std::move(shape));
  }
  return call;
}
