//===- ScratchBound.h - Shared scratch an op's lowering takes ---*- C++ -*-===//
//
// What the tile-to-GPU conversion allocates in shared memory for an op
// (a layout conversion's staging, a reduction's partial results across
// warps, a TMA store's staged tile), bounded from above before the
// conversion: the pipeliner leaves that room beside its slots, and the
// placement of a kernel's buffers decides from it whether the scratch of
// the ops before them must share their memory.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_TILEGPU_TRANSFORMS_SCRATCHBOUND_H
#define KILN_DIALECT_TILEGPU_TRANSFORMS_SCRATCHBOUND_H

#include "mlir/IR/Operation.h"

namespace kiln::tilegpu {

/// At least the shared scratch `op` takes when it runs with `numWarps`
/// warps.
int64_t getScratchBound(mlir::Operation *op, int64_t numWarps);

} // namespace kiln::tilegpu

#endif // KILN_DIALECT_TILEGPU_TRANSFORMS_SCRATCHBOUND_H
