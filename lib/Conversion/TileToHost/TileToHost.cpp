//===- TileToHost.cpp - Lower tile kernels for the CPU --------------------===//
//
// Tile values stay tensors, to be bufferized by upstream one-shot
// bufferization; each tile op becomes the tensor, linalg or scf ops that
// compute it. Pointers become i64 addresses. Memory accesses become loops
// over the elements, so each access happens exactly where the mask allows.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Plan/IR/PlanDialect.h"

#include "kiln/Conversion/TileToHost/PointerOrigins.h"
#include "kiln/Conversion/TileToHost/RuntimeInterface.h"
#include "kiln/Dialect/Tile/IR/BlockPointerLayout.h"
#include "kiln/Dialect/Tile/IR/TileDialect.h"
#include "kiln/Dialect/TileGPU/IR/TileGPUDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"

#define DEBUG_TYPE "kiln-convert-tile-to-host"

namespace kiln {
#define GEN_PASS_DEF_CONVERTTILETOHOSTPASS
#include "kiln/Conversion/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln::tile;
using namespace kiln::host;

/// Trailing i32 arguments every host kernel takes: its program id, then the
/// grid size, along x, y and z.
static constexpr unsigned kNumGridArgs = 6;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Bytes one element of `type` takes in memory.
static int64_t byteSizeOf(Type type) {
  if (isa<PointerType, IndexType>(type))
    return 8;
  return (type.getIntOrFloatBitWidth() + 7) / 8;
}

static Value indexConstant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

/// Runs `body` at every index of `shape` in a loop nest that carries
/// `iterArgs`; `body` returns their next values. A scalar (empty shape) runs
/// `body` once with no indices.
static SmallVector<Value>
forEachElement(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
               ValueRange iterArgs,
               function_ref<SmallVector<Value>(OpBuilder &, Location,
                                               ValueRange, ValueRange)>
                   body) {
  if (shape.empty())
    return body(b, loc, {}, iterArgs);
  SmallVector<Value> lbs, ubs, steps;
  for (int64_t size : shape) {
    lbs.push_back(indexConstant(b, loc, 0));
    ubs.push_back(indexConstant(b, loc, size));
    steps.push_back(indexConstant(b, loc, 1));
  }
  scf::LoopNest nest = scf::buildLoopNest(
      b, loc, lbs, ubs, steps, iterArgs,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange ivs,
          ValueRange args) { return body(nested, nestedLoc, ivs, args); });
  return nest.results;
}

/// Element `ivs` of `value`, or `value` itself when it is a scalar.
static Value elementAt(OpBuilder &b, Location loc, Value value,
                       ValueRange ivs) {
  if (!value || !isa<RankedTensorType>(value.getType()))
    return value;
  return tensor::ExtractOp::create(b, loc, value, ivs);
}

/// An LLVM pointer to the address held in `address` (an i64).
static Value toLLVMPointer(OpBuilder &b, Location loc, Value address) {
  return LLVM::IntToPtrOp::create(b, loc,
                                  LLVM::LLVMPointerType::get(b.getContext()),
                                  address);
}

/// Whether `type` is an 8-bit float, which LLVM has no type for: memory
/// holds its bits, which loads and stores move as an i8.
static bool isFloat8(Type type) {
  auto floatType = dyn_cast<FloatType>(type);
  return floatType && floatType.getWidth() == 8;
}

/// The float constant `value` of `type`; an 8-bit float's as its bits.
static Value floatConstant(OpBuilder &b, Location loc, FloatType type,
                           const APFloat &value) {
  if (!isFloat8(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, value));
  Value bits = arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(b.getI8Type(), value.bitcastToAPInt()));
  return arith::BitcastOp::create(b, loc, type, bits);
}

/// The value an element of type `type` has where a masked load reads
/// nothing and no `other` was given: zero.
static Value zeroOf(OpBuilder &b, Location loc, Type type) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return floatConstant(b, loc, floatType,
                         APFloat::getZero(floatType.getFloatSemantics()));
  return arith::ConstantOp::create(b, loc, b.getZeroAttr(type));
}

/// Loads an element of `type` from `address`. A boolean is a byte that is
/// true where it is not zero, as Triton reads it (an i1 load of a byte
/// other than 0 or 1 is undefined). `isVolatile`: read each time it runs.
static Value loadElement(OpBuilder &b, Location loc, Type type, Value address,
                         bool isVolatile = false) {
  bool boolean = type.isInteger(1);
  Type stored = isFloat8(type) || boolean ? b.getI8Type() : type;
  Value value =
      LLVM::LoadOp::create(b, loc, stored, toLLVMPointer(b, loc, address),
                           /*alignment=*/0, isVolatile);
  if (boolean)
    return arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ne, value,
        arith::ConstantOp::create(b, loc, b.getZeroAttr(stored)));
  return stored == type ? value
                        : arith::BitcastOp::create(b, loc, type, value);
}

/// Stores the element `value` at `address`.
static void storeElement(OpBuilder &b, Location loc, Value value,
                         Value address) {
  if (isFloat8(value.getType()))
    value = arith::BitcastOp::create(b, loc, b.getI8Type(), value);
  LLVM::StoreOp::create(b, loc, value, toLLVMPointer(b, loc, address));
}

/// Clones the ops of a combining region (tile.reduce, tile.scan) at the
/// builder's insertion point, with `accs` and `nexts` for its two sets of
/// arguments, and returns the values it yields.
static SmallVector<Value> inlineCombiner(OpBuilder &b, Region &combiner,
                                         ValueRange accs, ValueRange nexts) {
  Block &block = combiner.front();
  IRMapping mapping;
  for (auto [arg, value] :
       llvm::zip(block.getArguments(), llvm::concat<const Value>(accs, nexts)))
    mapping.map(arg, value);
  for (Operation &op : block.without_terminator())
    b.clone(op, mapping);
  auto yield = cast<YieldOp>(block.getTerminator());
  return llvm::map_to_vector(yield.getValues(), [&](Value v) {
    return mapping.lookupOrDefault(v);
  });
}

//===----------------------------------------------------------------------===//
// Program instances
//===----------------------------------------------------------------------===//

namespace {
/// `tile.program_id` and `tile.num_programs` read the kernel's trailing
/// grid arguments.
template <typename OpTy, unsigned FirstGridArg>
struct GridQueryLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto func = op->template getParentOfType<func::FuncOp>();
    unsigned first = func.getNumArguments() - kNumGridArgs + FirstGridArg;
    rewriter.replaceOp(op, func.getArgument(
                               first + static_cast<unsigned>(op.getAxis())));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Making and reshaping tiles
//===----------------------------------------------------------------------===//

struct RangeLowering : OpConversionPattern<RangeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(RangeOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int32_t start = op.getStart();
    rewriter.replaceOpWithNewOp<tensor::GenerateOp>(
        op, op.getType(), ValueRange(),
        [&](OpBuilder &b, Location nestedLoc, ValueRange ivs) {
          Value i = arith::IndexCastOp::create(b, nestedLoc, b.getI32Type(),
                                               ivs[0]);
          Value first = arith::ConstantIntOp::create(b, loc, start, 32);
          Value value = arith::AddIOp::create(b, nestedLoc, i, first);
          tensor::YieldOp::create(b, nestedLoc, value);
        });
    return success();
  }
};

struct SplatLowering : OpConversionPattern<SplatOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SplatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = getTypeConverter()->convertType(op.getType());
    rewriter.replaceOpWithNewOp<tensor::SplatOp>(op, type, adaptor.getSrc());
    return success();
  }
};

/// A broadcast reads source index 0 along the dimensions it stretches.
struct BroadcastLowering : OpConversionPattern<BroadcastOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(BroadcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(
        getTypeConverter()->convertType(op.getType()));
    ArrayRef<int64_t> srcShape = op.getSrc().getType().getShape();
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineExpr> srcExprs;
    for (auto [dim, sizes] : llvm::enumerate(
             llvm::zip(srcShape, type.getShape()))) {
      auto [srcSize, size] = sizes;
      srcExprs.push_back(srcSize == size ? getAffineDimExpr(dim, ctx)
                                         : getAffineConstantExpr(0, ctx));
    }
    unsigned rank = type.getRank();
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank, 0, srcExprs, ctx),
        AffineMap::getMultiDimIdentityMap(rank, ctx)};
    Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                         type.getElementType());
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    rewriter.replaceOpWithNewOp<linalg::GenericOp>(
        op, type, adaptor.getSrc(), init, maps, iterators,
        [](OpBuilder &b, Location nestedLoc, ValueRange args) {
          linalg::YieldOp::create(b, nestedLoc, args[0]);
        });
    return success();
  }
};

