//===- TileMatmul.cpp - Matmul kernels to tile kernels --------------------===//
//
// A kernel around one linalg.matmul (or linalg.batch_matmul, each program
// then in one batch): elementwise prologues of its operands
// (casts), the fill of its accumulator, and elementwise epilogues over its
// result (bias, activation, residual, cast). Each program computes one
// [block-m, block-n] block of the result: a loop over K loads the operand
// blocks (masked at the edges, zeros outside), applies the prologues, and
// accumulates with tile.dot, which the GPU target runs on tensor cores;
// then the epilogues run on the accumulator and the block is stored. So
// the matmul's result never leaves the program. M, N and K may be dynamic:
// the kernel then takes them as arguments.
//
//===----------------------------------------------------------------------===//

#include "RecreatedOps.h"
#include "TiledKernel.h"

#include "kiln/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace kiln;

bool kiln::isMatmulKernel(func::FuncOp kernel) {
  return !kernel.getOps<linalg::MatmulOp>().empty() ||
         !kernel.getOps<linalg::BatchMatmulOp>().empty();
}

namespace {

/// Builds the tile kernel of one matmul kernel.
class MatmulTiler {
public:
  MatmulTiler(func::FuncOp kernel, linalg::LinalgOp matmul,
              const MatmulBlocks &blocks)
      : kernel(kernel), matmul(matmul), blocks(blocks), b(kernel),
        batch(isa<linalg::BatchMatmulOp>(matmul) ? 1 : 0) {}

  FailureOr<TiledKernel> run();

private:
  /// Checks the kernel (prologues, one matmul into a constant fill,
  /// epilogues) and finds its domain; gives the fill's constant.
  FailureOr<mlir::arith::ConstantOp> analyze();
  /// The program's block: its rows and columns and their masks.
  void placeProgram(Location loc);
  /// The loop over K that accumulates the block's product from the fill.
  FailureOr<Value> accumulate(Location loc, mlir::arith::ConstantOp fillValue);
  /// The epilogues on the `product`, then the stores of the results.
  LogicalResult storeResults(Location loc, Value product);

  /// The [rows, columns] block at `base` whose rows and columns are
  /// `rowIndices` and `columnIndices`, rows `rowStride` elements apart and
  /// columns `columnStride` (i32 scalars).
  Value blockPointers(Location loc, Value base, Value rowIndices,
                      Value columnIndices, Value rowStride, Value columnStride);
  /// The value of `source` (a kernel argument or a value computed earlier)
  /// as read through `map` by a generic over a block of `shape` whose rows
  /// and columns are `rowIndices` and `columnIndices`, along domain
  /// dimensions `dims`; `inside` masks it.
  FailureOr<Value> blockValue(Operation *user, Value source, AffineMap map,
                              ArrayRef<int64_t> shape, Value rowIndices,
                              Value columnIndices, Value inside,
                              IRMapping &computed,
                              std::array<unsigned, 2> dims);
  /// Applies the elementwise `generic` to blocks of `shape` along domain
  /// dimensions `dims`; its result is mapped in `computed`.
  LogicalResult applyGeneric(linalg::GenericOp generic, ArrayRef<int64_t> shape,
                             Value rowIndices, Value columnIndices,
                             Value inside, IRMapping &computed,
                             std::array<unsigned, 2> dims);
  /// The matmul operand `operand` for the K step at `k`.
  FailureOr<Value> operandBlock(Value operand, bool isA, Value k);

  RankedTensorType blockOf(ArrayRef<int64_t> shape, Type element) {
    return RankedTensorType::get(shape, element);
  }
  Value constantI32(Location loc, int64_t value) {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), value);
  }
  /// `indices` (a [size] tile) compared with `bound` (an i32).
  Value below(Location loc, Value indices, Value bound);
  /// Dimension `dim` of `type` as an i32: the domain's size `domainDim`
  /// where it is dynamic.
  Value extent(Location loc, RankedTensorType type, unsigned dim,
               unsigned domainDim) {
    return type.isDynamicDim(dim) ? sizes[domainDim]
                                  : constantI32(loc, type.getDimSize(dim));
  }

  /// `map`, over a generic's loops (the batch first, where there is one),
  /// as a map over its [rows, columns] and whether it reads the batch's
  /// index (its first index is the batch loop); fails where the batch
  /// loop indexes anything else.
  FailureOr<std::pair<AffineMap, bool>> withoutBatch(Operation *user,
                                                     AffineMap map);

  func::FuncOp kernel;
  linalg::LinalgOp matmul;
  MatmulBlocks blocks;
  OpBuilder b;
  /// 1 for a batched matmul (its domain [B, M, N, K]), else 0 ([M, N, K]).
  unsigned batch;
  /// The program's batch, for a batched matmul.
  Value batchIndex;
  Block *entry = nullptr;
  /// The domain [M, N, K] (static or dynamic sizes) and its sizes as i32s
  /// (constants, or the kernel's size arguments).
  SmallVector<int64_t> domain;
  SmallVector<Value> sizes;
  /// Which input dimensions span which domain dimension.
  SmallVector<SizeTie> ties;
  Value rows, columns, rowsInside, columnsInside, ks;
};

} // namespace

