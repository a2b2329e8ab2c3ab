//===- Fuse.cpp - Group whole-tensor ops into kernels ---------------------===//
//
// Upstream elementwise fusion does the merging of elementwise chains (and
// of elementwise producers into reductions); Kiln's policy adds which
// multi-use producers to recompute, row-wise groups (softmax, layer norm)
// and matmul prologues and epilogues, and outlines every group into a
// kernel function.
//
//===----------------------------------------------------------------------===//

#include "kiln/Array/Attributes.h"
#include "kiln/Array/CostModel.h"
#include "kiln/Array/Passes.h"

#include "GeneralizeNamedOps.h"
#include "RecreatedOps.h"
#include "SliceViews.h"
#include "TiledKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "mlir/Transforms/RegionUtils.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/EquivalenceClasses.h"

#define DEBUG_TYPE "kiln-fuse"

namespace kiln {
#define GEN_PASS_DEF_KILNFUSEPASS
#define GEN_PASS_DEF_KILNCOSTREPORTPASS
#include "kiln/Array/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;

/// Arithmetic ops in the body of a generic.
static int64_t bodyCost(linalg::GenericOp op) {
  int64_t cost = 0;
  for (Operation &bodyOp : *op.getBody())
    cost += isa<arith::ArithDialect, math::MathDialect>(bodyOp.getDialect()) &&
            !isa<arith::ConstantOp>(bodyOp);
  return cost;
}

/// A matmul, batched or not, around which kiln-tile builds a matmul
/// kernel. (A row sum of products is a contraction too, but a row
/// kernel's.)
static bool isMatmul(Operation *op) {
  return isa_and_present<linalg::MatmulOp, linalg::BatchMatmulOp>(op);
}

static bool isElementwise(Operation *op) {
  auto generic = dyn_cast_if_present<linalg::GenericOp>(op);
  return generic && generic.getNumLoops() == generic.getNumParallelLoops();
}

/// Whether `op` is a generic whose body extracts elements of a tensor it
/// captures (a gather). kiln-tile gathers in elementwise and row kernels,
/// not in matmul kernels.
static bool gathers(Operation *op) {
  auto generic = dyn_cast_if_present<linalg::GenericOp>(op);
  if (!generic)
    return false;
  WalkResult found = generic.getBody()->walk([](tensor::ExtractOp) {
    return WalkResult::interrupt();
  });
  return found.wasInterrupted();
}

/// Whether `matmul` can read `op`'s operands as its prologue or epilogue
/// does: no slice (x[1:], x[::2]: a slice view, or through a strided
/// indexing map; a matmul kernel loads its blocks whole, transposed or
/// broadcast) and, batched, the batch as the first index or not at all.
static bool readsAsMatmulKernel(Operation *op, Operation *matmul) {
  auto generic = dyn_cast_if_present<linalg::GenericOp>(op);
  if (!generic)
    return false;
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  return llvm::none_of(maps, readsSlice) &&
         llvm::none_of(generic->getOperands(),
                       [](Value operand) {
                         return isSliceView(operand.getDefiningOp());
                       }) &&
         (!isa<linalg::BatchMatmulOp>(matmul) ||
          llvm::all_of(maps, readsBatchFirst));
}

/// A row-wise op: a generic whose first loop is parallel and indexes the
/// first dimension of every result. Its inputs are read by row, or
/// through any other projection, sliced or not (a per-column weight
/// broadcast over the rows; x^T, to reduce x's columns; x[:, 1:]), which
/// kiln-tile places by their strides. Rows of any length: kiln-tile walks a long or dynamic one in
/// chunks. (Whether ops make one row kernel, reading what they compute by
/// row, is oneRowSpace's question.)
static bool isRowWise(Operation *op) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || generic.getNumLoops() < 1 ||
      generic.getIteratorTypesArray()[0] != utils::IteratorType::parallel)
    return false;
  AffineExpr rowDim = getAffineDimExpr(0, op->getContext());
  for (OpOperand &operand : generic->getOpOperands()) {
    AffineMap map = generic.getMatchingIndexingMap(&operand);
    bool byRow = map.getNumResults() != 0 && map.getResult(0) == rowDim;
    if (!byRow && !(generic.isDpsInput(&operand) && isStridedProjection(map)))
      return false;
  }
  return true;
}