/// Reassociation that groups the dimensions of `expanded` onto those of a
/// shape without the size-1 dimension `axis`.
static SmallVector<ReassociationIndices>
unitDimReassociation(int64_t expandedRank, int64_t axis) {
  SmallVector<ReassociationIndices> groups;
  for (int64_t dim = 0; dim < expandedRank; ++dim) {
    if (dim == axis && !groups.empty() && axis == expandedRank - 1) {
      groups.back().push_back(dim);
      continue;
    }
    if (dim == axis + 1 && dim != 0) {
      groups.back().push_back(dim);
      continue;
    }
    groups.push_back({dim});
  }
  return groups;
}

struct ExpandDimsLowering : OpConversionPattern<ExpandDimsOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ExpandDimsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(
        getTypeConverter()->convertType(op.getType()));
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
        op, type, adaptor.getSrc(),
        unitDimReassociation(type.getRank(), op.getAxis()));
    return success();
  }
};

/// Reassociation that groups every dimension of a rank-`rank` tile into
/// one.
static SmallVector<ReassociationIndices> allDimsReassociation(int64_t rank) {
  ReassociationIndices dims;
  for (int64_t dim = 0; dim < rank; ++dim)
    dims.push_back(dim);
  return {dims};
}

/// The tile `value` as one dimension, its elements in row-major order.
static Value flatten(OpBuilder &b, Location loc, Value value) {
  int64_t rank = cast<RankedTensorType>(value.getType()).getRank();
  if (rank == 1)
    return value;
  return tensor::CollapseShapeOp::create(b, loc, value,
                                         allDimsReassociation(rank));
}

/// The inverse of flatten: the 1-D tile `value` as a tile of `type`.
static Value unflatten(OpBuilder &b, Location loc, Value value,
                       RankedTensorType type) {
  if (type.getRank() == 1)
    return value;
  return tensor::ExpandShapeOp::create(b, loc, type, value,
                                       allDimsReassociation(type.getRank()));
}

/// A reshape keeps row-major order: collapse to one dimension, then expand.
struct ReshapeLowering : OpConversionPattern<ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(
        getTypeConverter()->convertType(op.getType()));
    rewriter.replaceOp(op, unflatten(rewriter, loc,
                                     flatten(rewriter, loc, adaptor.getSrc()),
                                     type));
    return success();
  }
};

struct TransLowering : OpConversionPattern<TransOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(TransOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(
        getTypeConverter()->convertType(op.getType()));
    Value init = tensor::EmptyOp::create(rewriter, op.getLoc(), type.getShape(),
                                         type.getElementType());
    SmallVector<int64_t> permutation(op.getOrder());
    auto transpose = linalg::TransposeOp::create(
        rewriter, op.getLoc(), adaptor.getSrc(), init, permutation);
    rewriter.replaceOp(op, transpose.getResult());
    return success();
  }
};

/// Each element of the result reads the source at its own coordinates
/// but along the axis, where the index element, clamped into the axis,
/// says.
struct GatherLowering : OpConversionPattern<GatherOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(
        getTypeConverter()->convertType(op.getType()));
    int64_t axis = op.getAxis();
    int64_t size = op.getSrc().getType().getDimSize(axis);
    Value src = adaptor.getSrc(), index = adaptor.getIndex();
    auto generate = tensor::GenerateOp::create(
        rewriter, op.getLoc(), type, ValueRange{},
        [&](OpBuilder &b, Location loc, ValueRange coordinates) {
          Value picked = tensor::ExtractOp::create(b, loc, index, coordinates);
          // A boolean index is 0 or 1 (Triton's int1 is unsigned).
          Type indexType = b.getIndexType();
          picked = picked.getType().isInteger(1)
                       ? arith::IndexCastUIOp::create(b, loc, indexType,
                                                      picked)
                             .getResult()
                       : arith::IndexCastOp::create(b, loc, indexType, picked)
                             .getResult();
          Value low = arith::ConstantIndexOp::create(b, loc, 0);
          Value high = arith::ConstantIndexOp::create(b, loc, size - 1);
          SmallVector<Value> at(coordinates);
          at[axis] = arith::MinSIOp::create(
              b, loc, arith::MaxSIOp::create(b, loc, picked, low), high);
          tensor::YieldOp::create(b, loc,
                                  tensor::ExtractOp::create(b, loc, src, at));
        });
    rewriter.replaceOp(op, generate.getResult());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Pointers and memory
//===----------------------------------------------------------------------===//

/// `addptr` adds offset * element size to the address.
struct AddPtrLowering : OpConversionPattern<AddPtrOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AddPtrOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type addressType = adaptor.getPtr().getType();
    auto pointee = cast<PointerType>(getElementTypeOrSelf(op.getPtr().getType()))
                       .getPointeeType();
    Value offset = adaptor.getOffset();
    unsigned bits = getElementTypeOrSelf(offset.getType()).getIntOrFloatBitWidth();
    // Offsets are signed, except a boolean, which counts 0 or 1.
    if (bits == 1)
      offset = arith::ExtUIOp::create(rewriter, loc, addressType, offset);
    else if (bits < 64)
      offset = arith::ExtSIOp::create(rewriter, loc, addressType, offset);
    else if (bits > 64)
      offset = arith::TruncIOp::create(rewriter, loc, addressType, offset);
    TypedAttr sizeAttr = rewriter.getI64IntegerAttr(byteSizeOf(pointee));
    if (auto tensorType = dyn_cast<RankedTensorType>(addressType))
      sizeAttr = SplatElementsAttr::get(tensorType, sizeAttr);
    Value size = arith::ConstantOp::create(rewriter, loc, sizeAttr);
    Value bytes = arith::MulIOp::create(rewriter, loc, offset, size);
    rewriter.replaceOpWithNewOp<arith::AddIOp>(op, adaptor.getPtr(), bytes);
    return success();
  }
};

/// Ops whose result is their source: pointer/integer casts and pointer
/// casts (which keep the address), and tile.assume (whose facts only the
/// GPU's analyses read).
template <typename OpTy>
struct ForwardSource : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getSrc());
    return success();
  }
};

/// "file:line:col" of `op`, or its location as MLIR prints it.
static std::string describeLocation(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto loc = dyn_cast<FileLineColLoc>(op->getLoc()))
    os << loc.getFilename().getValue() << ":" << loc.getLine() << ":"
       << loc.getColumn();
  else
    op->getLoc().print(os);
  return text;
}

/// The program id (i32) along x, y and z of the kernel around `op`.
static ValueRange programIdsAround(Operation *op) {
  auto func = op->getParentOfType<func::FuncOp>();
  return func.getArguments().take_back(kNumGridArgs).take_front(3);
}

/// Emits the calls that check each memory access against the arrays a launch
/// was given (the `bounds-check` option), and describes each checked op (its
/// location, the argument its pointer comes from, whether it writes) so that
/// the run time can check it and say where a violation happened.
class AccessChecker {
public:
  /// Declares the run-time checks in `module`, and finds the argument each
  /// memory op of its kernels accesses.
  explicit AccessChecker(ModuleOp module) {
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    Type i32 = b.getI32Type(), i64 = b.getI64Type();
    func::FuncOp::create(
        b, module.getLoc(), kCheckFunction,
        b.getFunctionType({i64, i64, i32, i32, i32, i32, i32}, {i32}))
        .setPrivate();
    func::FuncOp::create(b, module.getLoc(), kCheckSpanFunction,
                         b.getFunctionType({i64, i64, i64, i32}, {i32}))
        .setPrivate();
    module.walk([&](Operation *op) {
      if (isa<LoadOp, StoreOp, AtomicRMWOp, AtomicCASOp, BlockLoadOp,
              BlockStoreOp>(op))
        origins[op] = findPointerOrigin(op->getOperand(0));
    });
  }

  /// An i1 that is true where the access of `bytes` at `address` by `site`
  /// should happen: `enabled` (the mask, or null for always) and allowed.
  /// An enabled access that is not allowed is recorded for the launch to
  /// report.
  Value check(OpBuilder &b, Location loc, Operation *site, Value address,
              int64_t bytes, Value enabled) {
    ValueRange programIds = programIdsAround(site);
    Type i32 = b.getI32Type();
    Value enabled32 =
        enabled ? arith::ExtUIOp::create(b, loc, i32, enabled).getResult()
                : arith::ConstantIntOp::create(b, loc, 1, 32).getResult();
    SmallVector<Value> args = {
        address, arith::ConstantIntOp::create(b, loc, bytes, 64),
        arith::ConstantIntOp::create(b, loc, siteId(b, site), 32), enabled32};
    args.append(programIds.begin(), programIds.end());
    return isNonZero(b, loc,
                     func::CallOp::create(b, loc, kCheckFunction, i32, args)
                         .getResult(0));
  }

  /// An i1 that is true where every access of `bytes` at addresses
  /// `lowest` to `highest` by `site` is allowed, so that no element needs
  /// its own check (true when no element is accessed: `lowest` > `highest`).
  Value checkSpan(OpBuilder &b, Location loc, Operation *site, Value lowest,
                  Value highest, int64_t bytes) {
    Value args[] = {lowest, highest,
                    arith::ConstantIntOp::create(b, loc, bytes, 64),
                    arith::ConstantIntOp::create(b, loc, siteId(b, site), 32)};
    return isNonZero(b, loc,
                     func::CallOp::create(b, loc, kCheckSpanFunction,
                                          b.getI32Type(), args)
                         .getResult(0));
  }