Value MatmulTiler::below(Location loc, Value indices, Value bound) {
  auto type = cast<RankedTensorType>(indices.getType());
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, indices,
                               tile::SplatOp::create(b, loc, type, bound));
}

Value MatmulTiler::blockPointers(Location loc, Value base, Value rowIndices,
                                 Value columnIndices, Value rowStride,
                                 Value columnStride) {
  int64_t height = cast<RankedTensorType>(rowIndices.getType()).getDimSize(0);
  int64_t width = cast<RankedTensorType>(columnIndices.getType()).getDimSize(0);
  SmallVector<int64_t> shape = {height, width};
  Type i32 = b.getI32Type();
  auto scaled = [&](Value indices, int64_t size, Value stride) -> Value {
    if (getConstantIntValue(stride) == 1)
      return indices;
    return arith::MulIOp::create(
        b, loc, indices,
        tile::SplatOp::create(b, loc, blockOf({size}, i32), stride));
  };
  Value offsets = arith::AddIOp::create(
      b, loc,
      broadcastAlong(b, loc, scaled(rowIndices, height, rowStride), 1, shape),
      broadcastAlong(b, loc, scaled(columnIndices, width, columnStride), 0,
                     shape));
  auto pointers = blockOf(shape, base.getType());
  return tile::AddPtrOp::create(
      b, loc, pointers, tile::SplatOp::create(b, loc, pointers, base), offsets);
}

bool kiln::readsBatchFirst(AffineMap map) {
  ArrayRef<AffineExpr> results = map.getResults();
  bool readsBatch = !results.empty() &&
                    results.front() == getAffineDimExpr(0, map.getContext());
  return llvm::none_of(results.drop_front(readsBatch ? 1 : 0),
                       [](AffineExpr result) {
                         return result.isFunctionOfDim(0);
                       });
}

FailureOr<std::pair<AffineMap, bool>>
MatmulTiler::withoutBatch(Operation *user, AffineMap map) {
  if (!batch)
    return std::make_pair(map, false);
  if (!readsBatchFirst(map))
    return user->emitError("kiln-tile: indexing map ")
           << AffineMapAttr::get(map)
           << " of a batched matmul kernel reads the batch other than as "
              "its first index";
  ArrayRef<AffineExpr> results = map.getResults();
  bool readsBatch = !results.empty() &&
                    results.front() == getAffineDimExpr(0, user->getContext());
  SmallVector<AffineExpr> plain;
  for (AffineExpr result : results.drop_front(readsBatch ? 1 : 0))
    plain.push_back(result.shiftDims(map.getNumDims(), -1));
  return std::make_pair(
      AffineMap::get(map.getNumDims() - 1, 0, plain, user->getContext()),
      readsBatch);
}

