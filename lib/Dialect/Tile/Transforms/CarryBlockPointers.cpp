//===- CarryBlockPointers.cpp - Block pointers as loop-carried values -----===//
//
// A block pointer made in a loop at offsets affine in the induction
// variable (Triton's `desc.load([m, k * BLOCK_K])`) becomes one made before
// the loop and advanced by it, the form the pipeliner and TMA take.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Tile/IR/TileDialect.h"
#include "kiln/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#define DEBUG_TYPE "tile-carry-block-pointers"

namespace kiln::tile {
#define GEN_PASS_DEF_TILECARRYBLOCKPOINTERSPASS
#include "kiln/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace kiln::tile

using namespace mlir;
using namespace kiln::tile;

/// The constant c with `value` = (a loop-invariant value) + iv * c, where
/// what `value` computes in `loop` is sums, differences and products by
/// constants; none otherwise.
static std::optional<int64_t> getIVCoefficient(Value value, scf::ForOp loop) {
  if (value == loop.getInductionVar())
    return 1;
  if (loop.isDefinedOutsideOfLoop(value))
    return 0;
  Operation *op = value.getDefiningOp();
  if (!op)
    return std::nullopt;
  if (matchPattern(value, m_Constant()))
    return 0;
  if (isa<arith::AddIOp, arith::SubIOp, arith::MulIOp>(op)) {
    std::optional<int64_t> lhs = getIVCoefficient(op->getOperand(0), loop);
    std::optional<int64_t> rhs = getIVCoefficient(op->getOperand(1), loop);
    if (!lhs || !rhs)
      return std::nullopt;
    if (isa<arith::AddIOp>(op))
      return *lhs + *rhs;
    if (isa<arith::SubIOp>(op))
      return *lhs - *rhs;
    // A product stays affine when one side is a constant.
    APInt factor;
    if (matchPattern(op->getOperand(1), m_ConstantInt(&factor)))
      return *lhs * factor.getSExtValue();
    if (matchPattern(op->getOperand(0), m_ConstantInt(&factor)))
      return *rhs * factor.getSExtValue();
    if (*lhs == 0 && *rhs == 0)
      return 0;
  }
  return std::nullopt;
}

/// `value` computed before `loop` (at the builder) with the induction
/// variable taken as `mapping` says: the ops `getIVCoefficient` read,
/// cloned.
static Value cloneBefore(OpBuilder &b, Value value, scf::ForOp loop,
                         IRMapping &mapping) {
  if (Value mapped = mapping.lookupOrNull(value))
    return mapped;
  if (loop.isDefinedOutsideOfLoop(value))
    return value;
  Operation *op = value.getDefiningOp();
  for (Value operand : op->getOperands())
    cloneBefore(b, operand, loop, mapping);
  return b.clone(*op, mapping)->getResult(0);
}

namespace {
/// A block pointer of a loop to carry, and how far each iteration moves
/// it per dimension (in steps of the loop).
struct Carried {
  MakeBlockPtrOp op;
  SmallVector<int64_t> coefficients;
};

struct TileCarryBlockPointersPass
    : kiln::tile::impl::TileCarryBlockPointersPassBase<
          TileCarryBlockPointersPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops)
      carry(loop);
  }

  void carry(scf::ForOp loop) {
    if (!loop.getInductionVar().getType().isInteger(32))
      return;
    SmallVector<Carried> carried;
    loop.getBody()->walk([&](MakeBlockPtrOp op) {
      if (op->getParentOfType<scf::ForOp>() != loop)
        return;
      auto outside = [&](Value v) { return loop.isDefinedOutsideOfLoop(v); };
      if (!outside(op.getBase()) || !llvm::all_of(op.getShape(), outside) ||
          !llvm::all_of(op.getStrides(), outside))
        return;
      Carried candidate{op, {}};
      for (Value offset : op.getOffsets()) {
        std::optional<int64_t> coefficient = getIVCoefficient(offset, loop);
        if (!coefficient)
          return;
        candidate.coefficients.push_back(*coefficient);
      }
      if (llvm::any_of(candidate.coefficients,
                       [](int64_t c) { return c != 0; }))
        carried.push_back(candidate);
    });
    if (carried.empty())
      return;

    // Each pointer at the lower bound, and each dimension's move per
    // iteration, before the loop.
    IRRewriter rewriter(loop);
    rewriter.setInsertionPoint(loop);
    Location loc = loop.getLoc();
    SmallVector<Value> inits;
    SmallVector<SmallVector<Value>> moves;
    for (Carried &c : carried) {
      IRMapping mapping;
      mapping.map(loop.getInductionVar(), loop.getLowerBound());
      SmallVector<Value> offsets;
      for (Value offset : c.op.getOffsets())
        offsets.push_back(cloneBefore(rewriter, offset, loop, mapping));
      auto start = cast<MakeBlockPtrOp>(rewriter.clone(*c.op));
      start.getOffsetsMutable().assign(offsets);
      inits.push_back(start);
      SmallVector<Value> move;
      for (int64_t coefficient : c.coefficients) {
        Value factor = arith::ConstantIntOp::create(
            rewriter, loc, rewriter.getI32Type(), coefficient);
        move.push_back(
            arith::MulIOp::create(rewriter, loc, loop.getStep(), factor));
      }
      moves.push_back(move);
    }

    FailureOr<LoopLikeOpInterface> replaced = loop.replaceWithAdditionalYields(
        rewriter, inits, /*replaceInitOperandUsesInLoop=*/false,
        [&](OpBuilder &b, Location yieldLoc,
            ArrayRef<BlockArgument> pointers) -> SmallVector<Value> {
          SmallVector<Value> next;
          for (auto [c, pointer, move] :
               llvm::zip_equal(carried, pointers, moves)) {
            c.op.replaceAllUsesWith(pointer);
            next.push_back(AdvanceOp::create(b, yieldLoc, pointer.getType(),
                                             pointer, move));
          }
          return next;
        });
    if (failed(replaced))
      return signalPassFailure();
    for (Carried &c : carried)
      c.op.erase();
  }
};
} // namespace
