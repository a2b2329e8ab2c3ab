//===- TileRows.cpp - Row kernels (softmax, layer norm) to tile kernels ---===//
//
// A kernel that reduces works on rows: its generics run over a
// [rows, columns] space (elementwise, or reducing the columns away) or over
// the rows alone, where the rows may span several dimensions (a
// [batch, sequence, hidden] layer norm has batch * sequence rows, numbered
// row-major). A program takes one row, or a block of consecutive rows
// (row-block): where an input's rows lie next to each other in memory, so
// that a reduction over a leading axis reads whole lines of memory, and
// where rows are short, so that a program's threads are not idle: values
// over the rows become scalars (or tiles over the block's rows), values
// over [rows, columns] tiles of the row (or of the block), masked at the
// end of the row (and of the rows). A row of at most max-row (static)
// elements, or a block of rows of at most row-chunk, is one tile, so it is
// read once and every reduction stays in the program. A longer row, or one
// of dynamic length, is walked in chunks of row-chunk elements: reductions
// are loops over the chunks carrying a running value per lane of the
// chunk's tile (each lane over its own columns), merged across lanes once
// after the loop, so that no step of the loop exchanges values between a
// program's threads; the row's results are stored by one last loop; what
// a loop needs over the row is
// recomputed in it from the inputs. Reductions share a loop unless one
// needs another's result; a sum of exp(a - k) or of (a - k)^2 does not
// need k in its loop (ReductionKind), so a softmax or a layer norm reads
// its row twice (its reductions, then the store) and writes it once. The
// number of rows may be dynamic: it is only the grid's size.
//
//===----------------------------------------------------------------------===//

#include "RecreatedOps.h"
#include "SliceViews.h"
#include "TiledKernel.h"

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

/// A constant of `type` (a scalar, or a tile) whose elements are `element`.
static Value constantOf(OpBuilder &b, Location loc, Type type,
                        TypedAttr element) {
  if (auto tileType = dyn_cast<RankedTensorType>(type))
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(tileType, Attribute(element)));
  return arith::ConstantOp::create(b, loc, element);
}

/// The next power of two of `columns`, a static length; 1 for none (a
/// tile wholly masked).
static int64_t wholeWidth(int64_t columns) {
  return static_cast<int64_t>(
      llvm::PowerOf2Ceil(static_cast<uint64_t>(std::max<int64_t>(columns, 1))));
}

/// Whether a row kernel whose programs take `rowBlock` rows walks its rows
/// in chunks: a row longer than `maxRow`, a block of rows longer than
/// `chunk` elements, or a row of dynamic length.
static bool walksInChunks(int64_t columns, int64_t rowBlock, int64_t maxRow,
                          int64_t chunk) {
  return ShapedType::isDynamic(columns) ||
         (rowBlock == 1 ? columns > maxRow
                        : rowBlock * wholeWidth(columns) > chunk);
}

/// The width of the tiles a row kernel computes on: the next power of two
/// of the row's length, or of a chunk of `chunk` elements over the rows.
static int64_t tileWidth(int64_t columns, bool looped, int64_t chunk,
                         int64_t rowBlock) {
  int64_t perRow = chunk / rowBlock;
  if (ShapedType::isDynamic(columns))
    return perRow;
  return looped ? std::min(wholeWidth(columns), perRow) : wholeWidth(columns);
}

/// The number of rows of these sizes, or ShapedType::kDynamic.
static int64_t rowCount(ArrayRef<int64_t> sizes) {
  if (ShapedType::isDynamicShape(sizes))
    return ShapedType::kDynamic;
  return ShapedType::getNumElements(sizes);
}

namespace {

/// How a reduction over a row walked in chunks carries its value, per
/// lane of the chunk's tile, from one chunk to the next, and merges the
/// lanes after the loop.
enum class ReductionKind {
  /// A running value, combined with each column's; lanes merged by the
  /// same op.
  Plain,
  /// A sum of exp(a - k) (or exp2), k a value per row: carried as the
  /// running max m of a and the sum of exp(a - m), rescaled as m grows,
  /// lanes merged likewise, then times exp(m - k) (online softmax). The
  /// loop does not need k.
  ShiftedExp,
  /// A sum of (a - k)^2, k a value per row: carried per lane as the sums
  /// of d = a - p and d^2, p the lane's first value, moved to the row's
  /// first value P when lanes merge, then S + e (n e - 2 T) for e = k - P.
  /// The loop does not need k; d stays about as small as the row's
  /// spread, whatever its offset.
  ShiftedSquare,
  /// The value and column index of the column the body keeps (argmax,
  /// argmin): scanning in order, it takes column j's value a when
  /// `take(a, running value)`; columns, lanes and the initial value are
  /// combined by the same test, the earlier column first.
  Arg,
};

/// The bytes of running values a program of a row kernel may carry per
/// lane through its loops over chunks, all its reductions together: 8 KiB
/// is 16 registers a thread of four warps, which leaves room for the
/// chunk's own tiles without spilling.
constexpr int64_t kLaneStateBytes = 8192;

/// How many tiles a reduction of `kind` carries through a loop over chunks.
static unsigned carriedTiles(ReductionKind kind) {
  switch (kind) {
  case ReductionKind::Plain:
    return 1;
  case ReductionKind::ShiftedExp:
  case ReductionKind::Arg:
    return 2;
  case ReductionKind::ShiftedSquare:
    return 3;
  }
  llvm_unreachable("a reduction kind");
}

/// A reduction of a row kernel and how it is computed.
struct Reduction {
  linalg::GenericOp op;
  /// The body's op that combines the running value with each column's
  /// contribution, and its neutral element.
  Operation *combine = nullptr;
  TypedAttr neutral;
  ReductionKind kind = ReductionKind::Plain;
  /// What each column contributes (a value of its body), or, for the
  /// shifted kinds, a and k (values of the bodies it reads through).
  Value contribution, shifted, shift;
  /// The exponential of a ShiftedExp: math.exp or math.exp2.
  Operation *exponential = nullptr;
  /// Of an Arg: the test (an i1 of the body) and the running value it
  /// reads.
  Value take, runningValue;
  /// The reductions whose results its chunks read.
  llvm::SetVector<Operation *> chunkNeeds;
  /// Whether it has been computed, and what it carried out of its loop
  /// (or its value over the whole row).
  bool emitted = false;
  SmallVector<Value> state;
};

/// Builds the tile kernel of one row kernel. Values are computed on
/// demand, from the stored results back: a value over the rows once at
/// the program's top level, a value over the row in each chunk that needs
/// it, and a reduction in a loop over the chunks that it shares with every
/// other reduction whose chunks need only values already computed.
class RowTiler {
public:
  /// `domain` is [rows..., columns]; the row is one tile when its length
  /// is static and at most `maxRow`, else chunks of `chunk` elements.
  /// Each program takes `rowBlock` rows.
  RowTiler(func::FuncOp kernel, ArrayRef<int64_t> domain,
           ArrayRef<SizeTie> ties, int64_t maxRow, int64_t chunk,
           int64_t rowBlock)
      : kernel(kernel), domain(domain), ties(ties), rank(domain.size()),
        rows(rowCount(domain.drop_back())), columns(domain.back()),
        rowBlock(rowBlock),
        looped(walksInChunks(columns, rowBlock, maxRow, chunk)),
        block(tileWidth(columns, looped, chunk, rowBlock)), b(kernel) {}

  FailureOr<TiledKernel> run();

private:
  /// The widest chunk (a power of two) whose lanes' running values, for
  /// all the kernel's reductions, fit in kLaneStateBytes.
  int64_t laneBudgetWidth();
  /// How an operand of a generic is read: the row's tile, the row's scalar,
  /// the column vector (broadcast over rows), one element at constant
  /// indices (broadcast over everything), or an input through any other
  /// projection of the domain (broadcast over some rows' dimensions,
  /// transposed), a tile if it reads the columns and a scalar if not.
  /// A slice of an input is read as an element or through its
  /// projection (its source's row need not be the kernel's).
  enum class Access { Row, RowScalar, Columns, Element, Other };
  FailureOr<Access> classify(linalg::GenericOp generic, AffineMap map,
                             bool sliced = false);
  /// What operand `operand` of `generic` reads (past slice views), through
  /// which map, and how.
  struct Read {
    Value source;
    AffineMap map;
    Access access;
  };
  FailureOr<Read> readOf(linalg::GenericOp generic, OpOperand &operand);
  /// Whether `access` through `map` reads a tile over the row.
  bool readsTile(Access access, AffineMap map) const;
  /// Whether operand `operand` of `generic` is read as a tile.
  bool readsTile(linalg::GenericOp generic, OpOperand &operand);

  /// Checks every op of the kernel, records its reductions and how each
  /// is computed.
  LogicalResult analyze();
  LogicalResult checkGeneric(linalg::GenericOp generic);
  LogicalResult checkReduction(linalg::GenericOp generic);
  /// Recognizes an Arg reduction (two results: a value and its column).
  LogicalResult checkArgReduction(linalg::GenericOp generic);
  /// Recognizes the shifted kinds in `reduction` (see ReductionKind).
  void findShift(Reduction &reduction);
  /// `value` of a generic's body, followed into the body of the
  /// elementwise generic that computes it when it is an operand read by
  /// row.
  Value throughProducers(Value value);
  /// Whether `value` (of a body, or a tensor) varies along the row.
  bool variesAlongRow(Value value);
  /// The reductions whose results `value` needs.
  const llvm::SetVector<Operation *> &needs(Value value);

  /// Where an input read through a map lies from its base: `offset`
  /// elements, then `columnStride` between columns (null when it does not
  /// read the columns).
  struct Placement {
    Value offset, columnStride;
  };
  /// Where `source`, read as `access` through `map`, lies: computed once,
  /// at the program's top level (loops over chunks only add the chunk's
  /// columns).
  const Placement &place(Location loc, Value source, Access access,
                         AffineMap map);
  Placement placeHere(Location loc, Value source, Access access, AffineMap map);
  /// The row's coordinate along domain dimension `d` (one of the rows').
  Value rowCoordinate(Location loc, unsigned d);