/// The size of loop `d` of `op`: a dimension of an operand it indexes.
static std::optional<ValueBoundsConstraintSet::Variable>
loopSize(linalg::LinalgOp op, unsigned d) {
  for (OpOperand &operand : op->getOpOperands())
    for (auto [position, expr] :
         llvm::enumerate(op.getMatchingIndexingMap(&operand).getResults()))
      if (expr == getAffineDimExpr(d, op.getContext()))
        return ValueBoundsConstraintSet::Variable(
            operand.get(), static_cast<int64_t>(position));
  return std::nullopt;
}

/// Whether `map`, of an operand of an op with `loops` loops in a row
/// kernel whose [rows..., columns] space has `rank` dimensions, reads what
/// kiln-tile's row kernels read: a value the kernel computes by row (the
/// row, the row's value), an input of the kernel through any projection
/// (each index a dimension, once, or a constant), sliced or not.
static bool readsAsRowKernel(AffineMap map, unsigned loops, unsigned rank,
                             bool kernelInput) {
  MLIRContext *ctx = map.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(loops, ctx);
  if (map == identity)
    return true;
  if (kernelInput)
    return isStridedProjection(map);
  return loops == rank && map == identity.getMajorSubMap(rank - 1);
}

/// Whether the row-wise ops `members` make one row kernel: each runs over
/// its [rows..., columns] space (or over the rows alone, elementwise),
/// reads its operands as a row kernel does, and has loops of provably the
/// same sizes as the others', static or dynamic.
static bool oneRowSpace(ArrayRef<Operation *> members) {
  auto loopsOf = [](Operation *op) {
    return cast<linalg::LinalgOp>(op).getNumLoops();
  };
  unsigned rank = 0;
  for (Operation *member : members)
    rank = std::max(rank, loopsOf(member));
  std::optional<linalg::LinalgOp> reference;
  for (Operation *member : members)
    if (loopsOf(member) == rank)
      reference = cast<linalg::LinalgOp>(member);
  for (Operation *member : members) {
    auto op = cast<linalg::LinalgOp>(member);
    unsigned loops = op.getNumLoops();
    if (loops != rank && (loops + 1 != rank || op.getNumReductionLoops()))
      return false;
    for (OpOperand &operand : op->getOpOperands()) {
      Operation *producer = operand.get().getDefiningOp();
      bool kernelInput = op.isDpsInput(&operand) &&
                         !llvm::is_contained(members, producer);
      if (!readsAsRowKernel(op.getMatchingIndexingMap(&operand), loops, rank,
                            kernelInput))
        return false;
    }
    for (unsigned d = 0; d < loops; ++d) {
      auto a = loopSize(*reference, d), b = loopSize(op, d);
      if (!a || !b)
        return false;
      FailureOr<bool> equal = ValueBoundsConstraintSet::areEqual(*a, *b);
      if (failed(equal) || !*equal)
        return false;
    }
  }
  return true;
}

/// The report's `dynamic-size` option must be a size.
static LogicalResult checkDynamicSize(Operation *anchor, int64_t size) {
  if (size >= 1)
    return success();
  return anchor->emitError("dynamic-size must be positive, not ") << size;
}

namespace {
struct KilnFusePass : kiln::impl::KilnFusePassBase<KilnFusePass> {
  using KilnFusePassBase::KilnFusePassBase;

