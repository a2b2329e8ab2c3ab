//===- LoopPipelining.h - What pipelining a loop's loads takes -*- C++ -*-===//
//
// Shared by the two ways tile-pipeline-loops pipelines a loop: software
// pipelining (PipelineLoops.cpp), where every warp issues the copies of
// later iterations, and warp specialization (WarpSpecialize.cpp), where a
// producer warpgroup of its own does.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_DIALECT_TILEGPU_TRANSFORMS_LOOPPIPELINING_H
#define KILN_LIB_DIALECT_TILEGPU_TRANSFORMS_LOOPPIPELINING_H

#include "kiln/Dialect/Tile/IR/TileDialect.h"
#include "kiln/Dialect/TileGPU/IR/TileGPUDialect.h"
#include "kiln/Dialect/TileGPU/Transforms/TensorMaps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

#include <optional>
#include <string>

namespace kiln::tilegpu::pipelining {

/// A load turned into asynchronous copies (a tile.load into cp.async, a
/// tile.block_load with `tensorMap` into TMA copies), and the conversions
/// to dot operands that read it, as it is or transposed; with none, the
/// load's value itself is read back from the slot.
struct StagedLoad {
  mlir::Operation *load;
  llvm::SmallVector<ConvertLayoutOp> converts;
  /// The conversions to dot operands that read the load's transpose
  /// (`tl.dot(a, tl.trans(x))`), and the transposes: they read the slot
  /// through a tilegpu.transpose_slots view.
  llvm::SmallVector<ConvertLayoutOp> transposedConverts;
  llvm::SmallVector<tile::TransOp> transposes;
  mlir::MemRefType bufferType;
  /// The tensor map of a TMA-copied block load, without its parameter.
  std::optional<TensorMapFields> tensorMap;
  /// That parameter, once the kernel has it.
  mlir::Value tensorMapArg;