  /// Whether `op`'s accesses are checked: not where its pointer may come
  /// from an integer, an address in memory the launch does not know.
  bool checks(Operation *op) const {
    return origins.lookup(op).kind != PointerOrigin::Address;
  }

  /// The checked ops, by site id (see kAccessSitesAttr).
  ArrayAttr sites(MLIRContext *ctx) const {
    return ArrayAttr::get(ctx, siteAttrs);
  }

private:
  int32_t siteId(OpBuilder &b, Operation *site) {
    auto [it, inserted] = siteIds.try_emplace(site, siteAttrs.size());
    if (inserted) {
      PointerOrigin origin = origins.lookup(site);
      siteAttrs.push_back(b.getArrayAttr(
          {b.getStringAttr(describeLocation(site) + ": " +
                           site->getName().getStringRef()),
           b.getI32IntegerAttr(origin.kind == PointerOrigin::Argument
                                   ? int32_t(origin.argument)
                                   : -1),
           b.getBoolAttr(hasEffect<MemoryEffects::Write>(site))}));
    }
    return it->second;
  }

  static Value isNonZero(OpBuilder &b, Location loc, Value i32) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, i32,
                                 arith::ConstantIntOp::create(b, loc, 0, 32));
  }

  llvm::DenseMap<Operation *, PointerOrigin> origins;
  llvm::DenseMap<Operation *, int32_t> siteIds;
  SmallVector<Attribute> siteAttrs;
};

/// Where one element of a memory op goes: its address, and whether the
/// access should happen (null: always).
struct ElementAddress {
  Value address;
  Value enabled;
};

/// How a memory op lowers, element by element.
struct ElementAccess {
  /// Shape of the access (empty for a scalar pointer).
  ArrayRef<int64_t> shape;
  /// Bytes one element takes in memory.
  int64_t bytes;
  /// Type of the op's result (null for a store).
  Type resultType;
  /// The address of element `ivs` and whether it is accessed.
  function_ref<ElementAddress(OpBuilder &, Location, ValueRange)> addressAt;
  /// The access itself, at `address`; returns the element's result.
  function_ref<Value(OpBuilder &, Location, Value address, ValueRange ivs)>
      access;
  /// The element's result where it is not accessed.
  function_ref<Value(OpBuilder &, Location, ValueRange)> fallback;
};

/// The loop over the elements of a load, store or atomic that does each
/// access only where it is enabled and (with `checker`) allowed. Returns
/// the result, if the op has one.
static SmallVector<Value> emitElementLoop(OpBuilder &b, Location loc,
                                          Operation *op,
                                          AccessChecker *checker,
                                          const ElementAccess &e) {
  auto tensorType = dyn_cast_if_present<RankedTensorType>(e.resultType);
  Type elementType =
      e.resultType ? getElementTypeOrSelf(e.resultType) : Type();
  SmallVector<Value> iterArgs;
  if (tensorType)
    iterArgs.push_back(tensor::EmptyOp::create(b, loc, tensorType.getShape(),
                                               elementType));
  return forEachElement(
      b, loc, e.shape, iterArgs,
      [&](OpBuilder &nb, Location l, ValueRange ivs,
          ValueRange args) -> SmallVector<Value> {
        auto [address, condition] = e.addressAt(nb, l, ivs);
        if (checker)
          condition = checker->check(nb, l, op, address, e.bytes, condition);
        Value result;
        if (!condition) {
          result = e.access(nb, l, address, ivs);
        } else {
          auto ifOp = scf::IfOp::create(
              nb, l, e.resultType ? TypeRange(elementType) : TypeRange(),
              condition, /*withElseRegion=*/e.resultType != nullptr);
          OpBuilder thenBuilder = ifOp.getThenBodyBuilder();
          Value accessed = e.access(thenBuilder, l, address, ivs);
          if (e.resultType) {
            scf::YieldOp::create(thenBuilder, l, accessed);
            OpBuilder elseBuilder = ifOp.getElseBodyBuilder();
            scf::YieldOp::create(elseBuilder, l,
                                 e.fallback(elseBuilder, l, ivs));
            result = ifOp.getResult(0);
          }
        }
        if (!tensorType)
          return e.resultType ? SmallVector<Value>{result}
                              : SmallVector<Value>{};
        return {tensor::InsertOp::create(nb, l, result, args[0], ivs)};
      });
}

/// Lowers a load, store or atomic to a loop over its elements. With
/// `checker`, a tile's accesses are checked at once where they all fall in
/// the array they may access (the lowest and highest enabled addresses
/// say), and one by one only where they do not, so that bounds checks cost
/// little enough to stay on.
static SmallVector<Value> lowerElementwiseAccess(OpBuilder &b, Location loc,
                                                 Operation *op,
                                                 AccessChecker *checker,
                                                 const ElementAccess &e) {
  if (checker && !checker->checks(op))
    checker = nullptr;
  if (!checker || e.shape.empty())
    return emitElementLoop(b, loc, op, checker, e);
  Value none[] = {arith::ConstantIntOp::create(b, loc, -1, 64),
                  arith::ConstantIntOp::create(b, loc, 0, 64)};
  SmallVector<Value> span = forEachElement(
      b, loc, e.shape, none,
      [&](OpBuilder &nb, Location l, ValueRange ivs,
          ValueRange bounds) -> SmallVector<Value> {
        auto [address, enabled] = e.addressAt(nb, l, ivs);
        Value lowest = arith::MinUIOp::create(nb, l, bounds[0], address);
        Value highest = arith::MaxUIOp::create(nb, l, bounds[1], address);
        if (!enabled)
          return {lowest, highest};
        return {arith::SelectOp::create(nb, l, enabled, lowest, bounds[0]),
                arith::SelectOp::create(nb, l, enabled, highest, bounds[1])};
      });
  Value allowed = checker->checkSpan(b, loc, op, span[0], span[1], e.bytes);
  auto ifOp = scf::IfOp::create(
      b, loc, e.resultType ? TypeRange(e.resultType) : TypeRange(), allowed,
      /*withElseRegion=*/true);
  for (auto [builder, elementChecker] :
       {std::pair(ifOp.getThenBodyBuilder(), (AccessChecker *)nullptr),
        std::pair(ifOp.getElseBodyBuilder(), checker)}) {
    SmallVector<Value> results =
        emitElementLoop(builder, loc, op, elementChecker, e);
    if (e.resultType)
      scf::YieldOp::create(builder, loc, results);
  }
  return ifOp.getResults();
}

/// The element access of a load, store or atomic through a pointer or a
/// tile of pointers, under an optional mask.
static SmallVector<Value> lowerPointerAccess(
    OpBuilder &b, Location loc, Operation *op, AccessChecker *checker,
    Value ptr, Value mask, Value other, Type resultType,
    function_ref<Value(OpBuilder &, Location, Value, ValueRange)> access) {
  ArrayRef<int64_t> shape;
  if (auto ptrType = dyn_cast<RankedTensorType>(ptr.getType()))
    shape = ptrType.getShape();
  auto pointee = cast<PointerType>(getElementTypeOrSelf(
      op->getOperand(0).getType())).getPointeeType();
  Type elementType = resultType ? getElementTypeOrSelf(resultType) : Type();
  return lowerElementwiseAccess(
      b, loc, op, checker,
      ElementAccess{
          shape, byteSizeOf(pointee), resultType,
          [&](OpBuilder &nb, Location l, ValueRange ivs) {
            return ElementAddress{elementAt(nb, l, ptr, ivs),
                                  elementAt(nb, l, mask, ivs)};
          },
          access,
          [&](OpBuilder &nb, Location l, ValueRange ivs) {
            return other ? elementAt(nb, l, other, ivs)
                         : zeroOf(nb, l, elementType);
          }});
}

/// A memory op lowering; `checker` is null unless accesses are checked.
template <typename OpTy>
struct AccessLowering : OpConversionPattern<OpTy> {
  AccessLowering(const TypeConverter &converter, MLIRContext *ctx,
                 AccessChecker *checker)
      : OpConversionPattern<OpTy>(converter, ctx), checker(checker) {}

  AccessChecker *checker;
};

/// A load reads each element where the mask holds, else takes `other`.
struct LoadLowering : AccessLowering<LoadOp> {
  using AccessLowering::AccessLowering;

  LogicalResult
  matchAndRewrite(LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = getTypeConverter()->convertType(op.getType());
    SmallVector<Value> results = lowerPointerAccess(
        rewriter, op.getLoc(), op, checker, adaptor.getPtr(), adaptor.getMask(),
        adaptor.getOther(), type,
        [&](OpBuilder &b, Location l, Value address, ValueRange) -> Value {
          return loadElement(b, l, getElementTypeOrSelf(type), address,
                             op.getIsVolatile());
        });
    rewriter.replaceOp(op, results[0]);
    return success();
  }
};

