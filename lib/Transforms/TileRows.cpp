//===- TileRows.cpp - Row kernels (softmax, layer norm) to tile kernels ---===//
//
// A kernel that reduces works on rows: its generics run over a
// [rows, columns] space (elementwise, or reducing the columns away) or over
// the rows alone. Program r takes row r whole: values over [rows, columns]
// become tiles of the row (padded to a power of two, masked at its end),
// values over the rows become scalars, so the row is read once and every
// reduction stays in the program. The number of rows may be dynamic: it is
// only the grid's size.
//
//===----------------------------------------------------------------------===//

#include "TiledKernel.h"
#include "RecreatedOps.h"

#include "kiln/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/InterleavedRange.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace kiln;

bool kiln::hasReductions(func::FuncOp kernel) {
  WalkResult found = kernel.walk([](linalg::LinalgOp op) {
    return op.getNumReductionLoops() ? WalkResult::interrupt()
                                     : WalkResult::advance();
  });
  return found.wasInterrupted();
}

namespace {

/// Builds the tile kernel of one row kernel.
class RowTiler {
public:
  RowTiler(func::FuncOp kernel, int64_t rows, int64_t columns)
      : kernel(kernel), rows(rows), columns(columns),
        block(llvm::PowerOf2Ceil(static_cast<uint64_t>(columns))),
        b(kernel) {}

  FailureOr<TiledKernel> run();

private:
  /// How an operand of a generic is read: the row's tile, the row's scalar,
  /// the column vector (broadcast over rows), or one element at constant
  /// indices (broadcast over everything).
  enum class Access { Row, RowScalar, Columns, Element };
  FailureOr<Access> classify(linalg::GenericOp generic, AffineMap map);

  LogicalResult tileGeneric(linalg::GenericOp generic);
  LogicalResult tileReduction(linalg::GenericOp generic, IRMapping &mapping);
  /// The value of `source` as `access` reads it (through `map`, for an
  /// element): loaded from a kernel argument, or computed by an earlier op.
  FailureOr<Value> operandValue(Operation *user, Value source, Access access,
                                AffineMap map = {});
  /// Pointers to the columns of this program's row of the [rows, columns]
  /// array at `base` (`ofRow`), or of the [columns] vector at `base`.
  Value columnPointers(Location loc, Value base, bool ofRow);
  /// `value` made a tile of the row where it is a scalar.
  Value asTile(Value value);
  /// Clones `op` (an arith or math op) onto mapped operands: on tiles if
  /// any operand is one, else on scalars.
  Operation *cloneOnValues(Operation &op, IRMapping &mapping);

  RankedTensorType tileOf(Type element) {
    return RankedTensorType::get({block}, element);
  }

  func::FuncOp kernel;
  int64_t rows, columns, block;
  OpBuilder b;
  Block *entry = nullptr;
  Value row, mask, columnIndices;
  IRMapping values;
  /// Inputs already loaded, by argument, access and element offset: each
  /// is read once.
  DenseMap<std::tuple<Value, int, int64_t>, Value> loaded;
};

} // namespace

FailureOr<RowTiler::Access> RowTiler::classify(linalg::GenericOp generic,
                                               AffineMap map) {
  MLIRContext *ctx = generic.getContext();
  if (llvm::all_of(map.getResults(), llvm::IsaPred<AffineConstantExpr>))
    return Access::Element;
  if (generic.getNumLoops() == 1 &&
      map == AffineMap::getMultiDimIdentityMap(1, ctx))
    return Access::RowScalar;
  AffineExpr d0 = getAffineDimExpr(0, ctx), d1 = getAffineDimExpr(1, ctx);
  if (generic.getNumLoops() == 2) {
    if (map == AffineMap::get(2, 0, {d0, d1}, ctx))
      return Access::Row;
    if (map == AffineMap::get(2, 0, {d0}, ctx))
      return Access::RowScalar;
    if (map == AffineMap::get(2, 0, {d1}, ctx))
      return Access::Columns;
  }
  return generic.emitError("kiln-tile: indexing map ")
         << AffineMapAttr::get(map)
         << " of a row kernel reads neither a row, a row's value nor the "
            "columns";
}

Value RowTiler::asTile(Value value) {
  if (isa<RankedTensorType>(value.getType()))
    return value;
  return tile::SplatOp::create(b, value.getLoc(), tileOf(value.getType()),
                               value);
}