  /// Whether the load's value itself is read back from the slot (no dot
  /// reads the slot in place).
  bool readsOwnLayout() const {
    return converts.empty() && transposedConverts.empty();
  }
};

/// What pipelining one loop takes: its staged loads and the stage-0 ops
/// (in body order) and loop-carried values.
struct LoopPlan {
  llvm::SmallVector<StagedLoad, 2> loads;
  llvm::SetVector<mlir::Operation *> stage0;
  llvm::SmallVector<mlir::BlockArgument> stage0Args;
  /// Stage-0 ops the rest of the body uses too: stage 1 computes them
  /// again for its own iteration, from the induction variable, loop
  /// invariants and `laggingArgs`.
  llvm::DenseSet<mlir::Operation *> shared;
  /// Values the loop carries for the loads that stage 1 needs for its own
  /// iteration (what it computes again is made from them, it uses them or
  /// the loop's results do): the pipelined loop carries a second copy of
  /// each, stages - 1 iterations behind stage 0's.
  llvm::SetVector<mlir::BlockArgument> laggingArgs;
  /// Shared memory one stage of the staged loads takes.
  int64_t slotBytes = 0;
};

/// At least the shared scratch (layout conversions, partial results of
/// reductions, a TMA store's staging) of the ops that run while `loop`'s
/// slots hold data, when `plan` pipelines it: those of the loop, but for
/// what the pipeline reads from its slots instead, and those of the loops
/// around it. The scratch of the ops after the loop reuses the slots'
/// memory.
int64_t getConcurrentScratchBound(mlir::scf::ForOp loop, const LoopPlan &plan);

/// A dot operand written into a slot of its own before a loop: the
/// buffer, its slot, and whether the writes were fenced into the async
/// proxy (for wgmma).
struct StagedOperand {
  mlir::Value buffer;
  mlir::Value slot;
  bool fenced = false;
};

/// The dot operands written into slots of their own, by the tile they
/// convert.
using StagedOperands = llvm::DenseMap<mlir::Value, StagedOperand>;

/// The stage-0 ops and the staged loads' copies (into `buffers`) for the
/// iteration whose induction variable is `iv`, with the loop-carried
/// stage-0 values in `mapping`; copies past `upper` are masked off. TMA
/// copies complete on the slot's mbarrier of `barriers`. Adds the clones
/// to `mapping`.
void emitStage0(mlir::OpBuilder &b, mlir::Location loc, LoopPlan &plan,
                llvm::ArrayRef<mlir::Value> buffers, mlir::Value barriers,
                mlir::Value iv, mlir::Value upper, mlir::Value slot,
                mlir::scf::ForOp loop, mlir::IRMapping &mapping);

/// Rewrites the dots of `loop`'s body that accumulate for wgmma and read
/// B from a slot as tilegpu.warpgroup_dot (PipelineLoops.cpp says how),
/// taking the buffers it writes before the loop from `spareBytes`.
/// Returns whether there were any.
bool useWarpgroupDots(
    mlir::scf::ForOp loop, int64_t &spareBytes,
    const llvm::DenseMap<mlir::Value, mlir::RankedTensorType> &stagedTypes,
    StagedOperands &staged, llvm::DenseSet<mlir::Operation *> &explained);

/// Makes the dots of `loop`'s body on mma.sync read their 16-bit
/// operands that the loop does not change, converted from tiles in
/// registers (an attention's queries, its backward's keys and values),
/// from a slot of their own, written once before the loop and read with
/// ldmatrix where each dot needs them, as Triton does: their registers
/// are not held through the loop. Each buffer is taken from `spareBytes`;
/// an operand that does not fit stays in registers.
void readInvariantOperandsFromSlots(mlir::scf::ForOp loop, int64_t &spareBytes,
                                    StagedOperands &staged);

/// The dot of `loop` whose wgmma may run on while the next iteration
/// waits for its slots: the loop's only dot, accumulating for wgmma into
/// a value the loop carries and yielding nothing else (a K loop), B and
/// A from loads `plan` stages (A may also be a tile the loop does not
/// change), neither 8-bit; null where there is none.
tile::DotOp getOverlappableDot(mlir::scf::ForOp loop, const LoopPlan &plan);

/// Makes the only tilegpu.warpgroup_dot of the pipelined `loop` (one
/// getOverlappableDot found) `async`, and waits for it after the loop:
/// its result there becomes a tilegpu.warpgroup_wait's. Returns the wait,
/// or null where `loop` has no single warpgroup dot.
WarpgroupWaitOp overlapDot(mlir::scf::ForOp loop);

/// The shared buffers of `plan`'s loads, allocated at `b`, with the
/// transposed views of those some dots read transposed (null where none
/// does); `stagedTypes` gets each buffer's load type.
void allocateSlots(
    mlir::OpBuilder &b, mlir::Location loc, LoopPlan &plan,
    llvm::SmallVectorImpl<mlir::Value> &buffers,
    llvm::SmallVectorImpl<mlir::Value> &views,
    llvm::DenseMap<mlir::Value, mlir::RankedTensorType> &stagedTypes);

/// Pipelines `loop` (marked tile.warp_specialize) as `plan` says, with
/// `stages` slots per staged load, by warp specialization: a producer
/// warpgroup issues the copies, the kernel's warps run the loop on the
/// slots (see the pass's description). `spareBytes` of the shared memory
/// the slots may take are left over. Returns the loop, or fails, changing
/// nothing, with the reason in `whyNot`.
mlir::FailureOr<mlir::scf::ForOp>
warpSpecializeLoop(mlir::scf::ForOp loop, LoopPlan &plan, int64_t stages,
                   int64_t spareBytes, StagedOperands &stagedOperands,
                   llvm::DenseSet<mlir::Operation *> &explained,
                   std::string &whyNot);

} // namespace kiln::tilegpu::pipelining

#endif // KILN_LIB_DIALECT_TILEGPU_TRANSFORMS_LOOPPIPELINING_H
