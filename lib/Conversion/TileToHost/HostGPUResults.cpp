//===- HostGPUResults.cpp - The GPU's results where LLVM leaves them open -===//

#include "kiln/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace kiln {
#define GEN_PASS_DEF_HOSTGPURESULTSPASS
#include "kiln/Conversion/Passes.h.inc"
} // namespace kiln

using namespace mlir;

/// Points the uses `value` has now at what `replace` builds after it (which
/// may use `value` itself).
static void replaceUses(Value value, function_ref<Value(OpBuilder &)> replace) {
  SmallVector<OpOperand *> uses;
  for (OpOperand &use : value.getUses())
    uses.push_back(&use);
  OpBuilder b(value.getContext());
  b.setInsertionPointAfterValue(value);
  Value replacement = replace(b);
  for (OpOperand *use : uses)
    use->set(replacement);
}

/// A shift whose amount is not a constant below the width: PTX's `shl` and
/// `shr` clamp the amount, read unsigned, to the width.
static void clampShift(Operation *op) {
  Value amount = op->getOperand(1);
  auto integer = dyn_cast<IntegerType>(getElementTypeOrSelf(amount));
  if (!integer) // index shifts are the compiler's own, in range
    return;
  unsigned width = integer.getWidth();
  APInt known;
  if (matchPattern(amount, m_ConstantInt(&known)) && known.ult(width))
    return;
  OpBuilder b(op);
  Location loc = op->getLoc();
  Type type = amount.getType();
  Value inRange = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ult, amount,
      createScalarOrSplatConstant(b, loc, type, APInt(width, width)));
  if (isa<arith::ShRSIOp>(op)) {
    // Past the width, the sign fills every bit: a shift by width - 1.
    op->setOperand(
        1, arith::SelectOp::create(b, loc, inRange, amount,
                                   createScalarOrSplatConstant(
                                       b, loc, type, APInt(width, width - 1))));
    return;
  }
  replaceUses(op->getResult(0), [&](OpBuilder &after) -> Value {
    return arith::SelectOp::create(
        after, loc, inRange, op->getResult(0),
        createScalarOrSplatConstant(after, loc, type, APInt::getZero(width)));
  });
}

/// A float-to-integer conversion to fewer than 16 bits as the GPU computes
/// it: PTX has no narrower registers, so `cvt.rzi` converts to 16 bits,
/// saturating there, and the low bits are kept (190.5 is -66 as an i8).
/// Returns the 16-bit conversion, which `op` becomes.
static Operation *convertThroughSixteenBits(Operation *op) {
  OpBuilder b(op);
  Type narrow = op->getResult(0).getType();
  Type wide = b.getI16Type();
  if (auto shaped = dyn_cast<ShapedType>(narrow))
    wide = shaped.clone(wide);
  Operation *conversion = b.clone(*op);
  conversion->getResult(0).setType(wide);
  op->getResult(0).replaceAllUsesWith(arith::TruncIOp::create(
      b, op->getLoc(), narrow, conversion->getResult(0)));
  op->erase();
  return conversion;
}

