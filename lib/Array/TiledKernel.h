//===- TiledKernel.h - What kiln-tile makes of one kernel -------*- C++ -*-===//

#ifndef KILN_LIB_ARRAY_TILEDKERNEL_H
#define KILN_LIB_ARRAY_TILEDKERNEL_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace kiln {

/// Dimension `dim` of a kernel's operand `operand` (its inputs, then its
/// results) has the size of dimension `domainDim` of its iteration domain.
struct SizeTie {
  unsigned operand, dim, domainDim;
};

/// A factor of a kernel's grid: ceil(the product of the sizes of domain
/// dimensions `dims` / `divisor`) programs.
struct GridFactor {
  llvm::SmallVector<unsigned> dims;
  int64_t divisor = 1;
};

/// A kernel ready to launch: its tile kernel, its iteration domain and its
/// grid, which the launch plan sizes when the domain has dynamic sizes.
struct TiledKernel {
  mlir::func::FuncOp tileKernel;
  /// The domain's sizes (ShapedType::kDynamic where known at run time), and
  /// which operand dimensions span which domain dimension.
  llvm::SmallVector<int64_t> domain;
  llvm::SmallVector<SizeTie> ties;
  /// The domain dimensions whose sizes the tile kernel takes, as i32
  /// arguments in this order after its pointers.
  llvm::SmallVector<unsigned> sizeDims;
  /// Programs: the product of these factors.
  llvm::SmallVector<GridFactor> grid;
};

/// A linalg op of a kernel and the domain dimension each of its loops runs
/// over.
struct DomainOp {
  mlir::linalg::LinalgOp op;
  llvm::SmallVector<unsigned> loops;
};

/// `op` whose loop i runs over domain dimension i.
DomainOp alignedWithDomain(mlir::linalg::LinalgOp op);

/// The sizes of the iteration domain of `kernel`, over which its `ops`
/// run, static where any operand fixes them, and which operand dimensions
/// span which domain dimension: through the indexing maps, and through the
/// tensor.dim of an input that sizes a dynamic tensor.empty. Fails, with an
/// error, on what needs more than a mask (a dynamic dimension read at a
/// constant index, a size computed from another).
mlir::LogicalResult analyzeDomain(mlir::func::FuncOp kernel,
                                  llvm::ArrayRef<DomainOp> ops,
                                  llvm::SmallVector<int64_t> &domain,
                                  llvm::SmallVector<SizeTie> &ties);

/// The empty tile kernel `<kernel>_tile` of `kernel`, right after it: a
/// pointer per input tensor, then one per result, then `numSizes` i32
/// sizes. Its entry block is `b`'s insertion point. Fails, with an error,
/// when an input is not a ranked tensor.
mlir::FailureOr<mlir::func::FuncOp> createTileKernel(mlir::func::FuncOp kernel,
                                                     mlir::OpBuilder &b,
                                                     unsigned numSizes = 0);

/// Replaces the array function `func`, whose ops are calls of the kernels
/// in `tiled` (and what the kernels recreate), by its launch plan: a
/// function of the buffers' addresses and the dynamic sizes that
/// allocates temporaries and launches each kernel in order (see
/// LaunchPlan.cpp for its interface).
mlir::LogicalResult
buildLaunchPlan(mlir::func::FuncOp func,
                llvm::DenseMap<llvm::StringRef, TiledKernel> &tiled);

/// An index of an indexing map: `coefficient * d + offset` for a loop
/// dimension d, or the constant `offset` where `dim` is absent. A
/// coefficient other than 1, or an offset, reads a slice of the operand
/// (x[1:], x[::2], x[::-1]).
struct StridedIndex {
  std::optional<unsigned> dim;
  int64_t coefficient = 0, offset = 0;

  /// Whether this index is a loop dimension itself, or a constant.
  bool isPlain() const { return !dim || (coefficient == 1 && offset == 0); }
};

/// `index` as a strided index, if it is one.
std::optional<StridedIndex> getStridedIndex(mlir::AffineExpr index);

/// Whether each index of `map` is a strided index, each dimension in at
/// most one: an operand read in place, broadcast, transposed or sliced.
bool isStridedProjection(mlir::AffineMap map);

