//===- Passes.h - Target-independent passes over tile IR --------*- C++ -*-===//

#ifndef KILN_DIALECT_TILE_TRANSFORMS_PASSES_H
#define KILN_DIALECT_TILE_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Pass/Pass.h"

namespace kiln::tile {

#define GEN_PASS_DECL
#include "kiln/Dialect/Tile/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "kiln/Dialect/Tile/Transforms/Passes.h.inc"

/// Whether `op` may run where the kernel as written does not run it
/// (ahead of its iteration, or for an iteration that never comes): a pure
/// op, or an integer division or remainder, which every target makes
/// total (tile-total-division).
bool canSpeculate(mlir::Operation *op);

} // namespace kiln::tile

#endif // KILN_DIALECT_TILE_TRANSFORMS_PASSES_H
