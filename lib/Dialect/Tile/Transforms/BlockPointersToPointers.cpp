//===- BlockPointersToPointers.cpp - Block accesses as pointer accesses ---===//
//
// Without the tensor memory accelerator, a block pointer is a way of
// writing addresses: its loads and stores become the masked pointer
// accesses a Triton user writes by hand, which the alignment analysis,
// the vectorizer and the pipeliner know. Block pointers become their
// fields through a 1:N type conversion, which also carries them through
// the scf ops.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Tile/IR/TileDialect.h"
#include "kiln/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/DialectConversion.h"

namespace kiln::tile {
#define GEN_PASS_DEF_TILEBLOCKPOINTERSTOPOINTERSPASS
#include "kiln/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace kiln::tile

using namespace mlir;
using namespace kiln::tile;

namespace {

/// Where each field of a block pointer of rank `rank` is among the values
/// it becomes: the base, then the sizes, the strides and the offsets.
struct Fields {
  ValueRange values;
  int64_t rank;

  Value base() const { return values[0]; }
  Value size(int64_t d) const { return values[1 + d]; }
  Value stride(int64_t d) const { return values[1 + rank + d]; }
  ValueRange offsets() const { return values.drop_front(1 + 2 * rank); }
};

/// The pointers to a block's elements, and whether each is inside the
/// tensor along the checked dimensions (null where none is checked).
struct BlockAddresses {
  Value pointers;
  Value inside;
};

} // namespace

/// Whether `value` (an i32) is a multiple of `factor`, as far as the ops
/// that make it show: constants, products with a multiple, sums and
/// differences of multiples, an induction variable starting at and
/// stepping by multiples, a loop-carried value starting at a multiple and
/// moved by one. `assumed` holds the loop-carried values taken to be, while
/// their moves are checked.
static bool isMultipleOf(Value value, int64_t factor,
                         SmallPtrSetImpl<Value> &assumed) {
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return constant.getSExtValue() % factor == 0;
  if (assumed.contains(value))
    return true;
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    if (!loop)
      return false;
    if (arg == loop.getInductionVar())
      return isMultipleOf(loop.getLowerBound(), factor, assumed) &&
             isMultipleOf(loop.getStep(), factor, assumed);
    OpOperand *init = loop.getTiedLoopInit(arg);
    if (!init || !isMultipleOf(init->get(), factor, assumed))
      return false;
    assumed.insert(arg);
    return isMultipleOf(loop.getTiedLoopYieldedValue(arg)->get(), factor,
                        assumed);
  }
  Operation *op = value.getDefiningOp();
  if (isa_and_nonnull<arith::MulIOp>(op))
    return isMultipleOf(op->getOperand(0), factor, assumed) ||
           isMultipleOf(op->getOperand(1), factor, assumed);
  if (isa_and_nonnull<arith::AddIOp, arith::SubIOp>(op))
    return isMultipleOf(op->getOperand(0), factor, assumed) &&
           isMultipleOf(op->getOperand(1), factor, assumed);
  return false;
}

/// Whether the offset along `dim` of the block pointer `blockPtr` is a
/// multiple of `factor`: made so, moved by multiples, and carried by loops
/// and branches that keep it so.
static bool isOffsetMultipleOf(Value blockPtr, int64_t dim, int64_t factor,
                               SmallPtrSetImpl<Value> &assumed) {
  if (assumed.contains(blockPtr))
    return true;
  if (auto arg = dyn_cast<BlockArgument>(blockPtr)) {
    auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    OpOperand *init = loop ? loop.getTiedLoopInit(arg) : nullptr;
    if (!init || !isOffsetMultipleOf(init->get(), dim, factor, assumed))
      return false;
    assumed.insert(arg);
    return isOffsetMultipleOf(loop.getTiedLoopYieldedValue(arg)->get(), dim,
                              factor, assumed);
  }
  Operation *op = blockPtr.getDefiningOp();
  if (auto make = dyn_cast<MakeBlockPtrOp>(op))
    return isMultipleOf(make.getOffsets()[dim], factor, assumed);
  if (auto advance = dyn_cast<AdvanceOp>(op))
    return isMultipleOf(advance.getOffsets()[dim], factor, assumed) &&
           isOffsetMultipleOf(advance.getBlockPtr(), dim, factor, assumed);
  if (auto branch = dyn_cast<scf::IfOp>(op)) {
    unsigned number = cast<OpResult>(blockPtr).getResultNumber();
    return llvm::all_of(branch->getRegions(), [&](Region &region) {
      return !region.empty() &&
             isOffsetMultipleOf(
                 region.front().getTerminator()->getOperand(number), dim,
                 factor, assumed);
    });
  }
  return false;
}

/// For each dimension of the block `access` (a block load or store) reads
/// or writes: whether its offset is a multiple of the block's size there,
/// a power of two.
static SmallVector<bool> getAlignedOffsets(Operation *access) {
  Value blockPtr = access->getOperand(0);
  ArrayRef<int64_t> shape =
      cast<BlockPointerType>(blockPtr.getType()).getShape();
  SmallVector<bool> aligned;
  for (auto [dim, size] : llvm::enumerate(shape)) {
    SmallPtrSet<Value, 4> assumed;
    aligned.push_back(llvm::isPowerOf2_64(size) &&
                      isOffsetMultipleOf(blockPtr, dim, size, assumed));
  }
  return aligned;
}

