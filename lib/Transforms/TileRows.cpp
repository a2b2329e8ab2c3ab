//===- TileRows.cpp - Row kernels (softmax, layer norm) to tile kernels ---===//
//
// A kernel that reduces works on rows: its generics run over a
// [rows, columns] space (elementwise, or reducing the columns away) or over
// the rows alone, where the rows may span several dimensions (a
// [batch, sequence, hidden] layer norm has batch * sequence rows, numbered
// row-major). Program r takes row r: values over the rows become
// scalars, values over [rows, columns] tiles of the row, masked at its end.
// A row of at most max-row (static) elements is one tile, so it is read
// once and every reduction stays in the program. A longer row, or one of
// dynamic length, is walked in chunks of row-chunk elements: each reduction
// is a loop over the chunks carrying its running value, and the row's
// results are stored by one last loop; what a loop needs over the row is
// recomputed in it from the inputs, so a softmax reads its row three times
// and writes it once. The number of rows may be dynamic: it is only the
// grid's size.
//
//===----------------------------------------------------------------------===//

#include "TiledKernel.h"
#include "RecreatedOps.h"

#include "kiln/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
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

/// The tile a row kernel computes on: the next power of two of the row's
/// length, or of a chunk of it.
static int64_t tileWidth(int64_t columns, bool looped, int64_t chunk) {
  if (ShapedType::isDynamic(columns))
    return chunk;
  auto whole =
      static_cast<int64_t>(llvm::PowerOf2Ceil(static_cast<uint64_t>(columns)));
  return looped ? std::min(whole, chunk) : whole;
}

/// The number of rows of these sizes, or ShapedType::kDynamic.
static int64_t rowCount(ArrayRef<int64_t> sizes) {
  if (ShapedType::isDynamicShape(sizes))
    return ShapedType::kDynamic;
  return ShapedType::getNumElements(sizes);
}

namespace {

/// Builds the tile kernel of one row kernel.
class RowTiler {
public:
  /// `domain` is [rows..., columns]; the row is one tile when its length
  /// is static and at most `maxRow`, else chunks of `chunk` elements.
  RowTiler(func::FuncOp kernel, ArrayRef<int64_t> domain, int64_t maxRow,
           int64_t chunk)
      : kernel(kernel), domain(domain), rank(domain.size()),
        rows(rowCount(domain.drop_back())),
        columns(domain.back()),
        looped(ShapedType::isDynamic(columns) || columns > maxRow),
        block(tileWidth(columns, looped, chunk)), b(kernel) {}

  FailureOr<TiledKernel> run();

private:
  /// How an operand of a generic is read: the row's tile, the row's scalar,
  /// the column vector (broadcast over rows), one element at constant
  /// indices (broadcast over everything), or an input through any other
  /// projection of the domain (broadcast over some rows' dimensions,
  /// transposed), a tile if it reads the columns and a scalar if not.
  enum class Access { Row, RowScalar, Columns, Element, Other };
  FailureOr<Access> classify(linalg::GenericOp generic, AffineMap map);
  /// Whether `access` through `map` reads a tile over the row.
  bool readsTile(Access access, AffineMap map) const;
  /// Refuses `user`'s read, through `map`, of a value the kernel computes
  /// (held by row, so read only by row).
  LogicalResult refuseOtherRead(Operation *user, AffineMap map);

  /// Where an input read through a map lies from its base: `offset`
  /// elements, then `columnStride` between columns (null when it does not
  /// read the columns).
  struct Placement {
    Value offset, columnStride;
  };
  Placement place(Location loc, Value source, Access access, AffineMap map);
  /// The row's coordinate along domain dimension `d` (one of the rows').
  Value rowCoordinate(Location loc, unsigned d);

  /// The columns where values over the row are computed: the whole row, or
  /// one chunk of it in a loop. Values are computed in it once.
  struct Chunk {
    Value columnIndices, mask;
    /// Kernel values over [rows, columns], as tiles of this chunk.
    IRMapping values;
    /// Inputs loaded in this chunk, by argument, access and map.
    DenseMap<std::tuple<Value, int, AffineMap>, Value> loaded;
  };
  /// The chunk of `block` columns from `start` (the row's start if null).
  Chunk chunkAt(Location loc, Value start);
  /// A loop over the row's chunks, carrying `running` if not null.
  scf::ForOp overChunks(Location loc, Value running);

