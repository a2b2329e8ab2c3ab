//===- ApproximateMathToNVVM.cpp - Triton's f32 division and exp ---------===//
//
// Triton's float32 `/` is PTX's div.full.f32, its `exp` is ex2.approx of
// x * log2(e), its `%` x - trunc(x / y) * y, its `sqrt` sqrt.approx and
// its `sqrt_rn` sqrt.rn; the front
// end marks the approximate ones with fastmath flags, and this pass gives
// each exactly its instruction, so that a kernel ported from Triton
// computes what Triton computes (and assembles as quickly: ptxas expands
// div.rn and libdevice's expf into long sequences). Its minimum, maximum
// and fma are LLVM's intrinsics and its abs clears the sign bit: they
// keep subnormals where libdevice, linked as Triton links it, would flush
// them.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <limits>

namespace kiln {
#define GEN_PASS_DEF_APPROXIMATEMATHTONVVMPASS
#include "kiln/Conversion/Passes.h.inc"
} // namespace kiln

using namespace mlir;

/// log2(e) rounded to f32, the factor Triton's exp multiplies by.
static constexpr float kLog2E = 1.44269504088896341f;

/// Whether `type` is f32 or a vector of f32.
static bool isF32(Type type) {
  return getElementTypeOrSelf(type).isF32();
}

/// Whether `op` (with fastmath flags) is f32 marked `afn`: Triton's
/// approximation of it.
template <typename OpTy> static bool isApproximateF32(OpTy op) {
  return isF32(op.getType()) &&
         bitEnumContainsAll(op.getFastmath(), arith::FastMathFlags::afn);
}

/// `compute` applied to each f32 element of `operands` (scalars or vectors
/// of one shape), reassembled into the type of the first.
static Value
elementwise(PatternRewriter &rewriter, Location loc, ValueRange operands,
            llvm::function_ref<Value(ValueRange)> compute) {
  auto vector = dyn_cast<VectorType>(operands.front().getType());
  if (!vector)
    return compute(operands);
  Value result = arith::ConstantOp::create(
      rewriter, loc, vector, rewriter.getZeroAttr(vector));
  SmallVector<int64_t> strides = computeStrides(vector.getShape());
  for (int64_t i = 0, e = vector.getNumElements(); i < e; ++i) {
    SmallVector<int64_t> position = delinearize(i, strides);
    SmallVector<Value> elements;
    for (Value operand : operands)
      elements.push_back(
          vector::ExtractOp::create(rewriter, loc, operand, position));
    result = vector::InsertOp::create(rewriter, loc, compute(elements), result,
                                      position);
  }
  return result;
}

/// A call of the NVVM intrinsic `name` on f32 operands.
static Value callIntrinsic(PatternRewriter &rewriter, Location loc,
                           StringRef name, ValueRange operands) {
  return LLVM::CallIntrinsicOp::create(rewriter, loc, rewriter.getF32Type(),
                                       rewriter.getStringAttr(name), operands)
      .getResult(0);
}

namespace {
/// f32 division marked `arcp` (Triton's `/`) or `afn` (`fdiv(approx=)`).
struct ApproximateDivision : OpRewritePattern<arith::DivFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::DivFOp op,
                                PatternRewriter &rewriter) const override {
    arith::FastMathFlags flags = op.getFastmath();
    bool approx = bitEnumContainsAll(flags, arith::FastMathFlags::afn);
    bool full = bitEnumContainsAll(flags, arith::FastMathFlags::arcp);
    if (!isF32(op.getType()) || (!approx && !full))
      return failure();
    StringRef intrinsic =
        approx ? "llvm.nvvm.div.approx.f" : "llvm.nvvm.div.full";
    rewriter.replaceOp(
        op, elementwise(rewriter, op.getLoc(), op->getOperands(),
                        [&](ValueRange pair) {
                          return callIntrinsic(rewriter, op.getLoc(),
                                               intrinsic, pair);
                        }));
    return success();
  }
};

/// f32 exp marked `afn` (Triton's `exp`): ex2.approx(x * log2(e)).
struct ApproximateExp : OpRewritePattern<math::ExpOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::ExpOp op,
                                PatternRewriter &rewriter) const override {
    if (!isApproximateF32(op))
      return failure();
    Location loc = op.getLoc();
    Value log2e = arith::ConstantOp::create(rewriter, loc,
                                            rewriter.getF32FloatAttr(kLog2E));
    rewriter.replaceOp(
        op, elementwise(rewriter, loc, op.getOperand(), [&](ValueRange x) {
          Value scaled = arith::MulFOp::create(rewriter, loc, x.front(), log2e);
          return callIntrinsic(rewriter, loc, "llvm.nvvm.ex2.approx.f32",
                               scaled);
        }));
    return success();
  }
};