/// The indices of a block's `size` elements along a dimension at `offset`,
/// in 64 bits. Summed in 32 where the offset is `aligned`, a multiple of
/// the block's size (a power of two): such an offset plus the run stays
/// under 2^31, and the 32-bit sum costs fewer registers. Otherwise an
/// offset near 2^31 plus the run must not wrap, and the sum is in 64.
static Value getBlockIndices(OpBuilder &b, Location loc, Value offset,
                             int64_t size, bool aligned) {
  Type i64 = b.getI64Type();
  auto run = RankedTensorType::get({size}, b.getI32Type());
  auto wide = RankedTensorType::get({size}, i64);
  Value range = RangeOp::create(b, loc, run, 0, size);
  if (aligned)
    return arith::ExtSIOp::create(
        b, loc, wide,
        arith::AddIOp::create(b, loc, SplatOp::create(b, loc, run, offset),
                              range));
  return arith::AddIOp::create(
      b, loc,
      SplatOp::create(b, loc, wide,
                      arith::ExtSIOp::create(b, loc, i64, offset)),
      arith::ExtSIOp::create(b, loc, wide, range));
}

/// The pointers to the elements of the block of `type` at `fields`: the
/// base plus `(offset + range) * stride` of each dimension, in 64 bits,
/// as Triton computes them; and the mask of the indices of the `checked`
/// dimensions in `[0, size)` (one unsigned comparison: a negative index
/// is out of bounds too).
static BlockAddresses getBlockAddresses(OpBuilder &b, Location loc,
                                        const Fields &fields,
                                        BlockPointerType type,
                                        ArrayRef<int32_t> checked,
                                        ArrayRef<bool> aligned) {
  ArrayRef<int64_t> shape = type.getShape();
  int64_t rank = shape.size();
  Type i64 = b.getI64Type();
  Value sum, inside;
  for (int64_t d = 0; d < rank; ++d) {
    Value index =
        getBlockIndices(b, loc, fields.offsets()[d], shape[d], aligned[d]);
    // The run along dimension d, with unit dimensions everywhere else.
    SmallVector<int64_t> expanded = {shape[d]};
    for (int64_t axis = 0; axis < rank; ++axis) {
      if (axis == d)
        continue;
      expanded.insert(expanded.begin() + axis, 1);
      index = ExpandDimsOp::create(b, loc, RankedTensorType::get(expanded, i64),
                                   index, axis);
    }
    auto expandedType = cast<RankedTensorType>(index.getType());
    auto broadcast = [&](Value value) -> Value {
      auto to = RankedTensorType::get(shape, getElementTypeOrSelf(value));
      return value.getType() == to ? value
                                   : BroadcastOp::create(b, loc, to, value);
    };
    Value scaled = broadcast(arith::MulIOp::create(
        b, loc, index,
        SplatOp::create(b, loc, expandedType, fields.stride(d))));
    sum = sum ? arith::AddIOp::create(b, loc, sum, scaled).getResult() : scaled;
    if (!llvm::is_contained(checked, d))
      continue;
    Value in = broadcast(arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ult, index,
        SplatOp::create(b, loc, expandedType, fields.size(d))));
    inside =
        inside ? arith::AndIOp::create(b, loc, inside, in).getResult() : in;
  }
  auto pointers = RankedTensorType::get(shape, fields.base().getType());
  return {AddPtrOp::create(b, loc, pointers,
                           SplatOp::create(b, loc, pointers, fields.base()),
                           sum),
          inside};
}

/// A block pointer's discardable attributes (cache and eviction hints)
/// carried over to the access that replaces it.
static void copyHints(Operation *from, Operation *to) {
  for (NamedAttribute attribute : from->getDiscardableAttrs())
    to->setAttr(attribute.getName(), attribute.getValue());
}

namespace {

struct MakeBlockPtrToFields : OpConversionPattern<MakeBlockPtrOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(MakeBlockPtrOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Value> fields;
    for (ValueRange operand : adaptor.getOperands())
      llvm::append_range(fields, operand);
    rewriter.replaceOpWithMultiple(op, {fields});
    return success();
  }
};

struct AdvanceToFields : OpConversionPattern<AdvanceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AdvanceOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Fields from{adaptor.getBlockPtr(), int64_t(op.getOffsets().size())};
    SmallVector<Value> fields(from.values.drop_back(from.rank));
    for (auto [offset, delta] : llvm::zip(from.offsets(), adaptor.getOffsets()))
      fields.push_back(
          arith::AddIOp::create(rewriter, op.getLoc(), offset, delta.front()));
    rewriter.replaceOpWithMultiple(op, {fields});
    return success();
  }
};

/// The block accesses' aligned offsets (getAlignedOffsets), found before
/// the conversion changes the loops they come through.
using AlignedOffsets = DenseMap<Operation *, SmallVector<bool>>;