struct StoreLowering : AccessLowering<StoreOp> {
  using AccessLowering::AccessLowering;

  LogicalResult
  matchAndRewrite(StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value value = adaptor.getValue();
    lowerPointerAccess(
        rewriter, op.getLoc(), op, checker, adaptor.getPtr(),
        adaptor.getMask(), Value(), Type(),
        [&](OpBuilder &b, Location l, Value address, ValueRange ivs) -> Value {
          storeElement(b, l, elementAt(b, l, value, ivs), address);
          return {};
        });
    rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Block pointers
//===----------------------------------------------------------------------===//

/// A block pointer is an !llvm.array of its i64 fields (BlockPointerLayout).
static LLVM::LLVMArrayType blockPointerStorage(BlockPointerType type) {
  BlockPointerLayout layout(type.getShape().size());
  return LLVM::LLVMArrayType::get(IntegerType::get(type.getContext(), 64),
                                  layout.numFields());
}

/// The fields of a block pointer held as blockPointerStorage.
struct BlockPointerFields {
  Value base;
  SmallVector<Value> sizes, strides, offsets;

  static BlockPointerFields read(OpBuilder &b, Location loc, Value storage,
                                 int64_t rank) {
    auto at = [&](int64_t i) {
      return LLVM::ExtractValueOp::create(b, loc, storage, i).getResult();
    };
    BlockPointerLayout layout(rank);
    BlockPointerFields fields;
    fields.base = at(BlockPointerLayout::kBase);
    for (int64_t d = 0; d < rank; ++d) {
      fields.sizes.push_back(at(layout.size(d)));
      fields.strides.push_back(at(layout.stride(d)));
      fields.offsets.push_back(at(layout.offset(d)));
    }
    return fields;
  }

  Value write(OpBuilder &b, Location loc) const {
    BlockPointerLayout layout(sizes.size());
    SmallVector<Value> elements(layout.numFields());
    elements[BlockPointerLayout::kBase] = base;
    for (int64_t d = 0; d < layout.rank; ++d) {
      elements[layout.size(d)] = sizes[d];
      elements[layout.stride(d)] = strides[d];
      elements[layout.offset(d)] = offsets[d];
    }
    Value storage = LLVM::PoisonOp::create(
        b, loc, LLVM::LLVMArrayType::get(b.getI64Type(), elements.size()));
    for (auto [i, element] : llvm::enumerate(elements))
      storage = LLVM::InsertValueOp::create(b, loc, storage, element, i);
    return storage;
  }
};

struct MakeBlockPtrLowering : OpConversionPattern<MakeBlockPtrOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(MakeBlockPtrOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    BlockPointerFields fields;
    fields.base = adaptor.getBase();
    fields.sizes = llvm::to_vector(adaptor.getShape());
    fields.strides = llvm::to_vector(adaptor.getStrides());
    for (Value offset : adaptor.getOffsets())
      fields.offsets.push_back(
          arith::ExtSIOp::create(rewriter, loc, rewriter.getI64Type(), offset));
    rewriter.replaceOp(op, fields.write(rewriter, loc));
    return success();
  }
};

struct AdvanceLowering : OpConversionPattern<AdvanceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AdvanceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto fields = BlockPointerFields::read(rewriter, loc, adaptor.getBlockPtr(),
                                           op.getOffsets().size());
    for (auto [offset, delta] : llvm::zip(fields.offsets, adaptor.getOffsets()))
      offset = arith::AddIOp::create(
          rewriter, loc, offset,
          arith::ExtSIOp::create(rewriter, loc, rewriter.getI64Type(), delta));
    rewriter.replaceOp(op, fields.write(rewriter, loc));
    return success();
  }
};

/// The element access of a block load or store: element `ivs` of the block
/// is at tensor coordinates offsets + ivs, accessed where every dimension in
/// `boundaryCheck` is inside the tensor.
static SmallVector<Value>
lowerBlockAccess(OpBuilder &b, Location loc, Operation *op,
                 AccessChecker *checker, BlockPointerType type,
                 Value storage, ArrayRef<int32_t> boundaryCheck,
                 Type resultType,
                 function_ref<Value(OpBuilder &, Location, Value, ValueRange)>
                     access,
                 function_ref<Value(OpBuilder &, Location, ValueRange)>
                     fallback) {
  ArrayRef<int64_t> shape = type.getShape();
  int64_t bytes = byteSizeOf(type.getElementType());
  auto fields = BlockPointerFields::read(b, loc, storage, shape.size());
  return lowerElementwiseAccess(
      b, loc, op, checker,
      ElementAccess{
          shape, bytes, resultType,
          [&](OpBuilder &nb, Location l, ValueRange ivs) {
            Value index = arith::ConstantIntOp::create(nb, l, 0, 64);
            Value enabled;
            Value zero = arith::ConstantIntOp::create(nb, l, 0, 64);
            for (auto [d, iv] : llvm::enumerate(ivs)) {
              Value coord = arith::AddIOp::create(
                  nb, l, fields.offsets[d],
                  arith::IndexCastOp::create(nb, l, nb.getI64Type(), iv));
              index = arith::AddIOp::create(
                  nb, l, index,
                  arith::MulIOp::create(nb, l, coord, fields.strides[d]));
              if (!llvm::is_contained(boundaryCheck, d))
                continue;
              Value notBefore = arith::CmpIOp::create(
                  nb, l, arith::CmpIPredicate::sge, coord, zero);
              Value notAfter = arith::CmpIOp::create(
                  nb, l, arith::CmpIPredicate::slt, coord, fields.sizes[d]);
              Value inside = arith::AndIOp::create(nb, l, notBefore, notAfter);
              enabled = enabled ? arith::AndIOp::create(nb, l, enabled, inside)
                                      .getResult()
                                : inside;
            }
            Value offset = arith::MulIOp::create(
                nb, l, index, arith::ConstantIntOp::create(nb, l, bytes, 64));
            return ElementAddress{
                arith::AddIOp::create(nb, l, fields.base, offset), enabled};
          },
          access, fallback});
}

struct BlockLoadLowering : AccessLowering<BlockLoadOp> {
  using AccessLowering::AccessLowering;

  LogicalResult
  matchAndRewrite(BlockLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = op.getBlockPtr().getType();
    Type elementType = type.getElementType();
    bool nanPadding = op.getPadding() == PaddingOption::NaN;
    SmallVector<Value> results = lowerBlockAccess(
        rewriter, op.getLoc(), op, checker, type, adaptor.getBlockPtr(),
        op.getBoundaryCheck(), op.getType(),
        [&](OpBuilder &b, Location l, Value address, ValueRange) -> Value {
          return loadElement(b, l, elementType, address);
        },
        [&](OpBuilder &b, Location l, ValueRange) -> Value {
          if (!nanPadding)
            return zeroOf(b, l, elementType);
          auto floatType = cast<FloatType>(elementType);
          return floatConstant(
              b, l, floatType,
              APFloat::getQNaN(floatType.getFloatSemantics()));
        });
    rewriter.replaceOp(op, results[0]);
    return success();
  }
};

struct BlockStoreLowering : AccessLowering<BlockStoreOp> {
  using AccessLowering::AccessLowering;

  LogicalResult
  matchAndRewrite(BlockStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value value = adaptor.getValue();
    lowerBlockAccess(
        rewriter, op.getLoc(), op, checker, op.getBlockPtr().getType(),
        adaptor.getBlockPtr(), op.getBoundaryCheck(), Type(),
        [&](OpBuilder &b, Location l, Value address, ValueRange ivs) -> Value {
          storeElement(b, l, elementAt(b, l, value, ivs), address);
          return {};
        },
        nullptr);
    rewriter.eraseOp(op);
    return success();
  }
};

/// `kind(old, value)` for one element of an atomic.
static Value combineAtomic(OpBuilder &b, Location loc, AtomicRMWKind kind,
                           Value old, Value value) {
  bool isFloat = isa<FloatType>(value.getType());
  switch (kind) {
  case AtomicRMWKind::Add:
    return isFloat ? arith::AddFOp::create(b, loc, old, value).getResult()
                   : arith::AddIOp::create(b, loc, old, value).getResult();
  case AtomicRMWKind::Max:
    return isFloat ? arith::MaxNumFOp::create(b, loc, old, value).getResult()
                   : arith::MaxSIOp::create(b, loc, old, value).getResult();
  case AtomicRMWKind::Min:
    return isFloat ? arith::MinNumFOp::create(b, loc, old, value).getResult()
                   : arith::MinSIOp::create(b, loc, old, value).getResult();
  case AtomicRMWKind::UMax:
    return arith::MaxUIOp::create(b, loc, old, value);
  case AtomicRMWKind::UMin:
    return arith::MinUIOp::create(b, loc, old, value);
  case AtomicRMWKind::And:
    return arith::AndIOp::create(b, loc, old, value);
  case AtomicRMWKind::Or:
    return arith::OrIOp::create(b, loc, old, value);
  case AtomicRMWKind::Xor:
    return arith::XOrIOp::create(b, loc, old, value);
  case AtomicRMWKind::Xchg:
    return value;
  }
  llvm_unreachable("unknown atomic kind");
}