  /// The columns where values over the row are computed: the whole row, or
  /// one chunk of it in a loop. Values are computed in it once.
  struct Chunk {
    Value start, columnIndices, mask;
    /// Values over the row (tensors over [rows, columns] and values of
    /// generics' bodies), as tiles of this chunk.
    IRMapping values;
    /// Inputs loaded in this chunk, by argument, access and map.
    DenseMap<std::tuple<Value, int, AffineMap>, Value> loaded;
    /// Tiles reduced in this chunk, by tile and combining op: reductions
    /// of one tile by one op share one.
    DenseMap<std::pair<Value, OperationName>, Value> reduced;
  };
  /// The chunk of `block` columns from `start` (the row's start if null).
  Chunk chunkAt(Location loc, Value start);
  /// A loop over the row's chunks, carrying `running`.
  scf::ForOp overChunks(Location loc, ValueRange running);
  /// Moves `b` to the program's top level: before the loop being built,
  /// if any.
  void toTopLevel();

  /// `value` (a tensor over the rows, or a value of a body that does not
  /// vary along the row) as this program's scalar, computed at the top
  /// level.
  FailureOr<Value> scalarOf(Value value);
  /// `source` read as `access` (RowScalar, Element or Other, through `map`)
  /// as a scalar: loaded from a kernel argument, or computed.
  FailureOr<Value> scalarValue(Operation *user, Value source, Access access,
                               AffineMap map);
  /// `value` of a body over `chunk`: a tile, or a scalar where it does not
  /// vary along the row.
  FailureOr<Value> valueIn(Value value, Chunk &chunk);
  /// `source` (read as `access`: Row, Columns or Other) as a tile of
  /// `chunk`: loaded from a kernel argument, splat from a fill, or
  /// computed by the elementwise generic that defines it.
  FailureOr<Value> tileValue(Operation *user, Value source, Access access,
                             AffineMap map, Chunk &chunk);
  /// `result`, of a reduction, computed first if it is not yet.
  FailureOr<Value> reductionValue(Value result);
  /// Computes `first`: over the whole row, or in a loop over the chunks
  /// shared with every reduction that can join it.
  LogicalResult emitReduction(Reduction &first);
  /// The state `reduction` carries out of `chunk`, from `carried`.
  FailureOr<SmallVector<Value>> chunkStep(Reduction &reduction,
                                          ValueRange carried, Chunk &chunk);
  /// Turns the state `reduction` carried out of its loop, a value per lane
  /// of the chunk's tile, into its value per row.
  void mergeLanes(Reduction &reduction);
  /// `tiles` reduced together along the row by `combine`, which combines
  /// two sets of their elements (`lhs`, `rhs`) into one: a value per row
  /// each.
  using Combiner =
      function_ref<SmallVector<Value>(ValueRange lhs, ValueRange rhs)>;
  SmallVector<Value> reduceAlongRow(Location loc, ValueRange tiles,
                                    Combiner combine);
  /// `tileValue`'s elements where `chunk` is in the row, the neutral
  /// element of `reduction`'s combining op past its end, reduced by that
  /// op (once per chunk, tile and op).
  Value reduceMasked(Location loc, Value tileValue, Reduction &reduction,
                     Chunk &chunk);
  /// `reduction`'s combining op on `running`, for the running value, and
  /// `value`.
  Value combineWith(Reduction &reduction, Value running, Value value);
  /// The reduction's results from its state and initial values.
  FailureOr<SmallVector<Value>> finish(Reduction &reduction);
  /// Of two (value, column) pairs of an Arg reduction, the one it keeps:
  /// the later column's if its index is valid (not past the row's end)
  /// and `take` holds of their values. Every pair descends from the
  /// initial value (column -1), each lane's and each column's scan
  /// starting there, so the earlier column is always a valid one. With
  /// `lhsEarlier`, `lhs`'s column is known to come first.
  std::pair<Value, Value> choose(Location loc, Reduction &reduction,
                                 std::pair<Value, Value> lhs,
                                 std::pair<Value, Value> rhs,
                                 bool lhsEarlier = false);
  /// An Arg reduction's initial value (per row).
  FailureOr<Value> argInitialValue(Reduction &reduction) {
    return scalarValue(reduction.op, reduction.op.getDpsInitOperand(0)->get(),
                       Access::RowScalar, AffineMap());
  }
  /// An Arg reduction's values and columns over `chunk` (tiles), columns
  /// past the row's end invalid.
  FailureOr<std::pair<Value, Value>> columnChoices(Reduction &reduction,
                                                   Chunk &chunk);
  /// The (value, column) pair an Arg reduction keeps of tiles of `values`
  /// and their `columns`, per row.
  std::pair<Value, Value> reduceChoices(Location loc, Reduction &reduction,
                                        Value values, Value columns);
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
  /// `value`'s op cloned onto what `operandValue` makes of each operand.
  FailureOr<Value>
  cloneOnOperands(OpResult value,
                  function_ref<FailureOr<Value>(Value)> operandValue);

  /// How a value of the program spreads: one scalar for all its rows, a
  /// value per row (a scalar where a program takes one row, else a tile
  /// over its rows), or a tile over its rows and the chunk's columns.
  enum class Spread { Uniform, PerRow, Tile };
  Spread spreadOf(Value value) const;
  /// `value` spread to `to`, where it spreads less.
  Value spreadTo(Value value, Spread to);
  /// `values` spread alike, as the widest of them.
  SmallVector<Value> alike(ArrayRef<Value> values);
  /// arith.select of values spread alike.
  Value select(Location loc, Value condition, Value ifTrue, Value ifFalse);
  /// `attr` as a value per row.
  Value perRowConstant(Location loc, TypedAttr attr) {
    return constantOf(b, loc, perRow(attr.getType()), attr);
  }
  /// Pointers at `offset` (a value per row, or uniform) from `base`.
  Value pointersAt(Location loc, Value base, Value offset);

  RankedTensorType tileOf(Type element) {
    if (rowBlock == 1)
      return RankedTensorType::get({block}, element);
    return RankedTensorType::get({rowBlock, block}, element);
  }
  /// The type of a value per row of `element`s.
  Type perRow(Type element) {
    if (rowBlock == 1)
      return element;
    return RankedTensorType::get({rowBlock}, element);
  }

  func::FuncOp kernel;
  /// The domain's sizes (the rows' dimensions, then the columns), which
  /// input dimensions span them, and how many there are.
  SmallVector<int64_t> domain;
  ArrayRef<SizeTie> ties;
  unsigned rank;
  /// How many rows (ShapedType::kDynamic if not static) and columns, and
  /// how many rows a program takes.
  int64_t rows, columns, rowBlock;
  /// Whether the row is walked in chunks, and the width of its tiles
  /// (of a chunk: at most row-chunk elements, and fewer where the
  /// reductions' running values would not fit kLaneStateBytes).
  bool looped;
  int64_t block;
  OpBuilder b;
  Block *entry = nullptr;
  /// This program's row (an i32, or a tile of its rows' numbers), the
  /// row's length (i32), and which of its rows exist (null where all do),
  /// also spread over a tile's columns once needed.
  Value row, rowLength, rowMask, rowMaskTile;
  /// The tile kernel, the domain's sizes (i32) where known (the static
  /// ones, and the dynamic ones it takes), and which domain dimensions
  /// its size arguments are, in order.
  func::FuncOp tileKernel;
  SmallVector<Value> sizes;
  SmallVector<unsigned> sizeDims;
  /// The whole row, where it is one tile.
  std::optional<Chunk> wholeRow;
  /// The loop over chunks being built, if any.
  Operation *openLoop = nullptr;
  /// The kernel's reductions, in order.
  llvm::MapVector<Operation *, Reduction> reductions;
  /// Values over the rows, as this program's scalars.
  IRMapping scalars;
  /// Inputs loaded as scalars, by argument, access and map.
  DenseMap<std::tuple<Value, int, AffineMap>, Value> loadedScalars;
  /// Where operands lie, by operand, access and map, and the pointers to
  /// the starts of the program's rows of them, by base and offset.
  DenseMap<std::tuple<Value, int, AffineMap>, Placement> placements;
  DenseMap<std::pair<Value, Value>, Value> rowStarts;
  /// What `variesAlongRow` and `needs` found, by value.
  DenseMap<Value, bool> varies;
  DenseMap<Value, llvm::SetVector<Operation *>> needed;
};

} // namespace

FailureOr<RowTiler::Access> RowTiler::classify(linalg::GenericOp generic,
                                               AffineMap map, bool sliced) {
  MLIRContext *ctx = generic.getContext();
  if (llvm::all_of(map.getResults(), llvm::IsaPred<AffineConstantExpr>))
    return Access::Element;
  if (sliced && isStridedProjection(map))
    return Access::Other;
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
  if (!isStridedProjection(map))
    return generic.emitError("kiln-tile: indexing map ")
           << AffineMapAttr::get(map)
           << " of a row kernel is not a projection of its dimensions";
  return Access::Other;
}

bool RowTiler::readsTile(Access access, AffineMap map) const {
  return access == Access::Row || access == Access::Columns ||
         (access == Access::Other && map.getNumDims() == rank &&
          map.isFunctionOfDim(rank - 1));
}

bool RowTiler::readsTile(linalg::GenericOp generic, OpOperand &operand) {
  // analyze classified every operand.
  Read read = *readOf(generic, operand);
  return readsTile(read.access, read.map);
}

FailureOr<RowTiler::Read> RowTiler::readOf(linalg::GenericOp generic,
                                           OpOperand &operand) {
  OperandRead read = readThroughSlices(generic, operand);
  FailureOr<Access> access = classify(generic, read.map, read.sliced);
  if (failed(access))
    return failure();
  return Read{read.source, read.map, *access};
}