  void runOnOperation() override;

private:
  /// Whether `producer` is recomputed in each user rather than
  /// materialised once: at most recompute-max-ops body ops, one input.
  bool isCheapToRecompute(linalg::GenericOp producer) {
    return bodyCost(producer) <= recomputeMaxOps &&
           producer.getNumDpsInputs() <= 1;
  }
  LogicalResult fuseElementwise(func::FuncOp func);
  void groupAndOutline(func::FuncOp func, SymbolTable &symbols);
};

struct KilnCostReportPass
    : kiln::impl::KilnCostReportPassBase<KilnCostReportPass> {
  using KilnCostReportPassBase::KilnCostReportPassBase;

  void runOnOperation() override {
    std::optional<TargetPeaks> peaks = lookupTarget(target);
    if (!peaks) {
      getOperation().emitError("unknown target '")
          << target << "' (a100, h100 or h200)";
      return signalPassFailure();
    }
    if (failed(checkDynamicSize(getOperation(), dynamicSize)))
      return signalPassFailure();
    if (peakTflops > 0)
      peaks->fp32Tflops = peakTflops;
    if (bandwidthTbps > 0)
      peaks->bandwidthTbps = bandwidthTbps;
    printCostReport(getOperation(), *peaks, dynamicSize, llvm::outs());
    markAllAnalysesPreserved();
  }
};
} // namespace

namespace {
/// A splat of one element of a tensor, at constant indices, is a broadcast
/// of that element: a generic that reads it through a constant indexing
/// map. As a generic it fuses with its users; as a tensor.extract it would
/// read a kernel's result between two launches.
struct SplatOfElementToBroadcast : OpRewritePattern<tensor::SplatOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::SplatOp splat,
                                PatternRewriter &rewriter) const override {
    auto extract = splat.getInput().getDefiningOp<tensor::ExtractOp>();
    RankedTensorType type = splat.getType();
    // An element of a constant tensor folds to a constant instead.
    if (!extract || !type.hasStaticShape() ||
        matchPattern(extract.getTensor(), m_Constant()))
      return failure();
    RankedTensorType source = extract.getTensor().getType();
    SmallVector<AffineExpr> element;
    for (auto [dim, index] : llvm::enumerate(extract.getIndices())) {
      std::optional<int64_t> constant = getConstantIntValue(index);
      if (!constant || *constant < 0 || source.isDynamicDim(dim) ||
          *constant >= source.getDimSize(dim))
        return failure();
      element.push_back(rewriter.getAffineConstantExpr(*constant));
    }
    Location loc = splat.getLoc();
    unsigned rank = type.getRank();
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank, 0, element, rewriter.getContext()),
        rewriter.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                         type.getElementType());
    rewriter.replaceOpWithNewOp<linalg::GenericOp>(
        splat, type, ValueRange{extract.getTensor()}, ValueRange{init}, maps,
        iterators, [](OpBuilder &b, Location loc, ValueRange args) {
          linalg::YieldOp::create(b, loc, args[0]);
        });
    return success();
  }
};
} // namespace

LogicalResult KilnFusePass::fuseElementwise(func::FuncOp func) {
  // Upstream fusion merges a producer into a consumer; a producer with
  // other users stays for them, so fusing it means recomputing it. Chains
  // of single uses merge first, so that the cost of recomputing is judged
  // on whole merged producers, whatever order the rewrites take.
  auto fuse = [&](linalg::ControlFusionFn control) {
    RewritePatternSet patterns(&getContext());
    patterns.add<SplatOfElementToBroadcast>(&getContext());
    // A dynamic size read from a fused-away result reads the function's
    // own argument instead.
    memref::populateResolveRankedShapedTypeResultDimsPatterns(patterns);
    // Reshapes move out to the function's inputs and results, through the
    // generics they meet (collapsing their loops), so that they stand
    // between no two ops that would fuse: `x.reshape(-1, k) @ w + b` is
    // one matmul with its epilogue.
    linalg::populateFoldReshapeOpsByCollapsingPatterns(
        patterns, [](OpOperand *) { return true; });
    // ... and through fills and empty tensors, so that a reduction keeps
    // its fill.
    linalg::FillOp::getCanonicalizationPatterns(patterns, &getContext());
    tensor::populateFoldTensorEmptyPatterns(patterns);
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    // A slice of an elementwise result is computed from slices of its
    // inputs, in the kernel that reads it.
    populateSliceBubblingPatterns(patterns, [&](linalg::GenericOp producer) {
      return isCheapToRecompute(producer);
    });
    return applyPatternsGreedily(func, std::move(patterns));
  };
  auto producerOf = [](OpOperand *fused) {
    return fused->get().getDefiningOp<linalg::GenericOp>();
  };
  if (failed(fuse([&](OpOperand *fused) {
        return producerOf(fused) && fused->get().hasOneUse();
      })))
    return failure();
  return fuse([&](OpOperand *fused) {
    linalg::GenericOp producer = producerOf(fused);
    return producer &&
           (fused->get().hasOneUse() || isCheapToRecompute(producer));
  });
}

