//===- TensorMaps.h - Blocks the tensor memory accelerator copies -*- C++ -*-===//
//
// Whether TMA can copy the blocks of a block pointer (sm_90): the
// tile.make_block_ptr it comes from must be described by kernel arguments
// and constants, which each launch turns into a tensor map parameter of
// the kernel (tilegpu.tensor_maps). Shared by the pipeliner (block loads
// into slots) and tile-tma-stores (block stores from shared memory).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_TILEGPU_TRANSFORMS_TENSORMAPS_H
#define KILN_DIALECT_TILEGPU_TRANSFORMS_TENSORMAPS_H

#include "kiln/Dialect/Tile/IR/TileDialect.h"
#include "kiln/Dialect/TileGPU/IR/TileGPUDialect.h"
#include "kiln/Dialect/TileGPU/Transforms/AxisInfo.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>

namespace kiln::tilegpu {

/// What a tensor map is built from (TensorMapAttr without its parameter).
struct TensorMapFields {
  mlir::Type elementType;
  llvm::SmallVector<int64_t, 2> box;
  int64_t swizzle;
  llvm::SmallVector<int64_t, 4> sources, values;

  /// The map in parameter `argument`.
  TensorMapAttr get(mlir::MLIRContext *context, int64_t argument) const {
    return TensorMapAttr::get(context, argument, elementType, box, swizzle,
                              sources, values);
  }
};

/// cuda.h's CUtensorMapDataType of elements of `type`, or -1 where TMA
/// has none.
int getTensorMapDataType(mlir::Type type);

/// The tile.make_block_ptr a block pointer `value` starts from, through
/// tile.advance and the iteration arguments of scf.for loops that carry
/// it (each advanced from itself); null if it comes from anything else.
tile::MakeBlockPtrOp getBlockPtrOrigin(mlir::Value value);

/// The tensor map through which TMA can copy `type`'s blocks of the
/// tensor `origin` describes (one box per slab of the blocks' swizzled
/// staging layout) for an access that checks the bounds of the dimensions
/// `boundaryCheck`, or why there is none. TMA clips every dimension at the
/// tensor's shape: an access must check them all.
mlir::FailureOr<TensorMapFields>
getTensorMap(tile::MakeBlockPtrOp origin, mlir::RankedTensorType type,
             llvm::ArrayRef<int32_t> boundaryCheck,
             AxisInfoAnalysis &axisInfo, std::string &whyNot);

/// The parameter of `kernel` that holds the tensor map `fields`
/// describe: added, and listed in the kernel's tilegpu.tensor_maps, the
/// first time.
mlir::Value getTensorMapArgument(mlir::func::FuncOp kernel,
                                 const TensorMapFields &fields);

} // namespace kiln::tilegpu

#endif // KILN_DIALECT_TILEGPU_TRANSFORMS_TENSORMAPS_H