/// Whether `value` is an argument of the kernel's body.
static bool isKernelInput(Value value, func::FuncOp kernel) {
  auto arg = dyn_cast<BlockArgument>(value);
  return arg && arg.getOwner() == &kernel.getBody().front();
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

/// Fails, with an error, on an op of `body` other than `except` that is
/// not cloned onto tiles (one with regions, or outside arith and math)
/// nor placed by the row tiler (a gather, a loop index).
static LogicalResult checkBodyOps(Block &body, Operation *except,
                                  StringRef where) {
  for (Operation &op : body.without_terminator())
    if (&op != except && !isa<tensor::ExtractOp, linalg::IndexOp>(op) &&
        (op.getNumRegions() != 0 ||
         !isa<arith::ArithDialect, math::MathDialect>(op.getDialect())))
      return op.emitError("kiln-tile: ")
             << op.getName() << " in " << where << " is not tiled yet";
  return success();
}

LogicalResult RowTiler::checkGeneric(linalg::GenericOp generic) {
  // analyzeDomain checked the sizes; a generic runs over the rows, or over
  // [rows, columns].
  unsigned loops = generic.getNumLoops();
  if (loops != rank - 1 && loops != rank)
    return generic.emitError("kiln-tile: a generic of a row kernel runs "
                             "over ")
           << loops << " loops, not the kernel's [rows, columns] (" << rank
           << ") or its rows (" << rank - 1 << ")";
  for (OpOperand *input : generic.getDpsInputOperands()) {
    FailureOr<Read> read = readOf(generic, *input);
    if (failed(read))
      return failure();
    auto [source, map, access] = *read;
    if (isKernelInput(source, kernel))
      continue;
    // A value the kernel computes is held by row.
    if (source != input->get())
      return generic.emitError("kiln-tile: a row kernel reads a slice of a "
                               "value it computes");
    if (access == Access::Other || access == Access::Columns)
      return generic.emitError("kiln-tile: a row kernel reads a value it "
                               "computes through indexing map ")
             << AffineMapAttr::get(map) << ", not by row";
    if (access == Access::Element &&
        (rows != 1 ||
         cast<RankedTensorType>(source.getType()).getNumElements() != 1))
      return generic.emitError("kiln-tile: a row kernel reads one element "
                               "of a value it computes");
    if (!source.getDefiningOp<linalg::GenericOp>() &&
        !source.getDefiningOp<linalg::FillOp>())
      return generic.emitError("kiln-tile: an operand of a row kernel "
                               "comes from neither an input nor an "
                               "earlier op");
  }
  Block &body = *generic.getBody();
  WalkResult captured = body.walk([&](Operation *op) {
    for (Value operand : op->getOperands()) {
      // The table a gather reads is an input of the kernel (checked where
      // it is loaded).
      if (isa<tensor::ExtractOp>(op) && operand == op->getOperand(0))
        continue;
      if (operand.getParentRegion() != &generic.getRegion() &&
          failed(checkCaptured(op, operand)))
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (captured.wasInterrupted())
    return failure();
  if (generic.getNumReductionLoops())
    return checkReduction(generic);
  for (OpOperand &init : generic.getDpsInitsMutable()) {
    if (generic.payloadUsesValueFromOperand(&init))
      return generic.emitError("kiln-tile: an elementwise body that reads "
                               "its output is not tiled yet");
    // Its values are held, and stored, by row.
    AffineMap map = generic.getMatchingIndexingMap(&init);
    if (!map.isIdentity())
      return generic.emitError("kiln-tile: a row kernel's generic writes "
                               "its result through indexing map ")
             << AffineMapAttr::get(map) << ", not in place";
  }
  return checkBodyOps(body, nullptr, "a row kernel's body");
}

LogicalResult RowTiler::checkReduction(linalg::GenericOp generic) {
  Block &body = *generic.getBody();
  // Each program reduces its own row: the rows stay, the columns go.
  SmallVector<utils::IteratorType> iterators(rank - 1,
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  AffineMap perRow =
      AffineMap::getMultiDimIdentityMap(rank, generic.getContext())
          .getMajorSubMap(rank - 1);
  if (generic.getIteratorTypesArray() != iterators ||
      llvm::any_of(generic.getDpsInitsMutable(), [&](OpOperand &init) {
        return generic.getMatchingIndexingMap(&init) != perRow;
      }))
    return generic.emitError("kiln-tile: a row kernel reduces the columns "
                             "of each row into that row's value, not this");
  if (generic.getNumDpsInits() == 2)
    return checkArgReduction(generic);
  if (generic.getNumDpsInits() != 1)
    return generic.emitError("kiln-tile: a reduction with several results "
                             "is not tiled yet");
  BlockArgument acc = body.getArguments().back();
  Operation *combine = findCombiner(body, acc);
  std::optional<TypedAttr> neutral =
      combine ? arith::getNeutralElement(combine) : std::nullopt;
  if (!neutral)
    return generic.emitError("kiln-tile: a reduction body must combine the "
                             "running value with one value of the inputs "
                             "by an op with a neutral element (add, mul, "
                             "max, min, and, or, ...)");
  if (failed(checkBodyOps(body, combine, "a reduction body")))
    return failure();
  Reduction reduction;
  reduction.op = generic;
  reduction.combine = combine;
  reduction.neutral = *neutral;
  reduction.contribution = contributionOf(combine, acc);
  reductions[generic] = std::move(reduction);
  return success();
}

/// Whether `value` is computed, by arith ops, from `leaves` and constants
/// alone.
static bool computedFrom(Value value, ArrayRef<Value> leaves) {
  if (llvm::is_contained(leaves, value))
    return true;
  Operation *op = value.getDefiningOp();
  if (!op || op->getNumRegions() != 0 ||
      !isa<arith::ArithDialect>(op->getDialect()))
    return false;
  return isa<arith::ConstantOp>(op) ||
         llvm::all_of(op->getOperands(), [&](Value operand) {
           return computedFrom(operand, leaves);
         });
}

LogicalResult RowTiler::checkArgReduction(linalg::GenericOp generic) {
  // yield select(t, a, v), select(t, index_cast(linalg.index <columns>), i)
  // for the running value v and index i, t computed from a and v alone.
  Block &body = *generic.getBody();
  unsigned inputs = generic.getNumDpsInputs();
  BlockArgument runningValue = body.getArgument(inputs);
  BlockArgument runningIndex = body.getArgument(inputs + 1);
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto value = yield.getOperand(0).getDefiningOp<arith::SelectOp>();
  auto index = yield.getOperand(1).getDefiningOp<arith::SelectOp>();
  auto column = index ? index.getTrueValue().getDefiningOp<arith::IndexCastOp>()
                      : nullptr;
  auto position =
      column ? column.getIn().getDefiningOp<linalg::IndexOp>() : nullptr;
  if (!value || !index || value.getCondition() != index.getCondition() ||
      value.getFalseValue() != runningValue ||
      index.getFalseValue() != runningIndex || !position ||
      position.getDim() != rank - 1 || !position->hasOneUse() ||
      !column->hasOneUse() || !isa<IntegerType>(runningIndex.getType()) ||
      !computedFrom(value.getCondition(), {value.getTrueValue(), runningValue}))
    return generic.emitError(
        "kiln-tile: a reduction with two results must keep a value and its "
        "column (argmax, argmin): yield select(t, a, v), select(t, "
        "index_cast(linalg.index), i) for the running v and i, t computed "
        "from a and v");
  if (failed(checkBodyOps(body, position, "a reduction body")))
    return failure();
  Reduction reduction;
  reduction.op = generic;
  reduction.kind = ReductionKind::Arg;
  reduction.contribution = value.getTrueValue();
  reduction.take = value.getCondition();
  reduction.runningValue = runningValue;
  reductions[generic] = std::move(reduction);
  return success();
}

Value RowTiler::throughProducers(Value value) {
  while (auto arg = dyn_cast<BlockArgument>(value)) {
    auto generic = dyn_cast<linalg::GenericOp>(arg.getOwner()->getParentOp());
    if (!generic || arg.getArgNumber() >= generic.getNumDpsInputs())
      break;
    OpOperand &operand = generic->getOpOperand(arg.getArgNumber());
    auto producer = operand.get().getDefiningOp<linalg::GenericOp>();
    FailureOr<Access> access =
        classify(generic, generic.getMatchingIndexingMap(&operand));
    if (!producer || producer.getNumReductionLoops() || *access != Access::Row)
      break;
    auto yield = cast<linalg::YieldOp>(producer.getBody()->getTerminator());
    value = yield.getOperand(cast<OpResult>(operand.get()).getResultNumber());
  }
  return value;
}

bool RowTiler::variesAlongRow(Value value) {
  if (auto known = varies.find(value); known != varies.end())
    return known->second;
  bool result = false;
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    auto generic = dyn_cast<linalg::GenericOp>(arg.getOwner()->getParentOp());
    if (generic && arg.getArgNumber() < generic.getNumDpsInputs())
      result = readsTile(generic, generic->getOpOperand(arg.getArgNumber()));
  } else if (auto index = value.getDefiningOp<linalg::IndexOp>()) {
    result = index.getDim() == rank - 1;  // the column
  } else if (Operation *op = value.getDefiningOp();
             op && isa<linalg::GenericOp>(op->getParentOp())) {
    result = llvm::any_of(op->getOperands(), [&](Value operand) {
      return variesAlongRow(operand);
    });
  }
  return varies[value] = result;
}

const llvm::SetVector<Operation *> &RowTiler::needs(Value value) {
  if (auto known = needed.find(value); known != needed.end())
    return known->second;
  llvm::SetVector<Operation *> result;
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    auto generic = dyn_cast<linalg::GenericOp>(arg.getOwner()->getParentOp());
    if (generic && arg.getArgNumber() < generic.getNumDpsInputs())
      result = needs(generic->getOpOperand(arg.getArgNumber()).get());
  } else if (auto generic = value.getDefiningOp<linalg::GenericOp>()) {
    if (reductions.contains(generic)) {
      result.insert(generic);
    } else {
      auto yield = cast<linalg::YieldOp>(generic.getBody()->getTerminator());
      result = needs(yield.getOperand(cast<OpResult>(value).getResultNumber()));
    }
  } else if (Operation *op = value.getDefiningOp();
             op && isa<linalg::GenericOp>(op->getParentOp())) {
    for (Value operand : op->getOperands())
      result.insert_range(needs(operand));
  }
  return needed[value] = std::move(result);
}

void RowTiler::findShift(Reduction &reduction) {
  // Only a float sum, computed at f32 or wider: a narrower type would
  // count the row's columns inexactly.
  Type element = reduction.combine->getResult(0).getType();
  if (!isa<arith::AddFOp>(reduction.combine) ||
      !isa<Float32Type, Float64Type>(element))
    return;
  // The contribution, and the subtraction under it, may be computed by
  // the generics the reduction reads.
  Value contribution = throughProducers(reduction.contribution);
  Operation *op = contribution.getDefiningOp();
  if (!op)
    return;
  // a - k with a varying along the row and k not; with `either`, k - a
  // too.
  auto splitShift = [&](Value difference, bool either) {
    auto sub = throughProducers(difference).getDefiningOp<arith::SubFOp>();
    if (!sub)
      return false;
    Value a = sub.getLhs(), k = sub.getRhs();
    if (either && !variesAlongRow(a))
      std::swap(a, k);
    if (!variesAlongRow(a) || variesAlongRow(k))
      return false;
    reduction.shifted = a;
    reduction.shift = k;
    return true;
  };
  if (isa<math::ExpOp, math::Exp2Op>(op) &&
      splitShift(op->getOperand(0), /*either=*/false)) {
    reduction.kind = ReductionKind::ShiftedExp;
    reduction.exponential = op;
  } else if (auto square = dyn_cast<arith::MulFOp>(op);
             square &&
             throughProducers(square.getLhs()) ==
                 throughProducers(square.getRhs()) &&
             splitShift(square.getLhs(), /*either=*/true)) {
    reduction.kind = ReductionKind::ShiftedSquare;
  }
}

LogicalResult RowTiler::analyze() {
  for (Operation &op : kernel.getBody().front().without_terminator()) {
    if (isRecreatedByKernels(&op))
      continue;
    if (auto fill = dyn_cast<linalg::FillOp>(op)) {
      if (!fill.getInputs()[0].getDefiningOp<arith::ConstantOp>())
        return op.emitError("kiln-tile: a fill value that is not a constant");
      continue;
    }
    auto generic = dyn_cast<linalg::GenericOp>(op);
    if (!generic)
      return op.emitError("kiln-tile: ")
             << op.getName() << " in a row kernel is not tiled yet";
    if (failed(checkGeneric(generic)))
      return failure();
  }
  for (auto &[op, reduction] : reductions) {
    if (looped && reduction.kind == ReductionKind::Plain)
      findShift(reduction);
    switch (reduction.kind) {
    case ReductionKind::Plain:
    case ReductionKind::Arg:
      reduction.chunkNeeds = needs(reduction.contribution);
      break;
    case ReductionKind::ShiftedExp:
    case ReductionKind::ShiftedSquare:
      reduction.chunkNeeds = needs(reduction.shifted);
      break;
    }
  }
  return success();
}

Value RowTiler::rowCoordinate(Location loc, unsigned d) {
  // Rows are numbered row-major over the rows' dimensions.
  Value inner = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 1);
  for (unsigned k = d + 1; k + 1 < rank; ++k)
    inner = b.createOrFold<arith::MulIOp>(loc, inner, sizeOf(k));
  SmallVector<Value> divided = alike({row, inner});
  Value coordinate =
      b.createOrFold<arith::DivUIOp>(loc, divided[0], divided[1]);
  if (d == 0)
    return coordinate;
  SmallVector<Value> remainder = alike({coordinate, sizeOf(d)});
  return b.createOrFold<arith::RemUIOp>(loc, remainder[0], remainder[1]);
}

const RowTiler::Placement &RowTiler::place(Location loc, Value source,
                                           Access access, AffineMap map) {
  bool byMap = access == Access::Element || access == Access::Other;
  auto key = std::make_tuple(source, static_cast<int>(access),
                             byMap ? map : AffineMap());
  if (auto known = placements.find(key); known != placements.end())
    return known->second;
  OpBuilder::InsertionGuard guard(b);
  toTopLevel();
  return placements[key] = placeHere(loc, source, access, map);
}

RowTiler::Placement RowTiler::placeHere(Location loc, Value source,
                                        Access access, AffineMap map) {
  Type i32 = b.getI32Type();
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIntOp::create(b, loc, i32, value);
  };
  switch (access) {
  case Access::Row: {
    SmallVector<Value> start = alike({row, rowLength});
    return {b.createOrFold<arith::MulIOp>(loc, start[0], start[1]),
            constant(1)};
  }
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
    // classify checked that each index is a strided one: c * d + k.
    StridedIndex index = *getStridedIndex(map.getResult(p));
    if (index.offset) {
      SmallVector<Value> sum = alike(
          {where.offset, b.createOrFold<arith::MulIOp>(
                             loc, stride, constant(index.offset))});
      where.offset = b.createOrFold<arith::AddIOp>(loc, sum[0], sum[1]);
    }
    Value indexStride =
        index.coefficient == 1
            ? stride
            : b.createOrFold<arith::MulIOp>(loc, stride,
                                            constant(index.coefficient));
    if (index.dim && map.getNumDims() == rank && *index.dim == rank - 1) {
      where.columnStride = indexStride;
    } else if (index.dim) {
      SmallVector<Value> term =
          alike({indexStride, rowCoordinate(loc, *index.dim)});
      SmallVector<Value> sum =
          alike({where.offset,
                 b.createOrFold<arith::MulIOp>(loc, term[0], term[1])});
      where.offset = b.createOrFold<arith::AddIOp>(loc, sum[0], sum[1]);
    }
    // A dynamic dimension is read whole (analyzeDomain refused others).
    Value size = type.isDynamicDim(p) ? sizeOf(*index.dim)
                                      : constant(type.getDimSize(p));
    stride = b.createOrFold<arith::MulIOp>(loc, stride, size);
  }
  return where;
}

RowTiler::Spread RowTiler::spreadOf(Value value) const {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type)
    return Spread::Uniform;
  return type.getRank() == (rowBlock == 1 ? 1 : 2) ? Spread::Tile
                                                   : Spread::PerRow;
}