/// Gives each use of a fill as the init of a linalg op a fill of its own,
/// so that a fill that starts several reductions (a shared zero) is the
/// first step of each, not a kernel writing memory of its own.
static void fillPerUse(func::FuncOp func) {
  OpBuilder b(func.getContext());
  func.walk([&](linalg::FillOp fill) {
    SmallVector<OpOperand *> inits;
    for (OpOperand &use : fill->getUses())
      if (auto dps = dyn_cast<linalg::LinalgOp>(use.getOwner());
          dps && dps.isDpsInit(&use))
        inits.push_back(&use);
    // The fill stays for its other users, or else for one of these.
    bool othersUse = !fill->getResult(0).hasNUses(inits.size());
    b.setInsertionPoint(fill);
    for (OpOperand *use : othersUse ? ArrayRef(inits)
                                    : ArrayRef(inits).drop_front())
      use->set(b.clone(*fill)->getResult(0));
  });
}

/// Whether `consumer` reads `value` only row by row (the first result of
/// each map is d0): in one row kernel, a program holds only its own row of
/// a value computed there.
static bool readsByRow(linalg::GenericOp consumer, Value value) {
  AffineExpr rowDim = getAffineDimExpr(0, consumer.getContext());
  return llvm::all_of(consumer->getOpOperands(), [&](OpOperand &operand) {
    AffineMap map = consumer.getMatchingIndexingMap(&operand);
    return operand.get() != value ||
           (map.getNumResults() != 0 && map.getResult(0) == rowDim);
  });
}

/// Whether `op` and `sibling` read `value` over their rows and columns (it
/// varies along their first loop and their last), through one and the
/// same map each, so that one load of it serves both. (A vector they both
/// broadcast over the rows is small: sharing it is no reason to join.)
static bool readAlike(linalg::GenericOp op, linalg::GenericOp sibling,
                      Value value) {
  AffineMap map;
  for (linalg::GenericOp reader : {op, sibling})
    for (OpOperand &operand : reader->getOpOperands()) {
      if (operand.get() != value)
        continue;
      AffineMap read = reader.getMatchingIndexingMap(&operand);
      if ((map && read != map) || !read.isFunctionOfDim(0) ||
          !read.isFunctionOfDim(reader.getNumLoops() - 1))
        return false;
      map = read;
    }
  return true;
}

/// Whether `consumer` reads `value` and writes its results element for
/// element (identity maps): a matmul's epilogue works on the block of the
/// result its program holds.
static bool writesInPlace(linalg::GenericOp consumer, Value value) {
  return llvm::all_of(consumer->getOpOperands(), [&](OpOperand &operand) {
    return (operand.get() != value && consumer.isDpsInput(&operand)) ||
           consumer.getMatchingIndexingMap(&operand).isIdentity();
  });
}

namespace {
/// The kernels of one function: its linalg ops, joined into groups by
/// kiln-fuse's rules, in steps, then each group outlined into a kernel
/// function called where its last op was.
class KernelGroups {
public:
  explicit KernelGroups(func::FuncOp func) : body(func.getBody().front()) {
    for (Operation &op : body) {
      position[&op] = position.size();
      if (isa<linalg::LinalgOp>(op)) {
        kernels.push_back(&op);
        groups.insert(&op);
      }
    }
  }