  /// Maps the scalar operands of `generic` (rows' values, elements,
  /// constants its body captured) at the kernel's top level, where every
  /// later chunk can use them. Over the rows alone, computes it there too;
  /// over [rows, columns], leaves the rest to the chunks that need it.
  LogicalResult tileGeneric(linalg::GenericOp generic);
  LogicalResult tileReduction(linalg::GenericOp generic);
  /// The value `generic`'s reduction body contributes over `chunk`,
  /// reduced by `combine` (masked elements set to `neutral`).
  FailureOr<Value> reduceChunk(linalg::GenericOp generic, Operation *combine,
                               TypedAttr neutral, Chunk &chunk);
  /// `generic`'s inputs read over the row, computed in `chunk`, added to
  /// the mapping of its scalar operands.
  FailureOr<IRMapping> chunkOperands(linalg::GenericOp generic, Chunk &chunk);
  /// `source` (read as `access`: Row, Columns or Other) as a tile of
  /// `chunk`:
  /// loaded from a kernel argument, splat from a value over the rows, or
  /// computed by the elementwise generic that defines it.
  FailureOr<Value> chunkValue(Operation *user, Value source, Access access,
                              AffineMap map, Chunk &chunk);
  /// `source` read as `access` (RowScalar, Element or Other, through `map`)
  /// as a scalar at the top level: loaded from a kernel argument, or
  /// computed earlier.
  FailureOr<Value> scalarValue(Operation *user, Value source, Access access,
                               AffineMap map);
  /// Pointers to `chunk`'s columns of the input at `base`, placed by
  /// `where`.
  Value columnPointers(Location loc, Value base, const Placement &where,
                       const Chunk &chunk);
  /// Stores the kernel's results: a scalar per row, or the row.
  LogicalResult storeResults();
  /// The size of domain dimension `d` (i32): a constant, or an argument
  /// of the tile kernel, added the first time it is needed.
  Value sizeOf(unsigned d);
  /// `value` made a tile of the row where it is a scalar.
  Value asTile(Value value);
  /// Clones `op` (an arith or math op) onto mapped operands: on tiles if
  /// any operand is one, else on scalars.
  Operation *cloneOnValues(Operation &op, IRMapping &mapping);

  RankedTensorType tileOf(Type element) {
    return RankedTensorType::get({block}, element);
  }

  func::FuncOp kernel;
  /// The domain's sizes (the rows' dimensions, then the columns), and how
  /// many there are.
  SmallVector<int64_t> domain;
  unsigned rank;
  /// How many rows (ShapedType::kDynamic if not static) and columns.
  int64_t rows, columns;
  /// Whether the row is walked in chunks, and the width of its tiles.
  bool looped;
  int64_t block;
  OpBuilder b;
  Block *entry = nullptr;
  /// This program's row, and the row's length (i32).
  Value row, rowLength;
  /// The tile kernel, the domain's sizes (i32) where known (the static
  /// ones, and the dynamic ones it takes), and which domain dimensions
  /// its size arguments are, in order.
  func::FuncOp tileKernel;
  SmallVector<Value> sizes;
  SmallVector<unsigned> sizeDims;
  /// The whole row, where it is one tile.
  std::optional<Chunk> wholeRow;
  /// Kernel values over the rows, as this program's scalars.
  IRMapping scalars;
  /// Inputs loaded as scalars, by argument, access and map.
  DenseMap<std::tuple<Value, int, AffineMap>, Value> loadedScalars;
  /// Each generic's scalar operands, mapped by tileGeneric.
  DenseMap<Operation *, IRMapping> scalarOperands;
};

} // namespace

