//===- FlattenLoops.cpp - A loop and the loop in its body as one ----------===//
//
// Triton's `tl.range(..., flatten=True)`: a persistent kernel's loop over
// tiles and its K loop become one loop, whose steps are the K steps of
// every tile in turn, so that the software pipeline of the K loop's loads
// runs across tiles.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Tile/IR/TileDialect.h"
#include "kiln/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/FormatVariadic.h"

namespace kiln::tile {
#define GEN_PASS_DEF_TILEFLATTENLOOPSPASS
#include "kiln/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace kiln::tile

using namespace mlir;

/// The unit attribute of a loop to flatten with the loop in its body.
static constexpr llvm::StringLiteral kFlatten = "tile.flatten";
static constexpr llvm::StringLiteral kWarpSpecialize = "tile.warp_specialize";

/// Whether `value` is defined outside `loop` or can be: computed in its
/// body from such values by ops with no effects, which then move before
/// the loop (the inner loop's trip count, as the front end computes it).
static bool hoistOutOf(scf::ForOp loop, Value value) {
  if (loop.isDefinedOutsideOfLoop(value))
    return true;
  Operation *op = value.getDefiningOp();
  if (!op || op->getBlock() != loop.getBody() ||
      !kiln::tile::canSpeculate(op) || op->getNumRegions() != 0 ||
      !llvm::all_of(op->getOperands(),
                    [&](Value operand) { return hoistOutOf(loop, operand); }))
    return false;
  op->moveBefore(loop);
  return true;
}

/// The loop in `outer`'s body, after only pure ops, that `outer` can be
/// flattened with; or why there is none.
static FailureOr<scf::ForOp> getInnerLoop(scf::ForOp outer,
                                          std::string &whyNot) {
  if (!outer.getInductionVar().getType().isInteger(32)) {
    whyNot = "its induction variable is not i32";
    return failure();
  }
  scf::ForOp inner;
  for (Operation &op : outer.getBody()->without_terminator()) {
    inner = dyn_cast<scf::ForOp>(op);
    if (inner)
      break;
    if (!kiln::tile::canSpeculate(&op) || op.getNumRegions() != 0) {
      whyNot = llvm::formatv("'{0}' before the loop in its body may not "
                             "run at every step",
                             op.getName())
                   .str();
      return failure();
    }
  }
  if (!inner) {
    whyNot = "its body has no loop";
    return failure();
  }
  if (!inner.getInductionVar().getType().isInteger(32)) {
    whyNot = "the induction variable of the loop in its body is not i32";
    return failure();
  }
  for (Value bound :
       {inner.getLowerBound(), inner.getUpperBound(), inner.getStep()})
    if (!hoistOutOf(outer, bound)) {
      whyNot = "the bounds of the loop in its body change with it";
      return failure();
    }
  for (Value init : inner.getInitArgs())
    if (!getElementTypeOrSelf(init.getType()).isIntOrFloat()) {
      whyNot = llvm::formatv("the loop in its body carries a {0}, which "
                             "each tile's first step cannot select",
                             init.getType())
                   .str();
      return failure();
    }
  return inner;
}

/// How many steps `loop` takes (0 where its upper bound is not past its
/// lower one), before it.
static Value getTripCount(OpBuilder &b, scf::ForOp loop) {
  Location loc = loop.getLoc();
  Type type = loop.getInductionVar().getType();
  Value zero = arith::ConstantIntOp::create(b, loc, type, 0);
  Value one = arith::ConstantIntOp::create(b, loc, type, 1);
  Value span =
      arith::SubIOp::create(b, loc, loop.getUpperBound(), loop.getLowerBound());
  Value trips = arith::DivSIOp::create(
      b, loc,
      arith::AddIOp::create(
          b, loc, span, arith::SubIOp::create(b, loc, loop.getStep(), one)),
      loop.getStep());
  Value runs =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, span, zero);
  return arith::SelectOp::create(b, loc, runs, trips, zero);
}