Value RowTiler::spreadTo(Value value, Spread to) {
  Spread from = spreadOf(value);
  if (from >= to || (rowBlock == 1 && to == Spread::PerRow))
    return value;
  Location loc = value.getLoc();
  Type element = getElementTypeOrSelf(value.getType());
  if (from == Spread::Uniform)
    return tile::SplatOp::create(b, loc,
                                 cast<RankedTensorType>(to == Spread::Tile
                                                            ? tileOf(element)
                                                            : perRow(element)),
                                 value);
  // A value per row, repeated along the columns.
  return broadcastAlong(b, loc, value, 1, tileOf(element).getShape());
}

SmallVector<Value> RowTiler::alike(ArrayRef<Value> values) {
  Spread widest = Spread::Uniform;
  for (Value value : values)
    widest = std::max(widest, spreadOf(value));
  return llvm::map_to_vector(
      values, [&](Value value) { return spreadTo(value, widest); });
}

Value RowTiler::select(Location loc, Value condition, Value ifTrue,
                       Value ifFalse) {
  SmallVector<Value> operands = alike({condition, ifTrue, ifFalse});
  return arith::SelectOp::create(b, loc, operands[0], operands[1], operands[2]);
}

Value RowTiler::pointersAt(Location loc, Value base, Value offset) {
  if (auto type = dyn_cast<RankedTensorType>(offset.getType()))
    base = tile::SplatOp::create(
        b, loc, RankedTensorType::get(type.getShape(), base.getType()), base);
  return tile::AddPtrOp::create(b, loc, base.getType(), base, offset);
}

Value RowTiler::asTile(Value value) { return spreadTo(value, Spread::Tile); }

RowTiler::Chunk RowTiler::chunkAt(Location loc, Value start) {
  Type i32 = b.getI32Type();
  auto line = RankedTensorType::get({block}, i32);
  Chunk chunk;
  chunk.start = start;
  chunk.columnIndices = tile::RangeOp::create(b, loc, line, 0, block);
  if (start)
    chunk.columnIndices = arith::AddIOp::create(
        b, loc, tile::SplatOp::create(b, loc, line, start),
        chunk.columnIndices);
  chunk.mask = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::slt, chunk.columnIndices,
      tile::SplatOp::create(b, loc, line, rowLength));
  if (rowBlock == 1)
    return chunk;
  // The same columns in each of the program's rows.
  ArrayRef<int64_t> shape = tileOf(i32).getShape();
  chunk.columnIndices = broadcastAlong(b, loc, chunk.columnIndices, 0, shape);
  chunk.mask = broadcastAlong(b, loc, chunk.mask, 0, shape);
  if (rowMask) {
    if (!rowMaskTile) {
      OpBuilder::InsertionGuard guard(b);
      toTopLevel();
      rowMaskTile = spreadTo(rowMask, Spread::Tile);
    }
    chunk.mask = arith::AndIOp::create(b, loc, chunk.mask, rowMaskTile);
  }
  return chunk;
}

scf::ForOp RowTiler::overChunks(Location loc, ValueRange running) {
  Value lower = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0);
  Value step = arith::ConstantIntOp::create(b, loc, b.getI32Type(), block);
  return scf::ForOp::create(b, loc, lower, rowLength, step, running);
}

