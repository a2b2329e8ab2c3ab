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

/// `value`'s elements (a scalar is one).
SmallVector<Value> getElements(PatternRewriter &rewriter, Location loc,
                               Value value) {
  auto vector = dyn_cast<VectorType>(value.getType());
  if (!vector)
    return {value};
  SmallVector<Value> elements;
  for (int64_t i = 0, e = vector.getNumElements(); i < e; ++i)
    elements.push_back(vector::ExtractOp::create(rewriter, loc, value, i));
  return elements;
}

/// `elements` as a value of `type` (of their type, scalar or 1-D vector).
Value fromElements(PatternRewriter &rewriter, Location loc, Type type,
                   ArrayRef<Value> elements) {
  if (!isa<VectorType>(type))
    return elements.front();
  return vector::FromElementsOp::create(rewriter, loc, cast<VectorType>(type),
                                        elements);
}

/// Element `i` of `elements`, or element `i - 1` past the end (an odd
/// count's last pair repeats its value).
Value pairMember(ArrayRef<Value> elements, size_t i) {
  return elements[std::min(i, elements.size() - 1)];
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
    Type i8 = rewriter.getI8Type(), f16 = rewriter.getF16Type();
    auto pairOfBytes = VectorType::get({2}, i8);
    SmallVector<Value> codes;
    for (Value element : getElements(rewriter, loc, op.getIn()))
      codes.push_back(arith::BitcastOp::create(rewriter, loc, i8, element));
    SmallVector<Value> halves;
    for (size_t i = 0; i < codes.size(); i += 2) {
      Value pair = vector::FromElementsOp::create(
          rewriter, loc, pairOfBytes,
          ValueRange{codes[i], pairMember(codes, i + 1)});
      Value wide = NVVM::ConvertF8x2ToF16x2Op::create(
          rewriter, loc, VectorType::get({2}, f16), pair, /*relu=*/false, from);
      for (int64_t j = 0; j < 2 && i + j < codes.size(); ++j)
        halves.push_back(vector::ExtractOp::create(rewriter, loc, wide, j));
    }
    Type result = getElementTypeOrSelf(op.getType());
    for (Value &half : halves) {
      if (result.getIntOrFloatBitWidth() > 16)
        half = arith::ExtFOp::create(rewriter, loc, result, half);
      else if (result != f16) // bf16: through f32, exactly
        half = arith::TruncFOp::create(
            rewriter, loc, result,
            arith::ExtFOp::create(rewriter, loc, rewriter.getF32Type(), half));
    }
    rewriter.replaceOp(op, fromElements(rewriter, loc, op.getType(), halves));
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
    Type f32 = rewriter.getF32Type();
    SmallVector<Value> values;
    for (Value element : getElements(rewriter, loc, op.getIn())) {
      Type type = element.getType();
      if (type.getIntOrFloatBitWidth() > 32)
        element = arith::TruncFOp::create(rewriter, loc, f32, element);
      else if (type != f32)
        element = arith::ExtFOp::create(rewriter, loc, f32, element);
      values.push_back(element);
    }
    auto pairOfBytes = VectorType::get({2}, rewriter.getI8Type());
    SmallVector<Value> codes;
    for (size_t i = 0; i < values.size(); i += 2) {
      // The first operand's code is the pair's high byte: element 1.
      Value pair = NVVM::ConvertF32x2ToF8x2Op::create(
          rewriter, loc, pairOfBytes, pairMember(values, i + 1), values[i],
          NVVM::FPRoundingMode::RN, NVVM::SaturationMode::SATFINITE,
          /*relu=*/false, to);
      for (int64_t j = 0; j < 2 && i + j < values.size(); ++j)
        codes.push_back(arith::BitcastOp::create(
            rewriter, loc, to,
            vector::ExtractOp::create(rewriter, loc, pair, j)));
    }
    rewriter.replaceOp(op, fromElements(rewriter, loc, op.getType(), codes));
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
