//===- GeneralizeNamedOps.cpp - Named ops as the generics they are --------===//

#include "GeneralizeNamedOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

LogicalResult kiln::generalizeFixedMapOps(Operation *root) {
  IRRewriter rewriter(root->getContext());
  SmallVector<linalg::LinalgOp> named;
  root->walk([&](linalg::LinalgOp op) {
    // A fill stays itself: it is a matmul's or a reduction's first step,
    // and its value is a scalar, not a tensor a kernel loads.
    if (!isa<linalg::GenericOp, linalg::FillOp>(op) &&
        op.getNumLoops() == op.getNumParallelLoops())
      named.push_back(op);
  });
  for (linalg::LinalgOp op : named) {
    rewriter.setInsertionPoint(op);
    if (failed(linalg::generalizeNamedOp(rewriter, op)))
      return op.emitError("cannot be rewritten as the linalg.generic it is");
  }
  return success();
}
