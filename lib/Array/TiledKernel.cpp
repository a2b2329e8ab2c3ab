//===- TiledKernel.cpp - What the tilers share ----------------------------===//
//
// The pieces every tiler of kiln-tile (elementwise, rows, matmul) builds
// on: the empty tile kernel of a kernel, its iteration domain and how its
// operands' dimensions tie to it, and the strided indices of the indexing
// maps that read operands in place.
//
//===----------------------------------------------------------------------===//

#include "TiledKernel.h"

#include "SliceViews.h"

#include "kiln/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace kiln;

FailureOr<func::FuncOp>
kiln::createTileKernel(func::FuncOp kernel, OpBuilder &b, unsigned numSizes) {
  SmallVector<Type> argTypes;
  for (auto [i, type] : llvm::enumerate(llvm::concat<const Type>(
           kernel.getArgumentTypes(), kernel.getResultTypes()))) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor)
      return kernel.emitError("kiln-tile: operand ")
             << i << " of kernel '" << kernel.getSymName() << "' is a " << type
             << ", not a ranked tensor";
    argTypes.push_back(tile::PointerType::get(tensor.getElementType()));
  }
  argTypes.append(numSizes, b.getI32Type());
  b.setInsertionPointAfter(kernel);
  auto tileKernel = func::FuncOp::create(b, kernel.getLoc(),
                                         (kernel.getSymName() + "_tile").str(),
                                         b.getFunctionType(argTypes, {}));
  b.setInsertionPointToStart(tileKernel.addEntryBlock());
  return tileKernel;
}

Value kiln::broadcastAlong(OpBuilder &b, Location loc, Value value,
                           int64_t axis, ArrayRef<int64_t> shape) {
  Type element = cast<RankedTensorType>(value.getType()).getElementType();
  SmallVector<int64_t> expanded(shape);
  expanded[axis] = 1;
  Value single = tile::ExpandDimsOp::create(
      b, loc, RankedTensorType::get(expanded, element), value,
      b.getI32IntegerAttr(axis));
  return tile::BroadcastOp::create(
      b, loc, RankedTensorType::get(shape, element), single);
}

std::optional<StridedIndex> kiln::getStridedIndex(AffineExpr index) {
  if (auto dim = dyn_cast<AffineDimExpr>(index))
    return StridedIndex{dim.getPosition(), 1, 0};
  if (auto constant = dyn_cast<AffineConstantExpr>(index))
    return StridedIndex{std::nullopt, 0, constant.getValue()};
  auto binary = dyn_cast<AffineBinaryOpExpr>(index);
  if (!binary)
    return std::nullopt;
  std::optional<StridedIndex> lhs = getStridedIndex(binary.getLHS());
  std::optional<StridedIndex> rhs = getStridedIndex(binary.getRHS());
  if (!lhs || !rhs)
    return std::nullopt;
  if (binary.getKind() == AffineExprKind::Add) {
    if (lhs->dim && rhs->dim)
      return std::nullopt;
    return StridedIndex{lhs->dim ? lhs->dim : rhs->dim,
                        lhs->coefficient + rhs->coefficient,
                        lhs->offset + rhs->offset};
  }
  if (binary.getKind() != AffineExprKind::Mul)
    return std::nullopt;
  // A product with a constant.
  if (!lhs->dim)
    std::swap(lhs, rhs);
  if (rhs->dim)
    return std::nullopt;
  return StridedIndex{lhs->dim, lhs->coefficient * rhs->offset,
                      lhs->offset * rhs->offset};
}

bool kiln::isStridedProjection(AffineMap map) {
  llvm::SmallBitVector seen(map.getNumDims());
  return llvm::all_of(map.getResults(), [&](AffineExpr result) {
    std::optional<StridedIndex> index = getStridedIndex(result);
    if (!index || (index->dim && index->coefficient == 0))
      return false;
    if (!index->dim)
      return true;
    bool first = !seen.test(*index->dim);
    seen.set(*index->dim);
    return first;
  });
}

bool kiln::readsSlice(AffineMap map) {
  return llvm::any_of(map.getResults(), [](AffineExpr result) {
    std::optional<StridedIndex> index = getStridedIndex(result);
    return !index || !index->isPlain();
  });
}

DomainOp kiln::alignedWithDomain(linalg::LinalgOp op) {
  return {op, llvm::to_vector(llvm::seq(op.getNumLoops()))};
}

