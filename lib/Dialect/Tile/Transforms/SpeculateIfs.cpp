//===- SpeculateIfs.cpp - Run-time ifs of pure tile work as selects -------===//
//
// One-shot bufferization is about n^4 on a nest of n run-time ifs that
// update a tile (see the pass description); as selects the nest is
// straight-line code, which it takes in linear time.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

#define DEBUG_TYPE "tile-speculate-ifs"

namespace kiln::tile {
#define GEN_PASS_DEF_TILESPECULATEIFSPASS
#include "kiln/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace kiln::tile

using namespace mlir;

/// Whether `op` may run whether or not its branch is taken: pure, without
/// regions (nothing costly: no loops, no linalg ops), and no element access
/// at an index that may hold only on the branch.
static bool isSpeculatable(Operation &op) {
  if (op.getNumRegions() != 0 || !isPure(&op) ||
      isa<tensor::ExtractOp, tensor::InsertOp>(op))
    return false;
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op))
    return slice.getOffsets().empty();
  if (auto slice = dyn_cast<tensor::InsertSliceOp>(op))
    return slice.getOffsets().empty();
  return true;
}

/// The ops of `block` (a branch of `ifOp`) that compute what it yields, in
/// their order; failure where one of them cannot be speculated.
static FailureOr<SmallVector<Operation *>> computeYields(scf::IfOp ifOp,
                                                         Block *block) {
  llvm::SetVector<Operation *> ops;
  SmallVector<Value> worklist(block->getTerminator()->getOperands());
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (!ifOp->isAncestor(value.getParentBlock()->getParentOp()))
      continue; // defined before the if
    Operation *def = value.getDefiningOp();
    if (!def || def->getBlock() != block || !isSpeculatable(*def))
      return failure();
    if (ops.insert(def))
      worklist.append(def->operand_begin(), def->operand_end());
  }
  SmallVector<Operation *> sorted(ops.begin(), ops.end());
  llvm::sort(sorted,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return sorted;
}

/// Replaces `ifOp` by the ops its branches compute their results with,
/// selects between them, and an if without results for what else the
/// branches do.
static void speculate(scf::IfOp ifOp, ArrayRef<Operation *> computed,
                      IRRewriter &rewriter) {
  for (Operation *op : computed)
    op->moveBefore(ifOp);
  rewriter.setInsertionPoint(ifOp);
  SmallVector<Value> results;
  for (auto [taken, notTaken] : llvm::zip(ifOp.thenYield().getOperands(),
                                          ifOp.elseYield().getOperands()))
    results.push_back(taken == notTaken
                          ? taken
                          : arith::SelectOp::create(rewriter, ifOp.getLoc(),
                                                    ifOp.getCondition(), taken,
                                                    notTaken)
                                .getResult());
  if (ifOp.thenBlock()->getOperations().size() > 1 ||
      ifOp.elseBlock()->getOperations().size() > 1) {
    auto effects =
        scf::IfOp::create(rewriter, ifOp.getLoc(), TypeRange(),
                          ifOp.getCondition(), /*withElseRegion=*/true);
    for (auto [from, to] :
         {std::pair(&ifOp.getThenRegion(), &effects.getThenRegion()),
          std::pair(&ifOp.getElseRegion(), &effects.getElseRegion())}) {
      rewriter.eraseBlock(&to->front());
      rewriter.inlineRegionBefore(*from, *to, to->end());
      Operation *yield = to->front().getTerminator();
      rewriter.setInsertionPoint(yield);
      scf::YieldOp::create(rewriter, yield->getLoc());
      rewriter.eraseOp(yield);
    }
  }
  rewriter.replaceOp(ifOp, results);
}

namespace {
struct TileSpeculateIfsPass
    : kiln::tile::impl::TileSpeculateIfsPassBase<TileSpeculateIfsPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    // Inner ifs first, so that a nest becomes straight-line code.
    getOperation().walk<WalkOrder::PostOrder>([&](scf::IfOp ifOp) {
      if (ifOp.getNumResults() == 0 || !ifOp.elseBlock())
        return;
      FailureOr<SmallVector<Operation *>> taken =
          computeYields(ifOp, ifOp.thenBlock());
      FailureOr<SmallVector<Operation *>> notTaken =
          computeYields(ifOp, ifOp.elseBlock());
      if (failed(taken) || failed(notTaken))
        return;
      taken->append(notTaken->begin(), notTaken->end());
      speculate(ifOp, *taken, rewriter);
    });
  }
};
} // namespace