FailureOr<Value> RowTiler::operandValue(Operation *user, Value source,
                                        Access access, AffineMap map) {
  if (Value known = values.lookupOrNull(source)) {
    // A value over the rows of a one-row kernel is its one element.
    if (access == Access::Element &&
        (isa<RankedTensorType>(known.getType()) || rows != 1 ||
         cast<RankedTensorType>(source.getType()).getShape() !=
             ArrayRef<int64_t>{1}))
      return user->emitError("kiln-tile: a row kernel reads one element of "
                             "a value it computes");
    return access == Access::Row ? asTile(known) : known;
  }
  auto arg = dyn_cast<BlockArgument>(source);
  if (!arg || arg.getOwner() != &kernel.getBody().front())
    return user->emitError("kiln-tile: an operand of a row kernel comes from "
                           "neither an input nor an earlier op");
  // An element's offset in the row-major source.
  int64_t offset = 0;
  if (access == Access::Element) {
    ArrayRef<int64_t> shape = cast<RankedTensorType>(source.getType())
                                  .getShape();
    for (auto [index, size] : llvm::zip(map.getResults(), shape))
      offset = offset * size + cast<AffineConstantExpr>(index).getValue();
  }
  Value &cached = loaded[{source, static_cast<int>(access), offset}];
  if (cached)
    return cached;
  Location loc = user->getLoc();
  Value base = entry->getArgument(arg.getArgNumber());
  Type element = getElementTypeOrSelf(source.getType());
  if (access == Access::RowScalar || access == Access::Element) {
    Value index = access == Access::Element
                      ? arith::ConstantIntOp::create(b, loc, b.getI32Type(),
                                                     offset)
                      : row;
    Value at = tile::AddPtrOp::create(b, loc, base.getType(), base, index);
    return cached = tile::LoadOp::create(b, loc, element, at, Value(),
                                         Value());
  }
  Value at = columnPointers(loc, base, access == Access::Row);
  return cached =
             tile::LoadOp::create(b, loc, tileOf(element), at, mask, Value());
}

Value RowTiler::columnPointers(Location loc, Value base, bool ofRow) {
  // A row starts `columns` elements after the previous one.
  Value start = base;
  if (ofRow)
    start = tile::AddPtrOp::create(
        b, loc, base.getType(), base,
        arith::MulIOp::create(
            b, loc, row,
            arith::ConstantIntOp::create(b, loc, b.getI32Type(), columns)));
  auto pointers = tileOf(base.getType());
  return tile::AddPtrOp::create(
      b, loc, pointers, tile::SplatOp::create(b, loc, pointers, start),
      columnIndices);
}

Operation *RowTiler::cloneOnValues(Operation &op, IRMapping &mapping) {
  bool onTiles = llvm::any_of(op.getOperands(), [&](Value operand) {
    return isa<RankedTensorType>(mapping.lookup(operand).getType());
  });
  SmallVector<Value> operands;
  for (Value operand : op.getOperands())
    operands.push_back(onTiles ? asTile(mapping.lookup(operand))
                               : mapping.lookup(operand));
  SmallVector<Type> resultTypes;
  for (Type type : op.getResultTypes())
    resultTypes.push_back(onTiles ? Type(tileOf(type)) : type);
  OperationState state(op.getLoc(), op.getName(), operands, resultTypes,
                       op.getAttrs());
  Operation *clone = b.create(state);
  mapping.map(op.getResults(), clone->getResults());
  return clone;
}

/// The op of a reduction body that combines the running value `acc` with
/// a value computed from the inputs alone, or null.
static Operation *findCombiner(Block &body, BlockArgument acc) {
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (yield.getNumOperands() != 1)
    return nullptr;
  Operation *combine = yield.getOperand(0).getDefiningOp();
  if (!combine || combine->getBlock() != &body ||
      combine->getNumOperands() != 2 || combine->getNumResults() != 1 ||
      !llvm::is_contained(combine->getOperands(), acc) ||
      combine->getOperand(0) == combine->getOperand(1))
    return nullptr;
  // Nothing else may read the running value.
  for (Operation *user : acc.getUsers())
    if (user != combine)
      return nullptr;
  return combine;
}

