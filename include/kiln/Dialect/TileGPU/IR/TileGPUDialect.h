//===- TileGPUDialect.h - GPU-level additions to tile IR --------*- C++ -*-===//

#ifndef KILN_DIALECT_TILEGPU_IR_TILEGPUDIALECT_H
#define KILN_DIALECT_TILEGPU_IR_TILEGPUDIALECT_H

#include "kiln/Dialect/Tile/IR/TileDialect.h"
#include "kiln/Layout/DistributedLayout.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TensorEncoding.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <memory>

#include "kiln/Dialect/TileGPU/IR/TileGPUDialect.h.inc"
#include "kiln/Dialect/TileGPU/IR/TileGPUAttrInterfaces.h.inc"

#define GET_ATTRDEF_CLASSES
#include "kiln/Dialect/TileGPU/IR/TileGPUAttrs.h.inc"

#define GET_OP_CLASSES
#include "kiln/Dialect/TileGPU/IR/TileGPUOps.h.inc"

namespace kiln::tilegpu {

/// A shared buffer of `stages` slots for a 1-D or 2-D tile of `shape`:
/// each slot holds the tile row by row, or, when `transposed` (2-D only),
/// column by column (the memref's strides say so: element (s, i, j) at s *
/// rows * columns + i + j * rows), as a K-major B operand is staged for
/// wgmma.
mlir::MemRefType getSlotBufferType(int64_t stages,
                                   llvm::ArrayRef<int64_t> shape,
                                   mlir::Type element, bool transposed);

/// Whether the slots of `buffer` hold their tiles column by column.
bool hasTransposedSlots(mlir::MemRefType buffer);

/// Whether `dot` runs on tensor cores: its operands are dot operands (of
/// its accumulator's mma layout). A dot on CUDA cores may accumulate in an
/// mma layout too, where its result shares a tensor-core dot's group
/// (their sum).
bool runsOnTensorCores(tile::DotOp dot);

} // namespace kiln::tilegpu

#endif // KILN_DIALECT_TILEGPU_IR_TILEGPUDIALECT_H