  /// A producer joins its consumer: rows with rows, a matmul with its
  /// elementwise epilogue or prologue, a fill with the reduction or
  /// matmul it starts.
  void joinProducersAndConsumers();
  /// Row reductions that read one value by row join, so that it is read
  /// once for all of them (a row's sum and sum of squares).
  void joinRowReductionSiblings();
  /// Elementwise kernels over one iteration space that read one value (or
  /// slices of it) join, so that it is read once for both (a rotation's
  /// two halves, x // d with x % d), when neither uses what the other
  /// computes.
  void joinElementwiseSiblings();
  /// The groups, each in program order, in the order of their first ops.
  SmallVector<SmallVector<Operation *>> ordered();
  /// Says why an op that feeds or follows another kernel stands alone.
  void remarkLoneOps(ArrayRef<SmallVector<Operation *>> ordered);
  /// Outlines `members` into the kernel function `name` of `func`, called
  /// where its last op was.
  void outline(func::FuncOp func, ArrayRef<Operation *> members, StringRef name,
               SymbolTable &symbols);
  /// Erases what the kernels recreate for themselves and is now unused.
  void eraseUnusedRecreatedOps();

private:
  SmallVector<Operation *> membersOf(Operation *producer, Operation *consumer);
  bool canJoin(Operation *producer, Operation *consumer);
  bool onlyFeeds(Operation *producer, Operation *consumer);
  bool onlyElementwise(Operation *op);
  bool independent(Operation *op, Operation *sibling);

  Block &body;
  SmallVector<Operation *> kernels;
  DenseMap<Operation *, unsigned> position;
  llvm::EquivalenceClasses<Operation *> groups;
};
} // namespace

SmallVector<Operation *> KernelGroups::membersOf(Operation *producer,
                                                 Operation *consumer) {
  SmallVector<Operation *> members;
  for (Operation *op : {producer, consumer})
    members.append(groups.findLeader(op), groups.member_end());
  return members;
}

/// A group's call goes where its last op was, so joining the groups of
/// producer and consumer is safe when no other op before that point uses
/// a value of either, in its operands or inside its regions (a
/// tensor.extract, a tile.reduce): it would come before the call that now
/// defines it.
bool KernelGroups::canJoin(Operation *producer, Operation *consumer) {
  SmallVector<Operation *> members = membersOf(producer, consumer);
  // A kernel is a matmul's or reduces rows, not both: one matmul, or
  // row reductions.
  unsigned matmuls = 0, rowReductions = 0;
  for (Operation *member : members) {
    matmuls += isMatmul(member);
    rowReductions += !isMatmul(member) &&
                     cast<linalg::LinalgOp>(member).getNumReductionLoops();
  }
  if (matmuls > 1 || (matmuls == 1 && rowReductions > 0))
    return false;
  // A gather is in an elementwise or row kernel (not a matmul's), which
  // does not compute the tensor it gathers from (a kernel reads its
  // inputs' elements, not those of its own tiles).
  if (matmuls && llvm::any_of(members, gathers))
    return false;
  for (Operation *member : members) {
    llvm::SetVector<Value> captured;
    getUsedValuesDefinedAbove(member->getRegions(), captured);
    for (Value value : captured)
      if (llvm::is_contained(members, sliceRoot(value).getDefiningOp()))
        return false;
  }
  // A kernel reads slices of its inputs (kiln-tile places them by their
  // strides), not of a value it computes.
  for (Operation *member : members)
    for (Value operand : member->getOperands())
      if (isSliceView(operand.getDefiningOp()) &&
          llvm::is_contained(members, sliceRoot(operand).getDefiningOp()))
        return false;
  unsigned last = 0;
  for (Operation *member : members)
    last = std::max(last, position[member]);
  for (Operation *member : members)
    for (Operation *user : member->getUsers()) {
      Operation *op = body.findAncestorOpInBlock(*user);
      if (op && position[op] < last && !groups.isEquivalent(op, producer) &&
          !groups.isEquivalent(op, consumer))
        return false;
    }
  return true;
}

/// Whether `producer`'s group computes only what `consumer` reads: a
/// matmul kernel's prologue runs over the blocks of its operands, and
/// writes nothing else.
bool KernelGroups::onlyFeeds(Operation *producer, Operation *consumer) {
  for (Operation *member :
       llvm::make_range(groups.findLeader(producer), groups.member_end()))
    for (Operation *user : member->getUsers())
      if (user != consumer && !groups.isEquivalent(user, producer))
        return false;
  return true;
}

