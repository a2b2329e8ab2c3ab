//===- RecreatedOps.h - Ops each kernel makes for itself --------*- C++ -*-===//

#ifndef KILN_LIB_TRANSFORMS_RECREATEDOPS_H
#define KILN_LIB_TRANSFORMS_RECREATEDOPS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace kiln {

/// Whether a kernel recreates `op` for itself instead of taking its value
/// as an input: constants, empty tensors and the sizes of dynamic ones.
/// kiln-fuse clones them into each kernel that uses them; kiln-tile's
/// kernels and plans have nothing to do for them.
inline bool isRecreatedByKernels(mlir::Operation *op) {
  return op && mlir::isa<mlir::tensor::EmptyOp, mlir::tensor::DimOp,
                         mlir::arith::ConstantOp>(op);
}

} // namespace kiln

#endif // KILN_LIB_TRANSFORMS_RECREATEDOPS_H
