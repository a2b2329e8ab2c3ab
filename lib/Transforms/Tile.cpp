//===- Tile.cpp - Fused kernels to tile kernels and a launch plan ---------===//
//
// An elementwise kernel (every op a parallel linalg.generic over one
// iteration space) is flattened: program p handles elements
// [p * block, (p + 1) * block) of the row-major iteration space; each
// operand's offset comes from the element's indices through its indexing
// map, so broadcasts and transposes need no copies. The generic bodies are
// cloned onto tiles. Kernels with reductions are row kernels (TileRows.cpp).
// The calling function becomes a launch plan.
//
//===----------------------------------------------------------------------===//

#include "kiln/Transforms/Passes.h"

#include "GeneralizeNamedOps.h"
#include "TiledKernel.h"


#include "kiln/Conversion/TileToHost/RuntimeInterface.h"
#include "kiln/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/MathExtras.h"

#define DEBUG_TYPE "kiln-tile"

namespace kiln {
#define GEN_PASS_DEF_KILNTILEPASS
#include "kiln/Transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;
using kiln::host::kAllocFunction;
using kiln::host::kFreeFunction;

namespace {
struct KilnTilePass : kiln::impl::KilnTilePassBase<KilnTilePass> {
  using KilnTilePassBase::KilnTilePassBase;