FailureOr<Value> MatmulTiler::blockValue(Operation *user, Value source,
                                         AffineMap map, ArrayRef<int64_t> shape,
                                         Value rowIndices, Value columnIndices,
                                         Value inside, IRMapping &computed,
                                         std::array<unsigned, 2> dims) {
  MLIRContext *ctx = user->getContext();
  FailureOr<std::pair<AffineMap, bool>> stripped = withoutBatch(user, map);
  if (failed(stripped))
    return failure();
  auto [plain, readsBatch] = *stripped;
  AffineExpr d0 = getAffineDimExpr(0, ctx), d1 = getAffineDimExpr(1, ctx);
  bool identity = plain == AffineMap::get(2, 0, {d0, d1}, ctx);
  if (Value known = computed.lookupOrNull(source)) {
    if (!identity || readsBatch != bool(batch))
      return user->emitError("kiln-tile: a matmul kernel reads a value it "
                             "computes other than elementwise");
    return known;
  }
  auto arg = dyn_cast<BlockArgument>(source);
  if (!arg || arg.getOwner() != &kernel.getBody().front())
    return user->emitError("kiln-tile: an operand of a matmul kernel comes "
                           "from neither an input nor an earlier op");
  Location loc = user->getLoc();
  Value base = entry->getArgument(arg.getArgNumber());
  auto type = cast<RankedTensorType>(source.getType());
  Type element = type.getElementType();
  // The dimensions of `type` past the batch, where the operand reads it.
  unsigned first = readsBatch ? 1 : 0;
  if (readsBatch) {
    // The batch's stride: the product of the other dimensions' sizes.
    Value stride = constantI32(loc, 1);
    for (auto [r, index] : llvm::enumerate(plain.getResults())) {
      auto dim = dyn_cast<AffineDimExpr>(index);
      Value size = dim ? extent(loc, type, first + r, dims[dim.getPosition()])
                       : constantI32(loc, type.getDimSize(first + r));
      stride = arith::MulIOp::create(b, loc, stride, size);
    }
    base = tile::AddPtrOp::create(
        b, loc, base.getType(), base,
        arith::MulIOp::create(b, loc, batchIndex, stride));
  }
  Value zero = tile::SplatOp::create(
      b, loc, blockOf(shape, element),
      arith::ConstantOp::create(b, loc, b.getZeroAttr(element)));
  Value one = constantI32(loc, 1);
  if (identity)
    return Value(
        tile::LoadOp::create(b, loc, blockOf(shape, element),
                             blockPointers(loc, base, rowIndices, columnIndices,
                                           extent(loc, type, first + 1, dims[1]),
                                           one),
                             inside, zero));
  // A transposed operand (x @ w.T): element (i, j) of the block is
  // source[j, i], so its rows are one element apart.
  if (plain == AffineMap::get(2, 0, {d1, d0}, ctx))
    return Value(tile::LoadOp::create(
        b, loc, blockOf(shape, element),
        blockPointers(loc, base, rowIndices, columnIndices, /*rowStride=*/one,
                      /*columnStride=*/extent(loc, type, first + 1, dims[0])),
        inside, zero));
  // One element (a constant index each: a scalar array), broadcast. Its
  // dimensions are static (analyzeDomain refused a dynamic one).
  if (llvm::all_of(plain.getResults(), llvm::IsaPred<AffineConstantExpr>)) {
    int64_t offset = 0, stride = 1;
    for (int64_t r = int64_t(plain.getNumResults()) - 1; r >= 0; --r) {
      offset += cast<AffineConstantExpr>(plain.getResult(r)).getValue() *
                stride;
      stride *= type.getDimSize(first + r);
    }
    Value at = tile::AddPtrOp::create(b, loc, base.getType(), base,
                                      constantI32(loc, offset));
    return Value(tile::SplatOp::create(
        b, loc, blockOf(shape, element),
        tile::LoadOp::create(b, loc, element, at, Value(), Value())));
  }
  // A vector along the rows (d0) or the columns (d1), broadcast.
  bool alongRows = plain == AffineMap::get(2, 0, {d0}, ctx);
  if (!alongRows && plain != AffineMap::get(2, 0, {d1}, ctx))
    return user->emitError("kiln-tile: indexing map ")
           << AffineMapAttr::get(map)
           << " of a matmul kernel reads neither a block (or its transpose), "
              "a row vector, a column vector nor one element";
  Value indices = alongRows ? rowIndices : columnIndices;
  int64_t size = shape[alongRows ? 0 : 1];
  auto pointers = blockOf({size}, base.getType());
  Value at = tile::AddPtrOp::create(
      b, loc, pointers, tile::SplatOp::create(b, loc, pointers, base), indices);
  Value vector = tile::LoadOp::create(
      b, loc, blockOf({size}, element), at,
      below(loc, indices,
            extent(loc, type, first, dims[alongRows ? 0 : 1])),
      tile::SplatOp::create(
          b, loc, blockOf({size}, element),
          arith::ConstantOp::create(b, loc, b.getZeroAttr(element))));
  return broadcastAlong(b, loc, vector, alongRows ? 1 : 0, shape);
}