void KernelGroups::joinProducersAndConsumers() {
  for (Operation *consumer : kernels) {
    bool consumerRowWise = isRowWise(consumer);
    for (Value operand : consumer->getOperands()) {
      Operation *producer = operand.getDefiningOp();
      if (!producer || !groups.contains(producer))
        continue;
      bool rowGroup = consumerRowWise && isRowWise(producer) &&
                      readsByRow(cast<linalg::GenericOp>(consumer), operand) &&
                      oneRowSpace(membersOf(producer, consumer));
      bool epilogue = isMatmul(producer) &&
                      isElementwise(consumer) && operand.hasOneUse() &&
                      writesInPlace(cast<linalg::GenericOp>(consumer),
                                    operand) &&
                      readsAsMatmulKernel(consumer, producer);
      bool prologue = isMatmul(consumer) && isElementwise(producer) &&
                      operand.hasOneUse() &&
                      readsAsMatmulKernel(producer, consumer) &&
                      onlyFeeds(producer, consumer);
      // A fill that only starts a reduction or matmul is that kernel's
      // first step, not a pass over memory of its own.
      auto dps = cast<DestinationStyleOpInterface>(consumer);
      bool init = isa<linalg::FillOp>(producer) && operand.hasOneUse() &&
                  llvm::is_contained(dps.getDpsInits(), operand);
      if ((rowGroup || epilogue || prologue || init) &&
          canJoin(producer, consumer))
        groups.unionSets(producer, consumer);
    }
  }
}

void KernelGroups::joinRowReductionSiblings() {
  auto isRowReduction = [](Operation *op) {
    return !isMatmul(op) && isRowWise(op) &&
           cast<linalg::LinalgOp>(op).getNumReductionLoops();
  };
  for (Operation *op : kernels) {
    if (!isRowReduction(op))
      continue;
    for (Value operand : cast<linalg::GenericOp>(op).getDpsInputs())
      for (Operation *sibling : operand.getUsers())
        if (groups.contains(sibling) && !groups.isEquivalent(op, sibling) &&
            isRowReduction(sibling) &&
            ((readsByRow(cast<linalg::GenericOp>(op), operand) &&
              readsByRow(cast<linalg::GenericOp>(sibling), operand)) ||
             readAlike(cast<linalg::GenericOp>(op),
                       cast<linalg::GenericOp>(sibling), operand)) &&
            oneRowSpace(membersOf(op, sibling)) && canJoin(op, sibling))
          groups.unionSets(op, sibling);
  }
}

bool KernelGroups::onlyElementwise(Operation *op) {
  return llvm::all_of(
      llvm::make_range(groups.findLeader(op), groups.member_end()),
      isElementwise);
}

/// Whether neither group uses a value the other computes.
bool KernelGroups::independent(Operation *op, Operation *sibling) {
  for (Operation *member : membersOf(op, sibling))
    for (Value operand : member->getOperands()) {
      Operation *def = sliceRoot(operand).getDefiningOp();
      if (def && groups.contains(def) && !groups.isEquivalent(def, member))
        return false;
    }
  return true;
}

/// Whether `op` and `sibling` run over iteration spaces of equal sizes.
static bool sameSpace(Operation *op, Operation *sibling) {
  auto a = cast<linalg::LinalgOp>(op), b = cast<linalg::LinalgOp>(sibling);
  if (a.getNumLoops() != b.getNumLoops())
    return false;
  for (unsigned d = 0; d < a.getNumLoops(); ++d) {
    auto sizeA = loopSize(a, d), sizeB = loopSize(b, d);
    FailureOr<bool> equal =
        sizeA && sizeB ? ValueBoundsConstraintSet::areEqual(*sizeA, *sizeB)
                       : FailureOr<bool>(failure());
    if (failed(equal) || !*equal)
      return false;
  }
  return true;
}