  void runOnOperation() override;

private:
  FailureOr<TiledKernel> tileElementwise(func::FuncOp kernel);
  LogicalResult makePlan(func::FuncOp func,
                         DenseMap<StringRef, TiledKernel> &tiled);
};
} // namespace

/// `value` (scalar) as a tile of `shape`, or `value` if it already is one.
func::FuncOp kiln::createTileKernel(func::FuncOp kernel, OpBuilder &b) {
  SmallVector<Type> argTypes;
  for (Type type : llvm::concat<const Type>(kernel.getArgumentTypes(),
                                            kernel.getResultTypes()))
    argTypes.push_back(tile::PointerType::get(
        cast<RankedTensorType>(type).getElementType()));
  b.setInsertionPointAfter(kernel);
  auto tileKernel = func::FuncOp::create(
      b, kernel.getLoc(), (kernel.getSymName() + "_tile").str(),
      b.getFunctionType(argTypes, {}));
  b.setInsertionPointToStart(tileKernel.addEntryBlock());
  return tileKernel;
}

static Value asTile(OpBuilder &b, Location loc, Value value,
                    ArrayRef<int64_t> shape) {
  if (isa<RankedTensorType>(value.getType()))
    return value;
  return tile::SplatOp::create(
      b, loc, RankedTensorType::get(shape, value.getType()), value);
}

static Value splatConstant(OpBuilder &b, Location loc, int64_t value,
                           ArrayRef<int64_t> shape) {
  auto type = RankedTensorType::get(shape, b.getI32Type());
  return arith::ConstantOp::create(
      b, loc, SplatElementsAttr::get(type, b.getI32IntegerAttr(value)));
}

FailureOr<TiledKernel> KilnTilePass::tileElementwise(func::FuncOp kernel) {
  // Every op: a parallel generic over one static domain, or an op the tile
  // kernel recreates (tensor.empty, constants).
  SmallVector<linalg::GenericOp> generics;
  SmallVector<int64_t> domain;
  for (Operation &op : kernel.getBody().front().without_terminator()) {
    if (isa<tensor::EmptyOp, arith::ConstantOp>(op))
      continue;
    auto generic = dyn_cast<linalg::GenericOp>(op);
    if (!generic || generic.getNumLoops() != generic.getNumParallelLoops())
      return kernel.emitError("kiln-tile: kernel '")
             << kernel.getSymName() << "' has a " << op.getName()
             << ", and only elementwise kernels are tiled yet";
    SmallVector<int64_t> ranges = generic.getStaticLoopRanges();
    if (llvm::any_of(ranges, ShapedType::isDynamic))
      return generic.emitError("kiln-tile: dynamic shapes are not tiled yet");
    if (!domain.empty() && ranges != domain)
      return generic.emitError("kiln-tile: the generics of an elementwise "
                               "kernel must share one iteration space");
    domain = ranges;
    for (AffineMap map : generic.getIndexingMapsArray())
      if (!map.isProjectedPermutation() &&
          !llvm::all_of(map.getResults(), llvm::IsaPred<AffineDimExpr,
                                                        AffineConstantExpr>))
        return generic.emitError("kiln-tile: indexing map ")
               << AffineMapAttr::get(map)
               << " is not a permutation with broadcasts and constant "
                  "indices";
    generics.push_back(generic);
  }
  if (generics.empty())
    return kernel.emitError("kiln-tile: kernel '")
           << kernel.getSymName() << "' computes nothing";

  int64_t elements = 1;
  for (int64_t size : domain)
    elements *= size;
  int64_t block = std::min<int64_t>(
      this->block, llvm::PowerOf2Ceil(static_cast<uint64_t>(elements)));
  SmallVector<int64_t> tileShape = {block};

  // The tile kernel: a pointer per input, then per result.
  MLIRContext *ctx = &getContext();
  OpBuilder b(kernel);
  Location loc = kernel.getLoc();
  func::FuncOp tileKernel = createTileKernel(kernel, b);
  Block *entry = &tileKernel.getBody().front();

  // Linear element ids of this program, their mask and their indices.
  Value pid = tile::ProgramIdOp::create(
      b, loc, b.getI32Type(),
      tile::ProgramAxisAttr::get(ctx, tile::ProgramAxis::X));
  Value start = arith::MulIOp::create(
      b, loc, pid, arith::ConstantIntOp::create(b, loc, block, 32));
  auto i32Tile = RankedTensorType::get(tileShape, b.getI32Type());
  Value linear = arith::AddIOp::create(
      b, loc, tile::SplatOp::create(b, loc, i32Tile, start),
      tile::RangeOp::create(b, loc, i32Tile, 0, block));
  Value mask = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                     linear,
                                     splatConstant(b, loc, elements,
                                                   tileShape));
  SmallVector<Value> indices(domain.size());
  int64_t stride = 1;
  for (int64_t d = domain.size() - 1; d >= 0; --d) {
    Value index = arith::DivSIOp::create(
        b, loc, linear, splatConstant(b, loc, stride, tileShape));
    indices[d] = arith::RemSIOp::create(
        b, loc, index, splatConstant(b, loc, domain[d], tileShape));
    stride *= domain[d];
  }
  /// Pointers to the elements of `tensorType` that `map` reads at the
  /// current indices, from `base`.
  auto pointers = [&](Value base, RankedTensorType tensorType,
                      AffineMap map) -> Value {
    Value offset = splatConstant(b, loc, 0, tileShape);
    int64_t operandStride = 1;
    for (int64_t r = int64_t(map.getNumResults()) - 1; r >= 0; --r) {
      AffineExpr result = map.getResult(r);
      if (auto dim = dyn_cast<AffineDimExpr>(result))
        offset = arith::AddIOp::create(
            b, loc, offset,
            arith::MulIOp::create(
                b, loc, indices[dim.getPosition()],
                splatConstant(b, loc, operandStride, tileShape)));
      else if (int64_t index = cast<AffineConstantExpr>(result).getValue())
        offset = arith::AddIOp::create(
            b, loc, offset,
            splatConstant(b, loc, index * operandStride, tileShape));
      operandStride *= tensorType.getDimSize(r);
    }
    auto ptrTile = RankedTensorType::get(tileShape, base.getType());
    return tile::AddPtrOp::create(
        b, loc, ptrTile, tile::SplatOp::create(b, loc, ptrTile, base),
        offset);
  };