/// Whether `map` reads a slice: an index a dimension times a coefficient
/// other than 1, or plus an offset.
bool readsSlice(mlir::AffineMap map);

/// Tiles an elementwise kernel (every op a parallel generic over one
/// domain): program p takes elements [p * block, (p + 1) * block) of the
/// row-major domain, block being `maxBlock` or the domain's size rounded up
/// to a power of two, whichever is smaller.
mlir::FailureOr<TiledKernel> tileElementwise(mlir::func::FuncOp kernel,
                                             int64_t maxBlock);

/// Whether `kernel` reduces along an axis (a row kernel for tileRows).
bool hasReductions(mlir::func::FuncOp kernel);

/// Tiles a row kernel: linalg generics over a [rows..., columns] space
/// (the rows may span several dimensions), some reducing the columns away,
/// others elementwise over it or over the rows. Each program takes
/// `rowBlock` rows (0: 32 where an input's rows lie next to each other in
/// memory, enough short static rows to fill a tile of `rowChunk`, else
/// one): one row of at most `maxRow` (static) columns, or a
/// block of rows of at most `rowChunk` elements, in one tile, longer or
/// dynamic rows in loops over chunks of `rowChunk` elements (a power of
/// two); the number of rows may be dynamic, and inputs are read through
/// any projection.
mlir::FailureOr<TiledKernel> tileRows(mlir::func::FuncOp kernel, int64_t maxRow,
                                      int64_t rowChunk, int64_t rowBlock);

/// `value`, a tile of one dimension fewer than `shape`, repeated along
/// dimension `axis` of `shape`.
mlir::Value broadcastAlong(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value value, int64_t axis,
                           llvm::ArrayRef<int64_t> shape);

/// Whether `kernel` is built around a linalg.matmul or linalg.batch_matmul
/// (for tileMatmul).
bool isMatmulKernel(mlir::func::FuncOp kernel);

/// Whether `map`, of an op of a batched matmul kernel, reads the batch
/// loop (d0) as its first index or not at all: each program reads its
/// batch by advancing the operand by the batch's stride.
bool readsBatchFirst(mlir::AffineMap map);

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

/// How the indices of a gather place an element in the tensor it reads
/// through static slices: its first element at `offsets`, index i along
/// dimension `indices[i].dim` at `stride` elements of it, inside the
/// view's `bound`.
struct GatherView {
  struct Index {
    unsigned dim;
    int64_t stride;
    int64_t bound;
  };
  llvm::SmallVector<int64_t> offsets;
  llvm::SmallVector<Index> indices;

  /// `table` read whole.
  explicit GatherView(mlir::RankedTensorType table);
  /// The view of the slice's source instead of the slice.
  void throughSlice(mlir::tensor::ExtractSliceOp slice);
};

/// The elements of the static `source`, whose data starts at pointer
/// `base`, at `indices` (an index tile, or scalar, per index of `view`),
/// loaded where `mask` holds: a gather (a tensor.extract in a body), a
/// tile of lanes or, for a scalar `mask` and indices, one element. An
/// index outside the view reads nothing and gives 0.
mlir::Value loadGathered(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value base, mlir::RankedTensorType source,
                         const GatherView &view,
                         mlir::ArrayRef<mlir::Value> indices,
                         mlir::Value mask);

/// Loads, where `mask` holds, the elements `extract` (in a body of
/// `kernel`) reads of an input of the kernel, whose pointer is that
/// input's argument of the tile kernel's `tileEntry`; `indexTile` gives
/// the index tile of each of its indices (null after an error). Static
/// slice views of an input are read in place. Fails, with an error, on a
/// tensor that is not an input (or a slice of one) or not static.
mlir::FailureOr<mlir::Value>
gatherInKernel(mlir::OpBuilder &b, mlir::tensor::ExtractOp extract,
               mlir::func::FuncOp kernel, mlir::Block &tileEntry,
               mlir::Value mask,
               llvm::function_ref<mlir::Value(mlir::Value)> indexTile);

} // namespace kiln

#endif // KILN_LIB_ARRAY_TILEDKERNEL_H