/// Rewrites `outer` and `inner` as one loop, falling back to them where
/// `inner` takes no steps.
static void flatten(scf::ForOp outer, scf::ForOp inner) {
  OpBuilder b(outer);
  Location loc = outer.getLoc();
  Type i32 = b.getI32Type();
  auto constant = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i32, v);
  };
  Value outerTrips = getTripCount(b, outer);
  Value innerTrips = getTripCount(b, inner);
  // The flat loop would skip the epilogue of tiles whose inner loop takes
  // no steps: those run the loop over tiles as written.
  Value innerRuns = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt,
                                          innerTrips, constant(0));
  auto choice = scf::IfOp::create(b, loc, outer.getResultTypes(), innerRuns,
                                  /*withElseRegion=*/true);
  // Built with terminators where it has no results: each branch gets its
  // own below.
  for (Block *block : {choice.thenBlock(), choice.elseBlock()})
    if (!block->empty())
      block->getTerminator()->erase();
  outer.getResults().replaceAllUsesWith(choice.getResults());
  outer->moveBefore(choice.elseBlock(), choice.elseBlock()->end());
  OpBuilder fallback = OpBuilder::atBlockEnd(choice.elseBlock());
  scf::YieldOp::create(fallback, loc, outer.getResults());
  outer->removeAttr(kFlatten);

  b.setInsertionPointToEnd(choice.thenBlock());
  Value total = arith::MulIOp::create(b, loc, outerTrips, innerTrips);
  // What the loop carries into each tile's first step is selected there:
  // these only give it a type. What the loop over tiles carries (Triton's
  // persistent matmul counts its epilogue's tiles) follows them, changed
  // by each tile's epilogue.
  SmallVector<Value> placeholders;
  for (Value init : inner.getInitArgs())
    placeholders.push_back(arith::ConstantOp::create(
        b, loc, cast<TypedAttr>(b.getZeroAttr(init.getType()))));
  SmallVector<Value> inits(placeholders);
  llvm::append_range(inits, outer.getInitArgs());
  auto flat =
      scf::ForOp::create(b, loc, constant(0), total, constant(1), inits);
  scf::YieldOp::create(b, loc,
                       flat.getResults().drop_front(placeholders.size()));
  flat->setAttrs(inner->getDiscardableAttrDictionary());
  // Triton's persistent matmul asks for warp specialization on the loop
  // over tiles: the flat loop is what the pipeliner specializes.
  if (Attribute specialize = outer->removeAttr(kWarpSpecialize))
    flat->setAttr(kWarpSpecialize, specialize);

  Block *body = flat.getBody();
  if (!body->empty())
    body->getTerminator()->erase();
  b.setInsertionPointToStart(body);

  // Step f is inner step f mod inner of outer step f / inner.
  Value f = flat.getInductionVar();
  Value tile = arith::DivUIOp::create(b, loc, f, innerTrips);
  Value step = arith::RemUIOp::create(b, loc, f, innerTrips);
  IRMapping mapping;
  ValueRange tileCarried =
      flat.getRegionIterArgs().drop_front(placeholders.size());
  mapping.map(outer.getRegionIterArgs(), tileCarried);
  mapping.map(outer.getInductionVar(),
              arith::AddIOp::create(
                  b, loc, outer.getLowerBound(),
                  arith::MulIOp::create(b, loc, tile, outer.getStep())));
  mapping.map(inner.getInductionVar(),
              arith::AddIOp::create(
                  b, loc, inner.getLowerBound(),
                  arith::MulIOp::create(b, loc, step, inner.getStep())));
  // The tile's prologue, computed again at every step (it has no
  // effects).
  for (Operation &op : outer.getBody()->without_terminator()) {
    if (&op == inner)
      break;
    b.clone(op, mapping);
  }
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, step,
                                      constant(0));
  for (auto [arg, init, carried] :
       llvm::zip(inner.getRegionIterArgs(), inner.getInitArgs(),
                 flat.getRegionIterArgs()))
    mapping.map(arg, arith::SelectOp::create(
                         b, loc, first, mapping.lookupOrDefault(init), carried));
  for (Operation &op : inner.getBody()->without_terminator())
    b.clone(op, mapping);
  SmallVector<Value> next;
  for (Value value : inner.getBody()->getTerminator()->getOperands())
    next.push_back(mapping.lookupOrDefault(value));
  llvm::append_range(next, tileCarried);

  // The tile's epilogue, at its last step, on what that step computed.
  // That step carries the placeholders on (the next step selects the next
  // tile's initial values), so that what the epilogue reads dies in it:
  // an accumulator is not kept alive through its stores. A dot's
  // accumulator is carried on as it is, as at the other steps: on wgmma
  // it may still be being written (an asynchronous dot, which the next
  // tile's first step starts without it), and neither a placeholder nor
  // a select between the two may touch its registers meanwhile.
  for (auto [result, value] : llvm::zip(inner.getResults(), next))
    mapping.map(result, value);
  Value last = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq, step,
      arith::SubIOp::create(b, loc, innerTrips, constant(1)));
  auto epilogue = scf::IfOp::create(b, loc, flat.getResultTypes(), last,
                                    /*withElseRegion=*/true);
  OpBuilder branch = epilogue.getThenBodyBuilder();
  for (Operation *op = inner->getNextNode();
       op != outer.getBody()->getTerminator(); op = op->getNextNode())
    branch.clone(*op, mapping);
  SmallVector<Value> afterTile(placeholders);
  for (auto [after, value] : llvm::zip(afterTile, next))
    if (value.getDefiningOp<kiln::tile::DotOp>())
      after = value;
  for (Value value : outer.getBody()->getTerminator()->getOperands())
    afterTile.push_back(mapping.lookupOrDefault(value));
  scf::YieldOp::create(branch, loc, afterTile);
  branch = epilogue.getElseBodyBuilder();
  scf::YieldOp::create(branch, loc, next);
  scf::YieldOp::create(b, loc, epilogue.getResults());

  // The fallback runs where the inner loop takes no steps: its results
  // are what it starts from. (Kept, it would be pipelined for nothing,
  // its slots taking shared memory beside the flat loop's.)
  inner.replaceAllUsesWith(inner.getInitArgs());
  inner.erase();
}

namespace {
struct TileFlattenLoopsPass
    : kiln::tile::impl::TileFlattenLoopsPassBase<TileFlattenLoopsPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> marked;
    getOperation().walk([&](scf::ForOp loop) {
      if (loop->hasAttr(kFlatten))
        marked.push_back(loop);
    });
    for (scf::ForOp outer : marked) {
      std::string whyNot;
      FailureOr<scf::ForOp> inner = getInnerLoop(outer, whyNot);
      if (failed(inner)) {
        outer.emitRemark() << "not flattened: " << whyNot;
        outer->removeAttr(kFlatten);
        continue;
      }
      flatten(outer, *inner);
    }
  }
};
} // namespace