LogicalResult MatmulTiler::applyGeneric(linalg::GenericOp generic,
                                        ArrayRef<int64_t> shape,
                                        Value rowIndices, Value columnIndices,
                                        Value inside, IRMapping &computed,
                                        std::array<unsigned, 2> dims) {
  if (generic.getNumReductionLoops() || generic.getNumLoops() != 2 + batch ||
      generic.getNumDpsInits() != 1)
    return generic.emitError("kiln-tile: a matmul kernel's prologues and "
                             "epilogues must be elementwise over its "
                             "result's dimensions with one result");
  if (generic.payloadUsesValueFromOperand(generic.getDpsInitOperand(0)))
    return generic.emitError("kiln-tile: an elementwise body that reads its "
                             "output is not tiled yet");
  // The block is computed where it is stored.
  AffineMap output =
      generic.getMatchingIndexingMap(generic.getDpsInitOperand(0));
  if (!output.isIdentity())
    return generic.emitError("kiln-tile: a matmul kernel's prologue or "
                             "epilogue writes its result through indexing map ")
           << AffineMapAttr::get(output) << ", not in place";
  Block &body = *generic.getBody();
  IRMapping mapping;
  for (OpOperand *input : generic.getDpsInputOperands()) {
    FailureOr<Value> value =
        blockValue(generic, input->get(), generic.getMatchingIndexingMap(input),
                   shape, rowIndices, columnIndices, inside, computed, dims);
    if (failed(value))
      return failure();
    mapping.map(body.getArgument(input->getOperandNumber()), *value);
  }
  auto asBlock = [&](Value value) -> Value {
    if (isa<RankedTensorType>(value.getType()))
      return value;
    return tile::SplatOp::create(b, value.getLoc(),
                                 blockOf(shape, value.getType()), value);
  };
  for (Operation &op : body.without_terminator()) {
    if (op.getNumRegions() != 0 ||
        !isa<arith::ArithDialect, math::MathDialect>(op.getDialect()))
      return op.emitError("kiln-tile: ")
             << op.getName() << " in a matmul kernel's body is not tiled yet";
    SmallVector<Value> operands;
    for (Value operand : op.getOperands()) {
      // A constant or size captured from outside the body is recreated.
      FailureOr<Value> mapped = recreateScalar(
          b, &op, operand, kernel, ties, [&](unsigned d) { return sizes[d]; },
          mapping);
      if (failed(mapped))
        return failure();
      operands.push_back(asBlock(*mapped));
    }
    SmallVector<Type> resultTypes;
    for (Type type : op.getResultTypes())
      resultTypes.push_back(blockOf(shape, type));
    OperationState state(op.getLoc(), op.getName(), operands, resultTypes,
                         op.getAttrs());
    mapping.map(op.getResults(), b.create(state)->getResults());
  }
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  Value result = mapping.lookupOrNull(yield.getOperand(0));
  if (!result)
    result = body.getArgument(0) == yield.getOperand(0)
                 ? mapping.lookup(body.getArgument(0))
                 : Value();
  if (!result)
    return generic.emitError("kiln-tile: a body that yields a value from "
                             "outside is not tiled yet");
  computed.map(generic.getResult(0), asBlock(result));
  return success();
}

/// Whether `prologue` makes 0 past K (its loop `k`) of the zeros a block
/// loads there: each input varies along K (one that does not, a bias
/// broadcast over K, loads its real values past K), and the body folds to
/// 0 on zeros (a cast, a scale, a transpose). Where it does not fold, it
/// is taken to make something else.
static bool keepsZero(linalg::GenericOp prologue, unsigned k) {
  for (OpOperand *input : prologue.getDpsInputOperands())
    if (!prologue.getMatchingIndexingMap(input).isFunctionOfDim(k))
      return false;
  Block &body = *prologue.getBody();
  DenseMap<Value, Attribute> known;
  for (BlockArgument arg : body.getArguments())
    known[arg] = Builder(prologue).getZeroAttr(arg.getType());
  auto valueOf = [&](Value value) -> Attribute {
    if (Attribute attr = known.lookup(value))
      return attr;
    Attribute constant;
    if (matchPattern(value, m_Constant(&constant)))
      return constant;
    return {};
  };
  for (Operation &op : body.without_terminator()) {
    SmallVector<Attribute> operands =
        llvm::map_to_vector(op.getOperands(), valueOf);
    SmallVector<OpFoldResult> results;
    if (llvm::is_contained(operands, Attribute()) ||
        failed(op.fold(operands, results)) ||
        results.size() != op.getNumResults())
      return false;
    for (auto [result, folded] : llvm::zip(op.getResults(), results)) {
      Attribute attr = dyn_cast<Attribute>(folded);
      if (!attr)
        attr = valueOf(cast<Value>(folded));
      if (!attr)
        return false;
      known[result] = attr;
    }
  }
  Attribute yielded = valueOf(body.getTerminator()->getOperand(0));
  return yielded && (matchPattern(yielded, m_Zero()) ||
                     matchPattern(yielded, m_AnyZeroFloat()));
}