void KernelGroups::joinElementwiseSiblings() {
  for (Operation *op : kernels) {
    if (!isElementwise(op))
      continue;
    for (Value operand : op->getOperands())
      for (Operation *sibling : readersOf(sliceRoot(operand)))
        if (sibling != op && groups.contains(sibling) &&
            !groups.isEquivalent(op, sibling) && isElementwise(sibling) &&
            onlyElementwise(op) && onlyElementwise(sibling) &&
            sameSpace(op, sibling) && independent(op, sibling) &&
            canJoin(op, sibling))
          groups.unionSets(op, sibling);
  }
}

SmallVector<SmallVector<Operation *>> KernelGroups::ordered() {
  SmallVector<SmallVector<Operation *>> result;
  for (auto it = groups.begin(); it != groups.end(); ++it)
    if ((*it)->isLeader())
      result.emplace_back(groups.member_begin(**it), groups.member_end());
  for (auto &members : result)
    llvm::sort(members, [&](Operation *a, Operation *b) {
      return position[a] < position[b];
    });
  llvm::sort(result, [&](const auto &a, const auto &b) {
    return position[a.front()] < position[b.front()];
  });
  return result;
}

void KernelGroups::remarkLoneOps(ArrayRef<SmallVector<Operation *>> ordered) {
  for (const SmallVector<Operation *> &members : ordered) {
    if (members.size() != 1)
      continue;
    Operation *op = members.front();
    bool neighbour = llvm::any_of(op->getOperands(), [](Value v) {
      return isa_and_present<linalg::LinalgOp>(v.getDefiningOp());
    });
    for (Operation *user : op->getUsers())
      neighbour |= isa<linalg::LinalgOp>(user);
    if (neighbour)
      op->emitRemark("not fused with its neighbours: no rule joins a ")
          << op->getName()
          << " here (see kiln-fuse's policy); it is a kernel of its own";
  }
}

void KernelGroups::outline(func::FuncOp func, ArrayRef<Operation *> members,
                           StringRef name, SymbolTable &symbols) {
  llvm::SetVector<Value> inputs, outputs;
  llvm::SetVector<Operation *> cloned;
  DenseSet<Operation *> inGroup(members.begin(), members.end());
  // Operands, and what bodies use from outside (a scalar constant that
  // elementwise fusion captured, say); a recreated op's own operands too.
  SmallVector<Operation *> worklist(members);
  for (size_t next = 0; next < worklist.size(); ++next) {
    Operation *op = worklist[next];
    llvm::SetVector<Value> used(op->getOperands().begin(),
                                op->getOperands().end());
    getUsedValuesDefinedAbove(op->getRegions(), used);
    for (Value operand : used) {
      Operation *def = operand.getDefiningOp();
      if (def && inGroup.contains(def))
        continue;
      if (!isRecreatedByKernels(def))
        inputs.insert(operand);
      else if (cloned.insert(def))
        worklist.push_back(def);
    }
  }
  for (Operation *op : members)
    for (Value result : op->getResults())
      for (Operation *user : result.getUsers())
        if (!inGroup.contains(user))
          outputs.insert(result);
  OpBuilder b(func);
  auto kernel = func::FuncOp::create(
      b, members.front()->getLoc(), name,
      b.getFunctionType(ValueRange(inputs.getArrayRef()).getTypes(),
                        ValueRange(outputs.getArrayRef()).getTypes()));
  kernel.setPrivate();
  kernel->setAttr(array::kKernelAttr, b.getUnitAttr());
  symbols.insert(kernel);
  Block *entry = kernel.addEntryBlock();
  OpBuilder inside = OpBuilder::atBlockBegin(entry);
  IRMapping mapping;
  for (auto [input, arg] : llvm::zip(inputs, entry->getArguments()))
    mapping.map(input, arg);
  SmallVector<Operation *> recreated(cloned.begin(), cloned.end());
  llvm::sort(recreated, [&](Operation *a, Operation *b) {
    return position[a] < position[b];
  });
  for (Operation *op : recreated)
    inside.clone(*op, mapping);
  for (Operation *op : members)
    inside.clone(*op, mapping);
  func::ReturnOp::create(
      inside, members.back()->getLoc(),
      llvm::map_to_vector(outputs, [&](Value v) { return mapping.lookup(v); }));

  b.setInsertionPoint(members.back());
  auto call = func::CallOp::create(b, members.back()->getLoc(), kernel,
                                   inputs.getArrayRef());
  for (auto [output, result] : llvm::zip(outputs, call.getResults()))
    Value(output).replaceAllUsesWith(result);
  for (Operation *op : llvm::reverse(members))
    op->erase();
}