/// f32 square root without `afn` (`sqrt_rn`, and MLIR's own math.sqrt):
/// correctly rounded (sqrt.rn), where libdevice's __nv_sqrtf approximates.
struct PreciseSqrt : OpRewritePattern<math::SqrtOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::SqrtOp op,
                                PatternRewriter &rewriter) const override {
    if (!isF32(op.getType()) ||
        bitEnumContainsAll(op.getFastmath(), arith::FastMathFlags::afn))
      return failure();
    rewriter.replaceOp(
        op, elementwise(rewriter, op.getLoc(), op.getOperand(),
                        [&](ValueRange x) {
                          return callIntrinsic(rewriter, op.getLoc(),
                                               "llvm.nvvm.sqrt.rn.f", x);
                        }));
    return success();
  }
};

/// f32 or f64 remainder marked `afn` (Triton's `%`): x - trunc(x / y) *
/// y, with a correctly rounded quotient, and x where y is infinite: what
/// LLVM's NVPTX back end makes of Triton's `frem` (div.rn, cvt.rzi, fma, a
/// test for infinity), where libdevice's fmod is exact.
struct ApproximateRemainder : OpRewritePattern<arith::RemFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::RemFOp op,
                                PatternRewriter &rewriter) const override {
    auto floatType = dyn_cast<FloatType>(getElementTypeOrSelf(op.getType()));
    if (!floatType || !(floatType.isF32() || floatType.isF64()) ||
        !bitEnumContainsAll(op.getFastmath(), arith::FastMathFlags::afn))
      return failure();
    Location loc = op.getLoc();
    Value x = op.getLhs(), y = op.getRhs();
    Value quotient = arith::DivFOp::create(rewriter, loc, x, y);
    Value truncated = math::TruncOp::create(rewriter, loc, quotient);
    Value product = arith::MulFOp::create(rewriter, loc, truncated, y);
    Value difference = arith::SubFOp::create(rewriter, loc, x, product);
    // |y| == inf (math.isinf would call libdevice, which may flush y).
    TypedAttr infinity = rewriter.getFloatAttr(
        floatType, APFloat::getInf(floatType.getFloatSemantics()));
    if (auto vector = dyn_cast<VectorType>(op.getType()))
      infinity = DenseElementsAttr::get(vector, infinity);
    Value magnitude = math::AbsFOp::create(rewriter, loc, y);
    Value infinite = arith::CmpFOp::create(
        rewriter, loc, arith::CmpFPredicate::OEQ, magnitude,
        arith::ConstantOp::create(rewriter, loc, infinity));
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, infinite, x, difference);
    return success();
  }
};

/// A float op Triton lowers to LLVM's intrinsic `IntrinsicOp` (of any
/// float type, vectors included), not to libdevice: libdevice, linked
/// flushing subnormals, would flush them here too.
template <typename SourceOp, typename IntrinsicOp>
struct AsLLVMIntrinsic : OpRewritePattern<SourceOp> {
  using OpRewritePattern<SourceOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(SourceOp op,
                                PatternRewriter &rewriter) const override {
    if (!isa<FloatType>(getElementTypeOrSelf(op.getType())))
      return failure();
    rewriter.replaceOpWithNewOp<IntrinsicOp>(op, op.getType(),
                                             op->getOperands());
    return success();
  }
};

/// A float's absolute value as its bits with the sign cleared, as Triton
/// computes `tl.abs` (upstream would call libdevice's __nv_fabsf, which,
/// linked flushing subnormals, flushes them).
struct AbsoluteValueAsBits : OpRewritePattern<math::AbsFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::AbsFOp op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    unsigned width = getElementTypeOrSelf(type).getIntOrFloatBitWidth();
    Type bits = rewriter.getIntegerType(width);
    if (auto vector = dyn_cast<VectorType>(type))
      bits = vector.clone(bits);
    Location loc = op.getLoc();
    TypedAttr magnitude = rewriter.getIntegerAttr(
        getElementTypeOrSelf(bits), APInt::getSignedMaxValue(width));
    if (auto vector = dyn_cast<VectorType>(bits))
      magnitude = DenseElementsAttr::get(vector, magnitude);
    Value mask = arith::ConstantOp::create(rewriter, loc, magnitude);
    Value cleared = arith::AndIOp::create(
        rewriter, loc,
        arith::BitcastOp::create(rewriter, loc, bits, op.getOperand()), mask);
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, type, cleared);
    return success();
  }
};

struct ApproximateMathToNVVMPass
    : kiln::impl::ApproximateMathToNVVMPassBase<ApproximateMathToNVVMPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<
        ApproximateDivision, ApproximateExp, PreciseSqrt, ApproximateRemainder,
        AsLLVMIntrinsic<arith::MaxNumFOp, LLVM::MaxNumOp>,
        AsLLVMIntrinsic<arith::MinNumFOp, LLVM::MinNumOp>,
        AsLLVMIntrinsic<math::FmaOp, LLVM::FMAOp>, AbsoluteValueAsBits>(
        &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
