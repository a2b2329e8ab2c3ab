//===- TiledKernel.h - What kiln-tile makes of one kernel -------*- C++ -*-===//

#ifndef KILN_LIB_TRANSFORMS_TILEDKERNEL_H
#define KILN_LIB_TRANSFORMS_TILEDKERNEL_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace kiln {

/// Dimension `dim` of a kernel's operand `operand` (its inputs, then its
/// results) has the size of dimension `domainDim` of its iteration domain.
struct SizeTie {
  unsigned operand, dim, domainDim;
};

/// A kernel ready to launch: its tile kernel and its grid.
struct TiledKernel {
  mlir::func::FuncOp tileKernel;
  /// The grid size when it is known statically, else 0.
  int64_t programs = 0;
  /// A kernel over an iteration domain with dynamic sizes (elementwise,
  /// rows) runs one program per `block` elements of the flattened
  /// `domain`; it takes the sizes of the domain dimensions `sizeDims` as
  /// i32 arguments, in order, after its pointers, and `ties` say which
  /// operand dimensions span which domain dimension.
  llvm::SmallVector<int64_t> domain;
  int64_t block = 0;
  llvm::SmallVector<unsigned> sizeDims;
  llvm::SmallVector<SizeTie> ties;
};

/// The sizes of the iteration domain of `kernel`, whose ops `generics`
/// share it dimension by dimension (a generic with fewer loops runs over
/// the first ones), static where any operand fixes them, and which
/// operand dimensions span which domain dimension: through the indexing
/// maps, and through the tensor.dim of an input that sizes a dynamic
/// tensor.empty.
mlir::LogicalResult analyzeDomain(mlir::func::FuncOp kernel,
                                  llvm::ArrayRef<mlir::linalg::GenericOp>
                                      generics,
                                  llvm::SmallVector<int64_t> &domain,
                                  llvm::SmallVector<SizeTie> &ties);

/// The empty tile kernel `<kernel>_tile` of `kernel`, right after it: a
/// pointer per input tensor, then one per result, then `numSizes` i32
/// sizes. Its entry block is `b`'s insertion point. Fails, with an error,
/// when an input is not a ranked tensor.
mlir::FailureOr<mlir::func::FuncOp>
createTileKernel(mlir::func::FuncOp kernel, mlir::OpBuilder &b,
                 unsigned numSizes = 0);

/// Replaces the array function `func`, whose ops are calls of the kernels
/// in `tiled` (and what the kernels recreate), by its launch plan: a
/// function of the buffers' addresses and the dynamic sizes that
/// allocates temporaries and launches each kernel in order (see
/// LaunchPlan.cpp for its interface).
mlir::LogicalResult
buildLaunchPlan(mlir::func::FuncOp func,
                llvm::DenseMap<llvm::StringRef, TiledKernel> &tiled);

/// Whether `kernel` reduces along an axis (a row kernel for tileRows).
bool hasReductions(mlir::func::FuncOp kernel);

/// Tiles a row kernel: linalg generics over a [rows, columns] space, some
/// reducing the columns away, others elementwise over it or over the rows.
/// One program per row, the row (up to `maxRow` columns, static) in one
/// tile; the number of rows may be dynamic.
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