FailureOr<Value> MatmulTiler::operandBlock(Value operand, bool isA, Value kk) {
  Location loc = matmul.getLoc();
  Type i32 = b.getI32Type();
  // The K indices of this step: kk + [0, blockK).
  Value kIndices = arith::AddIOp::create(
      b, loc, tile::SplatOp::create(b, loc, blockOf({blocks.k}, i32), kk), ks);
  Value kInside = below(loc, kIndices, sizes[batch + 2]);
  SmallVector<int64_t> shape = isA ? SmallVector<int64_t>{blocks.m, blocks.k}
                                   : SmallVector<int64_t>{blocks.k, blocks.n};
  Value rowIndices = isA ? rows : kIndices;
  Value columnIndices = isA ? kIndices : columns;
  Value inside = arith::AndIOp::create(
      b, loc, broadcastAlong(b, loc, isA ? rowsInside : kInside, 1, shape),
      broadcastAlong(b, loc, isA ? kInside : columnsInside, 0, shape));
  std::array<unsigned, 2> dims =
      isA ? std::array<unsigned, 2>{batch, batch + 2}
          : std::array<unsigned, 2>{batch + 2, batch + 1};
  IRMapping computed;
  // The operand itself, or the elementwise prologue that makes it.
  if (auto generic = operand.getDefiningOp<linalg::GenericOp>()) {
    if (failed(applyGeneric(generic, shape, rowIndices, columnIndices, inside,
                            computed, dims)))
      return failure();
    Value block = computed.lookup(operand);
    // The prologue of a zero need not be zero (x + 1): what lies past K
    // in the last step is made zero again, or A's and B's would add their
    // product to the dot.
    std::optional<int64_t> k = getConstantIntValue(sizes[batch + 2]);
    // K is the prologue's last loop for A ([M, K]), its first but one
    // for B ([K, N]), after any batch loop.
    unsigned kLoop = generic.getNumLoops() - (isA ? 1 : 2);
    if ((k && *k % blocks.k == 0) || keepsZero(generic, kLoop))
      return block;
    Value zero = arith::ConstantOp::create(
        b, loc, b.getZeroAttr(cast<RankedTensorType>(block.getType())));
    return arith::SelectOp::create(b, loc, inside, block, zero).getResult();
  }
  return blockValue(
      matmul, operand,
      AffineMap::getMultiDimIdentityMap(2 + batch, matmul.getContext()),
      shape, rowIndices, columnIndices, inside, computed, dims);
}