FailureOr<RowTiler::Access> RowTiler::classify(linalg::GenericOp generic,
                                               AffineMap map) {
  MLIRContext *ctx = generic.getContext();
  if (llvm::all_of(map.getResults(), llvm::IsaPred<AffineConstantExpr>))
    return Access::Element;
  // The rows' dimensions lead, in order, so that a row's number is its
  // row-major position among them.
  unsigned loops = generic.getNumLoops();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(loops, ctx);
  if (loops == rank - 1 && map == identity)
    return Access::RowScalar;
  if (loops == rank) {
    if (map == identity)
      return Access::Row;
    if (map == identity.getMajorSubMap(rank - 1))
      return Access::RowScalar;
    if (map == AffineMap::get(rank, 0, getAffineDimExpr(rank - 1, ctx)))
      return Access::Columns;
  }
  if (!isProjection(map))
    return generic.emitError("kiln-tile: indexing map ")
           << AffineMapAttr::get(map)
           << " of a row kernel is not a projection of its dimensions";
  return Access::Other;
}

LogicalResult RowTiler::refuseOtherRead(Operation *user, AffineMap map) {
  return user->emitError("kiln-tile: a row kernel reads a value it "
                         "computes through indexing map ")
         << AffineMapAttr::get(map) << ", not by row";
}

bool RowTiler::readsTile(Access access, AffineMap map) const {
  return access == Access::Row || access == Access::Columns ||
         (access == Access::Other && map.getNumDims() == rank &&
          map.isFunctionOfDim(rank - 1));
}

Value RowTiler::rowCoordinate(Location loc, unsigned d) {
  // Rows are numbered row-major over the rows' dimensions.
  Value inner = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 1);
  for (unsigned k = d + 1; k + 1 < rank; ++k)
    inner = b.createOrFold<arith::MulIOp>(loc, inner, sizeOf(k));
  Value coordinate = b.createOrFold<arith::DivUIOp>(loc, row, inner);
  if (d == 0)
    return coordinate;
  return b.createOrFold<arith::RemUIOp>(loc, coordinate, sizeOf(d));
}

RowTiler::Placement RowTiler::place(Location loc, Value source, Access access,
                                    AffineMap map) {
  Type i32 = b.getI32Type();
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIntOp::create(b, loc, i32, value);
  };
  switch (access) {
  case Access::Row:
    return {b.createOrFold<arith::MulIOp>(loc, row, rowLength), constant(1)};
  case Access::RowScalar:
    return {row, Value()};
  case Access::Columns:
    return {constant(0), constant(1)};
  case Access::Element:
  case Access::Other:
    break;
  }
  // Row-major strides of the source, from the innermost index out.
  auto type = cast<RankedTensorType>(source.getType());
  Placement where{constant(0), Value()};
  Value stride = constant(1);
  for (int64_t p = type.getRank() - 1; p >= 0; --p) {
    AffineExpr index = map.getResult(p);
    Value size;
    if (auto element = dyn_cast<AffineConstantExpr>(index)) {
      where.offset = b.createOrFold<arith::AddIOp>(
          loc, where.offset,
          b.createOrFold<arith::MulIOp>(loc, stride,
                                        constant(element.getValue())));
      size = constant(type.getDimSize(p));
    } else {
      unsigned d = cast<AffineDimExpr>(index).getPosition();
      if (map.getNumDims() == rank && d == rank - 1)
        where.columnStride = stride;
      else
        where.offset = b.createOrFold<arith::AddIOp>(
            loc, where.offset,
            b.createOrFold<arith::MulIOp>(loc, stride,
                                          rowCoordinate(loc, d)));
      size = sizeOf(d);
    }
    stride = b.createOrFold<arith::MulIOp>(loc, stride, size);
  }
  return where;
}

Value RowTiler::asTile(Value value) {
  if (isa<RankedTensorType>(value.getType()))
    return value;
  return tile::SplatOp::create(b, value.getLoc(), tileOf(value.getType()),
                               value);
}

RowTiler::Chunk RowTiler::chunkAt(Location loc, Value start) {
  Type i32 = b.getI32Type();
  Chunk chunk;
  chunk.columnIndices = tile::RangeOp::create(b, loc, tileOf(i32), 0, block);
  if (start)
    chunk.columnIndices = arith::AddIOp::create(
        b, loc, tile::SplatOp::create(b, loc, tileOf(i32), start),
        chunk.columnIndices);
  chunk.mask = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::slt, chunk.columnIndices,
      tile::SplatOp::create(b, loc, tileOf(i32), rowLength));
  return chunk;
}