/// Replaces the element of `type` at `address` (an i64) by `next(old)`
/// under the host runtime's lock, and returns `old`.
static Value updateLocked(OpBuilder &b, Location loc, Value address,
                          Type type, function_ref<Value(Value)> next) {
  Value ptr = toLLVMPointer(b, loc, address);
  func::CallOp::create(b, loc, kLockFunction, TypeRange());
  Value old = LLVM::LoadOp::create(b, loc, type, ptr);
  LLVM::StoreOp::create(b, loc, next(old), ptr);
  func::CallOp::create(b, loc, kUnlockFunction, TypeRange());
  return old;
}

/// An atomic element is a load, the combination and a store, made atomic by
/// the host runtime's lock (`__kiln_host_lock`/`__kiln_host_unlock`), which
/// matters when a launch runs on several threads. (llvm.atomicrmw would
/// declare no memory effects, which buffer deallocation cannot work with.)
struct AtomicRMWLowering : AccessLowering<AtomicRMWOp> {
  using AccessLowering::AccessLowering;

  LogicalResult
  matchAndRewrite(AtomicRMWOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    AtomicRMWKind kind = op.getKind();
    Value value = adaptor.getValue();
    SmallVector<Value> results = lowerPointerAccess(
        rewriter, op.getLoc(), op, checker, adaptor.getPtr(),
        adaptor.getMask(), Value(), op.getType(),
        [&](OpBuilder &b, Location l, Value address, ValueRange ivs) -> Value {
          Value element = elementAt(b, l, value, ivs);
          return updateLocked(b, l, address, element.getType(),
                              [&](Value old) {
                                return combineAtomic(b, l, kind, old,
                                                     element);
                              });
        });
    rewriter.replaceOp(op, results[0]);
    return success();
  }
};

/// A compare-and-swap element: under the same lock, the old element is
/// replaced by the value where its bits equal the comparand's.
struct AtomicCASLowering : AccessLowering<AtomicCASOp> {
  using AccessLowering::AccessLowering;

  LogicalResult
  matchAndRewrite(AtomicCASOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value cmp = adaptor.getCmp(), value = adaptor.getValue();
    SmallVector<Value> results = lowerPointerAccess(
        rewriter, op.getLoc(), op, checker, adaptor.getPtr(), Value(),
        Value(), op.getType(),
        [&](OpBuilder &b, Location l, Value address, ValueRange ivs) -> Value {
          Value expected = elementAt(b, l, cmp, ivs);
          Value replacement = elementAt(b, l, value, ivs);
          Type type = replacement.getType();
          auto bits = b.getIntegerType(type.getIntOrFloatBitWidth());
          return updateLocked(b, l, address, type, [&](Value old) -> Value {
            Value equal = arith::CmpIOp::create(
                b, l, arith::CmpIPredicate::eq,
                arith::BitcastOp::create(b, l, bits, old),
                arith::BitcastOp::create(b, l, bits, expected));
            return arith::SelectOp::create(b, l, equal, replacement, old);
          });
        });
    rewriter.replaceOp(op, results[0]);
    return success();
  }
};

/// A program instance runs on one thread: a barrier waits for no one.
struct BarrierLowering : OpConversionPattern<BarrierOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(BarrierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Debugging
//===----------------------------------------------------------------------===//

/// Describes each tile.print and tile.assert for the run time, by site id:
/// its text (a print's prefix; an assert's location and message), the shape
/// of its operands and their number.
class DebugSites {
public:
  int32_t add(OpBuilder &b, StringRef text, ArrayRef<int64_t> shape,
              unsigned numOperands) {
    sites.push_back(b.getArrayAttr({b.getStringAttr(text),
                                    b.getDenseI64ArrayAttr(shape),
                                    b.getI32IntegerAttr(numOperands)}));
    return sites.size() - 1;
  }

  ArrayAttr attr(MLIRContext *ctx) const { return ArrayAttr::get(ctx, sites); }

private:
  SmallVector<Attribute> sites;
};

/// The shape of a tile, empty for a scalar.
static ArrayRef<int64_t> shapeOf(Value value) {
  if (auto tensor = dyn_cast<RankedTensorType>(value.getType()))
    return tensor.getShape();
  return {};
}

/// Row-major index (i64) of element `ivs` of `shape`.
static Value linearIndex(OpBuilder &b, Location loc, ValueRange ivs,
                         ArrayRef<int64_t> shape) {
  Value linear = indexConstant(b, loc, 0);
  for (auto [iv, size] : llvm::zip(ivs, shape))
    linear = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, linear,
                                      indexConstant(b, loc, size)),
        iv);
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), linear);
}

/// A debug op lowering, recording its op in `sites`.
template <typename OpTy>
struct DebugLowering : OpConversionPattern<OpTy> {
  DebugLowering(const TypeConverter &converter, MLIRContext *ctx,
                DebugSites *sites)
      : OpConversionPattern<OpTy>(converter, ctx), sites(sites) {}

  DebugSites *sites;
};

/// `tile.print` calls the run time once per element and operand with the
/// value as an i64 or an f64.
struct PrintLowering : DebugLowering<PrintOp> {
  using DebugLowering::DebugLowering;

