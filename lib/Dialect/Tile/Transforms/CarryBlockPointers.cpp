//===- CarryBlockPointers.cpp - Block pointers as loop-carried values -----===//
//
// A block pointer made in a loop at offsets that move by the same amount
// each iteration (Triton's `desc.load([m, k * BLOCK_K])`, or
// `desc_k.load([offset_y, 0])` with `offset_y += BLOCK_N` carried) becomes
// one made before the loop and advanced by it, the form the pipeliner and
// TMA take.
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

/// What a value the loop carries adds to itself each iteration, where it
/// is `arg + step` with `step` the same every iteration (Triton's
/// `offset_y += BLOCK_N`); null otherwise.
static Value getCarriedStep(BlockArgument arg, scf::ForOp loop) {
  if (arg.getOwner() != loop.getBody() || arg == loop.getInductionVar())
    return {};
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  auto add =
      yield.getOperand(arg.getArgNumber() - 1).getDefiningOp<arith::AddIOp>();
  if (!add)
    return {};
  Value step = add.getLhs() == arg   ? add.getRhs()
               : add.getRhs() == arg ? add.getLhs()
                                     : Value();
  if (step && (loop.isDefinedOutsideOfLoop(step) ||
               matchPattern(step, m_Constant())))
    return step;
  return {};
}

/// Whether `value` moves by the same amount each iteration of `loop`: it
/// is made of the induction variable, values the loop carries that add
/// the same step each iteration, loop invariants and constants, by sums,
/// differences and products by constants.
static bool movesLinearly(Value value, scf::ForOp loop) {
  if (value == loop.getInductionVar() || loop.isDefinedOutsideOfLoop(value) ||
      matchPattern(value, m_Constant()))
    return true;
  if (auto arg = dyn_cast<BlockArgument>(value))
    return bool(getCarriedStep(arg, loop));
  Operation *op = value.getDefiningOp();
  if (isa<arith::AddIOp, arith::SubIOp>(op))
    return movesLinearly(op->getOperand(0), loop) &&
           movesLinearly(op->getOperand(1), loop);
  if (isa<arith::MulIOp>(op))
    return (matchPattern(op->getOperand(1), m_Constant()) &&
            movesLinearly(op->getOperand(0), loop)) ||
           (matchPattern(op->getOperand(0), m_Constant()) &&
            movesLinearly(op->getOperand(1), loop));
  return false;
}

/// `value` computed before `loop` (at the builder) with the induction
/// variable and the values the loop carries taken as `mapping` says: the
/// ops `movesLinearly` read, cloned.
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

/// How far `value` (which `movesLinearly`) moves each iteration, computed
/// before `loop` (at the builder); null where it does not move.
static Value getMove(OpBuilder &b, Value value, scf::ForOp loop) {
  if (value == loop.getInductionVar())
    return loop.getStep();
  if (loop.isDefinedOutsideOfLoop(value) || matchPattern(value, m_Constant()))
    return {};
  Location loc = value.getLoc();
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    IRMapping none;
    return cloneBefore(b, getCarriedStep(arg, loop), loop, none);
  }
  Operation *op = value.getDefiningOp();
  if (isa<arith::MulIOp>(op)) {
    bool constantRhs = matchPattern(op->getOperand(1), m_Constant());
    Value move = getMove(b, op->getOperand(constantRhs ? 0 : 1), loop);
    if (!move)
      return {};
    IRMapping none;
    Value factor =
        cloneBefore(b, op->getOperand(constantRhs ? 1 : 0), loop, none);
    return arith::MulIOp::create(b, loc, move, factor);
  }
  Value lhs = getMove(b, op->getOperand(0), loop),
        rhs = getMove(b, op->getOperand(1), loop);
  if (!lhs || !rhs) {
    if (isa<arith::SubIOp>(op) && rhs)
      return arith::SubIOp::create(
          b, loc, arith::ConstantIntOp::create(b, loc, rhs.getType(), 0), rhs);
    return lhs ? lhs : rhs;
  }
  if (isa<arith::AddIOp>(op))
    return arith::AddIOp::create(b, loc, lhs, rhs);
  return arith::SubIOp::create(b, loc, lhs, rhs);
}

namespace {
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
    // The block pointers of the loop to carry.
    SmallVector<MakeBlockPtrOp> carried;
    loop.getBody()->walk([&](MakeBlockPtrOp op) {
      if (op->getParentOfType<scf::ForOp>() != loop)
        return;
      auto outside = [&](Value v) { return loop.isDefinedOutsideOfLoop(v); };
      if (!outside(op.getBase()) || !llvm::all_of(op.getShape(), outside) ||
          !llvm::all_of(op.getStrides(), outside))
        return;
      if (llvm::all_of(op.getOffsets(),
                       [&](Value v) { return movesLinearly(v, loop); }) &&
          !llvm::all_of(op.getOffsets(), outside))
        carried.push_back(op);
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
    for (MakeBlockPtrOp c : carried) {
      IRMapping mapping;
      mapping.map(loop.getInductionVar(), loop.getLowerBound());
      for (auto [arg, init] :
           llvm::zip(loop.getRegionIterArgs(), loop.getInitArgs()))
        mapping.map(arg, init);
      SmallVector<Value> offsets;
      for (Value offset : c.getOffsets())
        offsets.push_back(cloneBefore(rewriter, offset, loop, mapping));
      auto start = cast<MakeBlockPtrOp>(rewriter.clone(*c));
      start.getOffsetsMutable().assign(offsets);
      inits.push_back(start);
      SmallVector<Value> move;
      for (Value offset : c.getOffsets()) {
        Value moved = getMove(rewriter, offset, loop);
        move.push_back(moved ? moved
                             : arith::ConstantIntOp::create(
                                   rewriter, loc, rewriter.getI32Type(), 0));
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
            c.replaceAllUsesWith(pointer);
            next.push_back(AdvanceOp::create(b, yieldLoc, pointer.getType(),
                                             pointer, move));
          }
          return next;
        });
    if (failed(replaced))
      return signalPassFailure();
    for (MakeBlockPtrOp c : carried)
      c.erase();
  }
};
} // namespace
