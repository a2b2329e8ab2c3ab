//===- TileDialect.h - The tile dialect -------------------------*- C++ -*-===//
//
// Declares the tile dialect, its types, attributes and operations.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_TILE_IR_TILEDIALECT_H
#define KILN_DIALECT_TILE_IR_TILEDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "kiln/Dialect/Tile/IR/TileDialect.h.inc"
#include "kiln/Dialect/Tile/IR/TileEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "kiln/Dialect/Tile/IR/TileTypes.h.inc"

#define GET_OP_CLASSES
#include "kiln/Dialect/Tile/IR/TileOps.h.inc"

#endif // KILN_DIALECT_TILE_IR_TILEDIALECT_H
