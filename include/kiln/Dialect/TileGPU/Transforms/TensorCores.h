//===- TensorCores.h - Which dots run on tensor cores -----------*- C++ -*-===//
//
// The decision, made once when layouts are assigned, whether a tile.dot
// runs on mma.sync and with which accumulator layout; the lowering then
// follows the encodings it finds.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_TILEGPU_TRANSFORMS_TENSORCORES_H
#define KILN_DIALECT_TILEGPU_TRANSFORMS_TENSORCORES_H

#include "kiln/Dialect/Tile/IR/TileDialect.h"

#include "llvm/ADT/SmallVector.h"

#include <string>

namespace kiln::tilegpu {

/// How a dot runs on mma.sync m16n8kK.
struct MmaChoice {
  /// The operands' kWidth (DotOperandLayout): elements per 32-bit
  /// register, or twice that for 16-bit operands widened from 8 bits (two
  /// m16n8k16 per fragment, whose 8-bit sources ldmatrix reads as bytes).
  int64_t kWidth;
  /// Warps along M and N of the accumulator's layout.
  llvm::SmallVector<int64_t, 2> warpsPerCTA;
  /// Whether the accumulator is laid out for wgmma (warps along M in
  /// warpgroups of four), which multiplies operands in shared memory.
  bool warpgroup = false;
};

/// How `dot` runs on the tensor cores of a device of compute capability
/// `capability` (`archSpecific`: its `a` features, such as sm_90a's wgmma)
/// with programs of `numWarps` warps, or, when it cannot, why not (one
/// clause naming the constraint, in `whyNot`). On sm_90a a dot wgmma can
/// take gets the warpgroup layout; why another does not is in `wgmmaWhyNot`.
/// On mma.sync, a dot chained to another through a row-wise reduction
/// (attention's forward) has its warps along M where M allows; others
/// split M and N. A 16-bit dot whose operands are both casts of 8-bit
/// tiles (int8 or 8-bit float weights and activations) takes kWidth 4
/// where K allows, as Triton does: the casts then run on the 8-bit
/// fragments, read from shared memory as bytes.
std::optional<MmaChoice> chooseMma(tile::DotOp dot, int64_t capability,
                                   bool archSpecific, int64_t numWarps,
                                   std::string &whyNot,
                                   std::string &wgmmaWhyNot);

} // namespace kiln::tilegpu

#endif // KILN_DIALECT_TILEGPU_TRANSFORMS_TENSORCORES_H
