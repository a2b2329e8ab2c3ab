//===- GeneralizeNamedOps.h - Named ops as the generics they are -*- C++ -*-===//

#ifndef KILN_LIB_ARRAY_GENERALIZENAMEDOPS_H
#define KILN_LIB_ARRAY_GENERALIZENAMEDOPS_H

#include "mlir/IR/Operation.h"

namespace kiln {

/// Rewrites the named linalg ops under `root` whose loops are all parallel
/// (transpose, broadcast, map, copy, elementwise, add, exp, ...) but fill
/// as the generic each is, so that fusion and tiling treat them as any
/// elementwise generic, and linalg.reduce as its generic; the reduced
/// loops of every generic go last (its rows first). Emits a diagnostic on
/// the op that cannot be.
mlir::LogicalResult generalizeFixedMapOps(mlir::Operation *root);

} // namespace kiln

#endif // KILN_LIB_ARRAY_GENERALIZENAMEDOPS_H