scf::ForOp RowTiler::overChunks(Location loc, Value running) {
  Value lower = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0);
  Value step = arith::ConstantIntOp::create(b, loc, b.getI32Type(), block);
  return scf::ForOp::create(b, loc, lower, rowLength, step,
                            running ? ValueRange{running} : ValueRange{});
}

FailureOr<Value> RowTiler::scalarValue(Operation *user, Value source,
                                       Access access, AffineMap map) {
  if (Value known = scalars.lookupOrNull(source)) {
    if (access == Access::Other)
      return refuseOtherRead(user, map);
    // A value over the rows of a one-row kernel is its one element.
    if (access == Access::Element &&
        (rows != 1 ||
         cast<RankedTensorType>(source.getType()).getNumElements() != 1))
      return user->emitError("kiln-tile: a row kernel reads one element of "
                             "a value it computes");
    return known;
  }
  auto arg = dyn_cast<BlockArgument>(source);
  if (!arg || arg.getOwner() != &kernel.getBody().front())
    return user->emitError(access == Access::Element
                               ? "kiln-tile: a row kernel reads one element "
                                 "of a value it computes"
                               : "kiln-tile: an operand of a row kernel "
                                 "comes from neither an input nor an "
                                 "earlier op");
  bool byMap = access == Access::Element || access == Access::Other;
  Value &cached = loadedScalars[{source, static_cast<int>(access),
                                 byMap ? map : AffineMap()}];
  if (cached)
    return cached;
  Location loc = user->getLoc();
  Value base = entry->getArgument(arg.getArgNumber());
  Value at = tile::AddPtrOp::create(b, loc, base.getType(), base,
                                    place(loc, source, access, map).offset);
  return cached = tile::LoadOp::create(
             b, loc, getElementTypeOrSelf(source.getType()), at, Value(),
             Value());
}

FailureOr<Value> RowTiler::chunkValue(Operation *user, Value source,
                                      Access access, AffineMap map,
                                      Chunk &chunk) {
  auto arg = dyn_cast<BlockArgument>(source);
  bool input = arg && arg.getOwner() == &kernel.getBody().front();
  if (!input && access == Access::Other)
    return refuseOtherRead(user, map);
  if (Value known = chunk.values.lookupOrNull(source))
    return known;
  // A value over the rows (a fill, say) read over the row.
  if (Value scalar = scalars.lookupOrNull(source))
    return asTile(scalar);
  if (input) {
    Value &cached = chunk.loaded[{source, static_cast<int>(access),
                                  access == Access::Other ? map
                                                          : AffineMap()}];
    if (!cached) {
      Location loc = user->getLoc();
      Value at = columnPointers(loc, entry->getArgument(arg.getArgNumber()),
                                place(loc, source, access, map), chunk);
      cached = tile::LoadOp::create(
          b, loc, tileOf(getElementTypeOrSelf(source.getType())), at,
          chunk.mask, Value());
    }
    return cached;
  }
  auto generic = source.getDefiningOp<linalg::GenericOp>();
  if (!generic || !scalarOperands.contains(generic))
    return user->emitError("kiln-tile: an operand of a row kernel comes from "
                           "neither an input nor an earlier op");
  FailureOr<IRMapping> mapping = chunkOperands(generic, chunk);
  if (failed(mapping))
    return failure();
  Block &body = *generic.getBody();
  for (Operation &op : body.without_terminator())
    cloneOnValues(op, *mapping);
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  for (auto [result, yielded] :
       llvm::zip(generic.getResults(), yield.getValues()))
    chunk.values.map(result, asTile(mapping->lookupOrDefault(yielded)));
  return chunk.values.lookup(source);
}