  LogicalResult
  matchAndRewrite(PrintOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ValueRange values = adaptor.getValues();
    ArrayRef<int64_t> shape = values.empty() ? ArrayRef<int64_t>()
                                             : shapeOf(values.front());
    int32_t site = sites->add(rewriter, op.getPrefix(), shape, values.size());
    ValueRange programIds = programIdsAround(op);
    auto call = [&](OpBuilder &b, Location l, int32_t operand, Value element,
                    PrintKind kind, Value integer, Value real) {
      SmallVector<Value> args = {
          arith::ConstantIntOp::create(b, l, site, 32),
          arith::ConstantIntOp::create(b, l, operand, 32), element,
          arith::ConstantIntOp::create(b, l, static_cast<int32_t>(kind), 32),
          integer, real};
      args.append(programIds.begin(), programIds.end());
      func::CallOp::create(b, l, kPrintFunction, TypeRange(), args);
    };
    auto zeros = [](OpBuilder &b, Location l) {
      return std::make_pair(
          arith::ConstantIntOp::create(b, l, 0, 64).getResult(),
          arith::ConstantOp::create(b, l, b.getF64FloatAttr(0)).getResult());
    };
    if (values.empty()) {
      auto [noInteger, noReal] = zeros(rewriter, loc);
      call(rewriter, loc, -1, noInteger, PrintKind::Integer, noInteger,
           noReal);
    }
    // Operand by operand, each element in row-major order.
    for (auto [index, operand] : llvm::enumerate(values)) {
      // Named copies: a lambda cannot capture structured bindings in C++17.
      int32_t i = index;
      Value value = operand;
      forEachElement(
          rewriter, loc, shape, {},
          [&](OpBuilder &b, Location l, ValueRange ivs,
              ValueRange) -> SmallVector<Value> {
            Value element = linearIndex(b, l, ivs, shape);
            auto [noInteger, noReal] = zeros(b, l);
            Value scalar = elementAt(b, l, value, ivs);
            Type type = scalar.getType();
            if (auto floatType = dyn_cast<FloatType>(type)) {
              bool isDouble = floatType.getWidth() == 64;
              Value real = isDouble ? scalar
                                    : arith::ExtFOp::create(
                                          b, l, b.getF64Type(), scalar);
              call(b, l, i, element,
                   isDouble ? PrintKind::Double : PrintKind::Float,
                   noInteger, real);
              return {};
            }
            Value integer = scalar;
            // An i1 prints as 0 or 1, other integers with their sign.
            if (type.getIntOrFloatBitWidth() == 1)
              integer = arith::ExtUIOp::create(b, l, b.getI64Type(), scalar);
            else if (type.getIntOrFloatBitWidth() < 64)
              integer = arith::ExtSIOp::create(b, l, b.getI64Type(), scalar);
            call(b, l, i, element, PrintKind::Integer, integer, noReal);
            return {};
          });
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// `tile.assert` reports each element to the run time, which keeps the
/// first false one of the launch.
struct AssertLowering : DebugLowering<AssertOp> {
  using DebugLowering::DebugLowering;

  LogicalResult
  matchAndRewrite(AssertOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value condition = adaptor.getCondition();
    ArrayRef<int64_t> shape = shapeOf(condition);
    int32_t site = sites->add(
        rewriter, (describeLocation(op) + ": " + op.getMessage()).str(),
        shape, 1);
    ValueRange programIds = programIdsAround(op);
    forEachElement(
        rewriter, loc, shape, {},
        [&](OpBuilder &b, Location l, ValueRange ivs,
            ValueRange) -> SmallVector<Value> {
          SmallVector<Value> args = {
              arith::ConstantIntOp::create(b, l, site, 32),
              arith::ExtUIOp::create(b, l, b.getI32Type(),
                                     elementAt(b, l, condition, ivs)),
              linearIndex(b, l, ivs, shape)};
          args.append(programIds.begin(), programIds.end());
          func::CallOp::create(b, l, kAssertFunction, TypeRange(), args);
          return {};
        });
    rewriter.eraseOp(op);
    return success();
  }
};

/// Declares the run-time functions of the debug ops in `module`.
static void declareDebugFunctions(ModuleOp module) {
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  Type i32 = b.getI32Type(), i64 = b.getI64Type(), f64 = b.getF64Type();
  func::FuncOp::create(
      b, module.getLoc(), kPrintFunction,
      b.getFunctionType({i32, i32, i64, i32, i64, f64, i32, i32, i32}, {}))
      .setPrivate();
  func::FuncOp::create(b, module.getLoc(), kAssertFunction,
                       b.getFunctionType({i32, i32, i64, i32, i32, i32}, {}))
      .setPrivate();
}

//===----------------------------------------------------------------------===//
// Matrix multiplication, reductions and scans
//===----------------------------------------------------------------------===//

/// `a * b + acc` is a linalg matmul that accumulates into `acc`. On the host
/// every input precision is computed exactly (ieee), which tf32 allows. A
/// 16-bit float accumulator is summed into in float32 and rounded once, as
/// a tensor core rounds its products' sum (not after every product).
struct DotLowering : OpConversionPattern<DotOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> inputs = {adaptor.getA(), adaptor.getB()};
    Value acc = adaptor.getAcc();
    auto accType = cast<RankedTensorType>(acc.getType());
    auto narrow = dyn_cast<FloatType>(accType.getElementType());
    if (narrow && narrow.getWidth() < 32)
      acc = arith::ExtFOp::create(rewriter, loc,
                                  accType.clone(rewriter.getF32Type()), acc);
    Operation *matmul =
        op.getType().getRank() == 2
            ? linalg::MatmulOp::create(rewriter, loc, inputs, acc)
                  .getOperation()
            : linalg::BatchMatmulOp::create(rewriter, loc, inputs, acc)
                  .getOperation();
    Value result = matmul->getResult(0);
    if (result.getType() != accType)
      result = arith::TruncFOp::create(rewriter, loc, accType, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Slice `[offset, offset + size)` of `value` along `axis`, all of the other
/// dimensions.
static Value sliceAlong(OpBuilder &b, Location loc, Value value, int64_t axis,
                        int64_t offset, int64_t size) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes, strides(type.getRank(), b.getIndexAttr(1));
  for (int64_t dim : type.getShape())
    sizes.push_back(b.getIndexAttr(dim));
  offsets[axis] = b.getIndexAttr(offset);
  sizes[axis] = b.getIndexAttr(size);
  return tensor::ExtractSliceOp::create(b, loc, value, offsets, sizes,
                                        strides);
}

/// `value` without its size-1 dimension `axis`; a 1-D value becomes 0-D.
static Value dropUnitDim(OpBuilder &b, Location loc, Value value,
                         int64_t axis) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape.erase(shape.begin() + axis);
  auto collapsed = RankedTensorType::get(shape, type.getElementType());
  SmallVector<ReassociationIndices> groups =
      shape.empty() ? SmallVector<ReassociationIndices>{}
                    : unitDimReassociation(type.getRank(), axis);
  return tensor::CollapseShapeOp::create(b, loc, collapsed, value, groups);
}

/// The first slice along the axis starts each reduction; linalg.reduce folds
/// the rest into it with the combining region.
struct ReduceLowering : OpConversionPattern<ReduceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t axis = op.getAxis();
    auto srcType = cast<RankedTensorType>(op.getSrcs().front().getType());
    int64_t size = srcType.getDimSize(axis);
    SmallVector<Value> inits, rests;
    for (Value src : adaptor.getSrcs()) {
      inits.push_back(
          dropUnitDim(rewriter, loc, sliceAlong(rewriter, loc, src, axis, 0, 1),
                      axis));
      if (size > 1)
        rests.push_back(sliceAlong(rewriter, loc, src, axis, 1, size - 1));
    }
    SmallVector<Value> results = inits;
    if (size > 1) {
      auto reduce = linalg::ReduceOp::create(
          rewriter, loc, rests, inits, ArrayRef<int64_t>{axis},
          [&](OpBuilder &b, Location nestedLoc, ValueRange args) {
            size_t n = rests.size();
            SmallVector<Value> combined = inlineCombiner(
                b, op.getCombiner(), args.drop_front(n), args.take_front(n));
            linalg::YieldOp::create(b, nestedLoc, combined);
          });
      results = reduce.getResults();
    }
    if (srcType.getRank() == 1)
      for (Value &result : results)
        result = tensor::ExtractOp::create(rewriter, loc, result, ValueRange());
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// Element i of a scan combines element i - 1 of the result (i + 1 in
/// reverse) with element i of the input, one slice at a time.
struct ScanLowering : OpConversionPattern<ScanOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ScanOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t axis = op.getAxis();
    auto srcType = cast<RankedTensorType>(op.getSrcs().front().getType());
    int64_t size = srcType.getDimSize(axis);
    bool reverse = op.getReverse();
    SmallVector<Value> srcs(adaptor.getSrcs());
    // Step i of `size - 1` combines slice `prev` of the result with slice
    // `cur` of the input.
    Value one = indexConstant(rewriter, loc, 1);
    auto loop = scf::ForOp::create(
        rewriter, loc, indexConstant(rewriter, loc, 1),
        indexConstant(rewriter, loc, size), one, srcs,
        [&](OpBuilder &b, Location l, Value step, ValueRange results) {
          Value cur = step, prev = arith::SubIOp::create(b, l, step, one);
          if (reverse) {
            Value last = indexConstant(b, l, size - 1);
            cur = arith::SubIOp::create(b, l, last, step);
            prev = arith::AddIOp::create(b, l, cur, one);
          }
          auto dynamicSlice = [&](Value value, Value at) {
            auto type = cast<RankedTensorType>(value.getType());
            SmallVector<OpFoldResult> offsets(type.getRank(),
                                              b.getIndexAttr(0));
            SmallVector<OpFoldResult> sizes,
                strides(type.getRank(), b.getIndexAttr(1));
            for (int64_t dim : type.getShape())
              sizes.push_back(b.getIndexAttr(dim));
            offsets[axis] = at;
            sizes[axis] = b.getIndexAttr(1);
            return std::make_tuple(offsets, sizes, strides);
          };
          SmallVector<Value> prevSlices, curSlices, outs;
          for (auto [src, result] : llvm::zip(srcs, results)) {
            auto [po, ps, pst] = dynamicSlice(result, prev);
            prevSlices.push_back(
                tensor::ExtractSliceOp::create(b, l, result, po, ps, pst));
            auto [co, cs, cst] = dynamicSlice(src, cur);
            curSlices.push_back(
                tensor::ExtractSliceOp::create(b, l, src, co, cs, cst));
          }
          auto sliceType = cast<RankedTensorType>(prevSlices[0].getType());
          unsigned rank = sliceType.getRank();
          for (Value slice : curSlices) {
            auto type = cast<RankedTensorType>(slice.getType());
            outs.push_back(tensor::EmptyOp::create(b, l, type.getShape(),
                                                   type.getElementType()));
          }
          SmallVector<AffineMap> maps(
              prevSlices.size() * 3,
              AffineMap::getMultiDimIdentityMap(rank, b.getContext()));
          SmallVector<utils::IteratorType> iterators(
              rank, utils::IteratorType::parallel);
          SmallVector<Value> ins = prevSlices;
          ins.append(curSlices);
          auto combined = linalg::GenericOp::create(
              b, l, ValueRange(outs).getTypes(), ins, outs, maps, iterators,
              [&](OpBuilder &nb, Location nl, ValueRange args) {
                size_t n = prevSlices.size();
                SmallVector<Value> values =
                    inlineCombiner(nb, op.getCombiner(), args.take_front(n),
                                   args.slice(n, n));
                linalg::YieldOp::create(nb, nl, values);
              });
          SmallVector<Value> next;
          for (auto [result, slice] :
               llvm::zip(results, combined.getResults())) {
            auto [co, cs, cst] = dynamicSlice(result, cur);
            next.push_back(
                tensor::InsertSliceOp::create(b, l, slice, result, co, cs, cst));
          }
          scf::YieldOp::create(b, l, next);
        });
    rewriter.replaceOp(op, loop.getResults());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Scalar functions mapped over tiles
//===----------------------------------------------------------------------===//

/// Element j of each result at [r][j] from element j of each operand at
/// [i][j]: what one group of elements computes, built at the rewriter's
/// insertion point.
using GroupFunction = function_ref<SmallVector<SmallVector<Value>>(
    ArrayRef<SmallVector<Value>>)>;

/// `srcs` (converted operands: scalars, or tiles of one shape) mapped by
/// `mapGroup`, `pack` elements at a time, into values whose elements have
/// the types `elementTypes` (converted): a loop over groups of `pack`
/// elements in row-major order (what a thread of a blocked layout holds
/// along the last dimension, so the GPU's groups where the counts agree),
/// each iteration extracting a group of every operand and inserting what
/// `mapGroup` makes of it into the results. A last group that runs out of
/// elements takes copies of the last one and drops what comes back for
/// them, as a GPU thread's does; scalars are one such group. The results
/// are flat: unflatten gives them their shape.
static SmallVector<Value> mapElementGroups(ConversionPatternRewriter &rewriter,
                                           Location loc, ValueRange srcs,
                                           TypeRange elementTypes, int64_t pack,
                                           GroupFunction mapGroup) {
  auto tile = dyn_cast<RankedTensorType>(srcs.front().getType());
  if (!tile) {
    SmallVector<SmallVector<Value>> elements;
    for (Value src : srcs)
      elements.emplace_back(pack, src);
    SmallVector<Value> results;
    for (ArrayRef<Value> group : mapGroup(elements))
      results.push_back(group.front());
    return results;
  }

  int64_t size = tile.getNumElements();
  SmallVector<Value> flat, results;
  for (Value src : srcs)
    flat.push_back(flatten(rewriter, loc, src));
  for (Type type : elementTypes)
    results.push_back(tensor::EmptyOp::create(rewriter, loc,
                                              ArrayRef<int64_t>{size}, type));

  // The group at `indices` (index values, `pack` of them) of every operand
  // through `mapGroup` into `into`, `count` elements of it.
  auto mapGroupAt = [&](ArrayRef<Value> indices, int64_t count,
                        ValueRange into) {
    SmallVector<SmallVector<Value>> elements;
    for (Value src : flat) {
      SmallVector<Value> &group = elements.emplace_back();
      for (Value index : indices)
        group.push_back(tensor::ExtractOp::create(rewriter, loc, src, index));
    }
    SmallVector<SmallVector<Value>> groups = mapGroup(elements);
    SmallVector<Value> next(into);
    for (auto [result, group] : llvm::zip_equal(next, groups))
      for (int64_t j = 0; j < count; ++j)
        result = tensor::InsertOp::create(rewriter, loc, group[j], result,
                                          indices[j]);
    return next;
  };

  int64_t whole = size / pack;
  if (whole > 0) {
    auto loop = scf::ForOp::create(
        rewriter, loc, indexConstant(rewriter, loc, 0),
        indexConstant(rewriter, loc, whole), indexConstant(rewriter, loc, 1),
        results, [&](OpBuilder &b, Location l, Value group, ValueRange into) {
          // `b` is the rewriter, in the loop's body.
          Value first =
              arith::MulIOp::create(b, l, group, indexConstant(b, l, pack));
          SmallVector<Value> indices;
          for (int64_t j = 0; j < pack; ++j)
            indices.push_back(
                arith::AddIOp::create(b, l, first, indexConstant(b, l, j)));
          scf::YieldOp::create(b, l, mapGroupAt(indices, pack, into));
        });
    results = loop.getResults();
  }
  if (int64_t rest = size - whole * pack) {
    SmallVector<Value> indices;
    for (int64_t j = 0; j < rest; ++j)
      indices.push_back(indexConstant(rewriter, loc, whole * pack + j));
    // The missing elements are copies of the last.
    indices.resize(pack, indices.back());
    results = mapGroupAt(indices, rest, results);
  }
  return results;
}

/// mapElementGroups's results as values of `types` (converted): tiles
/// given their shape, scalars as they are.
static SmallVector<Value> shapeResults(OpBuilder &b, Location loc,
                                       ValueRange results, TypeRange types) {
  SmallVector<Value> shaped;
  for (auto [result, type] : llvm::zip_equal(results, types)) {
    auto tile = dyn_cast<RankedTensorType>(type);
    shaped.push_back(tile ? unflatten(b, loc, result, tile) : result);
  }
  return shaped;
}

/// A tile.map_elementwise is mapElementGroups over clones of its region.
struct MapElementwiseLowering : OpConversionPattern<MapElementwiseOp> {
  MapElementwiseLowering(const TypeConverter &converter, MLIRContext *ctx)
      : OpConversionPattern(converter, ctx) {
    // A map nested in the region is cloned with it, then lowered by this
    // pattern again: as deep as the nest.
    setHasBoundedRewriteRecursion();
  }

  LogicalResult
  matchAndRewrite(MapElementwiseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t pack = op.getPack();
    Block &body = op.getBody().front();
    SmallVector<Type> resultTypes, elementTypes;
    if (failed(getTypeConverter()->convertTypes(op.getResultTypes(),
                                                resultTypes)))
      return failure();
    for (Type type : resultTypes)
      elementTypes.push_back(getElementTypeOrSelf(type));

    // The region on one group. The clones are made in the tile dialect's
    // types (a pointer, cast from its i64 address) and converted after;
    // what they yield comes back converted.
    auto runRegion = [&](ArrayRef<SmallVector<Value>> elements) {
      IRMapping mapping;
      for (auto [i, group] : llvm::enumerate(elements))
        for (auto [j, element] : llvm::enumerate(group)) {
          BlockArgument arg = body.getArgument(i * pack + j);
          mapping.map(arg, arg.getType() == element.getType()
                               ? element
                               : UnrealizedConversionCastOp::create(
                                     rewriter, loc, arg.getType(), element)
                                     .getResult(0));
        }
      for (Operation &inner : body.without_terminator())
        rewriter.clone(inner, mapping);
      auto yield = cast<YieldOp>(body.getTerminator());
      SmallVector<SmallVector<Value>> results;
      for (int64_t r = 0, e = op.getNumResults(); r < e; ++r) {
        SmallVector<Value> &group = results.emplace_back();
        for (int64_t j = 0; j < pack; ++j)
          group.push_back(rewriter.getRemappedValue(
              mapping.lookupOrDefault(yield.getValues()[r * pack + j])));
      }
      return results;
    };

    SmallVector<Value> results = mapElementGroups(
        rewriter, loc, adaptor.getSrcs(), elementTypes, pack, runRegion);
    rewriter.replaceOp(op, shapeResults(rewriter, loc, results, resultTypes));
    return success();
  }
};

/// A tile.extern_elementwise with a `host` function is mapElementGroups
/// over one call of it per element; the function is declared in the
/// module, and the host executable resolves it from the C math library.
/// (Those without one were refused before the conversion.)
struct ExternElementwiseLowering : OpConversionPattern<ExternElementwiseOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ExternElementwiseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    std::optional<StringRef> name = op.getHostSymbol();
    if (!name)
      return failure();
    Type resultType = op.getType();
    Type elementType = getElementTypeOrSelf(resultType);
    SmallVector<Type> parameterTypes;
    for (Value src : adaptor.getSrcs())
      parameterTypes.push_back(getElementTypeOrSelf(src.getType()));
    FunctionType type = rewriter.getFunctionType(parameterTypes, elementType);

    auto module = op->getParentOfType<ModuleOp>();
    auto function = module.lookupSymbol<func::FuncOp>(*name);
    if (!function && !module.lookupSymbol(*name)) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(module.getBody());
      function = func::FuncOp::create(rewriter, loc, *name, type);
      function.setPrivate();
    }
    if (!function || !function.isExternal() ||
        function.getFunctionType() != type)
      return op.emitOpError()
             << "target host: calls '" << *name << "' as " << type
             << ", but the module already has '" << *name
             << "' as something else";

