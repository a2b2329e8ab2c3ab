//===- GeneralizeNamedOps.cpp - Named ops as the generics they are --------===//

#include "GeneralizeNamedOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

/// Whether `op` is a matmul given indexing maps other than its default
/// ones.
static bool hasOwnMaps(linalg::LinalgOp op) {
  MLIRContext *ctx = op.getContext();
  if (isa<linalg::MatmulOp>(op))
    return op.getIndexingMapsArray() !=
           linalg::MatmulOp::getDefaultIndexingMaps(ctx);
  if (isa<linalg::BatchMatmulOp>(op))
    return op.getIndexingMapsArray() !=
           linalg::BatchMatmulOp::getDefaultIndexingMaps(ctx);
  return false;
}

LogicalResult kiln::generalizeFixedMapOps(Operation *root) {
  IRRewriter rewriter(root->getContext());
  SmallVector<linalg::LinalgOp> named;
  root->walk([&](linalg::LinalgOp op) {
    // A fill stays itself: it is a matmul's or a reduction's first step,
    // and its value is a scalar, not a tensor a kernel loads. A matmul
    // stays one where it reads its operands as a matmul does; given other
    // indexing maps (an operand transposed or broadcast through them), it
    // is the contraction it is.
    if (isa<linalg::ReduceOp>(op) || hasOwnMaps(op) ||
        (!isa<linalg::GenericOp, linalg::FillOp>(op) &&
         op.getNumLoops() == op.getNumParallelLoops()))
      named.push_back(op);
  });
  for (linalg::LinalgOp op : named) {
    rewriter.setInsertionPoint(op);
    if (failed(linalg::generalizeNamedOp(rewriter, op)))
      return op.emitError("cannot be rewritten as the linalg.generic it is");
  }
  // A reduction's reduced loops go last (linalg.reduce keeps its input's
  // order): its parallel loops are then its rows.
  SmallVector<linalg::GenericOp> generics;
  root->walk([&](linalg::GenericOp op) { generics.push_back(op); });
  for (linalg::GenericOp op : generics) {
    SmallVector<unsigned> order;
    for (utils::IteratorType kind :
         {utils::IteratorType::parallel, utils::IteratorType::reduction})
      for (auto [loop, iterator] :
           llvm::enumerate(op.getIteratorTypesArray()))
        if (iterator == kind)
          order.push_back(loop);
    if (llvm::equal(order, llvm::seq<unsigned>(order.size())))
      continue;
    rewriter.setInsertionPoint(op);
    if (failed(linalg::interchangeGenericOp(rewriter, op, order)))
      return op.emitError("cannot put its reduced loops last");
  }
  return success();
}