  // Inputs are loaded; values between generics stay tiles.
  IRMapping values;
  for (linalg::GenericOp generic : generics) {
    Block &body = *generic.getBody();
    for (OpOperand &init : generic.getDpsInitsMutable())
      if (generic.payloadUsesValueFromOperand(&init))
        return generic.emitError("kiln-tile: an elementwise body that reads "
                                 "its output is not tiled yet");
    IRMapping mapping;
    for (OpOperand *input : generic.getDpsInputOperands()) {
      Value source = input->get();
      BlockArgument arg = body.getArgument(input->getOperandNumber());
      if (auto known = values.lookupOrNull(source)) {
        // A computed tile holds each program's own elements: it can be read
        // only where they were written, not transposed or broadcast.
        auto producer = source.getDefiningOp<linalg::GenericOp>();
        if (generic.getMatchingIndexingMap(input) !=
            producer.getIndexingMapMatchingResult(cast<OpResult>(source)))
          return generic.emitError("kiln-tile: operand ")
                 << input->getOperandNumber()
                 << " reads a value the kernel computes through another "
                    "indexing map than the one it was written with";
        mapping.map(arg, known);
        continue;
      }
      auto funcArg = dyn_cast<BlockArgument>(source);
      if (!funcArg || funcArg.getOwner() != &kernel.getBody().front())
        return generic.emitError("kiln-tile: operand ")
               << input->getOperandNumber()
               << " comes from neither an input nor an earlier generic";
      Value ptrs = pointers(entry->getArgument(funcArg.getArgNumber()),
                            cast<RankedTensorType>(source.getType()),
                            generic.getMatchingIndexingMap(input));
      auto valueTile = RankedTensorType::get(
          tileShape, getElementTypeOrSelf(source.getType()));
      mapping.map(arg, tile::LoadOp::create(b, loc, valueTile, ptrs, mask,
                                            Value()));
    }
    for (Operation &op : body.without_terminator()) {
      if (auto index = dyn_cast<linalg::IndexOp>(op)) {
        mapping.map(index.getResult(),
                    arith::IndexCastOp::create(
                        b, loc, RankedTensorType::get(tileShape,
                                                      b.getIndexType()),
                        indices[index.getDim()]));
        continue;
      }
      if (op.getNumRegions() != 0 ||
          !isa<arith::ArithDialect, math::MathDialect>(op.getDialect()))
        return op.emitError("kiln-tile: ")
               << op.getName() << " in an elementwise body is not tiled yet";
      // Scalar ops become ops on tiles; constants stay scalars and are
      // splatted where a tile needs them.
      if (isa<arith::ConstantOp>(op)) {
        mapping.map(op.getResult(0), b.clone(op)->getResult(0));
        continue;
      }
      SmallVector<Value> operands;
      for (Value operand : op.getOperands()) {
        // A constant the body captured from the kernel is recreated here.
        if (!mapping.contains(operand)) {
          auto constant = operand.getDefiningOp<arith::ConstantOp>();
          if (!constant || constant->getBlock() == &body)
            return op.emitError("kiln-tile: operand defined outside the "
                                "body is not a constant");
          mapping.map(operand, b.clone(*constant)->getResult(0));
        }
        operands.push_back(asTile(b, loc, mapping.lookup(operand),
                                  tileShape));
      }
      SmallVector<Type> resultTypes;
      for (Type type : op.getResultTypes())
        resultTypes.push_back(RankedTensorType::get(tileShape, type));
      OperationState state(op.getLoc(), op.getName(), operands, resultTypes,
                           op.getAttrs());
      Operation *clone = b.create(state);
      for (auto [from, to] : llvm::zip(op.getResults(), clone->getResults()))
        mapping.map(from, to);
    }
    auto yield = cast<linalg::YieldOp>(body.getTerminator());
    for (auto [result, yielded] :
         llvm::zip(generic.getResults(), yield.getValues()))
      values.map(result, asTile(b, loc, mapping.lookupOrDefault(yielded),
                                tileShape));
  }

