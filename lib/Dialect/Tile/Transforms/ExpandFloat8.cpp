//===- ExpandFloat8.cpp - 8-bit float conversions as integer operations ---===//
//
// LLVM stores 8-bit floats as i8 but cannot convert them; this pass writes
// arith.extf and arith.truncf from and to them as integer and f32 ops,
// reading each format (bias, mantissa, NaN and infinity codes) from its
// APFloat semantics. Narrowing rounds to nearest even and saturates, as
// PTX's cvt.rn.satfinite does.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Tile/IR/TileDialect.h"
#include "kiln/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/TypeUtilities.h"

#define DEBUG_TYPE "tile-expand-float8"

namespace kiln::tile {
#define GEN_PASS_DEF_TILEEXPANDFLOAT8PASS
#include "kiln/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace kiln::tile

using namespace mlir;

namespace {

/// What the conversions need of an 8-bit float format.
struct Float8Format {
  unsigned mantissaBits; // M: the stored mantissa bits
  int bias;              // B: a stored exponent e is 2^(e - B)
  float largest;         // the largest finite value
  float smallestNormal;  // 2^(1 - B)
  uint32_t nanCode;      // the code narrowing gives NaN
  bool hasNegativeZero;  // false for the FNUZ formats, where 0x80 is NaN
  // Codes by magnitude (the low 7 bits): NaN from nanMagnitude up (with a
  // negative zero; else only 0x80), infinity at infMagnitude (or none).
  uint32_t nanMagnitude;
  std::optional<uint32_t> infMagnitude;
};

/// The format of `type`, or nothing if it is not an 8-bit float whose
/// codes are read this way (NaN codes above the finite ones).
std::optional<Float8Format> formatOf(Type type) {
  auto floatType = dyn_cast<FloatType>(type);
  if (!floatType || floatType.getWidth() != 8)
    return std::nullopt;
  const llvm::fltSemantics &semantics = floatType.getFloatSemantics();
  // A sign, a zero and a NaN (not f8E8M0FNU, a scale without either).
  if (!llvm::APFloat::semanticsHasZero(semantics) ||
      !llvm::APFloat::semanticsHasSignedRepr(semantics) ||
      !llvm::APFloat::semanticsHasNaN(semantics))
    return std::nullopt;
  Float8Format format;
  format.mantissaBits = llvm::APFloat::semanticsPrecision(semantics) - 1;
  format.bias = 1 - llvm::APFloat::semanticsMinExponent(semantics);
  bool lossy = false;
  llvm::APFloat largest = llvm::APFloat::getLargest(semantics);
  largest.convert(llvm::APFloat::IEEEsingle(),
                  llvm::APFloat::rmNearestTiesToEven, &lossy);
  format.largest = largest.convertToFloat();
  format.smallestNormal = std::ldexp(1.0f, 1 - format.bias);
  format.nanCode =
      llvm::APFloat::getQNaN(semantics).bitcastToAPInt().getZExtValue();
  format.hasNegativeZero =
      llvm::APFloat::getZero(semantics, /*Negative=*/true)
          .bitcastToAPInt()
          .getZExtValue() == 0x80;
  // The magnitudes' classes: finite ones first, then infinity, then NaNs.
  std::optional<uint32_t> firstNaN;
  for (uint32_t code = 0; code < 0x80; ++code) {
    llvm::APFloat value(semantics, llvm::APInt(8, code));
    if (value.isInfinity())
      format.infMagnitude = code;
    else if (value.isNaN() && !firstNaN)
      firstNaN = code;
    else if (!value.isNaN() && firstNaN)
      return std::nullopt; // a finite code above a NaN: another layout
  }
  if (format.hasNegativeZero != firstNaN.has_value())
    return std::nullopt;
  format.nanMagnitude = firstNaN.value_or(0x80);
  return format;
}

/// Builds the ops of one conversion on scalars or shaped values like
/// `shape` (constants are splats of its shape).
struct Builder {
  OpBuilder &b;
  Location loc;
  Type shape; // any type of the operand's shape