void RowTiler::toTopLevel() {
  if (openLoop)
    b.setInsertionPoint(openLoop);
}

FailureOr<Value> RowTiler::scalarOf(Value value) {
  if (Value known = scalars.lookupOrNull(value))
    return known;
  OpBuilder::InsertionGuard guard(b);
  toTopLevel();
  Value result;
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    // An operand of a generic, read as a scalar.
    auto generic = cast<linalg::GenericOp>(arg.getOwner()->getParentOp());
    Read read = *readOf(generic, generic->getOpOperand(arg.getArgNumber()));
    FailureOr<Value> value =
        scalarValue(generic, read.source, read.access, read.map);
    if (failed(value))
      return failure();
    result = *value;
  } else if (isRecreatedByKernels(value.getDefiningOp())) {
    // A constant or a size the kernel's ops use.
    FailureOr<Value> made = recreateScalar(
        b, value.getDefiningOp(), value, kernel, ties,
        [&](unsigned d) { return sizeOf(d); }, scalars);
    if (failed(made))
      return failure();
    result = *made;
  } else if (auto fill = value.getDefiningOp<linalg::FillOp>()) {
    FailureOr<Value> filler = scalarOf(fill.getInputs()[0]);
    if (failed(filler))
      return failure();
    result = *filler;
  } else if (auto generic = value.getDefiningOp<linalg::GenericOp>()) {
    FailureOr<Value> computed =
        reductions.contains(generic)
            ? reductionValue(value)
            : scalarOf(
                  cast<linalg::YieldOp>(generic.getBody()->getTerminator())
                      .getOperand(cast<OpResult>(value).getResultNumber()));
    if (failed(computed))
      return failure();
    result = *computed;
  } else if (auto index = value.getDefiningOp<linalg::IndexOp>()) {
    // A row coordinate (variesAlongRow sends the column to valueIn).
    Value coordinate = rowCoordinate(index.getLoc(), index.getDim());
    result = arith::IndexCastOp::create(
        b, index.getLoc(), perRow(b.getIndexType()), coordinate);
  } else if (auto extract = value.getDefiningOp<tensor::ExtractOp>()) {
    // One element a row: its indices are the row's.
    SmallVector<Value> indices;
    for (Value index : extract.getIndices()) {
      FailureOr<Value> known = scalarOf(index);
      if (failed(known))
        return failure();
      indices.push_back(*known);
    }
    indices = alike(indices);
    Value mask = rowMask ? rowMask
                         : arith::ConstantIntOp::create(b, extract.getLoc(),
                                                        b.getI1Type(), 1)
                               .getResult();
    unsigned next = 0;
    FailureOr<Value> gathered = gatherInKernel(
        b, extract, kernel, *entry, spreadTo(mask, Spread::PerRow),
        [&](Value) { return spreadTo(indices[next++], Spread::PerRow); });
    if (failed(gathered))
      return failure();
    result = *gathered;
  } else {
    // An op of a body, on scalars.
    FailureOr<Value> computed =
        cloneOnOperands(cast<OpResult>(value),
                        [&](Value operand) { return scalarOf(operand); });
    if (failed(computed))
      return failure();
    result = *computed;
  }
  scalars.map(value, result);
  return result;
}

FailureOr<Value>
RowTiler::cloneOnOperands(OpResult value,
                          function_ref<FailureOr<Value>(Value)> operandValue) {
  Operation *op = value.getOwner();
  IRMapping mapping;
  for (Value operand : op->getOperands()) {
    FailureOr<Value> computed = operandValue(operand);
    if (failed(computed))
      return failure();
    mapping.map(operand, *computed);
  }
  return cloneOnValues(*op, mapping)->getResult(value.getResultNumber());
}

FailureOr<Value> RowTiler::scalarValue(Operation *user, Value source,
                                       Access access, AffineMap map) {
  if (!isKernelInput(source, kernel))
    return scalarOf(source);
  bool byMap = access == Access::Element || access == Access::Other;
  Value &cached = loadedScalars[{source, static_cast<int>(access),
                                 byMap ? map : AffineMap()}];
  if (cached)
    return cached;
  OpBuilder::InsertionGuard guard(b);
  toTopLevel();
  Location loc = user->getLoc();
  Value base = entry->getArgument(cast<BlockArgument>(source).getArgNumber());
  Value at = pointersAt(loc, base, place(loc, source, access, map).offset);
  Type element = getElementTypeOrSelf(source.getType());
  if (!isa<RankedTensorType>(at.getType()))
    return cached = tile::LoadOp::create(b, loc, element, at, Value(), Value());
  return cached = tile::LoadOp::create(b, loc, perRow(element), at, rowMask,
                                       Value());
}

FailureOr<Value> RowTiler::valueIn(Value value, Chunk &chunk) {
  if (!variesAlongRow(value))
    return scalarOf(value);
  if (Value known = chunk.values.lookupOrNull(value))
    return known;
  Value result;
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    auto generic = cast<linalg::GenericOp>(arg.getOwner()->getParentOp());
    Read read = *readOf(generic, generic->getOpOperand(arg.getArgNumber()));
    FailureOr<Value> value =
        tileValue(generic, read.source, read.access, read.map, chunk);
    if (failed(value))
      return failure();
    result = *value;
  } else if (value.getDefiningOp<linalg::IndexOp>()) {
    // The column (a row coordinate does not vary along the row).
    result = arith::IndexCastOp::create(
        b, value.getLoc(), tileOf(b.getIndexType()), chunk.columnIndices);
  } else if (auto extract = value.getDefiningOp<tensor::ExtractOp>()) {
    // A gather: each column's element, at the indices of its lane.
    SmallVector<Value> indices;
    for (Value index : extract.getIndices()) {
      FailureOr<Value> known = valueIn(index, chunk);
      if (failed(known))
        return failure();
      indices.push_back(asTile(*known));
    }
    unsigned next = 0;
    FailureOr<Value> gathered =
        gatherInKernel(b, extract, kernel, *entry, chunk.mask,
                       [&](Value) { return indices[next++]; });
    if (failed(gathered))
      return failure();
    result = *gathered;
  } else {
    FailureOr<Value> computed =
        cloneOnOperands(cast<OpResult>(value),
                        [&](Value operand) { return valueIn(operand, chunk); });
    if (failed(computed))
      return failure();
    result = *computed;
  }
  chunk.values.map(value, result);
  return result;
}

FailureOr<Value> RowTiler::tileValue(Operation *user, Value source,
                                     Access access, AffineMap map,
                                     Chunk &chunk) {
  if (isKernelInput(source, kernel)) {
    Value &cached = chunk.loaded[{source, static_cast<int>(access),
                                  access == Access::Other ? map : AffineMap()}];
    if (!cached) {
      Location loc = user->getLoc();
      Value base =
          entry->getArgument(cast<BlockArgument>(source).getArgNumber());
      Value at =
          columnPointers(loc, base, place(loc, source, access, map), chunk);
      cached = tile::LoadOp::create(
          b, loc, tileOf(getElementTypeOrSelf(source.getType())), at,
          chunk.mask, Value());
    }
    return cached;
  }
  // checkGeneric let a computed value be read by row only: a fill, or an
  // elementwise generic's result over [rows, columns].
  if (auto fill = source.getDefiningOp<linalg::FillOp>()) {
    FailureOr<Value> filler = scalarOf(fill.getInputs()[0]);
    if (failed(filler))
      return failure();
    return asTile(*filler);
  }
  auto generic = source.getDefiningOp<linalg::GenericOp>();
  auto yield = cast<linalg::YieldOp>(generic.getBody()->getTerminator());
  FailureOr<Value> computed = valueIn(
      yield.getOperand(cast<OpResult>(source).getResultNumber()), chunk);
  if (failed(computed))
    return failure();
  return asTile(*computed);
}

Value RowTiler::columnPointers(Location loc, Value base, const Placement &where,
                               const Chunk &chunk) {
  Value &starts = rowStarts[{base, where.offset}];
  if (!starts) {
    OpBuilder::InsertionGuard guard(b);
    toTopLevel();
    starts = asTile(matchPattern(where.offset, m_Zero())
                        ? base
                        : pointersAt(loc, base, where.offset));
  }
  Value columns = chunk.columnIndices;
  if (!matchPattern(where.columnStride, m_One()))
    columns = arith::MulIOp::create(
        b, loc, columns,
        tile::SplatOp::create(b, loc, columns.getType(), where.columnStride));
  return tile::AddPtrOp::create(b, loc, tileOf(base.getType()), starts,
                                columns);
}

Operation *RowTiler::cloneOnValues(Operation &op, IRMapping &mapping) {
  SmallVector<Value> operands =
      alike(llvm::map_to_vector(op.getOperands(), [&](Value operand) {
        return mapping.lookup(operand);
      }));
  Spread spread = operands.empty() ? Spread::Uniform : spreadOf(operands[0]);
  SmallVector<Type> resultTypes;
  for (Type type : op.getResultTypes())
    resultTypes.push_back(spread == Spread::Tile     ? Type(tileOf(type))
                          : spread == Spread::PerRow ? perRow(type)
                                                     : type);
  OperationState state(op.getLoc(), op.getName(), operands, resultTypes,
                       op.getAttrs());
  Operation *clone = b.create(state);
  mapping.map(op.getResults(), clone->getResults());
  return clone;
}

SmallVector<Value> RowTiler::reduceAlongRow(Location loc, ValueRange tiles,
                                            Combiner combine) {
  SmallVector<Type> elements, results;
  for (Value tileValue : tiles) {
    elements.push_back(getElementTypeOrSelf(tileValue.getType()));
    results.push_back(perRow(elements.back()));
  }
  auto reduce = tile::ReduceOp::create(
      b, loc, results, tiles, b.getI32IntegerAttr(rowBlock == 1 ? 0 : 1));
  OpBuilder::InsertionGuard guard(b);
  SmallVector<Type> arguments(elements);
  arguments.append(elements);
  Block *combiner = b.createBlock(&reduce.getCombiner(), {}, arguments,
                                  SmallVector<Location>(arguments.size(), loc));
  tile::YieldOp::create(
      b, loc,
      combine(combiner->getArguments().take_front(tiles.size()),
              combiner->getArguments().drop_front(tiles.size())));
  return reduce.getResults();
}