  // Results are stored where the kernel returns them.
  auto ret = cast<func::ReturnOp>(kernel.getBody().front().getTerminator());
  for (auto [i, result] : llvm::enumerate(ret.getOperands())) {
    Value computed = values.lookupOrNull(result);
    if (!computed)
      return kernel.emitError("kiln-tile: result ")
             << i << " is not computed by the kernel";
    auto generic = result.getDefiningOp<linalg::GenericOp>();
    OpOperand *init = generic.getDpsInitOperand(
        cast<OpResult>(result).getResultNumber());
    Value ptrs = pointers(entry->getArgument(kernel.getNumArguments() + i),
                          cast<RankedTensorType>(result.getType()),
                          generic.getMatchingIndexingMap(init));
    tile::StoreOp::create(b, loc, ptrs, computed, mask);
  }
  func::ReturnOp::create(b, loc);
  return TiledKernel{tileKernel, (elements + block - 1) / block};
}

LogicalResult KilnTilePass::makePlan(func::FuncOp func,
                                     DenseMap<StringRef, TiledKernel> &tiled) {
  MLIRContext *ctx = &getContext();
  Block &body = func.getBody().front();
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  Type i64 = IntegerType::get(ctx, 64);
  OpBuilder b(func);
  Location loc = func.getLoc();

  // Addresses in: inputs, then results.
  SmallVector<Type> argTypes(func.getNumArguments() + func.getNumResults(),
                             i64);
  auto plan = func::FuncOp::create(b, loc, func.getSymName(),
                                   FunctionType::get(ctx, argTypes, {}));
  plan->setAttr("kiln.plan", b.getUnitAttr());
  plan->setAttr("kiln.plan.inputs",
                b.getTypeArrayAttr(func.getArgumentTypes()));
  plan->setAttr("kiln.plan.outputs",
                b.getTypeArrayAttr(func.getResultTypes()));
  Block *entry = plan.addEntryBlock();
  b.setInsertionPointToStart(entry);

  // Each tensor value is a buffer: an address.
  DenseMap<Value, Value> address;
  for (auto [arg, value] : llvm::zip(func.getArguments(),
                                     entry->getArguments()))
    address[arg] = value;
  // A value the function returns goes straight into the caller's buffer.
  DenseMap<Value, Value> resultBuffer;
  for (auto [i, result] : llvm::enumerate(ret.getOperands())) {
    if (isa<BlockArgument>(result) || resultBuffer.count(result))
      return func.emitError("kiln-tile: result ")
             << i << " is an input or another result; copies are not "
                     "planned yet";
    resultBuffer[result] = entry->getArgument(func.getNumArguments() + i);
  }
  SmallVector<Value> temporaries;
  Value zero = arith::ConstantIntOp::create(b, loc, 0, 64);
  Value one32 = arith::ConstantIntOp::create(b, loc, 1, 32);
  for (Operation &op : body.without_terminator()) {
    // Kernels make their own constants and empty tensors; one that is
    // returned has no kernel to write it.
    if (isa<tensor::EmptyOp, arith::ConstantOp>(op)) {
      if (llvm::is_contained(op.getUsers(), ret.getOperation()))
        return op.emitError("kiln-tile: a launch plan does not return a ")
               << op.getName() << " (no kernel writes it)";
      continue;
    }
    auto call = dyn_cast<func::CallOp>(op);
    auto it = call ? tiled.find(call.getCallee()) : tiled.end();
    if (it == tiled.end())
      return op.emitError("kiln-tile: a launch plan holds only calls of "
                          "kernels, not ")
             << op.getName();
    SmallVector<Value> args;
    for (Value operand : call.getOperands()) {
      Value buffer = address.lookup(operand);
      if (!buffer)
        return call.emitError("kiln-tile: operand has no buffer");
      args.push_back(buffer);
    }
    for (Value result : call.getResults()) {
      Value buffer = resultBuffer.lookup(result);
      if (!buffer) {
        auto type = cast<RankedTensorType>(result.getType());
        int64_t bytes = type.getNumElements() *
                        ((type.getElementTypeBitWidth() + 7) / 8);
        buffer = func::CallOp::create(
                     b, loc, kAllocFunction, TypeRange{i64},
                     ValueRange{arith::ConstantIntOp::create(b, loc, bytes,
                                                             64)})
                     .getResult(0);
        temporaries.push_back(buffer);
      }
      address[result] = buffer;
      args.push_back(buffer);
    }
    TiledKernel kernel = it->second;
    args.push_back(arith::ConstantIntOp::create(b, loc, kernel.programs, 32));
    args.push_back(one32);
    args.push_back(one32);
    args.push_back(zero);
    args.push_back(arith::ConstantIntOp::create(b, loc, kernel.programs, 64));
    func::CallOp::create(
        b, loc, (kernel.tileKernel.getSymName() + "_launch").str(),
        TypeRange(), args);
  }
  for (Value temporary : temporaries)
    func::CallOp::create(b, loc, kFreeFunction, TypeRange(), temporary);
  func::ReturnOp::create(b, loc);
  func.erase();
  return success();
}