LogicalResult RowTiler::tileReduction(linalg::GenericOp generic,
                                      IRMapping &mapping) {
  Block &body = *generic.getBody();
  if (generic.getNumDpsInits() != 1)
    return generic.emitError("kiln-tile: a reduction with several results "
                             "is not tiled yet");
  // Each program reduces its own row: the rows stay, the columns go.
  MLIRContext *ctx = generic.getContext();
  if (generic.getIteratorTypesArray() !=
          SmallVector<utils::IteratorType>{utils::IteratorType::parallel,
                                           utils::IteratorType::reduction} ||
      generic.getMatchingIndexingMap(generic.getDpsInitOperand(0)) !=
          AffineMap::get(2, 0, getAffineDimExpr(0, ctx)))
    return generic.emitError("kiln-tile: a row kernel reduces the columns "
                             "of each row into that row's value, not this");
  BlockArgument acc = body.getArguments().back();
  Operation *combine = findCombiner(body, acc);
  std::optional<TypedAttr> neutral =
      combine ? arith::getNeutralElement(combine) : std::nullopt;
  if (!neutral)
    return generic.emitError("kiln-tile: a reduction body must combine the "
                             "running value with one value of the inputs "
                             "by an op with a neutral element (add, mul, "
                             "max, min, and, or, ...)");
  Location loc = generic.getLoc();
  // The value each element contributes, on the row's tile.
  for (Operation &op : body.without_terminator()) {
    if (&op == combine)
      continue;
    if (op.getNumRegions() != 0 ||
        !isa<arith::ArithDialect, math::MathDialect>(op.getDialect()))
      return op.emitError("kiln-tile: ")
             << op.getName() << " in a reduction body is not tiled yet";
    cloneOnValues(op, mapping);
  }
  Value contribution =
      combine->getOperand(0) == acc ? combine->getOperand(1)
                                    : combine->getOperand(0);
  Value tileValue = asTile(mapping.lookup(contribution));
  Type element = getElementTypeOrSelf(tileValue.getType());
  Value fill = tile::SplatOp::create(
      b, loc, tileOf(element), arith::ConstantOp::create(b, loc, *neutral));
  tileValue = arith::SelectOp::create(b, loc, mask, tileValue, fill);
  auto reduce = tile::ReduceOp::create(b, loc, TypeRange{element},
                                       ValueRange{tileValue},
                                       b.getI32IntegerAttr(0));
  {
    OpBuilder::InsertionGuard guard(b);
    Block *combiner = b.createBlock(&reduce.getCombiner(), {},
                                    {element, element}, {loc, loc});
    IRMapping inner;
    inner.map(combine->getOperands(), combiner->getArguments());
    Operation *combined = b.clone(*combine, inner);
    tile::YieldOp::create(b, loc, combined->getResults());
  }
  // The initial value joins the rows' result.
  FailureOr<Value> init = operandValue(
      generic, generic.getDpsInitOperand(0)->get(), Access::RowScalar);
  if (failed(init))
    return failure();
  IRMapping last;
  last.map(contribution, reduce.getResult(0));
  last.map(acc, *init);
  values.map(generic.getResult(0), b.clone(*combine, last)->getResult(0));
  return success();
}

LogicalResult RowTiler::tileGeneric(linalg::GenericOp generic) {
  SmallVector<int64_t> ranges = generic.getStaticLoopRanges();
  bool overRows = ranges == SmallVector<int64_t>{rows};
  bool overTile = ranges == SmallVector<int64_t>{rows, columns};
  if (!overRows && !overTile) {
    auto size = [](int64_t size) {
      return ShapedType::isDynamic(size) ? std::string("?")
                                         : std::to_string(size);
    };
    return generic.emitError("kiln-tile: a generic of a row kernel runs over ")
           << "[" << llvm::interleaved(llvm::map_range(ranges, size))
           << "], not [" << size(rows) << ", " << columns << "] or ["
           << size(rows) << "]";
  }
  Block &body = *generic.getBody();
  IRMapping mapping;
  for (OpOperand *input : generic.getDpsInputOperands()) {
    FailureOr<Access> access =
        classify(generic, generic.getMatchingIndexingMap(input));
    if (failed(access))
      return failure();
    FailureOr<Value> value =
        operandValue(generic, input->get(), *access,
                     generic.getMatchingIndexingMap(input));
    if (failed(value))
      return failure();
    mapping.map(body.getArgument(input->getOperandNumber()), *value);
  }
  // Constants the body captured are recreated in the tile kernel.
  generic.walk([&](Operation *op) {
    for (Value operand : op->getOperands())
      if (auto constant = operand.getDefiningOp<arith::ConstantOp>();
          constant && constant->getBlock() != &body &&
          !mapping.contains(operand))
        mapping.map(operand, b.clone(*constant)->getResult(0));
  });
  if (generic.getNumReductionLoops())
    return tileReduction(generic, mapping);
  for (OpOperand &init : generic.getDpsInitsMutable())
    if (generic.payloadUsesValueFromOperand(&init))
      return generic.emitError("kiln-tile: an elementwise body that reads "
                               "its output is not tiled yet");
  for (Operation &op : body.without_terminator()) {
    if (op.getNumRegions() != 0 ||
        !isa<arith::ArithDialect, math::MathDialect>(op.getDialect()))
      return op.emitError("kiln-tile: ")
             << op.getName() << " in a row kernel's body is not tiled yet";
    cloneOnValues(op, mapping);
  }
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  for (auto [result, yielded] :
       llvm::zip(generic.getResults(), yield.getValues())) {
    Value value = mapping.lookupOrDefault(yielded);
    values.map(result, overTile ? asTile(value) : value);
  }
  return success();
}

