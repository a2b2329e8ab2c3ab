//===- TiledKernel.h - What kiln-tile makes of one kernel -------*- C++ -*-===//

#ifndef KILN_LIB_TRANSFORMS_TILEDKERNEL_H
#define KILN_LIB_TRANSFORMS_TILEDKERNEL_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace kiln {

/// A kernel ready to launch: its tile kernel and its grid size.
struct TiledKernel {
  mlir::func::FuncOp tileKernel;
  int64_t programs = 0;
};

/// Whether `kernel` reduces along an axis (a row kernel for tileRows).
bool hasReductions(mlir::func::FuncOp kernel);

/// Tiles a row kernel: linalg generics over a [rows, columns] space, some
/// reducing the columns away, others elementwise over it or over the rows.
/// One program per row, the row (up to `maxRow` columns) in one tile.
mlir::FailureOr<TiledKernel> tileRows(mlir::func::FuncOp kernel,
                                      int64_t maxRow);

} // namespace kiln

#endif // KILN_LIB_TRANSFORMS_TILEDKERNEL_H