void KilnTilePass::runOnOperation() {
  ModuleOp module = getOperation();
  if (block <= 0 || !llvm::isPowerOf2_64(block)) {
    module.emitError("kiln-tile: block must be a power of two, not ") << block;
    return signalPassFailure();
  }
  if (maxRow <= 0) {
    module.emitError("kiln-tile: max-row must be positive, not ") << maxRow;
    return signalPassFailure();
  }
  for (int64_t size : {int64_t(blockM), int64_t(blockN), int64_t(blockK)})
    if (size < 16 || !llvm::isPowerOf2_64(size)) {
      module.emitError("kiln-tile: matmul blocks must be powers of two of "
                       "at least 16, not ")
          << size;
      return signalPassFailure();
    }
  DenseMap<StringRef, TiledKernel> tiled;
  SmallVector<func::FuncOp> kernels, callers;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func->hasAttr("kiln.kernel"))
      kernels.push_back(func);
    else if (!func.isExternal())
      callers.push_back(func);
  }
  for (func::FuncOp kernel : kernels) {
    // kiln-fuse generalizes these; a kernel written by hand may have them.
    if (failed(generalizeFixedMapOps(kernel)))
      return signalPassFailure();
    FailureOr<TiledKernel> result =
        isMatmulKernel(kernel)
            ? tileMatmul(kernel, MatmulBlocks{blockM, blockN, blockK})
        : hasReductions(kernel) ? tileRows(kernel, maxRow)
                                : tileElementwise(kernel);
    if (failed(result))
      return signalPassFailure();
    tiled[kernel.getSymName()] = *result;
  }
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  Type i64 = b.getI64Type();
  // Declarations the plans call: each kernel's host launcher (defined when
  // the host lowering adds it) and the runtime's allocator.
  for (auto &[name, kernel] : tiled) {
    func::FuncOp tileKernel = kernel.tileKernel;
    SmallVector<Type> launcher(tileKernel.getArgumentTypes().size(), i64);
    launcher.append(3, b.getI32Type());
    launcher.append(2, i64);
    func::FuncOp::create(b, module.getLoc(),
                         (tileKernel.getSymName() + "_launch").str(),
                         b.getFunctionType(launcher, {}))
        .setPrivate();
  }
  func::FuncOp::create(b, module.getLoc(), kAllocFunction,
                       b.getFunctionType({i64}, {i64}))
      .setPrivate();
  func::FuncOp::create(b, module.getLoc(), kFreeFunction,
                       b.getFunctionType({i64}, {}))
      .setPrivate();
  for (func::FuncOp caller : callers)
    if (failed(makePlan(caller, tiled)))
      return signalPassFailure();
  for (func::FuncOp kernel : kernels)
    kernel.erase();
}