LogicalResult kiln::analyzeDomain(func::FuncOp kernel, ArrayRef<DomainOp> ops,
                                  SmallVector<int64_t> &domain,
                                  SmallVector<SizeTie> &ties) {
  Block &entry = kernel.getBody().front();
  auto ret = cast<func::ReturnOp>(entry.getTerminator());
  unsigned numInputs = kernel.getNumArguments();
  // Which kernel operand a value is: an input, or a result it returns.
  auto operandIndex = [&](Value value) -> std::optional<unsigned> {
    if (auto arg = dyn_cast<BlockArgument>(value);
        arg && arg.getOwner() == &entry)
      return arg.getArgNumber();
    for (auto [i, result] : llvm::enumerate(ret.getOperands()))
      if (result == value)
        return numInputs + i;
    return std::nullopt;
  };
  unsigned rank = 0;
  for (const DomainOp &domainOp : ops)
    for (unsigned d : domainOp.loops)
      rank = std::max(rank, d + 1);
  domain.assign(rank, ShapedType::kDynamic);
  for (const DomainOp &domainOp : ops) {
    linalg::LinalgOp generic = domainOp.op;
    for (OpOperand &operand : generic->getOpOperands()) {
      // A scalar operand has no size.
      auto type = dyn_cast<RankedTensorType>(operand.get().getType());
      if (!type)
        continue;
      AffineMap map = generic.getMatchingIndexingMap(&operand);
      // A result is the init's dimension for dimension.
      SmallVector<std::optional<unsigned>> sources = {
          operandIndex(operand.get())};
      if (generic.isDpsInit(&operand))
        sources.push_back(operandIndex(generic.getTiedOpResult(&operand)));
      for (auto [r, result] : llvm::enumerate(map.getResults())) {
        std::optional<StridedIndex> strided = getStridedIndex(result);
        if (!strided)
          return generic.emitError("kiln-tile: indexing map ")
                 << AffineMapAttr::get(map) << " of operand "
                 << operand.getOperandNumber()
                 << " is not a permutation with broadcasts, slices and "
                    "constant indices";
        // A constant index, or a slice, does not size the domain.
        if (!strided->dim || !strided->isPlain()) {
          if (type.isDynamicDim(r))
            return generic.emitError("kiln-tile: dimension ")
                   << r << " of operand " << operand.getOperandNumber()
                   << " is dynamic and read "
                   << (strided->dim ? "through a slice" : "at a constant index")
                   << ", which needs more than a mask";
          continue;
        }
        unsigned d = domainOp.loops[*strided->dim];
        int64_t size = type.getDimSize(r);
        if (!ShapedType::isDynamic(size)) {
          if (!ShapedType::isDynamic(domain[d]) && domain[d] != size)
            return generic.emitError("kiln-tile: the generics of a kernel "
                                     "must share one iteration space");
          domain[d] = size;
        }
        for (std::optional<unsigned> source : sources)
          if (source)
            ties.push_back({*source, unsigned(r), d});
        // A slice of an input takes its dynamic dimensions whole.
        OperandRead read = readThroughSlices(generic, operand);
        std::optional<unsigned> root = operandIndex(read.source);
        if (read.sliced && root && type.isDynamicDim(r))
          for (auto [p, index] : llvm::enumerate(read.map.getResults()))
            if (index == getAffineDimExpr(*strided->dim, map.getContext()))
              ties.push_back({*root, unsigned(p), d});
        // A dynamic size of a new tensor comes from an input's size.
        auto empty = operand.get().getDefiningOp<tensor::EmptyOp>();
        if (!empty || !type.isDynamicDim(r))
          continue;
        auto dimOp = empty.getDynamicSize(r).getDefiningOp<tensor::DimOp>();
        std::optional<int64_t> index =
            dimOp ? dimOp.getConstantIndex() : std::nullopt;
        std::optional<unsigned> source =
            dimOp ? operandIndex(dimOp.getSource()) : std::nullopt;
        if (!index || !source)
          return empty.emitError("kiln-tile: a dynamic size that is not "
                                 "the size of a kernel input needs more "
                                 "than a mask");
        auto sourceType = cast<ShapedType>(dimOp.getSource().getType());
        int64_t rank = sourceType.hasRank() ? sourceType.getRank() : 0;
        if (*index < 0 || *index >= rank)
          return dimOp.emitError("kiln-tile: dimension ")
                 << *index << " of a tensor of rank " << rank << " has no size";
        ties.push_back({*source, unsigned(*index), d});
      }
    }
  }
  return success();
}
