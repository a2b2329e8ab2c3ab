//===- TileElementwise.cpp - Elementwise kernels to tile kernels ----------===//
//
// An elementwise kernel (every op a parallel linalg.generic over one
// iteration space) is flattened: program p handles elements
// [p * block, (p + 1) * block) of the row-major iteration space; each
// operand's offset comes from the element's indices through its indexing
// map, so broadcasts and transposes need no copies. The generic bodies are
// cloned onto tiles.
//
//===----------------------------------------------------------------------===//

#include "RecreatedOps.h"
#include "SliceViews.h"
#include "TiledKernel.h"

#include "kiln/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace kiln;

/// `value` (scalar) as a tile of `shape`, or `value` if it already is one.
static Value asTile(OpBuilder &b, Location loc, Value value,
                    ArrayRef<int64_t> shape) {
  if (isa<RankedTensorType>(value.getType()))
    return value;
  return tile::SplatOp::create(
      b, loc, RankedTensorType::get(shape, value.getType()), value);
}

/// `size` (a constant or an i32) as an i32 tile of `shape`.
static Value splatSize(OpBuilder &b, Location loc, OpFoldResult size,
                       ArrayRef<int64_t> shape) {
  if (std::optional<int64_t> constant = getConstantIntValue(size)) {
    auto type = RankedTensorType::get(shape, b.getI32Type());
    return arith::ConstantOp::create(
        b, loc, SplatElementsAttr::get(type, b.getI32IntegerAttr(*constant)));
  }
  return asTile(b, loc, cast<Value>(size), shape);
}

/// `lhs * rhs`, folded when both are constants.
static OpFoldResult multiply(OpBuilder &b, Location loc, OpFoldResult lhs,
                             OpFoldResult rhs) {
  std::optional<int64_t> l = getConstantIntValue(lhs);
  std::optional<int64_t> r = getConstantIntValue(rhs);
  if (l && r)
    return b.getI64IntegerAttr(*l * *r);
  auto value = [&](OpFoldResult size) {
    if (auto attr = dyn_cast<Attribute>(size))
      return arith::ConstantIntOp::create(b, loc,
                                          cast<IntegerAttr>(attr).getInt(), 32)
          .getResult();
    return cast<Value>(size);
  };
  return arith::MulIOp::create(b, loc, value(lhs), value(rhs)).getResult();
}

