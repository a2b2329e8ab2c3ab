//===- Float8ToNVVM.cpp - 8-bit float conversions on sm_89's cvt ----------===//
//
// From sm_89 on, PTX converts pairs of e4m3 and e5m2 values in one
// instruction each way: cvt.rn.f16x2.e4m3x2 widens two codes exactly, and
// cvt.rn.satfinite.e4m3x2.f32 narrows two floats, rounding to nearest even
// and saturating to the largest finite value, NaN to NaN, as Triton emits
// them and as tile-expand-float8 computes with integer ops on older chips.
// This pass, run before tile-expand-float8 for those chips, takes the
// conversions it can; the rest (other 8-bit formats) stay for it.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kiln {
#define GEN_PASS_DEF_FLOAT8TONVVMPASS
#include "kiln/Conversion/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

/// Whether cvt converts `type`: e4m3 (`f8E4M3FN`) or e5m2.
bool isConvertible(Type type) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(type);
}

/// Whether `type` is a scalar or a 1-D vector: what this pass takes.
bool isScalarOrVector(Type type) {
  if (auto vector = dyn_cast<VectorType>(type))
    return vector.getRank() == 1 && !vector.isScalable();
  return isa<FloatType>(type);
}

/// `value` (a scalar or a 1-D vector) as vectors of two: its elements in
/// order, an odd count's last one paired with itself.
SmallVector<Value> splitIntoPairs(PatternRewriter &rewriter, Location loc,
                                  Value value) {
  auto vector = dyn_cast<VectorType>(value.getType());
  if (!vector)
    return {vector::FromElementsOp::create(
        rewriter, loc, VectorType::get({2}, value.getType()),
        ValueRange{value, value})};
  SmallVector<Value> pairs;
  int64_t count = vector.getNumElements();
  for (int64_t i = 0; i < count; i += 2)
    pairs.push_back(vector::ShuffleOp::create(
        rewriter, loc, value, value,
        ArrayRef<int64_t>{i, std::min(i + 1, count - 1)}));
  return pairs;
}

/// The value of `type` (a scalar or a 1-D vector) whose elements are the
/// `pairs`' in order (splitIntoPairs' inverse).
Value joinPairs(PatternRewriter &rewriter, Location loc, Type type,
                ArrayRef<Value> pairs) {
  auto vector = dyn_cast<VectorType>(type);
  if (!vector)
    return vector::ExtractOp::create(rewriter, loc, pairs.front(), 0);
  SmallVector<Value> elements;
  for (Value pair : pairs)
    for (int64_t i = 0; i < 2; ++i)
      elements.push_back(vector::ExtractOp::create(rewriter, loc, pair, i));
  elements.resize(vector.getNumElements());
  return vector::FromElementsOp::create(rewriter, loc, vector, elements);
}

/// `pair` (a vector of two floats) converted to `element`s: exactly where
/// it widens (f16 to bf16 through f32: 8-bit values fit both), rounded
/// where it narrows (f64 to f32).
Value convertPair(PatternRewriter &rewriter, Location loc, Value pair,
                  Type element) {
  auto type = cast<VectorType>(pair.getType());
  Type from = type.getElementType();
  if (from == element)
    return pair;
  if (from.getIntOrFloatBitWidth() == element.getIntOrFloatBitWidth())
    return convertPair(rewriter, loc,
                       convertPair(rewriter, loc, pair, rewriter.getF32Type()),
                       element);
  if (from.getIntOrFloatBitWidth() < element.getIntOrFloatBitWidth())
    return arith::ExtFOp::create(rewriter, loc, type.clone(element), pair);
  return arith::TruncFOp::create(rewriter, loc, type.clone(element), pair);
}

/// arith.extf of e4m3 or e5m2: cvt.rn.f16x2 on each pair of codes, then
/// the f16 converted to the result type (exactly: 8-bit values fit f32,
/// bf16 and f64 as they fit f16).
struct WidenFloat8 : OpRewritePattern<arith::ExtFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::ExtFOp op,
                                PatternRewriter &rewriter) const override {
    Type from = getElementTypeOrSelf(op.getIn().getType());
    if (!isConvertible(from) || !isScalarOrVector(op.getType()))
      return failure();
    Location loc = op.getLoc();
    Type i8 = rewriter.getI8Type();
    auto halves = VectorType::get({2}, rewriter.getF16Type());
    Type result = getElementTypeOrSelf(op.getType());
    // The codes as bytes (what the back end holds them as) from the start.
    auto vector = dyn_cast<VectorType>(op.getType());
    Value bytes = arith::BitcastOp::create(
        rewriter, loc, vector ? Type(vector.clone(i8)) : i8, op.getIn());
    SmallVector<Value> pairs;
    for (Value codes : splitIntoPairs(rewriter, loc, bytes)) {
      Value wide = NVVM::ConvertF8x2ToF16x2Op::create(
          rewriter, loc, halves, codes, /*relu=*/false, from);
      pairs.push_back(convertPair(rewriter, loc, wide, result));
    }
    rewriter.replaceOp(op, joinPairs(rewriter, loc, op.getType(), pairs));
    return success();
  }
};

/// arith.truncf to e4m3 or e5m2: the value in f32 (exact from f16 and
/// bf16; f64 rounds to f32 first, as tile-expand-float8 does), then
/// cvt.rn.satfinite on each pair.
struct NarrowToFloat8 : OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::TruncFOp op,
                                PatternRewriter &rewriter) const override {
    Type to = getElementTypeOrSelf(op.getType());
    if (!isConvertible(to) || !isScalarOrVector(op.getType()))
      return failure();
    Location loc = op.getLoc();
    Type i8 = rewriter.getI8Type(), i16 = rewriter.getI16Type();
    auto vector = dyn_cast<VectorType>(op.getType());
    // An even count of codes is made of the pairs as 16-bit words (each
    // cvt's own result), which the back end moves into place whole.
    bool asWords = vector && vector.getNumElements() % 2 == 0;
    Type pairType = asWords ? i16 : VectorType::get({2}, i8);
    SmallVector<Value> pairs;
    for (Value values : splitIntoPairs(rewriter, loc, op.getIn())) {
      Value wide = convertPair(rewriter, loc, values, rewriter.getF32Type());
      // The first operand's code is the pair's high byte: element 1.
      pairs.push_back(NVVM::ConvertF32x2ToF8x2Op::create(
          rewriter, loc, pairType,
          vector::ExtractOp::create(rewriter, loc, wide, 1),
          vector::ExtractOp::create(rewriter, loc, wide, 0),
          NVVM::FPRoundingMode::RN, NVVM::SaturationMode::SATFINITE,
          /*relu=*/false, to));
    }
    Type codesType = vector ? Type(vector.clone(i8)) : i8;
    Value codes =
        asWords ? Value(vector::BitCastOp::create(
                      rewriter, loc, codesType,
                      vector::FromElementsOp::create(
                          rewriter, loc,
                          VectorType::get({vector.getNumElements() / 2}, i16),
                          pairs)))
                : joinPairs(rewriter, loc, codesType, pairs);
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, op.getType(), codes);
    return success();
  }
};

struct Float8ToNVVMPass : kiln::impl::Float8ToNVVMPassBase<Float8ToNVVMPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<WidenFloat8, NarrowToFloat8>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
