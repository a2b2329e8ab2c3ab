//===- MmaLayout.h - Tiles as the tensor cores hold them --------*- C++ -*-===//
//
// The register layouts of `mma.sync.aligned.m16n8kK` (sm_80+): the
// accumulator and the two multiplicands ("dot operands"), as the PTX ISA's
// fragment tables give them, repeated over warps and over the tile (the
// accumulator of `wgmma.mma_async` m64nNk16 is one of them). The lowering
// of tile.dot reads and writes exactly these registers.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LAYOUT_MMALAYOUT_H
#define KILN_LAYOUT_MMALAYOUT_H

#include "kiln/Layout/DistributedLayout.h"

namespace kiln::layout {

/// The accumulator of mma.sync m16n8kK: warps tile the program's footprint
/// of 16·warpsPerCTA[0] rows by 8·warpsPerCTA[1] columns, warp w at row
/// block w % warpsPerCTA[0] and column block w / warpsPerCTA[0]. In a
/// warp's 16x8 block, lane l holds rows l/4 and l/4 + 8 at columns
/// 2·(l%4) and 2·(l%4) + 1 (registers c0..c3). Larger tiles repeat the
/// footprint, row repeats outermost; smaller ones are replicated.
///
/// With warps along M in fours, a 64xN block per four warps is exactly the
/// accumulator D of wgmma.mma_async m64nNk16 (sm_90a) for that warpgroup:
/// register d_i is repeat i/4's c(i%4).
class MmaLayout : public DistributedLayout {
public:
  /// Rows and columns of one instruction's accumulator.
  static constexpr int64_t kInstrM = 16, kInstrN = 8;
  /// Registers of one instruction's accumulator per lane.
  static constexpr int64_t kAccRegisters = 4;

  explicit MmaLayout(Shape warpsPerCTA);

  int64_t getRank() const override { return 2; }
  int64_t getThreadsPerWarp() const override { return 32; }
  int64_t getNumWarps() const override;
  int64_t getNumRegisters(const Shape &shape) const override;
  Shape getCoordinates(const Shape &shape,
                       const Location &location) const override;

  /// Instruction blocks one warp covers along each dimension of `shape`.
  Shape getRepeats(const Shape &shape) const;
  /// The warp's block indices (row block, column block).
  Shape getWarpIndex(int64_t warp) const;

  /// As for BlockedLayout: coordinates are the sum, modulo the shape, of a
  /// part from the register and a part from the thread.
  Shape getRegisterOffsets(const Shape &shape, int64_t reg) const;
  Shape getThreadOffsets(int64_t lane, int64_t warp) const;

  const Shape &getWarpsPerCTA() const { return warpsPerCTA; }

private:
  Shape warpsPerCTA;
};

/// Multiplicand `opIndex` (0: A, M x K; 1: B, K x N) of the mma.sync whose
/// accumulator is `parent`, in fragments of K = 8·kWidth. Lane l's share
/// of one fragment of A is rows l/4 (+8) and columns kWidth·(l%4) + e
/// (+4·kWidth), register order (column half, row half, e); of B, rows
/// kWidth·(l%4) + e (+4·kWidth) and column l/4, order (row half, e). Warps
/// in the same row block (A) or column block (B) hold the same elements.
/// Repeats: row or column blocks outermost, then K steps.
///
/// Where kWidth elements fill a 32-bit register (2 for f16/bf16 in
/// m16n8k16, 1 for tf32 in m16n8k8, 4 for s8 in m16n8k32) a fragment is
/// one instruction's operand, as the PTX ISA's tables lay it out. 16-bit
/// elements with kWidth 4 (Triton's layout for operands widened from 8
/// bits, which ldmatrix reads as bytes) make two m16n8k16 instructions per
/// fragment, each on a permutation of K that A and B share
/// (getInstrRegisters).
class DotOperandLayout : public DistributedLayout {
public:
  DotOperandLayout(int64_t opIndex, MmaLayout parent, int64_t kWidth);

  int64_t getRank() const override { return 2; }
  int64_t getThreadsPerWarp() const override { return 32; }
  int64_t getNumWarps() const override { return parent.getNumWarps(); }
  int64_t getNumRegisters(const Shape &shape) const override;
  Shape getCoordinates(const Shape &shape,
                       const Location &location) const override;

  /// K of one fragment.
  int64_t getFragmentK() const { return 8 * kWidth; }
  /// Elements of one fragment per lane.
  int64_t getFragmentRegisters() const;
  /// How many mma.sync instructions take one fragment when one 32-bit
  /// register holds `perRegister` elements: kWidth / perRegister, 1 or 2.
  int64_t getInstrsPerFragment(int64_t perRegister) const;
  /// The fragment registers (offsets in one fragment) that make operand
  /// `instr` of those instructions, in the ISA's element order (32-bit
  /// register r of the instruction is elements perRegister·r onwards).
  /// With two instructions, instruction s takes column half s (A) or row
  /// half s (B) of the fragment, and its own K halves are the two halves
  /// of each lane's kWidth elements there.
  Shape getInstrRegisters(int64_t perRegister, int64_t instr) const;
  /// Blocks along (rows, columns) of `shape`: (M blocks, K steps) for A,
  /// (K steps, N blocks) for B.
  Shape getRepeats(const Shape &shape) const;

  Shape getRegisterOffsets(const Shape &shape, int64_t reg) const;
  Shape getThreadOffsets(int64_t lane, int64_t warp) const;

  int64_t getOpIndex() const { return opIndex; }
  int64_t getKWidth() const { return kWidth; }
  const MmaLayout &getParent() const { return parent; }

private:
  int64_t opIndex;
  MmaLayout parent;
  int64_t kWidth;
};

} // namespace kiln::layout

#endif // KILN_LAYOUT_MMALAYOUT_H