/// A block load or store rewritten as the pointer access it stands for.
template <typename Access>
struct BlockAccessPattern : OpConversionPattern<Access> {
  BlockAccessPattern(const TypeConverter &converter, MLIRContext *context,
                     const AlignedOffsets &aligned)
      : OpConversionPattern<Access>(converter, context), aligned(aligned) {}

  /// The pointers and mask of the block `op` accesses, whose fields are
  /// `blockPtr`.
  BlockAddresses getAddresses(Access op, ValueRange blockPtr,
                              OpBuilder &b) const {
    BlockPointerType type = op.getBlockPtr().getType();
    return getBlockAddresses(b, op.getLoc(),
                             Fields{blockPtr, int64_t(type.getShape().size())},
                             type, op.getBoundaryCheck(), aligned.at(op));
  }

  const AlignedOffsets &aligned;
};

struct BlockLoadToLoad : BlockAccessPattern<BlockLoadOp> {
  using BlockAccessPattern::BlockAccessPattern;

  LogicalResult
  matchAndRewrite(BlockLoadOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    BlockPointerType type = op.getBlockPtr().getType();
    BlockAddresses at = getAddresses(op, adaptor.getBlockPtr(), rewriter);
    Value padding;
    if (at.inside) {
      Type element = type.getElementType();
      auto floatType = dyn_cast<FloatType>(element);
      TypedAttr value =
          floatType && op.getPadding() == PaddingOption::NaN
              ? TypedAttr(rewriter.getFloatAttr(
                    element, APFloat::getNaN(floatType.getFloatSemantics())))
              : rewriter.getZeroAttr(element);
      padding = arith::ConstantOp::create(
          rewriter, loc, DenseElementsAttr::get(op.getType(), value));
    }
    auto load = LoadOp::create(rewriter, loc, op.getType(), at.pointers,
                               at.inside, padding);
    copyHints(op, load);
    rewriter.replaceOp(op, load);
    return success();
  }
};

struct BlockStoreToStore : BlockAccessPattern<BlockStoreOp> {
  using BlockAccessPattern::BlockAccessPattern;

  LogicalResult
  matchAndRewrite(BlockStoreOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    BlockAddresses at = getAddresses(op, adaptor.getBlockPtr(), rewriter);
    auto store = StoreOp::create(rewriter, op.getLoc(), at.pointers,
                                 adaptor.getValue().front(), at.inside);
    copyHints(op, store);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

/// The first op that uses a block pointer of `func` and that this pass
/// cannot rewrite; null when there is none.
static Operation *findUnsupportedUser(func::FuncOp func) {
  Operation *found = nullptr;
  auto check = [&](Value value) {
    if (!isa<BlockPointerType>(value.getType()))
      return;
    for (Operation *user : value.getUsers())
      if (!isa<AdvanceOp, BlockLoadOp, BlockStoreOp, scf::ForOp, scf::IfOp,
               scf::WhileOp, scf::YieldOp, scf::ConditionOp>(user))
        found = found ? found : user;
  };
  // A function taking one is called with it (the signature is not
  // rewritten).
  if (llvm::any_of(func.getArgumentTypes(), llvm::IsaPred<BlockPointerType>))
    return func;
  func.walk([&](Operation *op) {
    for (Value result : op->getResults())
      check(result);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          check(arg);
  });
  return found;
}

namespace {

struct TileBlockPointersToPointersPass
    : kiln::tile::impl::TileBlockPointersToPointersPassBase<
          TileBlockPointersToPointersPass> {
  void runOnOperation() override;
};

} // namespace

void TileBlockPointersToPointersPass::runOnOperation() {
  MLIRContext *context = &getContext();
  TypeConverter converter;
  converter.addConversion([](Type type) { return type; });
  converter.addConversion(
      [](BlockPointerType type, SmallVectorImpl<Type> &fields) {
        int64_t rank = type.getShape().size();
        fields.push_back(PointerType::get(type.getElementType()));
        Builder b(type.getContext());
        fields.append(2 * rank, b.getI64Type());
        fields.append(rank, b.getI32Type());
        return success();
      });
  ConversionTarget target(*context);
  target.addIllegalOp<MakeBlockPtrOp, AdvanceOp, BlockLoadOp, BlockStoreOp>();
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
  AlignedOffsets aligned;
  RewritePatternSet patterns(context);
  patterns.add<MakeBlockPtrToFields, AdvanceToFields>(converter, context);
  patterns.add<BlockLoadToLoad, BlockStoreToStore>(converter, context, aligned);
  scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                       target);
  FrozenRewritePatternSet frozen(std::move(patterns));
  for (auto func : getOperation().getOps<func::FuncOp>()) {
    if (Operation *user = findUnsupportedUser(func)) {
      user->emitRemark()
          << "block pointers stay as they are in this function, read and "
             "written by element: '"
          << user->getName() << "' takes one";
      continue;
    }
    func.walk([&](Operation *op) {
      if (isa<BlockLoadOp, BlockStoreOp>(op))
        aligned[op] = getAlignedOffsets(op);
    });
    if (failed(applyPartialConversion(func, target, frozen)))
      return signalPassFailure();
  }
}