    auto callOne = [&](ArrayRef<SmallVector<Value>> elements) {
      SmallVector<Value> arguments;
      for (ArrayRef<Value> group : elements)
        arguments.push_back(group.front());
      Value result =
          func::CallOp::create(rewriter, loc, function, arguments).getResult(0);
      return SmallVector<SmallVector<Value>>{{result}};
    };
    SmallVector<Value> results = mapElementGroups(
        rewriter, loc, adaptor.getSrcs(), elementType, /*pack=*/1, callOne);
    rewriter.replaceOp(op, shapeResults(rewriter, loc, results, resultType));
    return success();
  }
};

/// Ops outside the tile dialect whose only change is a pointer type in an
/// operand or result (`arith.select` of pointers, say) are rebuilt with the
/// converted types.
struct ConvertPointerTypes : ConversionPattern {
  ConvertPointerTypes(const TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {
  }

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (op->getNumRegions() != 0 || isa<func::FuncOp, func::CallOp,
                                        func::ReturnOp>(op))
      return failure();
    FailureOr<Operation *> converted =
        convertOpResultTypes(op, operands, *getTypeConverter(), rewriter);
    if (failed(converted))
      return failure();
    rewriter.replaceOp(op, (*converted)->getResults());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct ConvertTileToHostPass
    : kiln::impl::ConvertTileToHostPassBase<ConvertTileToHostPass> {
  using ConvertTileToHostPassBase::ConvertTileToHostPassBase;

  void runOnOperation() override;
};
} // namespace

/// Adds the grid arguments to `kernel` and its launcher,
/// `<kernel>_launch(args..., grid_x, grid_y, grid_z, begin, end)`, which
/// runs the program instances with linear ids [begin, end), x fastest; a
/// launch can split the grid between threads by range.
static void addGridArgumentsAndLauncher(func::FuncOp kernel) {
  MLIRContext *ctx = kernel.getContext();
  Location loc = kernel.getLoc();
  Type i32 = IntegerType::get(ctx, 32), i64 = IntegerType::get(ctx, 64);
  unsigned numArgs = kernel.getNumArguments();
  SmallVector<unsigned> positions(kNumGridArgs, numArgs);
  SmallVector<Type> types(kNumGridArgs, i32);
  SmallVector<DictionaryAttr> attrs(kNumGridArgs);
  SmallVector<Location> locs(kNumGridArgs, loc);
  (void)kernel.insertArguments(positions, types, attrs, locs);

  // A launch plan may have declared the launcher it calls: define it here.
  std::string name = (kernel.getSymName() + "_launch").str();
  if (auto declared = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
          kernel, StringAttr::get(ctx, name)))
    declared.erase();
  OpBuilder b(kernel);
  b.setInsertionPointAfter(kernel);
  SmallVector<Type> launchTypes(
      kernel.getFunctionType().getInputs().drop_back(kNumGridArgs));
  launchTypes.append(3, i32);
  launchTypes.append(2, i64);
  auto launcher = func::FuncOp::create(b, loc, name,
                                       b.getFunctionType(launchTypes, {}));
  Block *body = launcher.addEntryBlock();
  b.setInsertionPointToStart(body);
  ValueRange grid = body->getArguments().take_back(5).take_front(3);
  Value begin = body->getArguments().take_back(2)[0];
  Value end = body->getArguments().take_back(1)[0];
  Value one = arith::ConstantIntOp::create(b, loc, 1, 64);
  SmallVector<Value> sizes;
  for (Value size : grid)
    sizes.push_back(arith::ExtUIOp::create(b, loc, i64, size));
  auto loop = scf::ForOp::create(b, loc, begin, end, one);
  b.setInsertionPointToStart(loop.getBody());
  Value id = loop.getInductionVar();
  SmallVector<Value> args(body->getArguments().drop_back(5));
  for (int axis = 0; axis < 3; ++axis) {
    Value coordinate = axis < 2 ? arith::RemUIOp::create(b, loc, id,
                                                         sizes[axis])
                                      .getResult()
                                : id;
    args.push_back(arith::TruncIOp::create(b, loc, i32, coordinate));
    if (axis < 2)
      id = arith::DivUIOp::create(b, loc, id, sizes[axis]);
  }
  args.append(grid.begin(), grid.end());
  func::CallOp::create(b, loc, kernel, args);
  b.setInsertionPointAfter(loop);
  func::ReturnOp::create(b, loc);
}

