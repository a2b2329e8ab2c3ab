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

/// The empty tile kernel `<kernel>_tile` of `kernel`, right after it: a
/// pointer per input tensor, then one per result. Its entry block is
/// `b`'s insertion point.
mlir::func::FuncOp createTileKernel(mlir::func::FuncOp kernel,
                                    mlir::OpBuilder &b);

/// Whether `kernel` reduces along an axis (a row kernel for tileRows).
bool hasReductions(mlir::func::FuncOp kernel);

/// Tiles a row kernel: linalg generics over a [rows, columns] space, some
/// reducing the columns away, others elementwise over it or over the rows.
/// One program per row, the row (up to `maxRow` columns) in one tile.
mlir::FailureOr<TiledKernel> tileRows(mlir::func::FuncOp kernel,
                                      int64_t maxRow);

/// Whether `kernel` is built around a linalg.matmul (for tileMatmul).
bool isMatmulKernel(mlir::func::FuncOp kernel);

/// The block of the result one program of a matmul kernel computes, and
/// the K step of its loop.
struct MatmulBlocks {
  int64_t m = 64, n = 64, k = 32;
};

/// Tiles a matmul kernel (elementwise prologues of its operands, a
/// constant fill, one linalg.matmul, elementwise epilogues): one program
/// per block of the result, a loop over K of tile.dot.
mlir::FailureOr<TiledKernel> tileMatmul(mlir::func::FuncOp kernel,
                                        const MatmulBlocks &blocks);

} // namespace kiln

#endif // KILN_LIB_TRANSFORMS_TILEDKERNEL_H
