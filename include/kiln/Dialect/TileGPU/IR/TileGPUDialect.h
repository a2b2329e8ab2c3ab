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

#endif // KILN_DIALECT_TILEGPU_IR_TILEGPUDIALECT_H