void ConvertTileToHostPass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *ctx = &getContext();

  // What the host cannot compute is reported, every instance, by name.
  bool unsupported = false;
  // 8-bit float dots were widened by tile-expand-float8.
  module.walk([&](DotOp dot) {
    if (!dot.hasFloat8Operands())
      return;
    dot.emitOpError("has 8-bit float inputs, which tile-expand-float8 "
                    "widens first");
    unsupported = true;
  });
  // PTX is not code for the CPU.
  module.walk([&](InlineAsmElementwiseOp op) {
    op.emitError("inline PTX assembly (tile.inline_asm_elementwise) runs on "
                 "the GPU target only");
    unsupported = true;
  });
  // A libdevice function runs on the host only through the C math
  // library's function of the same computation, which the op names.
  module.walk([&](ExternElementwiseOp op) {
    if (op.getHostSymbol())
      return;
    op.emitError() << op.getSymbol()
                   << " has no host implementation (no C math library "
                      "function): it runs on the GPU target only";
    unsupported = true;
  });
  // The GPU passes' ops (shared memory, barriers, TMA) are below the tile
  // level the host runs.
  module.walk([&](Operation *op) {
    if (!isa_and_present<kiln::tilegpu::TileGPUDialect>(op->getDialect()))
      return;
    op->emitOpError("is GPU-level IR (made by the GPU passes), which the "
                    "host target does not run");
    unsupported = true;
  });
  if (unsupported)
    return signalPassFailure();

  if (!module.getOps<func::FuncOp>().empty() &&
      module
          .walk([](Operation *op) {
            return isa<AtomicRMWOp, AtomicCASOp>(op) ? WalkResult::interrupt()
                                                     : WalkResult::advance();
          })
          .wasInterrupted()) {
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    for (StringRef name : {kLockFunction, kUnlockFunction})
      func::FuncOp::create(b, module.getLoc(), name, b.getFunctionType({}, {}))
          .setPrivate();
  }

  bool debugs = module
                    .walk([](Operation *op) {
                      return isa<PrintOp, AssertOp>(op)
                                 ? WalkResult::interrupt()
                                 : WalkResult::advance();
                    })
                    .wasInterrupted();
  if (debugs)
    declareDebugFunctions(module);

  SmallVector<func::FuncOp> kernels;
  for (auto func : module.getOps<func::FuncOp>()) {
    // Launch plans (kiln-tile) are host code that calls launchers.
    if (func.isExternal() || kiln::plan::isPlan(func))
      continue;
    if (func.getNumResults() != 0) {
      func.emitError("a tile kernel returns nothing, but '")
          << func.getSymName() << "' returns " << func.getNumResults()
          << " value(s)";
      return signalPassFailure();
    }
    kernels.push_back(func);
  }
  for (func::FuncOp kernel : kernels)
    addGridArgumentsAndLauncher(kernel);

  TypeConverter converter;
  converter.addConversion([](Type type) { return type; });
  converter.addConversion([](PointerType type) -> Type {
    return IntegerType::get(type.getContext(), 64);
  });
  converter.addConversion(
      [](BlockPointerType type) -> Type { return blockPointerStorage(type); });
  converter.addConversion([&](RankedTensorType type) -> Type {
    return type.clone(converter.convertType(type.getElementType()));
  });

  ConversionTarget target(*ctx);
  target.addIllegalDialect<TileDialect>();
  target.addLegalDialect<LLVM::LLVMDialect>();
  // tile.map_elementwise's lowering casts an i64 address to the pointer
  // its region's clones take, until they are converted.
  target.addLegalOp<UnrealizedConversionCastOp>();
  target.markUnknownOpDynamicallyLegal(
      [&](Operation *op) { return converter.isLegal(op); });
  target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp func) {
    return converter.isSignatureLegal(func.getFunctionType()) &&
           converter.isLegal(&func.getBody());
  });
  RewritePatternSet patterns(ctx);
  patterns.add<GridQueryLowering<ProgramIdOp, 0>,
               GridQueryLowering<NumProgramsOp, 3>, RangeLowering,
               SplatLowering, BroadcastLowering, ExpandDimsLowering,
               ReshapeLowering, TransLowering, GatherLowering, AddPtrLowering,
               ForwardSource<PtrToIntOp>, ForwardSource<IntToPtrOp>,
               ForwardSource<PtrCastOp>, ForwardSource<AssumeOp>, MakeBlockPtrLowering,
               AdvanceLowering, DotLowering, ReduceLowering, ScanLowering,
               MapElementwiseLowering, ExternElementwiseLowering,
               BarrierLowering, ConvertPointerTypes>(
      converter, ctx);
  std::optional<AccessChecker> checker;
  if (boundsCheck)
    checker.emplace(module);
  AccessChecker *checkerPtr = checker ? &*checker : nullptr;
  patterns.add<LoadLowering, StoreLowering, AtomicRMWLowering,
               AtomicCASLowering,
               BlockLoadLowering, BlockStoreLowering>(converter, ctx,
                                                      checkerPtr);
  DebugSites debugSites;
  patterns.add<PrintLowering, AssertLowering>(converter, ctx, &debugSites);
  populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                 converter);
  populateCallOpTypeConversionPattern(patterns, converter);
  populateReturnOpTypeConversionPattern(patterns, converter);
  scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                       target);
  if (failed(applyPartialConversion(module, target, std::move(patterns))))
    return signalPassFailure();
  if (checker)
    module->setAttr(kAccessSitesAttr, checker->sites(ctx));
  if (debugs)
    module->setAttr(kDebugSitesAttr, debugSites.attr(ctx));
}