Value RowTiler::reduceMasked(Location loc, Value tileValue,
                             Reduction &reduction, Chunk &chunk) {
  Value &reducedTile = chunk.reduced[{tileValue, reduction.combine->getName()}];
  if (reducedTile)
    return reducedTile;
  tileValue = asTile(tileValue);
  Type element = getElementTypeOrSelf(tileValue.getType());
  tileValue = arith::SelectOp::create(
      b, loc, chunk.mask, tileValue,
      constantOf(b, loc, tileOf(element), reduction.neutral));
  return reducedTile = reduceAlongRow(
             loc, tileValue, [&](ValueRange lhs, ValueRange rhs) {
               return SmallVector<Value>{
                   combineWith(reduction, lhs[0], rhs[0])};
             })[0];
}

Value RowTiler::combineWith(Reduction &reduction, Value running, Value value) {
  BlockArgument acc = reduction.op.getBody()->getArguments().back();
  IRMapping operands;
  operands.map(contributionOf(reduction.combine, acc), value);
  operands.map(acc, running);
  return cloneOnValues(*reduction.combine, operands)->getResult(0);
}

/// `shift` where it is finite, else 0: what the online softmax subtracts
/// from a chunk, so that infinities give what the direct sum does.
static Value finiteOrZero(OpBuilder &b, Location loc, Value shift) {
  Type type = shift.getType();
  auto element = cast<FloatType>(getElementTypeOrSelf(type));
  Value infinity = constantOf(
      b, loc, type,
      b.getFloatAttr(element, APFloat::getInf(element.getFloatSemantics())));
  Value zero = constantOf(b, loc, type, b.getFloatAttr(element, 0.0));
  Value infinite =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                            math::AbsFOp::create(b, loc, shift), infinity);
  return arith::SelectOp::create(b, loc, infinite, zero, shift);
}

/// `exponential` (math.exp or math.exp2) cloned onto `operand`.
static Value exponentialOf(OpBuilder &b, Operation *exponential,
                           Value operand) {
  IRMapping mapping;
  mapping.map(exponential->getOperand(0), operand);
  Operation *clone = b.clone(*exponential, mapping);
  clone->getResult(0).setType(operand.getType());
  return clone->getResult(0);
}

FailureOr<SmallVector<Value>>
RowTiler::chunkStep(Reduction &reduction, ValueRange carried, Chunk &chunk) {
  Location loc = reduction.op.getLoc();
  // Each reduction carries its running values per lane of the tile, each
  // over its own columns, and reduces across lanes only after the loop
  // (mergeLanes): the loop's steps never exchange values between a
  // program's threads.
  if (reduction.kind == ReductionKind::Arg) {
    // Each lane's running column is earlier than the chunk's.
    FailureOr<std::pair<Value, Value>> chosen = columnChoices(reduction, chunk);
    if (failed(chosen))
      return failure();
    auto [value, column] =
        choose(loc, reduction, {carried[0], carried[1]}, *chosen,
               /*lhsEarlier=*/true);
    return SmallVector<Value>{value, column};
  }
  if (reduction.kind == ReductionKind::Plain) {
    FailureOr<Value> contribution = valueIn(reduction.contribution, chunk);
    if (failed(contribution))
      return failure();
    Value kept = arith::SelectOp::create(
        b, loc, chunk.mask, asTile(*contribution),
        constantOf(b, loc, carried[0].getType(), reduction.neutral));
    return SmallVector<Value>{combineWith(reduction, carried[0], kept)};
  }
  FailureOr<Value> shifted = valueIn(reduction.shifted, chunk);
  if (failed(shifted))
    return failure();
  Value a = asTile(*shifted);
  Type element = getElementTypeOrSelf(a.getType());
  if (reduction.kind == ReductionKind::ShiftedExp) {
    // Each lane's running max m and sum s of exp(a - m), relative to m's
    // finite shift (0 for an infinite m). Where a raises m to m' = a, s is
    // rescaled by exp(m - a) and gains exp(0) = 1; else it gains
    // exp(a - m). One exponential either way: of min(m, a) - m'.
    Value raises =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, a, carried[0]);
    Value newMax = arith::MaximumFOp::create(b, loc, carried[0], a);
    Value power = exponentialOf(
        b, reduction.exponential,
        arith::SubFOp::create(b, loc,
                              arith::MinimumFOp::create(b, loc, carried[0], a),
                              finiteOrZero(b, loc, newMax)));
    Value one = constantOf(b, loc, a.getType(), b.getFloatAttr(element, 1.0));
    Value sum = arith::SelectOp::create(
        b, loc, raises,
        arith::AddFOp::create(
            b, loc, arith::MulFOp::create(b, loc, carried[1], power), one),
        arith::AddFOp::create(b, loc, carried[1], power));
    return SmallVector<Value>{
        arith::SelectOp::create(b, loc, chunk.mask, newMax, carried[0]),
        arith::SelectOp::create(b, loc, chunk.mask, sum, carried[1])};
  }
  // Each lane's sums of d = a - p and of d^2, p the lane's first value
  // (taken in the first chunk): a value of the row, so d is about as
  // small as the row's spread, whatever its offset.
  Value first = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq, chunk.start,
      arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0));
  Value pivot = select(loc, first, a, carried[0]);
  Value d = arith::SubFOp::create(b, loc, a, pivot);
  Value sum = arith::AddFOp::create(b, loc, carried[1], d);
  Value squares = arith::AddFOp::create(b, loc, carried[2],
                                        arith::MulFOp::create(b, loc, d, d));
  return SmallVector<Value>{
      pivot, arith::SelectOp::create(b, loc, chunk.mask, sum, carried[1]),
      arith::SelectOp::create(b, loc, chunk.mask, squares, carried[2])};
}

void RowTiler::mergeLanes(Reduction &reduction) {
  Location loc = reduction.op.getLoc();
  switch (reduction.kind) {
  case ReductionKind::Plain:
    // Lanes past the row's end hold the neutral element.
    reduction.state = reduceAlongRow(
        loc, reduction.state, [&](ValueRange lhs, ValueRange rhs) {
          return SmallVector<Value>{combineWith(reduction, lhs[0], rhs[0])};
        });
    return;
  case ReductionKind::ShiftedExp: {
    // Lanes merged as chunks would be: the larger max, each sum rescaled
    // from its own max to the merged one's finite shift (a lane of -inf,
    // whose sum is 0, by exactly 0).
    SmallVector<Value> merged = reduceAlongRow(
        loc, reduction.state, [&](ValueRange lhs, ValueRange rhs) {
          Value max = arith::MaximumFOp::create(b, loc, lhs[0], rhs[0]);
          Value shift = finiteOrZero(b, loc, max);
          auto rescaled = [&](Value runningMax, Value sum) {
            return arith::MulFOp::create(
                b, loc, sum,
                exponentialOf(
                    b, reduction.exponential,
                    arith::SubFOp::create(b, loc, runningMax, shift)));
          };
          return SmallVector<Value>{
              max, arith::AddFOp::create(b, loc, rescaled(lhs[0], lhs[1]),
                                         rescaled(rhs[0], rhs[1]))};
        });
    reduction.state = merged;
    return;
  }
  case ReductionKind::ShiftedSquare: {
    // Lane l has had the columns l, l + block, ... of the row: its count
    // is ceil((length - l) / block) where l < length, else 0.
    Type i32 = b.getI32Type();
    Value lanes = tile::RangeOp::create(
        b, loc, RankedTensorType::get({block}, i32), 0, block);
    if (rowBlock != 1)
      lanes = broadcastAlong(b, loc, lanes, 0, tileOf(i32).getShape());
    auto splat = [&](Value scalar) {
      return tile::SplatOp::create(b, loc, tileOf(i32), scalar).getResult();
    };
    Value remaining = arith::SubIOp::create(b, loc, splat(rowLength), lanes);
    Value chunks = arith::DivSIOp::create(
        b, loc,
        arith::AddIOp::create(
            b, loc, remaining,
            splat(arith::ConstantIntOp::create(b, loc, i32, block - 1))),
        splat(arith::ConstantIntOp::create(b, loc, i32, block)));
    Value inRow = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                        lanes, splat(rowLength));
    Value pivots = reduction.state[0];
    auto type = cast<RankedTensorType>(pivots.getType());
    Value counts = arith::SIToFPOp::create(
        b, loc, type,
        arith::SelectOp::create(
            b, loc, inRow, chunks,
            splat(arith::ConstantIntOp::create(b, loc, i32, 0))));
    // The row's pivot P: lane 0's (the row's first value). Each lane's
    // sums, moved from its pivot to P by q = p - P (a lane with no column
    // moves by 0, whatever its pivot), add up across lanes.
    Value pivot = reduceAlongRow(
        loc, {pivots, lanes}, [&](ValueRange lhs, ValueRange rhs) {
          Value earlier = arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::slt, lhs[1], rhs[1]);
          return SmallVector<Value>{
              arith::SelectOp::create(b, loc, earlier, lhs[0], rhs[0]),
              arith::SelectOp::create(b, loc, earlier, lhs[1], rhs[1])};
        })[0];
    Value q = arith::SelectOp::create(
        b, loc, inRow, arith::SubFOp::create(b, loc, pivots, asTile(pivot)),
        constantOf(b, loc, type, b.getFloatAttr(type.getElementType(), 0.0)));
    Value sums = reduction.state[1], squares = reduction.state[2];
    // sum (d + q) = sum d + n q; sum (d + q)^2 = sum d^2 + q (2 sum d + n q).
    Value nq = arith::MulFOp::create(b, loc, counts, q);
    Value moved = arith::AddFOp::create(b, loc, sums, nq);
    Value movedSquares = arith::AddFOp::create(
        b, loc, squares,
        arith::MulFOp::create(
            b, loc, q,
            arith::AddFOp::create(
                b, loc, arith::AddFOp::create(b, loc, sums, sums), nq)));
    SmallVector<Value> totals = reduceAlongRow(
        loc, {moved, movedSquares}, [&](ValueRange lhs, ValueRange rhs) {
          return SmallVector<Value>{
              arith::AddFOp::create(b, loc, lhs[0], rhs[0]),
              arith::AddFOp::create(b, loc, lhs[1], rhs[1])};
        });
    reduction.state = {pivot, totals[0], totals[1]};
    return;
  }
  case ReductionKind::Arg: {
    auto [value, column] =
        reduceChoices(loc, reduction, reduction.state[0], reduction.state[1]);
    reduction.state = {value, column};
    return;
  }
  }
}