  Type like(Type element) const {
    if (auto shaped = dyn_cast<ShapedType>(shape))
      return shaped.clone(element);
    return element;
  }
  Value i32(uint32_t value) {
    return createScalarOrSplatConstant(b, loc, like(b.getI32Type()),
                                       llvm::APInt(32, value));
  }
  Value f32(float value) {
    return createScalarOrSplatConstant(b, loc, like(b.getF32Type()),
                                       llvm::APFloat(value));
  }
  Value cmp(arith::CmpIPredicate predicate, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, predicate, x, y);
  }
  Value select(Value condition, Value x, Value y) {
    return arith::SelectOp::create(b, loc, condition, x, y);
  }
  Value shr(Value x, uint32_t bits) {
    return arith::ShRUIOp::create(b, loc, x, i32(bits));
  }
  Value shl(Value x, uint32_t bits) {
    return arith::ShLIOp::create(b, loc, x, i32(bits));
  }
  Value mask(Value x, uint32_t bits) {
    return arith::AndIOp::create(b, loc, x, i32(bits));
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
};

/// `x` (a float of any width) converted to `target`, exactly where it
/// widens, rounding to nearest where it narrows.
Value convertFloat(OpBuilder &b, Location loc, Value x, Type target) {
  auto from = cast<FloatType>(getElementTypeOrSelf(x.getType()));
  auto to = cast<FloatType>(getElementTypeOrSelf(target));
  if (from == to)
    return x;
  if (from.getWidth() == to.getWidth()) // bf16 <-> f16: through f32
    return convertFloat(
        b, loc,
        convertFloat(b, loc, x,
                     Builder{b, loc, x.getType()}.like(b.getF32Type())),
        target);
  if (from.getWidth() < to.getWidth())
    return arith::ExtFOp::create(b, loc, target, x);
  return arith::TruncFOp::create(b, loc, target, x);
}

/// The f32 value of the 8-bit floats `x` of `format`, exactly.
Value decode(OpBuilder &b, Location loc, Value x,
             const Float8Format &format) {
  Builder k{b, loc, x.getType()};
  unsigned m = format.mantissaBits;
  Value bits = arith::BitcastOp::create(b, loc, k.like(b.getI8Type()), x);
  Value code = arith::ExtUIOp::create(b, loc, k.like(b.getI32Type()), bits);
  Value magnitude = k.mask(code, 0x7f);
  Value exponent = k.shr(magnitude, m);
  Value mantissa = k.mask(code, (1u << m) - 1);
  // A subnormal is mantissa * 2^(1 - B - M); a normal number adds the
  // implicit bit: (2^M + mantissa) * 2^(e - B - M). Both products of an
  // integer below 2^(M+1) and a power of two are exact in f32.
  Value subnormal = k.cmp(arith::CmpIPredicate::eq, exponent, k.i32(0));
  Value significand = k.select(
      subnormal, mantissa, arith::OrIOp::create(b, loc, mantissa,
                                                k.i32(1u << m)));
  Value scaleExponent = k.add(
      k.select(subnormal, k.i32(1), exponent),
      k.i32(static_cast<uint32_t>(127 - format.bias - static_cast<int>(m))));
  Value scale = arith::BitcastOp::create(b, loc, k.like(b.getF32Type()),
                                         k.shl(scaleExponent, 23));
  Value value = arith::MulFOp::create(
      b, loc,
      arith::UIToFPOp::create(b, loc, k.like(b.getF32Type()), significand),
      scale);
  if (format.infMagnitude)
    value = k.select(k.cmp(arith::CmpIPredicate::eq, magnitude,
                           k.i32(*format.infMagnitude)),
                     k.f32(std::numeric_limits<float>::infinity()), value);
  Value negative = k.cmp(arith::CmpIPredicate::ne, k.mask(code, 0x80),
                         k.i32(0));
  value = k.select(negative, arith::NegFOp::create(b, loc, value), value);
  Value isNaN = format.hasNegativeZero
                    ? k.cmp(arith::CmpIPredicate::uge, magnitude,
                            k.i32(format.nanMagnitude))
                    : k.cmp(arith::CmpIPredicate::eq, code, k.i32(0x80));
  return k.select(isNaN, k.f32(std::numeric_limits<float>::quiet_NaN()),
                  value);
}

/// How 8-bit floats widen to f16 by moving bits: the magnitude (exponent
/// and mantissa) shifted into f16's fields and the sign into f16's, then a
/// power-of-two product that rebiases the exponent, exactly for subnormals
/// too. Where that gives every code but the NaNs its value, a widening is
/// a few 16-bit integer ops and one f16 product (none for e5m2, whose
/// fields are f16's) instead of a decode through f32.
struct Float16Placement {
  unsigned shift;  // 10 - M: where the magnitude goes in f16's bits
  int scaleLog2;   // 15 - B: the product that rebiases the exponent
  bool selectsNaN; // whether some NaN code does not land on an f16 NaN
};

/// 2^`exponent` as an f16.
llvm::APFloat powerOfTwoInFloat16(int exponent) {
  return llvm::scalbn(llvm::APFloat::getOne(llvm::APFloat::IEEEhalf()),
                      exponent, llvm::APFloat::rmNearestTiesToEven);
}

/// The placement of `semantics` in f16, if every code but the NaNs gets its
/// exact value from it (checked code by code).
std::optional<Float16Placement>
getPlacementInFloat16(const llvm::fltSemantics &semantics,
                      const Float8Format &format) {
  if (format.mantissaBits > 10)
    return std::nullopt;
  Float16Placement placement{10 - format.mantissaBits, 15 - format.bias, false};
  // The scale is a normal f16: 2^-14 to 2^15.
  if (placement.scaleLog2 < -14 || placement.scaleLog2 > 15)
    return std::nullopt;
  const llvm::fltSemantics &half = llvm::APFloat::IEEEhalf();
  for (uint32_t code = 0; code < 0x100; ++code) {
    llvm::APFloat expected(semantics, llvm::APInt(8, code));
    bool lossy = false;
    expected.convert(half, llvm::APFloat::rmNearestTiesToEven, &lossy);
    llvm::APFloat placed(
        half, llvm::APInt(16, ((code & 0x80) << 8) |
                                  ((code & 0x7f) << placement.shift)));
    placed.multiply(powerOfTwoInFloat16(placement.scaleLog2),
                    llvm::APFloat::rmNearestTiesToEven);
    if (expected.isNaN())
      placement.selectsNaN |= !placed.isNaN();
    else if (lossy || !placed.bitwiseIsEqual(expected))
      return std::nullopt;
  }
  return placement;
}

/// The 8-bit codes `bits` in the high byte of 16 bits. On a vector (a
/// thread's registers on the GPU) that is an interleave with zero bytes,
/// one byte permutation (prmt) per two codes, instead of widening each.
Value inHighByte(OpBuilder &b, Location loc, Value bits, Type i16) {
  if (auto vector = dyn_cast<VectorType>(bits.getType());
      vector && vector.getRank() == 1 && !vector.isScalable()) {
    Value zeros = arith::ConstantOp::create(
        b, loc, vector, DenseElementsAttr::get(vector, b.getI8IntegerAttr(0)));
    return vector::BitCastOp::create(
        b, loc, i16, vector::InterleaveOp::create(b, loc, zeros, bits));
  }
  Value code = arith::ExtUIOp::create(b, loc, i16, bits);
  return arith::ShLIOp::create(
      b, loc, code,
      createScalarOrSplatConstant(b, loc, i16, llvm::APInt(16, 8)));
}

/// The f16 value of the 8-bit floats `x` of `format`, placed as
/// `placement` says.
Value placeInFloat16(OpBuilder &b, Location loc, Value x,
                     const Float8Format &format,
                     const Float16Placement &placement) {
  Builder k{b, loc, x.getType()};
  Type i16 = k.like(b.getI16Type());
  Type f16 = k.like(b.getF16Type());
  auto bits16 = [&](uint32_t value) {
    return createScalarOrSplatConstant(b, loc, i16, llvm::APInt(16, value));
  };
  Value bits = arith::BitcastOp::create(b, loc, k.like(b.getI8Type()), x);
  // code << 8: the sign in f16's, the magnitude to move by shift - 8.
  Value high = inHighByte(b, loc, bits, i16);
  Value magnitude;
  if (placement.shift != 8 || placement.selectsNaN)
    magnitude = arith::AndIOp::create(b, loc, high, bits16(0x7f00));
  Value word = high;
  if (placement.shift != 8) {
    Value placed = placement.shift < 8
                       ? Value(arith::ShRUIOp::create(
                             b, loc, magnitude, bits16(8 - placement.shift)))
                       : Value(arith::ShLIOp::create(
                             b, loc, magnitude, bits16(placement.shift - 8)));
    word = arith::OrIOp::create(
        b, loc, arith::AndIOp::create(b, loc, high, bits16(0x8000)), placed);
  }
  Value value = arith::BitcastOp::create(b, loc, f16, word);
  if (placement.scaleLog2 != 0)
    value = arith::MulFOp::create(
        b, loc, value,
        createScalarOrSplatConstant(b, loc, f16,
                                    powerOfTwoInFloat16(placement.scaleLog2)));
  if (!placement.selectsNaN)
    return value;
  Value isNaN = format.hasNegativeZero
                    ? k.cmp(arith::CmpIPredicate::uge, magnitude,
                            bits16(format.nanMagnitude << 8))
                    : k.cmp(arith::CmpIPredicate::eq, high, bits16(0x8000));
  return k.select(
      isNaN,
      createScalarOrSplatConstant(
          b, loc, f16, llvm::APFloat::getQNaN(llvm::APFloat::IEEEhalf())),
      value);
}

/// The 8-bit floats of `format` (as i32 codes) nearest the f32 `x`,
/// saturated to the largest finite value.
Value encode(OpBuilder &b, Location loc, Value x, const Float8Format &format) {
  Builder k{b, loc, x.getType()};
  unsigned m = format.mantissaBits;
  Value word = arith::BitcastOp::create(b, loc, k.like(b.getI32Type()), x);
  Value sign = k.shr(word, 31);
  Value absolute = math::AbsFOp::create(b, loc, x);
  // Saturate first (infinity too): the largest value is a code, so what
  // rounds below it stays at or below it.
  Value clamped = arith::MinNumFOp::create(b, loc, absolute,
                                           k.f32(format.largest));
  // Below the smallest normal, the code is the value in units of the
  // smallest subnormal, rounded; rounding up to 2^M gives the smallest
  // normal's code, as wanted.
  Value units = arith::MulFOp::create(
      b, loc, clamped,
      k.f32(std::ldexp(1.0f, format.bias + static_cast<int>(m) - 1)));
  Value small = arith::FPToUIOp::create(
      b, loc, k.like(b.getI32Type()),
      math::RoundEvenOp::create(b, loc, units));
  // Normal numbers: round the f32 mantissa to M bits (ties to even; a
  // carry moves into the exponent), then rebias the exponent.
  Value bits = arith::BitcastOp::create(b, loc, k.like(b.getI32Type()),
                                        clamped);
  Value odd = k.mask(k.shr(bits, 23 - m), 1);
  Value rounded = k.add(k.add(bits, k.i32((1u << (22 - m)) - 1)), odd);
  Value normal = k.sub(
      k.shr(rounded, 23 - m),
      k.i32(static_cast<uint32_t>(127 - format.bias) << m));
  Value isSmall = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                                        clamped,
                                        k.f32(format.smallestNormal));
  Value magnitude = k.select(isSmall, small, normal);
  Value signBit = k.shl(sign, 7);
  if (!format.hasNegativeZero) // 0x80 is NaN: zero is +0 only
    signBit = k.select(k.cmp(arith::CmpIPredicate::eq, magnitude, k.i32(0)),
                       k.i32(0), signBit);
  Value code = arith::OrIOp::create(b, loc, magnitude, signBit);
  Value isNaN =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
  return k.select(isNaN, k.i32(format.nanCode), code);
}

/// An integer conversion to or from an 8-bit float (the canonicalizer's
/// fold of one through f32) as that conversion through f32 and an
/// arith.truncf or arith.extf, which the pass then expands. An integer
/// rounds once that way: f32 holds every one up to 2^24 exactly, and past
/// every 8-bit float's range, where both ways saturate.
static void splitIntegerConversion(Operation *op) {
  if (!isa<arith::SIToFPOp, arith::UIToFPOp, arith::FPToSIOp, arith::FPToUIOp>(
          op))
    return;
  Value input = op->getOperand(0);
  Type result = op->getResult(0).getType();
  bool toFloat = isa<arith::SIToFPOp, arith::UIToFPOp>(op);
  auto floatType =
      cast<FloatType>(getElementTypeOrSelf(toFloat ? result : input.getType()));
  if (floatType.getWidth() != 8)
    return;
  OpBuilder b(op);
  Location loc = op->getLoc();
  Type f32 = Builder{b, loc, input.getType()}.like(b.getF32Type());
  if (toFloat) {
    Operation *wide = b.clone(*op);
    wide->getResult(0).setType(f32);
    op->getResult(0).replaceAllUsesWith(
        arith::TruncFOp::create(b, loc, result, wide->getResult(0)));
  } else {
    op->setOperand(0, arith::ExtFOp::create(b, loc, f32, input));
    return;
  }
  op->erase();
}

struct TileExpandFloat8Pass
    : kiln::tile::impl::TileExpandFloat8PassBase<TileExpandFloat8Pass> {
  void runOnOperation() override {
    // A target that reaches this with tile.dot (the host) multiplies 8-bit
    // floats as their f16 widenings, whose conversions follow.
    getOperation().walk([](kiln::tile::DotOp dot) {
      if (dot.hasFloat8Operands())
        dot.widenFloat8Operands();
    });
    getOperation().walk(splitIntegerConversion);
    SmallVector<Operation *> conversions;
    getOperation().walk([&](Operation *op) {
      if (isa<arith::ExtFOp, arith::TruncFOp>(op))
        conversions.push_back(op);
    });
    for (Operation *op : conversions) {
      Value input = op->getOperand(0);
      Type result = op->getResult(0).getType();
      Type from = getElementTypeOrSelf(input.getType());
      Type to = getElementTypeOrSelf(result);
      std::optional<Float8Format> source = formatOf(from);
      std::optional<Float8Format> target = formatOf(to);
      auto isFloat8 = [](Type type) {
        return isa<FloatType>(type) && cast<FloatType>(type).getWidth() == 8;
      };
      if ((isFloat8(from) && !source) || (isFloat8(to) && !target)) {
        op->emitOpError("converts an 8-bit float format this pass cannot "
                        "read");
        return signalPassFailure();
      }
      if (!source && !target)
        continue;
      OpBuilder b(op);
      Location loc = op->getLoc();
      Type f32 = Builder{b, loc, input.getType()}.like(b.getF32Type());
      Value converted;
      if (source) {
        const llvm::fltSemantics &semantics =
            cast<FloatType>(from).getFloatSemantics();
        std::optional<Float16Placement> placement =
            getPlacementInFloat16(semantics, *source);
        Value widened = placement
                            ? placeInFloat16(b, loc, input, *source, *placement)
                            : decode(b, loc, input, *source);
        converted = convertFloat(b, loc, widened, result);
      } else {
        Value code = encode(b, loc, convertFloat(b, loc, input, f32), *target);
        Builder k{b, loc, input.getType()};
        Value byte =
            arith::TruncIOp::create(b, loc, k.like(b.getI8Type()), code);
        converted = arith::BitcastOp::create(b, loc, result, byte);
      }
      op->getResult(0).replaceAllUsesWith(converted);
      op->erase();
    }
  }
};

} // namespace