FailureOr<TiledKernel> RowTiler::run() {
  MLIRContext *ctx = kernel.getContext();
  Location loc = kernel.getLoc();
  FailureOr<func::FuncOp> created = createTileKernel(kernel, b);
  if (failed(created))
    return failure();
  func::FuncOp tileKernel = *created;
  entry = &tileKernel.getBody().front();
  Type i32 = b.getI32Type();
  row = tile::ProgramIdOp::create(
      b, loc, i32, tile::ProgramAxisAttr::get(ctx, tile::ProgramAxis::X));
  columnIndices = tile::RangeOp::create(b, loc, tileOf(i32), 0, block);
  mask = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::slt, columnIndices,
      tile::SplatOp::create(b, loc, tileOf(i32),
                            arith::ConstantIntOp::create(b, loc, i32,
                                                         columns)));

  auto fail = [&]() -> FailureOr<TiledKernel> {
    tileKernel.erase();
    return failure();
  };
  for (Operation &op : kernel.getBody().front().without_terminator()) {
    if (isRecreatedByKernels(&op))
      continue;
    if (auto fill = dyn_cast<linalg::FillOp>(op)) {
      Value scalar = fill.getInputs()[0];
      if (auto constant = scalar.getDefiningOp<arith::ConstantOp>())
        scalar = b.clone(*constant)->getResult(0);
      else if (!values.contains(scalar))
        return op.emitError("kiln-tile: a fill value that is not a constant"),
               fail();
      else
        scalar = values.lookup(scalar);
      values.map(fill.getResult(0), scalar);
      continue;
    }
    auto generic = dyn_cast<linalg::GenericOp>(op);
    if (!generic)
      return op.emitError("kiln-tile: ")
                 << op.getName() << " in a row kernel is not tiled yet",
             fail();
    if (failed(tileGeneric(generic)))
      return fail();
  }

  // Results: rows where rows are computed, a value per row otherwise.
  auto ret = cast<func::ReturnOp>(kernel.getBody().front().getTerminator());
  for (auto [i, result] : llvm::enumerate(ret.getOperands())) {
    Value computed = values.lookupOrNull(result);
    auto type = cast<RankedTensorType>(result.getType());
    if (!computed)
      return kernel.emitError("kiln-tile: result ")
                 << i << " is not computed by the kernel",
             fail();
    Value base = entry->getArgument(kernel.getNumArguments() + i);
    if (type.getShape() == ArrayRef<int64_t>{rows}) {
      Value at = tile::AddPtrOp::create(b, loc, base.getType(), base, row);
      tile::StoreOp::create(b, loc, at, computed, Value());
      continue;
    }
    if (type.getShape() != ArrayRef<int64_t>{rows, columns})
      return kernel.emitError("kiln-tile: result ")
                 << i << " of a row kernel is neither rows nor a value per row",
             fail();
    tile::StoreOp::create(b, loc, columnPointers(loc, base, /*ofRow=*/true),
                          asTile(computed), mask);
  }
  func::ReturnOp::create(b, loc);
  // One program per row.
  TiledKernel tiled;
  tiled.tileKernel = tileKernel;
  tiled.grid.push_back({{0}, 1});
  return tiled;
}

FailureOr<TiledKernel> kiln::tileRows(func::FuncOp kernel, int64_t maxRow) {
  WalkResult contraction = kernel.walk([](linalg::LinalgOp op) {
    return op.getNumLoops() > 2 ? WalkResult::interrupt()
                                : WalkResult::advance();
  });
  if (contraction.wasInterrupted())
    return kernel.emitError("kiln-tile: kernel '")
           << kernel.getSymName()
           << "' reduces over more than two loops (a matmul or a "
              "contraction), which is not tiled yet";
  // The [rows, columns] space, sized by every operand (the rows may be
  // dynamic); analysed first, so that an element read at constant indices
  // of a dynamic dimension is refused before the tiler computes its offset.
  SmallVector<DomainOp> ops;
  kernel.walk(
      [&](linalg::GenericOp generic) { ops.push_back(alignedWithDomain(generic)); });
  SmallVector<int64_t> space;
  SmallVector<SizeTie> ties;
  if (failed(analyzeDomain(kernel, ops, space, ties)))
    return failure();
  if (space.size() != 2 || ShapedType::isDynamic(space[1]))
    return kernel.emitError("kiln-tile: kernel '")
           << kernel.getSymName()
           << "' reduces, but not over a [rows, columns] space of static "
              "columns";
  if (space[1] > maxRow)
    return kernel.emitError("kiln-tile: kernel '")
           << kernel.getSymName() << "' reduces rows of " << space[1]
           << " elements, longer than max-row (" << maxRow
           << "): such rows are not split yet";
  FailureOr<TiledKernel> tiled = RowTiler(kernel, space[0], space[1]).run();
  if (succeeded(tiled)) {
    tiled->domain = std::move(space);
    tiled->ties = std::move(ties);
  }
  return tiled;
}
