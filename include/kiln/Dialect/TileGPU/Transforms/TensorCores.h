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
  /// Elements of an operand per 32-bit register (K of one instruction is
  /// 8 * kWidth).
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
/// split M and N.
std::optional<MmaChoice> chooseMma(tile::DotOp dot, int64_t capability,
                                   bool archSpecific, int64_t numWarps,
                                   std::string &whyNot,
                                   std::string &wgmmaWhyNot);

} // namespace kiln::tilegpu

#endif // KILN_DIALECT_TILEGPU_TRANSFORMS_TENSORCORES_H