void KernelGroups::eraseUnusedRecreatedOps() {
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
    if (isRecreatedByKernels(&op) && op.use_empty())
      op.erase();
}

void KilnFusePass::groupAndOutline(func::FuncOp func, SymbolTable &symbols) {
  KernelGroups groups(func);
  groups.joinProducersAndConsumers();
  groups.joinRowReductionSiblings();
  groups.joinElementwiseSiblings();
  SmallVector<SmallVector<Operation *>> ordered = groups.ordered();
  // Before outlining replaces the neighbours with calls.
  groups.remarkLoneOps(ordered);
  for (auto [index, members] : llvm::enumerate(ordered))
    groups.outline(func, members,
                   (func.getSymName() + "_kernel" + Twine(index)).str(),
                   symbols);
  groups.eraseUnusedRecreatedOps();
}

/// Fails, naming the operand, where a linalg op of `func` reads or writes
/// at a constant index outside a static dimension (`(d0, d1) -> (d0, 11)`
/// of a tensor<?x8xf32>): linalg's verifier takes it, and the slices that
/// fusion makes of it would not verify.
static LogicalResult checkConstantIndices(func::FuncOp func) {
  WalkResult result = func.walk([](linalg::LinalgOp op) {
    for (OpOperand &operand : op->getOpOperands()) {
      auto type = dyn_cast<RankedTensorType>(operand.get().getType());
      if (!type)
        continue;
      AffineMap map = op.getMatchingIndexingMap(&operand);
      for (auto [dim, index] : llvm::enumerate(map.getResults())) {
        auto constant = dyn_cast<AffineConstantExpr>(index);
        if (!constant || type.isDynamicDim(dim) ||
            (constant.getValue() >= 0 &&
             constant.getValue() < type.getDimSize(dim)))
          continue;
        op->emitOpError("operand ")
            << operand.getOperandNumber() << " is read at index "
            << constant.getValue() << " of dimension " << dim
            << ", which has size " << type.getDimSize(dim)
            << " (indexing map " << AffineMapAttr::get(map) << ")";
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

void KilnFusePass::runOnOperation() {
  ModuleOp module = getOperation();
  std::optional<TargetPeaks> peaks = lookupTarget(target);
  if (!peaks) {
    module.emitError("unknown target '") << target << "' (a100, h100 or h200)";
    return signalPassFailure();
  }
  if (report && failed(checkDynamicSize(module, dynamicSize)))
    return signalPassFailure();
  if (report) {
    llvm::outs() << "before kiln-fuse:\n";
    printCostReport(module, *peaks, dynamicSize, llvm::outs());
  }
  SymbolTable symbols(module);
  SmallVector<func::FuncOp> funcs;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal() && !func->hasAttr(array::kKernelAttr))
      funcs.push_back(func);
  for (func::FuncOp func : funcs) {
    if (!func.getBody().hasOneBlock()) {
      func.emitError("kiln-fuse needs functions of one block");
      return signalPassFailure();
    }
    // Named ops that are only a generic with fixed maps fuse as that
    // generic (a transpose read in place by a matmul, a broadcast joining
    // its users).
    if (failed(checkConstantIndices(func)) ||
        failed(generalizeFixedMapOps(func)) ||
        failed(fuseElementwise(func)) || failed(prepareSliceViews(func)))
      return signalPassFailure();
    fillPerUse(func);
    groupAndOutline(func, symbols);
  }
  if (report) {
    llvm::outs() << "after kiln-fuse:\n";
    printCostReport(module, *peaks, dynamicSize, llvm::outs());
  }
}
