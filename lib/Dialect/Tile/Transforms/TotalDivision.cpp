//===- TotalDivision.cpp - Integer division defined for every divisor -----===//
//
// Front ends emit plain arith.divsi / remsi (as Triton does), which the
// GPU's axis analysis reads; this pass, run by each target after its
// analyses, makes them total: x / 0 and x % 0 are 0, and the lowest value
// divided by -1 is itself, where a CPU would trap.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define DEBUG_TYPE "tile-total-division"

namespace kiln::tile {
#define GEN_PASS_DEF_TILETOTALDIVISIONPASS
#include "kiln/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace kiln::tile

using namespace mlir;

/// Bits of the integers `type` holds (index as 64).
static unsigned bitWidth(Type type) {
  Type element = getElementTypeOrSelf(type);
  return isa<IndexType>(element) ? 64 : element.getIntOrFloatBitWidth();
}

/// Whether a division by `divisor` is defined for every dividend: a
/// constant other than 0 (and, when `isSigned`, other than -1).
static bool isSafeDivisor(Value divisor, bool isSigned) {
  APInt value;
  if (!matchPattern(divisor, m_ConstantInt(&value)))
    return false;
  return !value.isZero() && !(isSigned && value.isAllOnes());
}

/// Rewrites `op` (lhs / rhs or lhs % rhs) to its total form.
static void makeTotal(Operation *op, bool isSigned, bool isRemainder) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  Type type = rhs.getType();
  auto constant = [&](const APInt &value) {
    return createScalarOrSplatConstant(b, loc, type, value);
  };
  auto equal = [&](Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, y);
  };
  unsigned width = bitWidth(type);
  Value zero = constant(APInt::getZero(width));
  Value one = constant(APInt(width, 1));
  Value byZero = equal(rhs, zero);
  Value undefined = byZero;
  if (isSigned) {
    Value lowest = constant(APInt::getSignedMinValue(width));
    Value minusOne = constant(APInt::getAllOnes(width));
    Value isLowest = equal(lhs, lowest);
    Value byMinusOne = equal(rhs, minusOne);
    Value wraps = arith::AndIOp::create(b, loc, isLowest, byMinusOne);
    undefined = arith::OrIOp::create(b, loc, byZero, wraps);
  }
  Value safe = arith::SelectOp::create(b, loc, undefined, one, rhs);
  op->setOperand(1, safe);
  // x % 1 is 0 as wanted; x / 1 is right for the lowest value / -1 only.
  if (isRemainder)
    return;
  b.setInsertionPointAfter(op);
  Value result = op->getResult(0);
  auto total = arith::SelectOp::create(b, loc, byZero, zero, result);
  result.replaceAllUsesExcept(total, total);
}

bool kiln::tile::canSpeculate(Operation *op) {
  return isPure(op) ||
         (isa<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp>(
              op) &&
          isMemoryEffectFree(op));
}

namespace {
struct TileTotalDivisionPass
    : kiln::tile::impl::TileTotalDivisionPassBase<TileTotalDivisionPass> {
  void runOnOperation() override {
    SmallVector<std::tuple<Operation *, bool, bool>> divisions;
    getOperation().walk([&](Operation *op) {
      bool isSigned = isa<arith::DivSIOp, arith::RemSIOp>(op);
      bool isRemainder = isa<arith::RemSIOp, arith::RemUIOp>(op);
      if (isa<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp>(
              op) &&
          !isSafeDivisor(op->getOperand(1), isSigned))
        divisions.emplace_back(op, isSigned, isRemainder);
    });
    for (auto [op, isSigned, isRemainder] : divisions)
      makeTotal(op, isSigned, isRemainder);
  }
};
} // namespace