/// A float-to-integer conversion as `cvt.rzi` computes it: a NaN is 0, and
/// a value past the integer's range its nearest end.
static void saturateConversion(Operation *op, bool isSigned) {
  if (getElementTypeOrSelf(op->getResult(0).getType()).getIntOrFloatBitWidth() <
      16)
    op = convertThroughSixteenBits(op);
  OpBuilder b(op);
  Location loc = op->getLoc();
  Value input = op->getOperand(0);
  Type resultType = op->getResult(0).getType();
  // Compared in float32 at least, where the range's ends, powers of two,
  // are exact.
  auto floatType = cast<FloatType>(getElementTypeOrSelf(input));
  if (floatType.getWidth() < 32) {
    floatType = b.getF32Type();
    Type wide = floatType;
    if (auto shaped = dyn_cast<ShapedType>(input.getType()))
      wide = shaped.clone(floatType);
    input = arith::ExtFOp::create(b, loc, wide, input);
  }
  unsigned width = getElementTypeOrSelf(resultType).getIntOrFloatBitWidth();
  auto powerOfTwo = [&](int exponent, bool negative) {
    APFloat power = APFloat::getOne(floatType.getFloatSemantics(), negative);
    power = scalbn(power, exponent, APFloat::rmNearestTiesToEven);
    return createScalarOrSplatConstant(b, loc, input.getType(), power);
  };
  // [-2^(width - 1), 2^(width - 1)) signed, [0, 2^width) unsigned.
  int topExponent = isSigned ? width - 1 : width;
  Value atOrPastTop =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, input,
                            powerOfTwo(topExponent, /*negative=*/false));
  Value bottom = isSigned
                     ? powerOfTwo(width - 1, /*negative=*/true)
                     : createScalarOrSplatConstant(
                           b, loc, input.getType(),
                           APFloat::getZero(floatType.getFloatSemantics()));
  Value belowBottom =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, input, bottom);
  Value isNan =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, input, input);
  APInt low = isSigned ? APInt::getSignedMinValue(width) : APInt(width, 0);
  APInt high =
      isSigned ? APInt::getSignedMaxValue(width) : APInt::getMaxValue(width);
  replaceUses(op->getResult(0), [&](OpBuilder &after) -> Value {
    Value result = arith::SelectOp::create(
        after, loc, belowBottom,
        createScalarOrSplatConstant(after, loc, resultType, low),
        op->getResult(0));
    result = arith::SelectOp::create(
        after, loc, atOrPastTop,
        createScalarOrSplatConstant(after, loc, resultType, high), result);
    return arith::SelectOp::create(
        after, loc, isNan,
        createScalarOrSplatConstant(after, loc, resultType,
                                    APInt::getZero(width)),
        result);
  });
}

/// A float maximum or minimum as PTX's `max`/`min` computes it: of equal
/// operands (+0 and -0 among them), the bits of both and-ed for a maximum
/// (+0 where either is) and or-ed for a minimum (-0 where either is).
static void orderZeros(Operation *op, bool maximum) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  Type type = lhs.getType();
  Type bits =
      b.getIntegerType(getElementTypeOrSelf(type).getIntOrFloatBitWidth());
  if (auto shaped = dyn_cast<ShapedType>(type))
    bits = shaped.clone(bits);
  Value equal =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, lhs, rhs);
  Value lhsBits = arith::BitcastOp::create(b, loc, bits, lhs);
  Value rhsBits = arith::BitcastOp::create(b, loc, bits, rhs);
  Value both = maximum ? Value(arith::AndIOp::create(b, loc, lhsBits, rhsBits))
                       : Value(arith::OrIOp::create(b, loc, lhsBits, rhsBits));
  Value ordered = arith::BitcastOp::create(b, loc, type, both);
  replaceUses(op->getResult(0), [&](OpBuilder &after) -> Value {
    return arith::SelectOp::create(after, loc, equal, ordered,
                                   op->getResult(0));
  });
}

namespace {

struct HostGPUResultsPass
    : kiln::impl::HostGPUResultsPassBase<HostGPUResultsPass> {
  void runOnOperation() override {
    SmallVector<Operation *> shifts, conversions, extrema;
    getOperation().walk([&](Operation *op) {
      if (isa<arith::ShLIOp, arith::ShRUIOp, arith::ShRSIOp>(op))
        shifts.push_back(op);
      else if (isa<arith::FPToSIOp, arith::FPToUIOp>(op))
        conversions.push_back(op);
      else if (isa<arith::MaxNumFOp, arith::MinNumFOp, arith::MaximumFOp,
                   arith::MinimumFOp>(op))
        extrema.push_back(op);
    });
    for (Operation *op : shifts)
      clampShift(op);
    for (Operation *op : conversions)
      saturateConversion(op, isa<arith::FPToSIOp>(op));
    for (Operation *op : extrema)
      orderZeros(op, isa<arith::MaxNumFOp, arith::MaximumFOp>(op));
  }
};

} // namespace