FailureOr<IRMapping> RowTiler::chunkOperands(linalg::GenericOp generic,
                                             Chunk &chunk) {
  IRMapping mapping = scalarOperands.lookup(generic);
  Block &body = *generic.getBody();
  for (OpOperand *input : generic.getDpsInputOperands()) {
    AffineMap map = generic.getMatchingIndexingMap(input);
    FailureOr<Access> access = classify(generic, map);
    if (failed(access))
      return failure();
    if (!readsTile(*access, map))
      continue;
    FailureOr<Value> value =
        chunkValue(generic, input->get(), *access, map, chunk);
    if (failed(value))
      return failure();
    mapping.map(body.getArgument(input->getOperandNumber()), *value);
  }
  return mapping;
}

Value RowTiler::columnPointers(Location loc, Value base,
                               const Placement &where, const Chunk &chunk) {
  Value start = base;
  if (!matchPattern(where.offset, m_Zero()))
    start = tile::AddPtrOp::create(b, loc, base.getType(), base, where.offset);
  Value columns = chunk.columnIndices;
  if (!matchPattern(where.columnStride, m_One()))
    columns = arith::MulIOp::create(
        b, loc, columns,
        tile::SplatOp::create(b, loc, columns.getType(), where.columnStride));
  auto pointers = tileOf(base.getType());
  return tile::AddPtrOp::create(
      b, loc, pointers, tile::SplatOp::create(b, loc, pointers, start),
      columns);
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

/// The operand of `combine` that is not the running value `acc`.
static Value contributionOf(Operation *combine, Value acc) {
  return combine->getOperand(0) == acc ? combine->getOperand(1)
                                       : combine->getOperand(0);
}

/// `combine` cloned onto `running` for the running value `acc` and
/// `value` for the other operand.
static Value combineWith(OpBuilder &b, Operation *combine, Value acc,
                         Value running, Value value) {
  IRMapping mapping;
  mapping.map(contributionOf(combine, acc), value);
  mapping.map(acc, running);
  return b.clone(*combine, mapping)->getResult(0);
}

FailureOr<Value> RowTiler::reduceChunk(linalg::GenericOp generic,
                                       Operation *combine, TypedAttr neutral,
                                       Chunk &chunk) {
  FailureOr<IRMapping> mapping = chunkOperands(generic, chunk);
  if (failed(mapping))
    return failure();
  Block &body = *generic.getBody();
  for (Operation &op : body.without_terminator())
    if (&op != combine)
      cloneOnValues(op, *mapping);
  Location loc = generic.getLoc();
  BlockArgument acc = body.getArguments().back();
  Value tileValue = asTile(mapping->lookup(contributionOf(combine, acc)));
  Type element = getElementTypeOrSelf(tileValue.getType());
  Value fill = tile::SplatOp::create(
      b, loc, tileOf(element), arith::ConstantOp::create(b, loc, neutral));
  tileValue = arith::SelectOp::create(b, loc, chunk.mask, tileValue, fill);
  auto reduce = tile::ReduceOp::create(b, loc, TypeRange{element},
                                       ValueRange{tileValue},
                                       b.getI32IntegerAttr(0));
  OpBuilder::InsertionGuard guard(b);
  Block *combiner = b.createBlock(&reduce.getCombiner(), {},
                                  {element, element}, {loc, loc});
  IRMapping inner;
  inner.map(combine->getOperands(), combiner->getArguments());
  Operation *combined = b.clone(*combine, inner);
  tile::YieldOp::create(b, loc, combined->getResults());
  return reduce.getResult(0);
}

LogicalResult RowTiler::tileReduction(linalg::GenericOp generic) {
  Block &body = *generic.getBody();
  if (generic.getNumDpsInits() != 1)
    return generic.emitError("kiln-tile: a reduction with several results "
                             "is not tiled yet");
  // Each program reduces its own row: the rows stay, the columns go.
  SmallVector<utils::IteratorType> iterators(rank - 1,
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  if (generic.getIteratorTypesArray() != iterators ||
      generic.getMatchingIndexingMap(generic.getDpsInitOperand(0)) !=
          AffineMap::getMultiDimIdentityMap(rank, generic.getContext())
              .getMajorSubMap(rank - 1))
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
  for (Operation &op : body.without_terminator())
    if (&op != combine &&
        (op.getNumRegions() != 0 ||
         !isa<arith::ArithDialect, math::MathDialect>(op.getDialect())))
      return op.emitError("kiln-tile: ")
             << op.getName() << " in a reduction body is not tiled yet";
  // The initial value joins the reduced row.
  FailureOr<Value> init =
      scalarValue(generic, generic.getDpsInitOperand(0)->get(),
                  Access::RowScalar, AffineMap());
  if (failed(init))
    return failure();
  Location loc = generic.getLoc();
  Value reduced;
  if (!looped) {
    FailureOr<Value> whole = reduceChunk(generic, combine, *neutral, *wholeRow);
    if (failed(whole))
      return failure();
    reduced = *whole;
  } else {
    // The running value over the row's chunks, from the neutral element.
    Value start = arith::ConstantOp::create(b, loc, *neutral);
    auto loop = overChunks(loc, start);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Chunk chunk = chunkAt(loc, loop.getInductionVar());
    FailureOr<Value> part = reduceChunk(generic, combine, *neutral, chunk);
    if (failed(part))
      return failure();
    scf::YieldOp::create(b, loc,
                         combineWith(b, combine, acc,
                                     loop.getRegionIterArg(0), *part));
    reduced = loop.getResult(0);
  }
  scalars.map(generic.getResult(0),
              combineWith(b, combine, acc, *init, reduced));
  return success();
}

LogicalResult RowTiler::tileGeneric(linalg::GenericOp generic) {
  // analyzeDomain checked the sizes; a generic runs over the rows, or over
  // [rows, columns].
  unsigned loops = generic.getNumLoops();
  if (loops != rank - 1 && loops != rank)
    return generic.emitError("kiln-tile: a generic of a row kernel runs "
                             "over ")
           << loops << " loops, not the kernel's [rows, columns] (" << rank
           << ") or its rows (" << rank - 1 << ")";
  Block &body = *generic.getBody();
  IRMapping &mapping = scalarOperands[generic];
  for (OpOperand *input : generic.getDpsInputOperands()) {
    AffineMap map = generic.getMatchingIndexingMap(input);
    FailureOr<Access> access = classify(generic, map);
    if (failed(access))
      return failure();
    if (readsTile(*access, map))
      continue;
    FailureOr<Value> value =
        scalarValue(generic, input->get(), *access,
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
    return tileReduction(generic);
  for (OpOperand &init : generic.getDpsInitsMutable())
    if (generic.payloadUsesValueFromOperand(&init))
      return generic.emitError("kiln-tile: an elementwise body that reads "
                               "its output is not tiled yet");
  for (Operation &op : body.without_terminator())
    if (op.getNumRegions() != 0 ||
        !isa<arith::ArithDialect, math::MathDialect>(op.getDialect()))
      return op.emitError("kiln-tile: ")
             << op.getName() << " in a row kernel's body is not tiled yet";
  // Over [rows, columns]: computed by the chunks that read it.
  if (loops == rank)
    return success();
  IRMapping over = mapping;
  for (Operation &op : body.without_terminator())
    cloneOnValues(op, over);
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  for (auto [result, yielded] :
       llvm::zip(generic.getResults(), yield.getValues()))
    scalars.map(result, over.lookupOrDefault(yielded));
  return success();
}

LogicalResult RowTiler::storeResults() {
  Location loc = kernel.getLoc();
  auto ret = cast<func::ReturnOp>(kernel.getBody().front().getTerminator());
  SmallVector<unsigned> rowResults;
  for (auto [i, result] : llvm::enumerate(ret.getOperands())) {
    Value base = entry->getArgument(kernel.getNumArguments() + i);
    int64_t resultRank = cast<RankedTensorType>(result.getType()).getRank();
    if (resultRank == rank - 1) {
      FailureOr<Value> value =
          scalarValue(ret, result, Access::RowScalar, AffineMap());
      if (failed(value))
        return failure();
      Value at = tile::AddPtrOp::create(b, loc, base.getType(), base, row);
      tile::StoreOp::create(b, loc, at, *value, Value());
    } else if (resultRank == rank) {
      rowResults.push_back(i);
    } else {
      return kernel.emitError("kiln-tile: result ")
             << i << " of a row kernel is neither rows nor a value per row";
    }
  }
  if (rowResults.empty())
    return success();
  auto storeRows = [&](Chunk &chunk) -> LogicalResult {
    for (unsigned i : rowResults) {
      FailureOr<Value> value =
          chunkValue(ret, ret.getOperand(i), Access::Row, AffineMap(), chunk);
      if (failed(value))
        return failure();
      Value base = entry->getArgument(kernel.getNumArguments() + i);
      tile::StoreOp::create(b, loc,
                            columnPointers(loc, base,
                                           place(loc, base, Access::Row,
                                                 AffineMap()),
                                           chunk),
                            *value, chunk.mask);
    }
    return success();
  };
  if (!looped)
    return storeRows(*wholeRow);
  auto loop = overChunks(loc, Value());
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Chunk chunk = chunkAt(loc, loop.getInductionVar());
  return storeRows(chunk);
}

Value RowTiler::sizeOf(unsigned d) {
  if (!sizes[d]) {
    // A dynamic size becomes an argument when first needed.
    unsigned index = tileKernel.getNumArguments();
    LogicalResult inserted = tileKernel.insertArgument(
        index, b.getI32Type(), /*argAttrs=*/{}, kernel.getLoc());
    assert(succeeded(inserted) && "func.func takes any argument");
    (void)inserted;
    sizes[d] = tileKernel.getArgument(index);
    sizeDims.push_back(d);
  }
  return sizes[d];
}

FailureOr<TiledKernel> RowTiler::run() {
  MLIRContext *ctx = kernel.getContext();
  Location loc = kernel.getLoc();
  FailureOr<func::FuncOp> created = createTileKernel(kernel, b);
  if (failed(created))
    return failure();
  tileKernel = *created;
  entry = &tileKernel.getBody().front();
  Type i32 = b.getI32Type();
  row = tile::ProgramIdOp::create(
      b, loc, i32, tile::ProgramAxisAttr::get(ctx, tile::ProgramAxis::X));
  // The kernel takes the row's length when it is dynamic, and a dynamic
  // size of the rows when an input's place needs it (its strides, the
  // row's coordinates).
  sizes.assign(rank, Value());
  for (unsigned d = 0; d < rank; ++d)
    if (!ShapedType::isDynamic(domain[d]))
      sizes[d] = arith::ConstantIntOp::create(b, loc, i32, domain[d]);
  rowLength = sizeOf(rank - 1);
  if (!looped)
    wholeRow = chunkAt(loc, Value());

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
      else if (!scalars.contains(scalar))
        return op.emitError("kiln-tile: a fill value that is not a constant"),
               fail();
      else
        scalar = scalars.lookup(scalar);
      scalars.map(fill.getResult(0), scalar);
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
  if (failed(storeResults()))
    return fail();
  func::ReturnOp::create(b, loc);
  // One program per row.
  TiledKernel tiled;
  tiled.tileKernel = tileKernel;
  tiled.sizeDims = std::move(sizeDims);
  tiled.grid.push_back({llvm::to_vector(llvm::seq(rank - 1)), 1});
  return tiled;
}

FailureOr<TiledKernel> kiln::tileRows(func::FuncOp kernel, int64_t maxRow,
                                      int64_t rowChunk) {
  // The [rows, columns] space, sized by every operand (either may be
  // dynamic); analysed first, so that an element read at constant indices
  // of a dynamic dimension is refused before the tiler computes its offset.
  SmallVector<DomainOp> ops;
  kernel.walk(
      [&](linalg::GenericOp generic) { ops.push_back(alignedWithDomain(generic)); });
  SmallVector<int64_t> space;
  SmallVector<SizeTie> ties;
  if (failed(analyzeDomain(kernel, ops, space, ties)))
    return failure();
  if (space.size() < 2)
    return kernel.emitError("kiln-tile: kernel '")
           << kernel.getSymName()
           << "' reduces, but not over a [rows, columns] space";
  FailureOr<TiledKernel> tiled =
      RowTiler(kernel, space, maxRow, rowChunk).run();
  if (succeeded(tiled)) {
    tiled->domain = std::move(space);
    tiled->ties = std::move(ties);
  }
  return tiled;
}
