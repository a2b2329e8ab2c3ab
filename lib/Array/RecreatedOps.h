//===- RecreatedOps.h - Ops each kernel makes for itself --------*- C++ -*-===//

#ifndef KILN_LIB_ARRAY_RECREATEDOPS_H
#define KILN_LIB_ARRAY_RECREATEDOPS_H

#include "TiledKernel.h"

#include "mlir/IR/IRMapping.h"

namespace kiln {

/// Whether a kernel recreates `op` for itself instead of taking its value
/// as an input: constants, empty tensors, the sizes of dynamic ones,
/// scalar arithmetic on those (a row's length as a float, to divide by),
/// and slice views (the kernel takes the slice's source and reads it
/// through the slice).
/// kiln-fuse clones them into each kernel that uses them; kiln-tile's
/// plans have nothing to do for them, and its kernels recreate the scalars
/// their bodies use (recreateScalar).
bool isRecreatedByKernels(mlir::Operation *op);

/// Fails, with an error at `user`, unless `value`, which a generic's body
/// uses from outside it, is a scalar its tile kernel can recreate.
mlir::LogicalResult checkCaptured(mlir::Operation *user, mlir::Value value);

/// `value`, a scalar of `kernel` that checkCaptured accepts, recreated in
/// its tile kernel at `b`'s insertion point (and kept in `recreated`): an
/// input's dynamic size is the size, `domainSize(d)` (i32), of the domain
/// dimension d its `ties` say it spans. Fails, with an error at `user`,
/// on the size of a dimension that spans none.
mlir::FailureOr<mlir::Value>
recreateScalar(mlir::OpBuilder &b, mlir::Operation *user, mlir::Value value,
               mlir::func::FuncOp kernel, llvm::ArrayRef<SizeTie> ties,
               llvm::function_ref<mlir::Value(unsigned)> domainSize,
               mlir::IRMapping &recreated);

} // namespace kiln

#endif // KILN_LIB_ARRAY_RECREATEDOPS_H