LogicalResult RowTiler::emitReduction(Reduction &first) {
  if (!looped) {
    first.emitted = true;
    if (first.kind == ReductionKind::Arg) {
      // Each column against the initial value first, as in a loop's lanes.
      Location loc = first.op.getLoc();
      FailureOr<std::pair<Value, Value>> chosen =
          columnChoices(first, *wholeRow);
      FailureOr<Value> init = argInitialValue(first);
      if (failed(chosen) || failed(init))
        return failure();
      auto [values, columns] =
          choose(loc, first,
                 {asTile(*init), constantOf(b, loc, chosen->second.getType(),
                                            b.getI32IntegerAttr(-1))},
                 *chosen, /*lhsEarlier=*/true);
      auto [value, column] = reduceChoices(loc, first, values, columns);
      first.state = {value, column};
      return success();
    }
    FailureOr<Value> contribution = valueIn(first.contribution, *wholeRow);
    if (failed(contribution))
      return failure();
    first.state = {
        reduceMasked(first.op.getLoc(), *contribution, first, *wholeRow)};
    return success();
  }
  // What its chunks read is computed before the loop.
  for (Operation *need : first.chunkNeeds)
    if (failed(reductionValue(need->getResult(0))))
      return failure();
  // Every reduction whose chunks need only values already computed joins
  // it, so that the row is read once for all of them. (A reduction whose
  // loop is built may still need, to be finished, one this loop computes.)
  SmallVector<Reduction *> group;
  for (auto &[op, reduction] : reductions)
    if (!reduction.emitted &&
        (&reduction == &first ||
         llvm::all_of(reduction.chunkNeeds, [&](Operation *need) {
           return scalars.contains(need->getResult(0));
         })))
      group.push_back(&reduction);
  for (Reduction *reduction : group)
    reduction->emitted = true;

  OpBuilder::InsertionGuard guard(b);
  toTopLevel();
  Location loc = first.op.getLoc();
  SmallVector<Value> inits;
  for (Reduction *reduction : group) {
    switch (reduction->kind) {
    case ReductionKind::Plain:
      inits.push_back(constantOf(b, loc, tileOf(reduction->neutral.getType()),
                                 reduction->neutral));
      break;
    case ReductionKind::ShiftedExp: {
      auto type = cast<FloatType>(reduction->neutral.getType());
      inits.push_back(constantOf(
          b, loc, tileOf(type),
          b.getFloatAttr(type, APFloat::getInf(type.getFloatSemantics(),
                                               /*Negative=*/true))));
      inits.push_back(constantOf(b, loc, tileOf(type), reduction->neutral));
      break;
    }
    case ReductionKind::ShiftedSquare:
      inits.append(3, constantOf(b, loc, tileOf(reduction->neutral.getType()),
                                 reduction->neutral));
      break;
    case ReductionKind::Arg: {
      // Each lane scans its columns from the initial value, which comes
      // before them (column -1), as a scan of the row does: a column the
      // body's test does not take over it (a NaN under `ogt`) is never
      // kept, whatever the lanes' order.
      FailureOr<Value> init = argInitialValue(*reduction);
      if (failed(init))
        return failure();
      inits.push_back(asTile(*init));
      inits.push_back(
          constantOf(b, loc, tileOf(b.getI32Type()), b.getI32IntegerAttr(-1)));
      break;
    }
    }
  }
  auto loop = overChunks(loc, inits);
  Operation *outer = openLoop;
  openLoop = loop;
  b.setInsertionPointToStart(loop.getBody());
  Chunk chunk = chunkAt(loc, loop.getInductionVar());
  SmallVector<Value> next;
  unsigned at = 0;
  for (Reduction *reduction : group) {
    unsigned width = carriedTiles(reduction->kind);
    FailureOr<SmallVector<Value>> state =
        chunkStep(*reduction, loop.getRegionIterArgs().slice(at, width), chunk);
    if (failed(state)) {
      openLoop = outer;
      return failure();
    }
    next.append(*state);
    reduction->state.assign(loop.getResults().begin() + at,
                            loop.getResults().begin() + at + width);
    at += width;
  }
  scf::YieldOp::create(b, loc, next);
  openLoop = outer;
  b.setInsertionPointAfter(loop);
  for (Reduction *reduction : group)
    mergeLanes(*reduction);
  return success();
}

FailureOr<SmallVector<Value>> RowTiler::finish(Reduction &reduction) {
  Location loc = reduction.op.getLoc();
  if (reduction.kind == ReductionKind::Arg) {
    // The row's columns were each scanned from the initial value (column
    // -1); where none was kept, the initial index is.
    FailureOr<Value> initIndex =
        scalarValue(reduction.op, reduction.op.getDpsInitOperand(1)->get(),
                    Access::RowScalar, AffineMap());
    if (failed(initIndex))
      return failure();
    Value before = perRowConstant(loc, b.getI32IntegerAttr(-1));
    Value value = reduction.state[0], column = reduction.state[1];
    Value fromRow =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, column, before);
    Type indexType = perRow(getElementTypeOrSelf(reduction.op.getResult(1)));
    unsigned width = getElementTypeOrSelf(indexType).getIntOrFloatBitWidth();
    Value index =
        width > 32
            ? arith::ExtSIOp::create(b, loc, indexType, column).getResult()
        : width < 32
            ? arith::TruncIOp::create(b, loc, indexType, column).getResult()
            : column;
    // The initial index where the initial value is kept.
    return SmallVector<Value>{value, select(loc, fromRow, index, *initIndex)};
  }
  Value value = reduction.state[0];
  if (reduction.kind != ReductionKind::Plain) {
    FailureOr<Value> scalarShift = scalarOf(reduction.shift);
    if (failed(scalarShift))
      return failure();
    Value shift = spreadTo(*scalarShift, Spread::PerRow);
    if (reduction.kind == ReductionKind::ShiftedExp) {
      // sum exp(a - k) = exp(m - k) sum exp(a - m), m the row's max (a row
      // of -inf sums exp(-inf - k), as the direct sum does).
      value = arith::MulFOp::create(
          b, loc, reduction.state[1],
          exponentialOf(
              b, reduction.exponential,
              arith::SubFOp::create(b, loc, reduction.state[0], shift)));
    } else {
      // With d = a - P summed (T) and squared (S), and e = k - P:
      // sum (a - k)^2 = sum (d - e)^2 = S + e (n e - 2 T).
      Value count =
          spreadTo(arith::SIToFPOp::create(b, loc, getElementTypeOrSelf(value),
                                           rowLength),
                   Spread::PerRow);
      Value e = arith::SubFOp::create(b, loc, shift, reduction.state[0]);
      Value sums = reduction.state[1];
      value = arith::AddFOp::create(
          b, loc, reduction.state[2],
          arith::MulFOp::create(
              b, loc, e,
              arith::SubFOp::create(
                  b, loc, arith::MulFOp::create(b, loc, count, e),
                  arith::AddFOp::create(b, loc, sums, sums))));
    }
    // An empty row (only a dynamic one can be) sums nothing; the
    // corrections above could make it NaN.
    if (ShapedType::isDynamic(columns)) {
      Value empty = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::eq, rowLength,
          arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0));
      value = select(loc, empty, perRowConstant(loc, reduction.neutral), value);
    }
  }
  // The initial value joins the reduced row.
  FailureOr<Value> init =
      scalarValue(reduction.op, reduction.op.getDpsInitOperand(0)->get(),
                  Access::RowScalar, AffineMap());
  if (failed(init))
    return failure();
  return SmallVector<Value>{combineWith(reduction, *init, value)};
}

FailureOr<Value> RowTiler::reductionValue(Value result) {
  if (Value known = scalars.lookupOrNull(result))
    return known;
  Reduction &reduction = reductions[result.getDefiningOp()];
  if (!reduction.emitted && failed(emitReduction(reduction)))
    return failure();
  OpBuilder::InsertionGuard guard(b);
  toTopLevel();
  FailureOr<SmallVector<Value>> values = finish(reduction);
  if (failed(values))
    return failure();
  scalars.map(reduction.op->getResults(), *values);
  return scalars.lookup(result);
}