FailureOr<arith::ConstantOp> MatmulTiler::analyze() {
  auto aType = cast<RankedTensorType>(matmul.getDpsInputs()[0].getType());
  auto bType = cast<RankedTensorType>(matmul.getDpsInputs()[1].getType());
  if (aType.getElementType() != bType.getElementType())
    return matmul.emitError("kiln-tile: a matmul of ")
           << aType.getElementType() << " by " << bType.getElementType()
           << " needs a cast of one operand first";
  auto fill = matmul.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
  auto fillValue =
      fill ? fill.getInputs()[0].getDefiningOp<arith::ConstantOp>() : nullptr;
  if (!fillValue)
    return matmul.emitError("kiln-tile: a matmul must accumulate into a "
                            "constant fill");
  // The operands' prologues, the matmul and its epilogues are all there
  // is. The domain is [M, N, K] ([B, M, N, K] batched): the matmul's
  // loops, a prologue of A runs over [M, K], one of B over [K, N], the
  // fill and the epilogues over [M, N] (each over the batch first).
  SmallVector<DomainOp> ops = {alignedWithDomain(matmul),
                               alignedWithDomain(fill)};
  for (Operation &op : kernel.getBody().front().without_terminator()) {
    if (isRecreatedByKernels(&op) || isa<linalg::FillOp>(op) ||
        &op == matmul.getOperation())
      continue;
    auto generic = dyn_cast<linalg::GenericOp>(op);
    if (!generic)
      return op.emitError("kiln-tile: ")
             << op.getName() << " in a matmul kernel is not tiled yet";
    bool prologue = llvm::any_of(generic->getUsers(), [&](Operation *user) {
      return user == matmul.getOperation();
    });
    if (prologue && !generic->hasOneUse())
      return generic.emitError("kiln-tile: a matmul operand's prologue is "
                               "used elsewhere too");
    if (generic.getNumLoops() != 2 + batch || generic.getNumReductionLoops())
      return generic.emitError("kiln-tile: a matmul kernel's prologues and "
                               "epilogues must be elementwise over its "
                               "result's dimensions with one result");
    std::array<unsigned, 2> plane = {0, 1};
    if (prologue && generic->getResult(0) == matmul.getDpsInputs()[0])
      plane = {0, 2};
    else if (prologue)
      plane = {2, 1};
    SmallVector<unsigned> loops;
    if (batch)
      loops.push_back(0);
    loops.append({batch + plane[0], batch + plane[1]});
    ops.push_back({generic, loops});
  }
  if (failed(analyzeDomain(kernel, ops, domain, ties)))
    return failure();
  return fillValue;
}

void MatmulTiler::placeProgram(Location loc) {
  // Program p computes block (p / blocks along N, p % blocks along N) of
  // its batch (batches one after another).
  Type i32 = b.getI32Type();
  auto blocksAlong = [&](unsigned dim, int64_t block) -> Value {
    return arith::DivUIOp::create(
        b, loc,
        arith::AddIOp::create(b, loc, sizes[dim],
                              constantI32(loc, block - 1)),
        constantI32(loc, block));
  };
  Value blocksN = blocksAlong(batch + 1, blocks.n);
  Value program = tile::ProgramIdOp::create(
      b, loc, i32,
      tile::ProgramAxisAttr::get(b.getContext(), tile::ProgramAxis::X));
  if (batch) {
    Value perBatch = arith::MulIOp::create(
        b, loc, blocksAlong(batch, blocks.m), blocksN);
    batchIndex = arith::DivUIOp::create(b, loc, program, perBatch);
    program = arith::RemUIOp::create(b, loc, program, perBatch);
  }
  Value blockRow = arith::DivUIOp::create(b, loc, program, blocksN);
  Value blockColumn = arith::RemUIOp::create(b, loc, program, blocksN);
  auto indices = [&](Value blockIndex, int64_t size) -> Value {
    Value start =
        arith::MulIOp::create(b, loc, blockIndex, constantI32(loc, size));
    return arith::AddIOp::create(
        b, loc, tile::SplatOp::create(b, loc, blockOf({size}, i32), start),
        tile::RangeOp::create(b, loc, blockOf({size}, i32), 0, size));
  };
  rows = indices(blockRow, blocks.m);
  columns = indices(blockColumn, blocks.n);
  rowsInside = below(loc, rows, sizes[batch]);
  columnsInside = below(loc, columns, sizes[batch + 1]);
  ks = tile::RangeOp::create(b, loc, blockOf({blocks.k}, i32), 0, blocks.k);
}

FailureOr<Value> MatmulTiler::accumulate(Location loc,
                                         arith::ConstantOp fillValue) {
  Type accElement =
      cast<RankedTensorType>(matmul->getResultTypes()[0]).getElementType();
  auto accType = blockOf({blocks.m, blocks.n}, accElement);
  Value init =
      tile::SplatOp::create(b, loc, accType, b.clone(*fillValue)->getResult(0));
  auto loop = scf::ForOp::create(b, loc, constantI32(loc, 0), sizes[batch + 2],
                                 constantI32(loc, blocks.k), ValueRange{init});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value kk = loop.getInductionVar();
  FailureOr<Value> a = operandBlock(matmul.getDpsInputs()[0], true, kk);
  FailureOr<Value> bb = operandBlock(matmul.getDpsInputs()[1], false, kk);
  if (failed(a) || failed(bb))
    return failure();
  Value dot = tile::DotOp::create(b, loc, accType, *a, *bb,
                                  loop.getRegionIterArgs()[0]);
  scf::YieldOp::create(b, loc, dot);
  return loop.getResult(0);
}

