//===- ScalarizeMaskLanes.h - Mask lanes computed as scalars ----*- C++ -*-===//
//
// A thread's share of a boolean tile (a mask) is an LLVM vector of i1, and
// each predicated access reads one lane of it. The NVPTX backend has no
// vectors of predicates: it packs such a vector's lanes into the bits of
// 16-bit registers to compute it, then shifts each lane back out, dozens
// of instructions per masked loop step where the lane itself is one
// setp. InstCombine takes a lane through an operation only where the
// vector has that one use. This pass computes every lane that is read as
// a scalar, through the and/or/xor, selects and comparisons that make
// it, so that the vector operations die.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TARGET_NVPTX_SCALARIZEMASKLANES_H
#define KILN_TARGET_NVPTX_SCALARIZEMASKLANES_H

#include "llvm/IR/PassManager.h"

namespace kiln::nvptx {

/// Replaces each constant-index extractelement of an i1 vector with the
/// lane computed as scalars.
struct ScalarizeMaskLanesPass
    : public llvm::PassInfoMixin<ScalarizeMaskLanesPass> {
  llvm::PreservedAnalyses run(llvm::Function &function,
                              llvm::FunctionAnalysisManager &analyses);
};

} // namespace kiln::nvptx

#endif // KILN_TARGET_NVPTX_SCALARIZEMASKLANES_H