FailureOr<TiledKernel> kiln::tileElementwise(func::FuncOp kernel,
                                             int64_t maxBlock) {
  // A fill that starts no reduction or matmul (returned, say) is the
  // generic of its scalar.
  IRRewriter rewriter(kernel.getContext());
  for (auto fill :
       llvm::make_early_inc_range(kernel.getOps<linalg::FillOp>())) {
    rewriter.setInsertionPoint(fill);
    if (failed(linalg::generalizeNamedOp(rewriter, fill)))
      return fill.emitError("kiln-tile: a fill that cannot be rewritten as "
                            "the generic it is");
  }
  // Every op: a parallel generic over one domain, or an op the tile kernel
  // recreates (tensor.empty and its sizes, constants).
  SmallVector<linalg::GenericOp> generics;
  for (Operation &op : kernel.getBody().front().without_terminator()) {
    if (isRecreatedByKernels(&op))
      continue;
    auto generic = dyn_cast<linalg::GenericOp>(op);
    if (!generic || generic.getNumLoops() != generic.getNumParallelLoops())
      return kernel.emitError("kiln-tile: kernel '")
             << kernel.getSymName() << "' has a " << op.getName()
             << ", and only elementwise kernels are tiled yet";
    for (OpOperand &operand : generic->getOpOperands()) {
      AffineMap map = generic.getMatchingIndexingMap(&operand);
      if (!isStridedProjection(map))
        return generic.emitError("kiln-tile: indexing map ")
               << AffineMapAttr::get(map)
               << " is not a permutation with broadcasts, slices and "
                  "constant indices";
      // A result is written whole, each element once: what a map skips
      // would keep the init's values, which nothing copies.
      if (generic.isDpsInit(&operand) && !map.isPermutation())
        return generic.emitError("kiln-tile: an elementwise generic "
                                 "writes its result through indexing map ")
               << AffineMapAttr::get(map) << ", not a permutation";
    }
    generics.push_back(generic);
  }
  if (generics.empty())
    return kernel.emitError("kiln-tile: kernel '")
           << kernel.getSymName() << "' computes nothing";
  for (linalg::GenericOp generic : generics)
    if (generic.getNumLoops() != generics.front().getNumLoops())
      return generic.emitError("kiln-tile: the generics of an elementwise "
                               "kernel must share one iteration space");
  TiledKernel tiled;
  SmallVector<DomainOp> ops = llvm::map_to_vector(
      generics, [](linalg::GenericOp op) { return alignedWithDomain(op); });
  if (failed(analyzeDomain(kernel, ops, tiled.domain, tiled.ties)))
    return failure();
  ArrayRef<int64_t> domain = tiled.domain;
  for (auto [d, size] : llvm::enumerate(domain))
    if (ShapedType::isDynamic(size))
      tiled.sizeDims.push_back(d);
  unsigned numSizes = tiled.sizeDims.size();
  std::optional<int64_t> staticElements;
  if (numSizes == 0) {
    staticElements = 1;
    // Its result has as many: checkOffsets saw it fit 32 bits.
    for (int64_t size : domain)
      *staticElements *= size;
  }

  // The tile kernel: a pointer per input, then per result, then the
  // dynamic sizes.
  MLIRContext *ctx = kernel.getContext();
  OpBuilder b(kernel);
  Location loc = kernel.getLoc();
  FailureOr<func::FuncOp> created = createTileKernel(kernel, b, numSizes);
  if (failed(created))
    return failure();
  func::FuncOp tileKernel = *created;
  Block *entry = &tileKernel.getBody().front();
  SmallVector<OpFoldResult> sizes;
  auto sizeArgs = entry->getArguments().take_back(numSizes).begin();
  OpFoldResult elements = b.getI64IntegerAttr(1);
  for (int64_t size : domain) {
    sizes.push_back(ShapedType::isDynamic(size)
                        ? OpFoldResult(*sizeArgs++)
                        : OpFoldResult(b.getI64IntegerAttr(size)));
    elements = multiply(b, loc, elements, sizes.back());
  }
  int64_t block =
      staticElements
          ? std::min<int64_t>(
                maxBlock,
                llvm::PowerOf2Ceil(std::max<uint64_t>(*staticElements, 1)))
          : int64_t(maxBlock);
  SmallVector<int64_t> tileShape = {block};

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
  Value mask = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, linear,
                                     splatSize(b, loc, elements, tileShape));
  SmallVector<Value> indices(domain.size());
  OpFoldResult stride = b.getI64IntegerAttr(1);
  for (int64_t d = domain.size() - 1; d >= 0; --d) {
    Value index = arith::DivSIOp::create(b, loc, linear,
                                         splatSize(b, loc, stride, tileShape));
    indices[d] = arith::RemSIOp::create(b, loc, index,
                                        splatSize(b, loc, sizes[d], tileShape));
    stride = multiply(b, loc, stride, sizes[d]);
  }
  /// Pointers to the elements of `tensorType` that `map` reads at the
  /// current indices, from `base`; a dynamic dimension has the size of the
  /// domain dimension `map` sends it to.
  auto pointers = [&](Value base, RankedTensorType tensorType,
                      AffineMap map) -> Value {
    Value offset = splatSize(b, loc, b.getI64IntegerAttr(0), tileShape);
    OpFoldResult operandStride = b.getI64IntegerAttr(1);
    for (int64_t r = int64_t(map.getNumResults()) - 1; r >= 0; --r) {
      // The kernel checked that each index is a strided one.
      StridedIndex index = *getStridedIndex(map.getResult(r));
      if (index.dim)
        offset = arith::AddIOp::create(
            b, loc, offset,
            arith::MulIOp::create(
                b, loc, indices[*index.dim],
                splatSize(b, loc,
                          multiply(b, loc,
                                   b.getI64IntegerAttr(index.coefficient),
                                   operandStride),
                          tileShape)));
      if (index.offset)
        offset = arith::AddIOp::create(
            b, loc, offset,
            splatSize(b, loc,
                      multiply(b, loc, b.getI64IntegerAttr(index.offset),
                               operandStride),
                      tileShape));
      // analyzeDomain refused a slice of a dynamic dimension.
      OpFoldResult size =
          tensorType.isDynamicDim(r)
              ? sizes[*index.dim]
              : OpFoldResult(b.getI64IntegerAttr(tensorType.getDimSize(r)));
      operandStride = multiply(b, loc, operandStride, size);
    }
    auto ptrTile = RankedTensorType::get(tileShape, base.getType());
    return tile::AddPtrOp::create(
        b, loc, ptrTile, tile::SplatOp::create(b, loc, ptrTile, base), offset);
  };

  auto domainSize = [&](unsigned d) -> Value {
    if (auto size = dyn_cast<Value>(sizes[d]))
      return size;
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(),
                                        *getConstantIntValue(sizes[d]));
  };

  // Inputs are loaded; values between generics stay tiles.
  IRMapping values;
  DenseMap<std::pair<Value, AffineMap>, Value> loads;
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
      // A scalar operand (a fill's value) is recreated here.
      if (!isa<ShapedType>(source.getType())) {
        FailureOr<Value> scalar = recreateScalar(
            b, generic, source, kernel, tiled.ties, domainSize, mapping);
        if (failed(scalar))
          return failure();
        mapping.map(arg, *scalar);
        continue;
      }
      OperandRead read = readThroughSlices(generic, *input);
      auto funcArg = dyn_cast<BlockArgument>(read.source);
      if (!funcArg || funcArg.getOwner() != &kernel.getBody().front())
        return generic.emitError("kiln-tile: operand ")
               << input->getOperandNumber()
               << " comes from neither an input (or a slice of one) nor an "
                  "earlier generic";
      // An input read alike by several generics is loaded once.
      Value &loaded = loads[{read.source, read.map}];
      if (!loaded) {
        Value ptrs = pointers(entry->getArgument(funcArg.getArgNumber()),
                              cast<RankedTensorType>(read.source.getType()),
                              read.map);
        auto valueTile = RankedTensorType::get(
            tileShape, getElementTypeOrSelf(source.getType()));
        loaded = tile::LoadOp::create(b, loc, valueTile, ptrs, mask, Value());
      }
      mapping.map(arg, loaded);
    }
    for (Operation &op : body.without_terminator()) {
      if (auto index = dyn_cast<linalg::IndexOp>(op)) {
        mapping.map(index.getResult(),
                    arith::IndexCastOp::create(
                        b, loc,
                        RankedTensorType::get(tileShape, b.getIndexType()),
                        indices[index.getDim()]));
        continue;
      }
      if (auto extract = dyn_cast<tensor::ExtractOp>(op)) {
        FailureOr<Value> gathered = gatherInKernel(
            b, extract, kernel, *entry, mask, [&](Value index) -> Value {
              if (!mapping.contains(index) &&
                  failed(recreateScalar(b, extract, index, kernel,
                                        tiled.ties, domainSize, mapping)))
                return {};
              return asTile(b, loc, mapping.lookup(index), tileShape);
            });
        if (failed(gathered))
          return failure();
        mapping.map(extract.getResult(), *gathered);
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
        // A constant or size the body captured from the kernel is
        // recreated here.
        if (!mapping.contains(operand) &&
            failed(recreateScalar(b, &op, operand, kernel, tiled.ties,
                                  domainSize, mapping)))
          return failure();
        operands.push_back(asTile(b, loc, mapping.lookup(operand), tileShape));
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
         llvm::zip(generic.getResults(), yield.getValues())) {
      // A constant or size yielded as it is (a fill's value).
      if (!mapping.contains(yielded) &&
          failed(recreateScalar(b, yield, yielded, kernel, tiled.ties,
                                domainSize, mapping)))
        return failure();
      values.map(result, asTile(b, loc, mapping.lookup(yielded), tileShape));
    }
  }

  // Results are stored where the kernel returns them.
  auto ret = cast<func::ReturnOp>(kernel.getBody().front().getTerminator());
  for (auto [i, result] : llvm::enumerate(ret.getOperands())) {
    Value computed = values.lookupOrNull(result);
    if (!computed)
      return kernel.emitError("kiln-tile: result ")
             << i << " is not computed by the kernel";
    auto generic = result.getDefiningOp<linalg::GenericOp>();
    OpOperand *init =
        generic.getDpsInitOperand(cast<OpResult>(result).getResultNumber());
    Value ptrs = pointers(entry->getArgument(kernel.getNumArguments() + i),
                          cast<RankedTensorType>(result.getType()),
                          generic.getMatchingIndexingMap(init));
    tile::StoreOp::create(b, loc, ptrs, computed, mask);
  }
  func::ReturnOp::create(b, loc);
  tiled.tileKernel = tileKernel;
  tiled.grid.push_back(
      {llvm::to_vector(llvm::seq<unsigned>(domain.size())), block});
  return tiled;
}
