//===- Passes.h - GPU passes over tile IR -----------------------*- C++ -*-===//

#ifndef KILN_DIALECT_TILEGPU_TRANSFORMS_PASSES_H
#define KILN_DIALECT_TILEGPU_TRANSFORMS_PASSES_H

#include "kiln/Dialect/TileGPU/IR/TileGPUDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/Pass.h"

namespace kiln::tilegpu {

#define GEN_PASS_DECL
#include "kiln/Dialect/TileGPU/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "kiln/Dialect/TileGPU/Transforms/Passes.h.inc"

} // namespace kiln::tilegpu

#endif // KILN_DIALECT_TILEGPU_TRANSFORMS_PASSES_H