std::pair<Value, Value> RowTiler::choose(Location loc, Reduction &reduction,
                                         std::pair<Value, Value> lhs,
                                         std::pair<Value, Value> rhs,
                                         bool lhsEarlier) {
  SmallVector<Value> pairs =
      alike({lhs.first, lhs.second, rhs.first, rhs.second});
  lhs = {pairs[0], pairs[1]};
  rhs = {pairs[2], pairs[3]};
  Value invalid =
      constantOf(b, loc, lhs.second.getType(),
                 b.getI32IntegerAttr(std::numeric_limits<int32_t>::max()));
  Value firstValue = lhs.first, firstColumn = lhs.second;
  Value secondValue = rhs.first, secondColumn = rhs.second;
  if (!lhsEarlier) {
    // Order the pair by column.
    Value lhsFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                           lhs.second, rhs.second);
    auto pick = [&](Value first, Value second) {
      return arith::SelectOp::create(b, loc, lhsFirst, first, second)
          .getResult();
    };
    firstValue = pick(lhs.first, rhs.first);
    firstColumn = pick(lhs.second, rhs.second);
    secondValue = pick(rhs.first, lhs.first);
    secondColumn = pick(rhs.second, lhs.second);
  }
  // take(later value, earlier value), on clones of the body's test.
  IRMapping mapping;
  mapping.map(reduction.contribution, secondValue);
  mapping.map(reduction.runningValue, firstValue);
  std::function<Value(Value)> cloneTest = [&](Value value) -> Value {
    if (Value known = mapping.lookupOrNull(value))
      return known;
    Operation *op = value.getDefiningOp();
    for (Value operand : op->getOperands())
      cloneTest(operand);
    cloneOnValues(*op, mapping);
    return mapping.lookup(value);
  };
  Value take = cloneTest(reduction.take);
  Value secondValid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                            secondColumn, invalid);
  Value later = arith::AndIOp::create(b, loc, secondValid, take);
  return {arith::SelectOp::create(b, loc, later, secondValue, firstValue),
          arith::SelectOp::create(b, loc, later, secondColumn, firstColumn)};
}

FailureOr<std::pair<Value, Value>> RowTiler::columnChoices(Reduction &reduction,
                                                           Chunk &chunk) {
  Location loc = reduction.op.getLoc();
  FailureOr<Value> values = valueIn(reduction.contribution, chunk);
  if (failed(values))
    return failure();
  Value columns = arith::SelectOp::create(
      b, loc, chunk.mask, chunk.columnIndices,
      constantOf(b, loc, chunk.columnIndices.getType(),
                 b.getI32IntegerAttr(std::numeric_limits<int32_t>::max())));
  return std::make_pair(asTile(*values), columns);
}

std::pair<Value, Value> RowTiler::reduceChoices(Location loc,
                                                Reduction &reduction,
                                                Value values, Value columns) {
  SmallVector<Value> kept = reduceAlongRow(
      loc, {values, columns}, [&](ValueRange lhs, ValueRange rhs) {
        auto [value, column] =
            choose(loc, reduction, {lhs[0], lhs[1]}, {rhs[0], rhs[1]});
        return SmallVector<Value>{value, column};
      });
  return {kept[0], kept[1]};
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
      tile::StoreOp::create(b, loc, pointersAt(loc, base, row),
                            spreadTo(*value, Spread::PerRow), rowMask);
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
          tileValue(ret, ret.getOperand(i), Access::Row, AffineMap(), chunk);
      if (failed(value))
        return failure();
      Value base = entry->getArgument(kernel.getNumArguments() + i);
      tile::StoreOp::create(
          b, loc,
          columnPointers(loc, base, place(loc, base, Access::Row, AffineMap()),
                         chunk),
          *value, chunk.mask);
    }
    return success();
  };
  if (!looped)
    return storeRows(*wholeRow);
  auto loop = overChunks(loc, ValueRange());
  OpBuilder::InsertionGuard guard(b);
  openLoop = loop;
  b.setInsertionPointToStart(loop.getBody());
  Chunk chunk = chunkAt(loc, loop.getInductionVar());
  LogicalResult stored = storeRows(chunk);
  openLoop = nullptr;
  return stored;
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

int64_t RowTiler::laneBudgetWidth() {
  int64_t bytesPerLane = 0;
  for (auto &[op, reduction] : reductions) {
    auto bytesOf = [](Type type) {
      return static_cast<int64_t>(llvm::divideCeil(
          getElementTypeOrSelf(type).getIntOrFloatBitWidth(), 8));
    };
    int64_t value = bytesOf(reduction.op.getResult(0).getType());
    bytesPerLane += reduction.kind == ReductionKind::Arg
                        ? value + 4
                        : carriedTiles(reduction.kind) * value;
  }
  int64_t lanes = kLaneStateBytes / std::max<int64_t>(bytesPerLane, 1);
  return static_cast<int64_t>(llvm::bit_floor(
      static_cast<uint64_t>(std::max<int64_t>(lanes / rowBlock, 1))));
}

FailureOr<TiledKernel> RowTiler::run() {
  MLIRContext *ctx = kernel.getContext();
  Location loc = kernel.getLoc();
  if (failed(analyze()))
    return failure();
  if (looped)
    block = std::min(block, laneBudgetWidth());
  FailureOr<func::FuncOp> created = createTileKernel(kernel, b);
  if (failed(created))
    return failure();
  tileKernel = *created;
  entry = &tileKernel.getBody().front();
  Type i32 = b.getI32Type();
  Value program = tile::ProgramIdOp::create(
      b, loc, i32, tile::ProgramAxisAttr::get(ctx, tile::ProgramAxis::X));
  // The kernel takes the row's length when it is dynamic, and a dynamic
  // size of the rows when an input's place needs it (its strides, the
  // row's coordinates) or the last block of rows is masked.
  sizes.assign(rank, Value());
  for (unsigned d = 0; d < rank; ++d)
    if (!ShapedType::isDynamic(domain[d]))
      sizes[d] = arith::ConstantIntOp::create(b, loc, i32, domain[d]);
  rowLength = sizeOf(rank - 1);
  if (rowBlock == 1) {
    row = program;
  } else {
    auto numbers = RankedTensorType::get({rowBlock}, i32);
    Value first = arith::MulIOp::create(
        b, loc, program, arith::ConstantIntOp::create(b, loc, i32, rowBlock));
    row = arith::AddIOp::create(
        b, loc, tile::SplatOp::create(b, loc, numbers, first),
        tile::RangeOp::create(b, loc, numbers, 0, rowBlock));
    if (ShapedType::isDynamic(rows) || rows % rowBlock != 0) {
      Value count = sizeOf(0);
      for (unsigned d = 1; d + 1 < rank; ++d)
        count = arith::MulIOp::create(b, loc, count, sizeOf(d));
      rowMask =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, row,
                                tile::SplatOp::create(b, loc, numbers, count));
    }
  }
  if (!looped)
    wholeRow = chunkAt(loc, Value());
  if (failed(storeResults())) {
    tileKernel.erase();
    return failure();
  }
  func::ReturnOp::create(b, loc);
  // One program per block of rows.
  TiledKernel tiled;
  tiled.tileKernel = tileKernel;
  tiled.sizeDims = std::move(sizeDims);
  tiled.grid.push_back({llvm::to_vector(llvm::seq(rank - 1)), rowBlock});
  return tiled;
}

/// Rows a program takes where an input's consecutive rows lie next to
/// each other in memory: one per lane of a warp, which then reads 32
/// consecutive elements of each column (a 128-byte line of f32).
constexpr int64_t kRowsAlongMemory = 32;

/// How many rows each program of `kernel`, over `space`, takes: `requested`
/// if not 0; else kRowsAlongMemory where an input read over the row has
/// the last of the rows' dimensions innermost (a reduction over a leading
/// axis), so that the block's rows are read together; else, for short
/// static rows (half of `rowChunk` or less), as many as make a tile of
/// `rowChunk` elements, so that a program's threads are not idle; else
/// one. At most the rows (the next power of two of them).
static int64_t rowBlockOf(func::FuncOp kernel, ArrayRef<int64_t> space,
                          int64_t requested, int64_t rowChunk) {
  if (requested)
    return requested;
  int64_t rows = rowCount(space.drop_back());
  auto atMostTheRows = [&](int64_t rowBlock) {
    return ShapedType::isDynamic(rows) ? rowBlock
                                       : std::min(rowBlock, wholeWidth(rows));
  };
  unsigned rank = space.size();
  AffineExpr lastRowDim = getAffineDimExpr(rank - 2, kernel.getContext());
  WalkResult alongMemory = kernel.walk([&](linalg::GenericOp generic) {
    if (generic.getNumLoops() != rank)
      return WalkResult::advance();
    for (OpOperand *input : generic.getDpsInputOperands()) {
      auto [source, map, sliced] = readThroughSlices(generic, *input);
      if (isKernelInput(source, kernel) && map.getNumResults() &&
          map.isFunctionOfDim(rank - 1) &&
          map.getResults().back() == lastRowDim)
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (alongMemory.wasInterrupted())
    return atMostTheRows(std::min(kRowsAlongMemory, rowChunk));
  int64_t columns = space.back();
  if (ShapedType::isDynamic(columns) || 2 * wholeWidth(columns) > rowChunk)
    return 1;
  return atMostTheRows(rowChunk / wholeWidth(columns));
}

FailureOr<TiledKernel> kiln::tileRows(func::FuncOp kernel, int64_t maxRow,
                                      int64_t rowChunk, int64_t rowBlock) {
  // The [rows, columns] space, sized by every operand (either may be
  // dynamic); analysed first, so that an element read at constant indices
  // of a dynamic dimension is refused before the tiler computes its offset.
  SmallVector<DomainOp> ops;
  kernel.walk([&](linalg::GenericOp generic) {
    ops.push_back(alignedWithDomain(generic));
  });
  SmallVector<int64_t> space;
  SmallVector<SizeTie> ties;
  if (failed(analyzeDomain(kernel, ops, space, ties)))
    return failure();
  if (space.size() < 2)
    return kernel.emitError("kiln-tile: kernel '")
           << kernel.getSymName()
           << "' reduces, but not over a [rows, columns] space";
  FailureOr<TiledKernel> tiled =
      RowTiler(kernel, space, ties, maxRow, rowChunk,
               rowBlockOf(kernel, space, rowBlock, rowChunk))
          .run();
  if (succeeded(tiled)) {
    tiled->domain = std::move(space);
    tiled->ties = std::move(ties);
  }
  return tiled;
}
