//===- SliceViews.h - Slices kernels read in place --------------*- C++ -*-===//

#ifndef KILN_LIB_ARRAY_SLICEVIEWS_H
#define KILN_LIB_ARRAY_SLICEVIEWS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

#include <functional>

namespace kiln {

/// Whether `op` is a slice that kernels read their input through (a view:
/// x[1:], x[:, ::2], x[::-1], x[3]): a tensor.extract_slice of constant
/// offsets and strides that takes each dynamic dimension whole.
bool isSliceView(mlir::Operation *op);

/// What an operand of a linalg op reads: `source` through `map` (from the
/// op's loops to the source's indices), past the slice views the operand
/// is taken through; `sliced` when there is one.
struct OperandRead {
  mlir::Value source;
  mlir::AffineMap map;
  bool sliced = false;
};
OperandRead readThroughSlices(mlir::linalg::LinalgOp op,
                              mlir::OpOperand &operand);

/// The value under the slice views `value` is taken through.
mlir::Value sliceRoot(mlir::Value value);

/// The ops that read `value`, directly or through slice views of it.
llvm::SmallVector<mlir::Operation *> readersOf(mlir::Value value);

/// Adds the pattern that moves a slice view of an elementwise generic's
/// result onto its inputs, (x * 2)[1:] -> x[1:] * 2, so that the generic
/// computes only what is read, in the kernel of the slice's reader. A
/// generic with other users is recomputed for the slice where
/// `mayRecompute` says so.
void populateSliceBubblingPatterns(
    mlir::RewritePatternSet &patterns,
    std::function<bool(mlir::linalg::GenericOp)> mayRecompute);

/// Refuses, with an error, the slices of `func` a kernel cannot read in
/// place (an offset or a stride not constant, a dynamic dimension not
/// taken whole), and gives a copy of its own (an elementwise generic) to
/// each slice that something other than a generic's input or another
/// slice reads (a return, a matmul, a reshape): those read buffers.
mlir::LogicalResult prepareSliceViews(mlir::func::FuncOp func);

} // namespace kiln

#endif // KILN_LIB_ARRAY_SLICEVIEWS_H