LogicalResult MatmulTiler::storeResults(Location loc, Value product) {
  // The epilogues, on the accumulator, then the stores.
  SmallVector<int64_t> shape = {blocks.m, blocks.n};
  Value inside = arith::AndIOp::create(
      b, loc, broadcastAlong(b, loc, rowsInside, 1, shape),
      broadcastAlong(b, loc, columnsInside, 0, shape));
  IRMapping computed;
  computed.map(matmul->getResult(0), product);
  for (Operation &op : kernel.getBody().front().without_terminator()) {
    auto generic = dyn_cast<linalg::GenericOp>(op);
    if (!generic || generic->isBeforeInBlock(matmul))
      continue;
    if (failed(applyGeneric(generic, shape, rows, columns, inside, computed,
                            {batch, batch + 1})))
      return failure();
  }
  auto ret = cast<func::ReturnOp>(kernel.getBody().front().getTerminator());
  for (auto [i, result] : llvm::enumerate(ret.getOperands())) {
    Value value = computed.lookupOrNull(result);
    auto type = cast<RankedTensorType>(result.getType());
    if (!value || type.getRank() != 2 + batch)
      return kernel.emitError("kiln-tile: result ")
             << i
             << " of a matmul kernel is not its [M, N] product or an "
                "epilogue of it";
    Value base = entry->getArgument(kernel.getNumArguments() + i);
    if (batch)
      base = tile::AddPtrOp::create(
          b, loc, base.getType(), base,
          arith::MulIOp::create(
              b, loc, batchIndex,
              arith::MulIOp::create(b, loc, extent(loc, type, 1, 1),
                                    extent(loc, type, 2, 2))));
    tile::StoreOp::create(b, loc,
                          blockPointers(loc, base, rows, columns,
                                        extent(loc, type, batch + 1,
                                               batch + 1),
                                        constantI32(loc, 1)),
                          value, inside);
  }
  return success();
}

FailureOr<TiledKernel> MatmulTiler::run() {
  FailureOr<arith::ConstantOp> fillValue = analyze();
  if (failed(fillValue))
    return failure();
  Location loc = kernel.getLoc();
  SmallVector<unsigned> sizeDims;
  for (auto [d, size] : llvm::enumerate(domain))
    if (ShapedType::isDynamic(size))
      sizeDims.push_back(d);
  FailureOr<func::FuncOp> created =
      createTileKernel(kernel, b, sizeDims.size());
  if (failed(created))
    return failure();
  func::FuncOp tileKernel = *created;
  entry = &tileKernel.getBody().front();
  auto sizeArgs = entry->getArguments().take_back(sizeDims.size()).begin();
  for (int64_t size : domain)
    sizes.push_back(ShapedType::isDynamic(size) ? *sizeArgs++
                                                : constantI32(loc, size));
  placeProgram(loc);
  FailureOr<Value> product = accumulate(loc, *fillValue);
  if (failed(product) || failed(storeResults(loc, *product))) {
    tileKernel.erase();
    return failure();
  }
  func::ReturnOp::create(b, loc);
  TiledKernel tiled;
  tiled.tileKernel = tileKernel;
  tiled.domain = std::move(domain);
  tiled.ties = std::move(ties);
  tiled.sizeDims = std::move(sizeDims);
  tiled.grid = {{{batch}, blocks.m}, {{batch + 1}, blocks.n}};
  if (batch)
    tiled.grid.insert(tiled.grid.begin(), GridFactor{{0}, 1});
  return tiled;
}

FailureOr<TiledKernel> kiln::tileMatmul(func::FuncOp kernel,
                                        const MatmulBlocks &blocks) {
  SmallVector<linalg::LinalgOp> matmuls;
  kernel.walk([&](Operation *op) {
    if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op))
      matmuls.push_back(cast<linalg::LinalgOp>(op));
  });
  if (matmuls.size() != 1)
    return kernel.emitError("kiln-tile: kernel '")
           << kernel.getSymName() << "' holds " << matmuls.size()
           << " matmuls; one per kernel is tiled";
  return MatmulTiler(kernel, matmuls.front(), blocks).run();
}
