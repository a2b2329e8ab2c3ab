//===- PipelineLoops.cpp - Loads of later iterations ahead of time --------===//
//
// Software pipelining of the operand loads of tensor-core dots: each load
// that only feeds a conversion to a dot operand becomes an asynchronous
// copy into a slot of a shared buffer, issued num_stages - 1 iterations
// ahead, together with everything its pointers and mask are computed from
// ("stage 0"); the rest of the body ("stage 1") reads the slot of its own
// iteration, and computes again what it shares with stage 0, from a
// second, lagging copy of the values the loop carries for the loads. A
// load read by dots both as it is and transposed (`tl.trans`) has one
// slot, which the transposed reads see through a view. A loop given num_stages explicitly (`tl.range(...,
// num_stages=)`) has its other loads copied ahead too, as Triton does
// (a persistent softmax's rows): the slot is read back in the load's own
// layout, and a load's `other` put where its mask is false. A dot whose
// accumulator is laid out for wgmma then reads B
// (and A where it has a slot) from the slots in place
// (tilegpu.warpgroup_dot). On sm_90 a block load whose block pointer
// the kernel's arguments describe is copied by TMA instead, through a
// tensor map each launch builds, and completes on the slot's mbarrier.
// A K loop's one dot leaves its wgmma running, the next copies issued
// once every warp has waited for the previous one. A loop marked for warp
// specialization whose copies are all TMA's is pipelined by roles instead
// (WarpSpecialize.cpp).
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/TileGPU/Transforms/Passes.h"

#include "LoopPipelining.h"

#include "kiln/Dialect/Tile/IR/TileDialect.h"
#include "kiln/Dialect/Tile/Transforms/Passes.h"
#include "kiln/Dialect/TileGPU/Transforms/AxisInfo.h"
#include "kiln/Dialect/TileGPU/Transforms/TensorMaps.h"
#include "kiln/Layout/SharedLayout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/FormatVariadic.h"

namespace kiln::tilegpu {
#define GEN_PASS_DEF_TILEPIPELINELOOPSPASS
#include "kiln/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace kiln::tilegpu

using namespace mlir;
using namespace kiln;
using namespace kiln::tilegpu;
using namespace kiln::tilegpu::pipelining;

/// A loop's attribute (Triton's `tl.range(..., warp_specialize=)`) that
/// asks for warp specialization (true) or forbids it.
static constexpr llvm::StringLiteral kWarpSpecializeAttr =
    "tile.warp_specialize";

namespace {

struct TilePipelineLoopsPass
    : tilegpu::impl::TilePipelineLoopsPassBase<TilePipelineLoopsPass> {
  using TilePipelineLoopsPassBase::TilePipelineLoopsPassBase;
  void runOnOperation() override;
};

} // namespace

/// Whether `value` is a tile of zeros.
static bool isZeroTile(Value value) {
  if (auto splat = value.getDefiningOp<tile::SplatOp>())
    value = splat.getSrc();
  return matchPattern(value, m_AnyZeroFloat()) || matchPattern(value, m_Zero());
}

/// Bytes one thread copies at once for `load`: its run along the
/// dimension its layout makes fastest (the rows' or the columns'), as far
/// as alignment and the mask allow; 0 without a blocked layout.
static int64_t getCopyBytes(AxisInfoAnalysis &axisInfo, tile::LoadOp load) {
  auto type = cast<RankedTensorType>(load.getPtr().getType());
  auto blocked = dyn_cast<BlockedEncodingAttr>(type.getEncoding());
  if (!blocked)
    return 0;
  int64_t fastest = blocked.getOrder()[0];
  int64_t width = std::min(
      getAccessVectorWidth(axisInfo, load.getPtr(), load.getMask(), fastest),
      blocked.getSizePerThread()[fastest]);
  auto element = cast<RankedTensorType>(load.getType()).getElementType();
  return width * std::max<int64_t>(1, element.getIntOrFloatBitWidth() / 8);
}

/// The tensor map through which TMA can copy the blocks `load` reads in
/// `loop`, or why there is none.
static FailureOr<TensorMapFields>
getBlockLoadTensorMap(tile::BlockLoadOp load, scf::ForOp loop,
                      AxisInfoAnalysis &axisInfo, std::string &whyNot) {
  if (load.getPadding() != tile::PaddingOption::Zero) {
    whyNot = "TMA pads with zeros, not NaN";
    return failure();
  }
  tile::MakeBlockPtrOp origin = getBlockPtrOrigin(load.getBlockPtr());
  if (!origin) {
    whyNot = "its block pointer does not come from a tile.make_block_ptr, "
             "advanced by the loop or made in it";
    return failure();
  }
  // A block pointer made in the loop (a descriptor's load in a flattened
  // persistent loop, at offsets of the step's tile) is made again ahead,
  // with the rest of stage 0: the map needs only its tensor to stay.
  if (loop->isAncestor(origin) &&
      !llvm::all_of(llvm::concat<Value>(ValueRange(origin.getBase()),
                                        origin.getShape(), origin.getStrides()),
                    [&](Value v) { return loop.isDefinedOutsideOfLoop(v); })) {
    whyNot = "the tensor its block pointer describes changes in the loop";
    return failure();
  }
  return getTensorMap(origin, load.getType(), load.getBoundaryCheck(),
                      axisInfo, whyNot);
}

/// Bytes a slot of a tile of `type` takes (booleans as bytes).
static int64_t getTileBytes(RankedTensorType type) {
  return type.getNumElements() *
         std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
}

/// Whether `load` (a tile.load) can be copied by cp.async and read back
/// in its own layout: a tile of one or two dimensions whose threads' runs
/// are 4, 8 or 16 bytes, not volatile (read where it stands).
static bool isCopyable(tile::LoadOp load, AxisInfoAnalysis &axisInfo) {
  auto type = dyn_cast<RankedTensorType>(load.getType());
  if (!type || type.getRank() > 2 || load.getIsVolatile())
    return false;
  int64_t bytes = getCopyBytes(axisInfo, load);
  return bytes == 4 || bytes == 8 || bytes == 16;
}

/// Whether `convert` converts to a dot operand's layout.
static bool isDotOperand(ConvertLayoutOp convert) {
  return isa<DotOperandEncodingAttr>(convert.getType().getEncoding());
}

/// Whether a tile of `type` loaded in `loop` row by row (N contiguous) is
/// only B of wgmma dots that read it K-major only with 32-bit elements
/// (tf32), and whose A wgmma can read from a slot (loaded in the loop, or
/// the same in every iteration): its slot is then K-major, each element
/// copied by a 4-byte cp.async into its column, as Triton stages it.
/// (8-bit elements are transposed through registers instead.)
static bool isKMajorOnlyB32(scf::ForOp loop, RankedTensorType type,
                            ArrayRef<ConvertLayoutOp> converts,
                            ArrayRef<ConvertLayoutOp> transposedConverts) {
  if (type.getElementTypeBitWidth() != 32 ||
      !WarpgroupDotOp::readsKMajorOnly(type.getElementType()) ||
      converts.empty() || !transposedConverts.empty())
    return false;
  auto isSlottedA = [&](Value a) {
    auto convert = a.getDefiningOp<ConvertLayoutOp>();
    return loop.isDefinedOutsideOfLoop(a) ||
           (convert && isa_and_nonnull<tile::LoadOp, tile::BlockLoadOp>(
                           convert.getSrc().getDefiningOp()));
  };
  return llvm::all_of(converts, [&](ConvertLayoutOp convert) {
    auto operand =
        cast<DotOperandEncodingAttr>(convert.getType().getEncoding());
    auto mma = dyn_cast<MmaEncodingAttr>(operand.getParent());
    return operand.getOpIdx() == 1 && mma && mma.getWarpgroup() &&
           llvm::all_of(convert->getUsers(), [&](Operation *user) {
             auto dot = dyn_cast<tile::DotOp>(user);
             return dot && isSlottedA(dot.getA());
           });
  });
}

/// Whether `load`'s tile only reaches dots through elementwise ops: casts
/// (`a.to(f16)` of int8 or 8-bit float weights), scales, or the split of
/// tf32x3 (tile-split-tf32x3); every path from it ends in a conversion to
/// a dot operand. Such a load is staged and read back in its own layout,
/// and the ops and conversions follow.
static bool feedsDotsThroughElementwise(Operation *load) {
  SmallVector<Operation *> work = {load};
  DenseSet<Operation *> seen;
  while (!work.empty()) {
    for (Operation *user : work.pop_back_val()->getUsers()) {
      if (auto convert = dyn_cast<ConvertLayoutOp>(user);
          convert && isDotOperand(convert))
        continue;
      if (!user->hasTrait<OpTrait::Elementwise>() ||
          user->getNumResults() != 1 || user->use_empty())
        return false;
      if (seen.insert(user).second)
        work.push_back(user);
    }
  }
  return !seen.empty();
}

/// Why `loop` cannot be pipelined with `stages` slots, or its plan (whose
/// slots the caller fits in shared memory). `everyLoad`: the loads that
/// feed no dot are staged too, where cp.async can copy them.
static FailureOr<LoopPlan> planLoop(scf::ForOp loop, int64_t stages,
                                    bool tensorMaps, bool everyLoad,
                                    AxisInfoAnalysis &axisInfo,
                                    std::string &whyNot) {
  LoopPlan plan;
  Block *body = loop.getBody();
  int64_t &slotBytes = plan.slotBytes;
  bool refusedBlockLoads = false;
  for (Operation &op : *body) {
    auto blockLoad = dyn_cast<tile::BlockLoadOp>(op);
    auto load = dyn_cast<tile::LoadOp>(op);
    if ((!load && !(blockLoad && tensorMaps)) || op.use_empty())
      continue;
    auto type = dyn_cast<RankedTensorType>(op.getResult(0).getType());
    if (!type)
      continue;
    // Every user converts the tile, or its transpose, to a dot operand.
    SmallVector<ConvertLayoutOp> converts, transposedConverts;
    SmallVector<tile::TransOp> transposes;
    bool feedsDots = type.getRank() == 2;
    for (Operation *user : op.getUsers()) {
      if (auto convert = dyn_cast<ConvertLayoutOp>(user);
          convert && isDotOperand(convert)) {
        converts.push_back(convert);
        continue;
      }
      auto trans = dyn_cast<tile::TransOp>(user);
      feedsDots &= trans && !trans->use_empty() &&
                   llvm::all_of(trans->getUsers(), [](Operation *transUser) {
                     auto convert = dyn_cast<ConvertLayoutOp>(transUser);
                     return convert && isDotOperand(convert);
                   });
      if (!feedsDots)
        break;
      transposes.push_back(trans);
      for (Operation *transUser : trans->getUsers())
        transposedConverts.push_back(cast<ConvertLayoutOp>(transUser));
    }
    if (!feedsDots) {
      if ((everyLoad || feedsDotsThroughElementwise(&op)) && load &&
          isCopyable(load, axisInfo)) {
        slotBytes += getTileBytes(type);
        plan.loads.push_back({load,
                              {},
                              {},
                              {},
                              getSlotBufferType(stages, type.getShape(),
                                                type.getElementType(),
                                                /*transposed=*/false),
                              std::nullopt,
                              Value()});
      }
      continue;
    }
    // A tile whose columns are contiguous in memory (a K-major B, as `a @
    // b.T` and attention's K load it) is staged column by column, each
    // column a row of the slot: the K-major operand wgmma reads. Its
    // transpose is read from the same slot as a row-major tile.
    auto blocked =
        load ? dyn_cast<BlockedEncodingAttr>(
                   cast<RankedTensorType>(load.getPtr().getType())
                       .getEncoding())
             : BlockedEncodingAttr();
    bool transposed =
        blocked && (blocked.getOrder()[0] == 0 ||
                    isKMajorOnlyB32(loop, type, converts, transposedConverts));
    // An A whose columns are contiguous (M-major: A stored K x M, or the
    // transpose of a K x M load) is staged column by column too; the dot
    // reads it from the slot into registers.
    MemRefType bufferType = getSlotBufferType(
        stages, type.getShape(), type.getElementType(), transposed);
    int64_t tileBytes = getTileBytes(type);
    if (blockLoad) {
      std::string whyNotTMA;
      FailureOr<TensorMapFields> map =
          getBlockLoadTensorMap(blockLoad, loop, axisInfo, whyNotTMA);
      if (failed(map)) {
        blockLoad.emitRemark() << "not copied by TMA: " << whyNotTMA;
        refusedBlockLoads = true;
        continue;
      }
      slotBytes += tileBytes;
      plan.loads.push_back({blockLoad, converts, transposedConverts,
                            transposes, bufferType, *map, Value()});
      continue;
    }
    if (load.getOther() && !isZeroTile(load.getOther())) {
      whyNot = "a load's padding is not zero";
      return failure();
    }
    if (load.getIsVolatile()) {
      whyNot = "a load of a dot operand is volatile";
      return failure();
    }
    if (!isCopyable(load, axisInfo)) {
      whyNot = "a load's rows (or, for B, columns) are not contiguous and "
               "aligned in 4-, 8- or 16-byte pieces";
      return failure();
    }
    slotBytes += tileBytes;
    plan.loads.push_back({load, converts, transposedConverts, transposes,
                          bufferType, std::nullopt, Value()});
  }
  if (plan.loads.empty()) {
    whyNot = refusedBlockLoads
                 ? "its block loads are not copied by TMA (their remarks say "
                   "why)"
             : everyLoad ? "no load there is copied in runs of 4, 8 or 16 "
                           "bytes a thread"
                         : "no load there feeds a dot operand";
    return failure();
  }

  // Stage 0: what the loads' operands come from inside the body, and, for
  // every value the loop carries into it, what its next value comes from.
  SmallVector<Value> worklist;
  for (StagedLoad &staged : plan.loads)
    llvm::append_range(worklist, staged.load->getOperands());
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      if (arg.getOwner() != body || arg == loop.getInductionVar() ||
          llvm::is_contained(plan.stage0Args, arg))
        continue;
      plan.stage0Args.push_back(arg);
      worklist.push_back(yield.getOperand(arg.getArgNumber() - 1));
      continue;
    }
    Operation *op = value.getDefiningOp();
    if (!op || op->getBlock() != body || plan.stage0.contains(op))
      continue;
    if (!tile::canSpeculate(op) || op->getNumRegions() != 0) {
      whyNot = llvm::formatv("the loads' operands come from '{0}', which "
                             "cannot run ahead",
                             op->getName())
                   .str();
      return failure();
    }
    plan.stage0.insert(op);
    llvm::append_range(worklist, op->getOperands());
  }
  // Stage 0 in body order, so clones see their operands first.
  SmallVector<Operation *> ordered;
  for (Operation &op : *body)
    if (plan.stage0.contains(&op))
      ordered.push_back(&op);
  plan.stage0 = SetVector<Operation *>(ordered.begin(), ordered.end());

  // Stage 1 must not see stage 0's values: they belong to a later
  // iteration.
  auto isStagedLoad = [&](Operation *op) {
    return llvm::any_of(plan.loads,
                        [&](StagedLoad &s) { return s.load == op; });
  };
  auto onlyStage0 = [&](Value value) {
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (plan.stage0.contains(user) || isStagedLoad(user))
        continue;
      if (user == yield &&
          llvm::is_contained(plan.stage0Args,
                             body->getArgument(use.getOperandNumber() + 1)))
        continue;
      return false;
    }
    return true;
  };
  for (Operation *op : plan.stage0)
    if (!llvm::all_of(op->getResults(), onlyStage0))
      plan.shared.insert(op);
  // A load read back in its own layout puts its `other` where its mask is
  // false (the copies fill zeros there): stage 1 wants both for its own
  // iteration.
  for (StagedLoad &staged : plan.loads) {
    auto load = dyn_cast<tile::LoadOp>(staged.load);
    if (!staged.readsOwnLayout() || !load || !load.getOther() ||
        isZeroTile(load.getOther()))
      continue;
    for (Value operand : {load.getMask(), load.getOther()})
      if (Operation *producer = operand.getDefiningOp();
          producer && plan.stage0.contains(producer))
        plan.shared.insert(producer);
  }
  // What a shared op is computed from is computed again too, from the
  // lagging copies of the values the loop carries for the loads, whose
  // next values are then computed again as well; so are the values the
  // rest of the body or the loop's results use directly.
  for (BlockArgument arg : plan.stage0Args)
    if (!onlyStage0(arg) || !loop.getTiedLoopResult(arg).use_empty())
      plan.laggingArgs.insert(arg);
  for (bool changed = true; changed;) {
    size_t before = plan.shared.size() + plan.laggingArgs.size();
    for (Operation *op : llvm::reverse(plan.stage0))
      if (plan.shared.contains(op))
        for (Value operand : op->getOperands()) {
          if (auto arg = dyn_cast<BlockArgument>(operand);
              arg && llvm::is_contained(plan.stage0Args, arg))
            plan.laggingArgs.insert(arg);
          else if (Operation *producer = operand.getDefiningOp();
                   producer && plan.stage0.contains(producer))
            plan.shared.insert(producer);
        }
    for (size_t i = 0; i < plan.laggingArgs.size(); ++i) {
      BlockArgument arg = plan.laggingArgs[i];
      Value next = yield.getOperand(arg.getArgNumber() - 1);
      if (auto nextArg = dyn_cast<BlockArgument>(next);
          nextArg && llvm::is_contained(plan.stage0Args, nextArg))
        plan.laggingArgs.insert(nextArg);
      else if (Operation *producer = next.getDefiningOp();
               producer && plan.stage0.contains(producer))
        plan.shared.insert(producer);
    }
    changed = plan.shared.size() + plan.laggingArgs.size() != before;
  }
  return plan;
}

/// The stage-0 ops and the staged loads' copies for the iteration whose
/// induction variable is `iv`, with the loop-carried stage-0 values in
/// `mapping`; copies past `upper` are masked off. TMA copies complete on
/// the slot's mbarrier of `barriers`. Adds the clones to `mapping`.
void pipelining::emitStage0(OpBuilder &b, Location loc, LoopPlan &plan,
                            ArrayRef<Value> buffers, Value barriers, Value iv,
                            Value upper, Value slot, scf::ForOp loop,
                            IRMapping &mapping) {
  mapping.map(loop.getInductionVar(), iv);
  for (Operation *op : plan.stage0)
    b.clone(*op, mapping);
  Value valid =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, iv, upper);
  int64_t tensorMapBytes = 0;
  bool asyncCopies = false;
  for (auto [staged, buffer] : llvm::zip(plan.loads, buffers)) {
    if (staged.tensorMap) {
      MemRefType type = staged.bufferType;
      tensorMapBytes += type.getNumElements() / type.getDimSize(0) *
                        type.getElementTypeBitWidth() / 8;
      continue;
    }
    auto load = cast<tile::LoadOp>(staged.load);
    auto ptrType = cast<RankedTensorType>(load.getPtr().getType());
    auto maskType = RankedTensorType::get(
        ptrType.getShape(), b.getI1Type(), ptrType.getEncoding());
    Value mask = tile::SplatOp::create(b, loc, maskType, valid);
    if (Value original = load.getMask())
      mask = arith::AndIOp::create(b, loc, mapping.lookupOrDefault(original), mask);
    AsyncCopyOp::create(b, loc, mapping.lookupOrDefault(load.getPtr()), mask, buffer,
                        slot);
    asyncCopies = true;
  }
  if (asyncCopies)
    AsyncCommitGroupOp::create(b, loc);
  if (!tensorMapBytes)
    return;
  // The arrival that expects the bytes comes first, so that the phase
  // cannot complete before all of the slot's copies have landed.
  BarrierExpectOp::create(b, loc, barriers, slot, tensorMapBytes, valid);
  for (auto [staged, buffer] : llvm::zip(plan.loads, buffers))
    if (staged.tensorMap)
      TensorMapCopyOp::create(
          b, loc, staged.tensorMapArg,
          mapping.lookupOrDefault(cast<tile::BlockLoadOp>(staged.load).getBlockPtr()),
          buffer, slot, barriers, valid);
}

/// Whether `dot` runs on tensor cores accumulating in a layout for wgmma.
static bool hasWarpgroupAccumulator(tile::DotOp dot) {
  auto mma = dyn_cast_or_null<MmaEncodingAttr>(
      cast<RankedTensorType>(dot.getType()).getEncoding());
  return mma && mma.getWarpgroup() && runsOnTensorCores(dot);
}

/// A one-slot buffer, written before `loop`, of `a`: a dot operand the
/// loop does not change, converted from a tile in registers (an
/// attention's queries). Returns the buffer and its slot, or nulls where
/// `a` is not such an operand or does not fit `spareBytes`, which it
/// takes from. Operands already written, for this loop or one before it
/// (the causal attention backward's two loops over the same keys), are in
/// `staged` by the tile converted: the loops share the buffer, and the
/// tile's registers are not kept alive across the first loop.
/// `forWarpgroup`: wgmma reads the slot (through the async proxy).
/// `transposed`: the slot holds the tile's columns as rows (a K-major B).
static std::pair<Value, Value> stageInvariantOperand(scf::ForOp loop, Value a,
                                                     int64_t &spareBytes,
                                                     StagedOperands &staged,
                                                     bool forWarpgroup,
                                                     bool transposed = false) {
  auto convert = a.getDefiningOp<ConvertLayoutOp>();
  if (!convert || !loop.isDefinedOutsideOfLoop(a))
    return {};
  if (auto it = staged.find(convert.getSrc());
      it != staged.end() &&
      hasTransposedSlots(cast<MemRefType>(it->second.buffer.getType())) ==
          transposed &&
      DominanceInfo().properlyDominates(it->second.buffer, loop)) {
    StagedOperand &operand = it->second;
    if (forWarpgroup && !operand.fenced) {
      // An earlier loop's mma.sync read the slot; wgmma reads it through
      // the async proxy.
      OpBuilder b(loop);
      FenceAsyncSharedOp::create(b, convert.getLoc());
      gpu::BarrierOp::create(b, convert.getLoc());
      operand.fenced = true;
    }
    return {operand.buffer, operand.slot};
  }
  auto type = cast<RankedTensorType>(a.getType());
  int64_t bytes = getTileBytes(type);
  if (bytes > spareBytes)
    return {};
  spareBytes -= bytes;
  OpBuilder b(loop);
  Location loc = convert.getLoc();
  Value buffer = LocalAllocOp::create(
      b, loc,
      getSlotBufferType(1, type.getShape(), type.getElementType(), transposed));
  Value slot = arith::ConstantIntOp::create(b, loc, 0, 32);
  // In a loop around this one (over an attention's query blocks), the
  // previous iteration's dots may still read the slot in other warps.
  gpu::BarrierOp::create(b, loc);
  LocalStoreOp::create(b, loc, convert.getSrc(), buffer, slot);
  // wgmma reads the slot through the async proxy.
  if (forWarpgroup)
    FenceAsyncSharedOp::create(b, loc);
  gpu::BarrierOp::create(b, loc);
  staged[convert.getSrc()] = {buffer, slot, forWarpgroup};
  return {buffer, slot};
}

/// A one-slot buffer, allocated before `loop` (`transposed`: K-major),
/// holding `dot`'s B, written each iteration just before the dot with the
/// tile `rows` builds there, fenced into the async proxy and published by
/// a barrier, for wgmma, which reads B from shared memory only. The dot is
/// not left running, so the loop's first barrier keeps the writes behind
/// the previous iteration's wgmma. Returns the buffer and its slot, or
/// nulls where the buffer does not fit `spareBytes`, which it takes from.
static std::pair<Value, Value>
writeOperandIntoBuffer(scf::ForOp loop, tile::DotOp dot, bool transposed,
                       int64_t &spareBytes,
                       function_ref<Value(OpBuilder &)> rows) {
  auto type = cast<RankedTensorType>(dot.getB().getType());
  int64_t bytes = getTileBytes(type);
  if (bytes > spareBytes)
    return {};
  spareBytes -= bytes;
  Location loc = dot.getLoc();
  OpBuilder builder(loop);
  Value buffer = LocalAllocOp::create(
      builder, loc,
      getSlotBufferType(1, type.getShape(), type.getElementType(), transposed));
  builder.setInsertionPoint(dot);
  Value slot = arith::ConstantIntOp::create(builder, loc, 0, 32);
  LocalStoreOp::create(builder, loc, rows(builder), buffer, slot);
  FenceAsyncSharedOp::create(builder, loc);
  gpu::BarrierOp::create(builder, loc);
  return {buffer, slot};
}

/// writeOperandIntoBuffer of the slot `load` reads, read in `stagedType`
/// (the staged load's layout) and cast there by a copy of `castOfSlot`
/// where one is given. Two uses, as Triton does:
/// - an 8-bit B read from an N-major slot, transposed (wgmma takes 8-bit
///   operands K-major only), a byte at a time;
/// - a B the loop casts from a slot (`x.to(f16)` of int8 weights).
static std::pair<Value, Value>
copyOperandIntoBuffer(scf::ForOp loop, tile::DotOp dot, LocalLoadOp load,
                      RankedTensorType stagedType, Operation *castOfSlot,
                      bool transposed, int64_t &spareBytes) {
  Type element = getElementTypeOrSelf(dot.getB().getType());
  return writeOperandIntoBuffer(
      loop, dot, transposed, spareBytes, [&](OpBuilder &builder) -> Value {
        Value rows = LocalLoadOp::create(builder, dot.getLoc(), stagedType,
                                         load.getBuffer(), load.getSlot());
        if (!castOfSlot)
          return rows;
        Operation *wide = builder.clone(*castOfSlot);
        wide->setOperand(0, rows);
        wide->getResult(0).setType(stagedType.clone(element));
        return wide->getResult(0);
      });
}

/// The cast (one operand) that makes `operand` from a slot's local_load,
/// or null.
static Operation *getCastOfSlot(Value operand) {
  Operation *op = operand.getDefiningOp();
  if (!op || !isa<CastOpInterface>(op) || op->getNumOperands() != 1 ||
      !op->getOperand(0).getDefiningOp<LocalLoadOp>())
    return nullptr;
  return op;
}

/// Bytes of the slots written before an earlier loop that `loop`'s dots
/// will read too (stageInvariantOperand shares them): they hold their
/// operands while `loop`'s stages do.
static int64_t getSharedOperandBytes(scf::ForOp loop,
                                     const StagedOperands &staged) {
  DenseSet<Value> counted;
  int64_t bytes = 0;
  DominanceInfo dominance;
  for (auto dot : loop.getBody()->getOps<tile::DotOp>())
    for (Value operand : {dot.getA(), dot.getB()}) {
      auto convert = operand.getDefiningOp<ConvertLayoutOp>();
      if (!convert || !loop.isDefinedOutsideOfLoop(operand))
        continue;
      auto it = staged.find(convert.getSrc());
      if (it != staged.end() &&
          dominance.properlyDominates(it->second.buffer, loop) &&
          counted.insert(it->second.buffer).second)
        bytes += getTileBytes(convert.getType());
    }
  return bytes;
}

/// Rewrites the dots of `loop`'s body that accumulate for wgmma and read
/// B from a slot as tilegpu.warpgroup_dot, which reads the slots in place:
/// A too when it has one, or when the loop does not change it and it fits
/// `spareBytes` (then it is written into a slot of its own once, before
/// the loop, as Triton keeps an attention's queries in shared memory,
/// which frees their registers); else A stays in registers, as a prologue
/// such as a cast left it. A 16-bit B the loop does not change is written
/// into a slot of its own the same way where it fits (else the dot stays
/// on mma.sync, with a remark); one the loop casts from a slot (int8
/// weights) is cast and written into a buffer of its own each iteration.
/// A dot that wgmma reads K-major only (tf32, i8, 8-bit floats) needs A in
/// a slot and B K-major (an N-major B is transposed into a buffer of its
/// own each iteration);
/// where it cannot have them it stays on mma.sync, with a remark, and is
/// added to `explained`. `stagedTypes` has the type of the load staged
/// in each buffer. Returns whether there were any.
bool pipelining::useWarpgroupDots(
    scf::ForOp loop, int64_t &spareBytes,
    const DenseMap<Value, RankedTensorType> &stagedTypes,
    StagedOperands &staged, DenseSet<Operation *> &explained) {
  bool any = false;
  for (auto dot : llvm::make_early_inc_range(loop.getBody()->getOps<tile::DotOp>())) {
    auto a = dot.getA().getDefiningOp<LocalLoadOp>();
    auto b = dot.getB().getDefiningOp<LocalLoadOp>();
    if (!hasWarpgroupAccumulator(dot))
      continue;
    Type element = getElementTypeOrSelf(dot.getB().getType());
    bool kMajorOnly = WarpgroupDotOp::readsKMajorOnly(element);
    // How remarks name the operands wgmma reads K-major only.
    StringRef kind = element.isF32() ? "tf32" : "8-bit";
    if (a && hasTransposedSlots(a.getBuffer().getType())) {
      // An M-major A: wgmma reads a 16-bit one from registers, where the
      // dot reads it from its slot.
      if (kMajorOnly) {
        dot.emitRemark() << "on mma.sync, not wgmma: wgmma reads " << kind
                         << " A K-major only, and this A is M-major";
        explained.insert(dot);
        continue;
      }
      a = nullptr;
    }
    if (kMajorOnly && !a && !loop.isDefinedOutsideOfLoop(dot.getA())) {
      dot.emitRemark() << "on mma.sync, not wgmma: wgmma reads " << kind
                       << " A from shared memory only, and this A is "
                          "computed in the loop, not loaded";
      explained.insert(dot);
      continue;
    }
    Value bBuffer, bSlot;
    if (b) {
      bBuffer = b.getBuffer();
      bSlot = b.getSlot();
    } else if (loop.isDefinedOutsideOfLoop(dot.getB())) {
      // A B the loop does not change (weights applied to each block of
      // rows) is written into a slot of its own, N-major as A is, or
      // K-major where wgmma reads it so only.
      std::tie(bBuffer, bSlot) =
          stageInvariantOperand(loop, dot.getB(), spareBytes, staged,
                                /*forWarpgroup=*/true, kMajorOnly);
      if (!bBuffer) {
        dot.emitRemark()
            << "on mma.sync, not wgmma: wgmma reads B from shared memory, "
               "and this B, the same in every iteration, does not fit in "
               "shared memory beside the pipeline's slots";
        explained.insert(dot);
        continue;
      }
    } else if (Operation *castOfB = getCastOfSlot(dot.getB())) {
      auto load = castOfB->getOperand(0).getDefiningOp<LocalLoadOp>();
      auto stagedType = stagedTypes.find(load.getBuffer());
      if (kMajorOnly || stagedType == stagedTypes.end())
        continue;
      std::tie(bBuffer, bSlot) = copyOperandIntoBuffer(
          loop, dot, load, stagedType->second, castOfB,
          hasTransposedSlots(load.getBuffer().getType()), spareBytes);
      if (!bBuffer) {
        dot.emitRemark() << "on mma.sync, not wgmma: wgmma reads B from "
                            "shared memory, and a buffer for this B, cast "
                            "from what the loop loads, does not fit beside "
                            "the pipeline's slots";
        explained.insert(dot);
        continue;
      }
    } else if (auto convert = dot.getB().getDefiningOp<ConvertLayoutOp>();
               convert && !kMajorOnly &&
               isa<BlockedEncodingAttr>(
                   convert.getSrc().getType().getEncoding()) &&
               !loop.isDefinedOutsideOfLoop(convert.getSrc())) {
      // A B the loop computes from what it loads (a dequantization:
      // shifts, casts, scales) is written as computed into a buffer of its
      // own each iteration, as Triton does.
      std::tie(bBuffer, bSlot) =
          writeOperandIntoBuffer(loop, dot, /*transposed=*/false, spareBytes,
                                 [&](OpBuilder &) { return convert.getSrc(); });
      if (!bBuffer) {
        dot.emitRemark() << "on mma.sync, not wgmma: wgmma reads B from "
                            "shared memory, and a buffer for this B, "
                            "computed in the loop, does not fit beside the "
                            "pipeline's slots";
        explained.insert(dot);
        continue;
      }
    } else {
      continue;
    }
    // wgmma reads an A the loop does not change from a slot of its own
    // where it fits (a 16-bit one, after B's buffer, from registers else).
    auto stageA = [&] {
      return a ? std::make_pair(a.getBuffer(), a.getSlot())
               : stageInvariantOperand(loop, dot.getA(), spareBytes, staged,
                                       /*forWarpgroup=*/true);
    };
    Value aBuffer, aSlot;
    if (kMajorOnly)
      std::tie(aBuffer, aSlot) = stageA();
    if (kMajorOnly && !aBuffer) {
      dot.emitRemark() << "on mma.sync, not wgmma: wgmma reads " << kind
                       << " A from shared memory only, and this A, the same "
                          "in every iteration, does not fit in shared memory "
                          "beside the pipeline's slots";
      explained.insert(dot);
      continue;
    }
    if (kMajorOnly && b) {
      if (!hasTransposedSlots(b.getBuffer().getType())) {
        // A transposed view reads the slot of a load in another shape.
        auto stagedType = stagedTypes.find(bBuffer);
        if (stagedType == stagedTypes.end()) {
          dot.emitRemark() << "on mma.sync, not wgmma: wgmma reads " << kind
                           << " B K-major only, and this B is the transpose "
                              "of a K-major load";
          explained.insert(dot);
          continue;
        }
        std::tie(bBuffer, bSlot) =
            copyOperandIntoBuffer(loop, dot, b, stagedType->second,
                                  /*castOfSlot=*/nullptr,
                                  /*transposed=*/true, spareBytes);
        if (!bBuffer) {
          dot.emitRemark() << "on mma.sync, not wgmma: wgmma reads " << kind
                           << " B K-major only, and a buffer to transpose "
                              "this N-major B into does not fit in shared "
                              "memory beside the pipeline's slots";
          explained.insert(dot);
          continue;
        }
      }
    }
    if (!kMajorOnly)
      std::tie(aBuffer, aSlot) = stageA();
    OpBuilder builder(dot);
    auto warpgroupDot =
        aBuffer ? WarpgroupDotOp::create(builder, dot.getLoc(), dot.getType(),
                                         aBuffer, aSlot, bBuffer, bSlot,
                                         dot.getAcc(), /*useAcc=*/Value())
                : WarpgroupDotOp::create(builder, dot.getLoc(), dot.getType(),
                                         dot.getA(), Value(), bBuffer, bSlot,
                                         dot.getAcc(), /*useAcc=*/Value());
    Operation *castOfB = b ? nullptr : getCastOfSlot(dot.getB());
    dot.replaceAllUsesWith(warpgroupDot.getResult());
    dot.erase();
    if (castOfB && castOfB->use_empty()) {
      b = castOfB->getOperand(0).getDefiningOp<LocalLoadOp>();
      castOfB->erase();
    }
    for (LocalLoadOp load : {a, b})
      if (load && load->use_empty())
        load.erase();
    any = true;
  }
  return any;
}

void pipelining::readInvariantOperandsFromSlots(scf::ForOp loop,
                                                int64_t &spareBytes,
                                                StagedOperands &staged) {
  for (auto dot : loop.getBody()->getOps<tile::DotOp>()) {
    if (hasWarpgroupAccumulator(dot) || !runsOnTensorCores(dot))
      continue;
    for (OpOperand *operand : {&dot.getAMutable(), &dot.getBMutable()}) {
      auto type = cast<RankedTensorType>(operand->get().getType());
      if (type.getElementTypeBitWidth() != 16)
        continue;
      auto [buffer, slot] = stageInvariantOperand(
          loop, operand->get(), spareBytes, staged, /*forWarpgroup=*/false);
      if (!buffer)
        continue;
      OpBuilder b(dot);
      operand->set(LocalLoadOp::create(b, dot.getLoc(), type, buffer, slot));
    }
  }
}

void pipelining::allocateSlots(OpBuilder &b, Location loc, LoopPlan &plan,
                               SmallVectorImpl<Value> &buffers,
                               SmallVectorImpl<Value> &views,
                               DenseMap<Value, RankedTensorType> &stagedTypes) {
  for (StagedLoad &staged : plan.loads) {
    buffers.push_back(LocalAllocOp::create(b, loc, staged.bufferType));
    stagedTypes[buffers.back()] =
        cast<RankedTensorType>(staged.load->getResult(0).getType());
    MemRefType type = staged.bufferType;
    views.push_back(
        staged.transposes.empty()
            ? Value()
            : TransposeSlotsOp::create(
                  b, loc,
                  getSlotBufferType(type.getDimSize(0),
                                    {type.getDimSize(2), type.getDimSize(1)},
                                    type.getElementType(),
                                    !hasTransposedSlots(type)),
                  buffers.back())
                  .getResult());
  }
}

namespace {
/// The accumulator a loop's dot starts from: what the loop carries, or,
/// at a flattened loop's steps (FlattenLoops.cpp), zero where
/// `startsTile` holds (a tile's first K step) and what it carries
/// elsewhere.
struct CarriedAccumulator {
  BlockArgument carried;
  Value startsTile;
};
} // namespace

/// `dot`'s accumulator `acc` as a CarriedAccumulator of `loop`; failure
/// where it is anything else, or where the loop reads it elsewhere.
static FailureOr<CarriedAccumulator> getCarriedAccumulator(scf::ForOp loop,
                                                           Value acc) {
  CarriedAccumulator found;
  if (auto select = acc.getDefiningOp<arith::SelectOp>()) {
    if (!select->hasOneUse() || !isZeroTile(select.getTrueValue()) ||
        isa<ShapedType>(select.getCondition().getType()))
      return failure();
    found.startsTile = select.getCondition();
    acc = select.getFalseValue();
  }
  found.carried = dyn_cast<BlockArgument>(acc);
  if (!found.carried || found.carried.getOwner() != loop.getBody() ||
      found.carried == loop.getInductionVar() || !found.carried.hasOneUse())
    return failure();
  return found;
}

/// Whether `value` is, or is the result of an scf.if whose both branches
/// yield, `result`.
static bool carriesOn(Value value, Value result) {
  if (value == result)
    return true;
  auto choice = value.getDefiningOp<scf::IfOp>();
  if (!choice || choice.getElseRegion().empty())
    return false;
  unsigned j = cast<OpResult>(value).getResultNumber();
  return choice.thenYield().getOperand(j) == result &&
         choice.elseYield().getOperand(j) == result;
}

/// Where `loop` reads the accumulator `result` it carries as `acc`: the
/// loop's yield carries it on (or an scf.if's, both of whose branches
/// do), and besides, at most a tile's epilogue reads it, the then-branch
/// of an scf.if in the body (a flattened loop's last K step,
/// FlattenLoops.cpp). Returns that scf.if, null where there is none;
/// fails where anything else reads it.
static FailureOr<scf::IfOp> getAccumulatorPath(scf::ForOp loop, Value result,
                                               BlockArgument acc) {
  Value yielded =
      loop.getBody()->getTerminator()->getOperand(acc.getArgNumber() - 1);
  if (!carriesOn(yielded, result) ||
      (yielded != result && !yielded.hasOneUse()))
    return failure();
  // The uses that carry it on: the loop's yield, or the scf.if's yields,
  // at its position.
  auto carries = [&](OpOperand &use) {
    if (yielded == result)
      return &use == &loop.getBody()->getTerminator()->getOpOperand(
                         acc.getArgNumber() - 1);
    return isa<scf::YieldOp>(use.getOwner()) &&
           use.getOwner()->getParentOp() == yielded.getDefiningOp() &&
           use.getOperandNumber() == cast<OpResult>(yielded).getResultNumber();
  };
  scf::IfOp epilogue;
  for (OpOperand &use : result.getUses()) {
    Operation *user = use.getOwner();
    if (carries(use))
      continue;
    Operation *ancestor = loop.getBody()->findAncestorOpInBlock(*user);
    auto choice = dyn_cast_or_null<scf::IfOp>(ancestor);
    if (!choice || (epilogue && choice != epilogue) ||
        !choice.getThenRegion().isAncestor(user->getParentRegion()))
      return failure();
    epilogue = choice;
  }
  return epilogue;
}

tile::DotOp pipelining::getOverlappableDot(scf::ForOp loop,
                                           const LoopPlan &plan) {
  auto dots = loop.getBody()->getOps<tile::DotOp>();
  if (!llvm::hasSingleElement(dots))
    return {};
  tile::DotOp dot = *dots.begin();
  FailureOr<CarriedAccumulator> acc = getCarriedAccumulator(loop, dot.getAcc());
  if (!hasWarpgroupAccumulator(dot) || failed(acc) ||
      failed(getAccumulatorPath(loop, dot, acc->carried)))
    return {};
  bool nested = false;
  loop.getBody()->walk([&](Operation *op) {
    nested |= op->getBlock() != loop.getBody() &&
              isa<tile::DotOp, WarpgroupDotOp>(op);
  });
  // A running wgmma still reads its operands: each must come from a slot
  // the loop does not write until the next barrier, or from registers it
  // does not change. A B read K-major only must be so in its slot (else it
  // is transposed into a buffer of its own at each step).
  auto staged = [&](Value operand, bool kMajor) {
    return llvm::any_of(plan.loads, [&](const StagedLoad &load) {
      bool transposed = hasTransposedSlots(load.bufferType);
      return (llvm::is_contained(load.converts, operand.getDefiningOp()) &&
              (!kMajor || transposed)) ||
             (llvm::is_contained(load.transposedConverts,
                                 operand.getDefiningOp()) &&
              (!kMajor || !transposed));
    });
  };
  // wgmma reads A from its slot only where the slot is K-major (an
  // M-major A is read into registers each step, which a running wgmma
  // would still read).
  auto stagedKMajorA = [&](Value operand) {
    return llvm::any_of(plan.loads, [&](const StagedLoad &load) {
      bool transposed = hasTransposedSlots(load.bufferType);
      return (llvm::is_contained(load.converts, operand.getDefiningOp()) &&
              !transposed) ||
             (llvm::is_contained(load.transposedConverts,
                                 operand.getDefiningOp()) &&
              transposed);
    });
  };
  bool kMajorOnly = WarpgroupDotOp::readsKMajorOnly(
      getElementTypeOrSelf(dot.getB().getType()));
  if (nested || !staged(dot.getB(), kMajorOnly) ||
      !(stagedKMajorA(dot.getA()) || loop.isDefinedOutsideOfLoop(dot.getA())))
    return {};
  return dot;
}

WarpgroupWaitOp pipelining::overlapDot(scf::ForOp loop) {
  auto dots = loop.getBody()->getOps<WarpgroupDotOp>();
  if (!llvm::hasSingleElement(dots))
    return {};
  WarpgroupDotOp dot = *dots.begin();
  FailureOr<CarriedAccumulator> start =
      getCarriedAccumulator(loop, dot.getAcc());
  if (failed(start))
    return {};
  BlockArgument acc = start->carried;
  FailureOr<scf::IfOp> path = getAccumulatorPath(loop, dot, acc);
  if (failed(path))
    return {};
  dot.setAsync(true);
  OpBuilder b(dot);
  // A tile's first step starts from zero without reading what the loop
  // carries, which the previous step's wgmma may still be writing.
  if (Value startsTile = start->startsTile) {
    auto select = dot.getAcc().getDefiningOp<arith::SelectOp>();
    dot.getAccMutable().assign(acc);
    dot.getUseAccMutable().assign(arith::XOrIOp::create(
        b, dot.getLoc(), startsTile,
        arith::ConstantIntOp::create(b, dot.getLoc(), 1, 1)));
    select.erase();
  }
  // What carries the running accumulator on is the dot itself; a tile's
  // epilogue reads it once every wgmma is done.
  Value yielded =
      loop.getBody()->getTerminator()->getOperand(acc.getArgNumber() - 1);
  if (yielded != dot.getResult())
    yielded.replaceAllUsesWith(dot.getResult());
  if (scf::IfOp epilogue = *path) {
    b.setInsertionPointToStart(epilogue.thenBlock());
    auto done = WarpgroupWaitOp::create(b, dot.getLoc(), dot.getType(), dot);
    Operation *carriedOn = epilogue.thenYield();
    dot.getResult().replaceUsesWithIf(done.getResult(), [&](OpOperand &use) {
      Operation *user = use.getOwner();
      return user != done && user != carriedOn &&
             epilogue.getThenRegion().isAncestor(user->getParentRegion());
    });
  }
  OpResult result = loop.getTiedLoopResult(acc);
  b.setInsertionPointAfter(loop);
  auto done =
      WarpgroupWaitOp::create(b, loop.getLoc(), result.getType(), result);
  result.replaceAllUsesExcept(done.getResult(), done);
  return done;
}

/// Pipelines `loop` as `plan` says, `stages` slots per staged load;
/// `spareBytes` of the shared memory the slots may take are left over.
/// Dots left on mma.sync with a remark of their own join `explained`.
/// Returns the pipelined loop.
static scf::ForOp pipelineLoop(scf::ForOp loop, LoopPlan &plan, int64_t stages,
                               int64_t spareBytes, bool overlap,
                               StagedOperands &stagedOperands,
                               DenseSet<Operation *> &explained) {
  Location loc = loop.getLoc();
  OpBuilder b(loop);
  Type i32 = b.getI32Type();
  auto constant = [&](int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(i32, v));
  };
  Value lower = loop.getLowerBound(), upper = loop.getUpperBound(),
        step = loop.getStep();
  SmallVector<Value> buffers, views;
  DenseMap<Value, RankedTensorType> stagedTypes;
  allocateSlots(b, loc, plan, buffers, views, stagedTypes);
  // One mbarrier per slot for the TMA copies.
  Value barriers;
  if (llvm::any_of(plan.loads,
                   [](StagedLoad &staged) { return staged.tensorMap; })) {
    barriers = LocalAllocOp::create(
        b, loc,
        MemRefType::get({stages}, b.getI64Type(), MemRefLayoutAttrInterface(),
                        b.getI64IntegerAttr(3)));
    InitBarriersOp::create(b, loc, barriers);
  }

  // Prologue: the copies of iterations 0 .. stages - 2.
  SmallVector<Value> inits(loop.getInitArgs());
  for (int64_t j = 0; j + 1 < stages; ++j) {
    IRMapping mapping;
    for (BlockArgument arg : plan.stage0Args)
      mapping.map(arg, inits[arg.getArgNumber() - 1]);
    Value iv = arith::AddIOp::create(
        b, loc, lower, arith::MulIOp::create(b, loc, step, constant(j)));
    emitStage0(b, loc, plan, buffers, barriers, iv, upper, constant(j), loop,
               mapping);
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    for (BlockArgument arg : plan.stage0Args)
      inits[arg.getArgNumber() - 1] =
          mapping.lookupOrDefault(yield.getOperand(arg.getArgNumber() - 1));
  }

  // The lagging copies start where the loop does.
  for (BlockArgument arg : plan.laggingArgs)
    inits.push_back(loop.getInitArgs()[arg.getArgNumber() - 1]);
  auto pipelined = scf::ForOp::create(b, loc, lower, upper, step, inits);
  pipelined->setAttrs(loop->getDiscardableAttrDictionary());
  pipelined->removeAttr("tile.num_stages");
  Block *body = pipelined.getBody();
  // A loop that carries nothing is built with its terminator; the body's
  // own comes last.
  if (!body->empty())
    body->getTerminator()->erase();
  b.setInsertionPointToStart(body);
  Value iv = pipelined.getInductionVar();
  // Iteration j uses slot j % stages and fills slot (j + stages - 1) %
  // stages, which iteration j - 1 read before the barrier.
  Value index = arith::DivUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, iv, lower), step);
  Value slot = arith::RemUIOp::create(b, loc, index, constant(stages));
  Value nextSlot = arith::RemUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, index, constant(stages - 1)),
      constant(stages));
  // cp.async copies are waited for by group; TMA copies on mbarriers.
  bool asyncCopies = llvm::any_of(
      plan.loads, [](StagedLoad &staged) { return !staged.tensorMap; });
  AsyncWaitOp wait;
  if (asyncCopies)
    wait = AsyncWaitOp::create(b, loc, stages - 2);
  // The copies' slots are read after a barrier, where cp.async wrote them
  // (each thread waited for its own copies only).
  gpu::BarrierOp barrier;
  if (asyncCopies || !overlap)
    barrier = gpu::BarrierOp::create(b, loc);
  if (barriers) {
    // Slot j % stages is in its (j / stages)-th use.
    Value phase = arith::RemUIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, index, constant(stages)),
        constant(2));
    BarrierWaitOp::create(b, loc, barriers, slot, phase);
  }

  IRMapping ahead;
  for (BlockArgument arg : plan.stage0Args)
    ahead.map(arg, body->getArgument(arg.getArgNumber()));
  Value aheadIv = arith::AddIOp::create(
      b, loc, iv, arith::MulIOp::create(b, loc, step, constant(stages - 1)));
  if (!overlap)
    emitStage0(b, loc, plan, buffers, barriers, aheadIv, upper, nextSlot, loop,
               ahead);

  // Stage 1: the rest of the body, reading its slots.
  IRMapping current;
  current.map(loop.getInductionVar(), iv);
  for (BlockArgument arg : loop.getRegionIterArgs())
    current.map(arg, body->getArgument(arg.getArgNumber()));
  size_t numResults = loop.getNumResults();
  for (auto [i, arg] : llvm::enumerate(plan.laggingArgs))
    current.map(arg, pipelined.getRegionIterArgs()[numResults + i]);
  // A dot operand is read from its slot where the body converted it, not
  // all at the top: its registers are live from there to the dot only.
  DenseMap<Operation *, Value> slotReads;
  for (auto [staged, buffer, view] : llvm::zip(plan.loads, buffers, views)) {
    for (ConvertLayoutOp convert : staged.converts)
      slotReads[convert] = buffer;
    for (ConvertLayoutOp convert : staged.transposedConverts)
      slotReads[convert] = view;
  }
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (Value buffer = slotReads.lookup(&op)) {
      current.map(
          op.getResult(0),
          LocalLoadOp::create(b, loc, op.getResult(0).getType(), buffer, slot)
              .getResult());
      continue;
    }
    auto read = llvm::find_if(plan.loads, [&](StagedLoad &s) {
      return s.load == &op && s.readsOwnLayout();
    });
    if (read != plan.loads.end()) {
      auto load = cast<tile::LoadOp>(op);
      Value value = LocalLoadOp::create(
          b, loc, load.getType(), buffers[read - plan.loads.begin()], slot);
      if (load.getOther() && !isZeroTile(load.getOther()))
        value = arith::SelectOp::create(
            b, loc, current.lookupOrDefault(load.getMask()), value,
            current.lookupOrDefault(load.getOther()));
      current.map(load.getResult(), value);
      continue;
    }
    bool staged = llvm::any_of(plan.loads, [&](StagedLoad &s) {
      return s.load == &op || llvm::is_contained(s.converts, &op) ||
             llvm::is_contained(s.transposedConverts, &op) ||
             llvm::is_contained(s.transposes, &op);
    });
    if (!staged && (!plan.stage0.contains(&op) || plan.shared.contains(&op)))
      b.clone(op, current);
  }
  // An overlapped dot leaves its wgmma running and waits for the previous
  // iteration's: past the barrier, no warp reads the slot the copies fill.
  if (overlap) {
    gpu::BarrierOp::create(b, loc);
    emitStage0(b, loc, plan, buffers, barriers, aheadIv, upper, nextSlot, loop,
               ahead);
  }
  SmallVector<Value> yielded;
  for (auto [i, value] : llvm::enumerate(yield.getOperands())) {
    bool isStage0 = llvm::is_contained(plan.stage0Args,
                                       loop.getRegionIterArgs()[i]);
    yielded.push_back(isStage0 ? ahead.lookupOrDefault(value)
                               : current.lookupOrDefault(value));
  }
  for (BlockArgument arg : plan.laggingArgs)
    yielded.push_back(
        current.lookupOrDefault(yield.getOperand(arg.getArgNumber() - 1)));
  scf::YieldOp::create(b, loc, yielded);
  bool warpgroupDots = useWarpgroupDots(pipelined, spareBytes, stagedTypes,
                                        stagedOperands, explained);
  readInvariantOperandsFromSlots(pipelined, spareBytes, stagedOperands);
  if (warpgroupDots && asyncCopies) {
    // wgmma reads the slots through the async proxy, which TMA writes
    // them through too; cp.async writes them through the generic one.
    b.setInsertionPoint(barrier);
    FenceAsyncSharedOp::create(b, loc);
  }

  // Copies past the end may still be in flight.
  b.setInsertionPointAfter(pipelined);
  if (asyncCopies)
    AsyncWaitOp::create(b, loc, 0);
  // A value carried for the loads ends in its lagging copy.
  SmallVector<Value> results(pipelined.getResults().take_front(numResults));
  for (auto [i, arg] : llvm::enumerate(plan.laggingArgs))
    results[arg.getArgNumber() - 1] = pipelined.getResult(numResults + i);
  loop.replaceAllUsesWith(results);
  loop.erase();
  if (warpgroupDots && overlap)
    overlapDot(pipelined);
  return pipelined;
}

/// A dot of 8-bit floats left on mma.sync (wgmma could not read its
/// operands) multiplies their f16 widenings: each operand, read into its
/// 8-bit fragments (kWidth 4), is widened there, and the dot's two
/// m16n8k16 per fragment take the f16 fragments.
static void widenOnMmaSync(tile::DotOp dot) {
  for (OpOperand *operand : {&dot.getAMutable(), &dot.getBMutable()}) {
    auto type = cast<RankedTensorType>(operand->get().getType());
    OpBuilder b(dot);
    operand->set(arith::ExtFOp::create(
        b, dot.getLoc(), type.clone(b.getF16Type()), operand->get()));
  }
}

void TilePipelineLoopsPass::runOnOperation() {
  SmallVector<scf::ForOp> loops;
  getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
  DenseSet<Operation *> explained, pipelinedLoops;
  StagedOperands stagedOperands;
  for (scf::ForOp loop : loops) {
    // Where a loop marked for warp specialization is not, the remark says
    // why.
    auto specializeHint = loop->getAttrOfType<BoolAttr>(kWarpSpecializeAttr);
    bool specialize = specializeHint && specializeHint.getValue();
    loop->removeAttr(kWarpSpecializeAttr);
    auto notSpecialized = [&](const Twine &why) {
      if (specialize)
        loop.emitRemark() << "not warp-specialized: " << why;
    };
    int64_t stages = numStages;
    // Stages the kernel asks for explicitly pipeline every load, as
    // Triton's do; the pass's default only the dots' operands.
    auto explicitStages = loop->getAttrOfType<IntegerAttr>("tile.num_stages");
    if (explicitStages)
      stages = explicitStages.getInt();
    bool feedsDots = false;
    loop.getBody()->walk([&](ConvertLayoutOp convert) {
      feedsDots |= isa<DotOperandEncodingAttr>(convert.getType().getEncoding());
    });
    if (stages <= 1 || !(feedsDots || explicitStages)) {
      notSpecialized(stages <= 1 ? "it has one stage"
                                 : "no load there feeds a dot operand");
      continue;
    }
    if (!loop.getInductionVar().getType().isInteger(32)) {
      loop.emitRemark() << "not pipelined: the induction variable is not i32";
      continue;
    }
    AxisInfoAnalysis axisInfo;
    std::string whyNot;
    FailureOr<LoopPlan> plan = planLoop(loop, stages, tensorMaps,
                                        bool(explicitStages), axisInfo, whyNot);
    // The shared memory the slots may take: the block's, less the scratch
    // of the ops that run beside them and the operands' slots written
    // before an earlier loop.
    int64_t sharedOperandBytes = getSharedOperandBytes(loop, stagedOperands);
    auto getBudget = [&](const LoopPlan &planned) {
      return std::max<int64_t>(0, sharedMemoryLimit - sharedOperandBytes -
                                      getConcurrentScratchBound(loop, planned));
    };
    // Where the other loads keep the dots' operands from being staged
    // (their operands cannot run ahead, or two stages of everything do
    // not fit), the dots' alone are.
    if (explicitStages && feedsDots &&
        (failed(plan) || 2 * plan->slotBytes > getBudget(*plan))) {
      std::string dotsWhyNot;
      FailureOr<LoopPlan> dots = planLoop(loop, stages, tensorMaps,
                                          /*everyLoad=*/false, axisInfo,
                                          dotsWhyNot);
      if (succeeded(dots))
        plan = std::move(dots);
    }
    if (failed(plan)) {
      loop.emitRemark() << "not pipelined: " << whyNot;
      notSpecialized("it is not pipelined");
      continue;
    }
    int64_t budget = getBudget(*plan);
    // As many stages as shared memory holds, up to the asked-for number.
    int64_t fitting = std::min<int64_t>(stages, budget / plan->slotBytes);
    if (fitting < 2) {
      notSpecialized("it is not pipelined");
      loop.emitRemark() << llvm::formatv(
          "not pipelined: two stages of {0} bytes do not fit the {1} bytes "
          "of shared memory they may take",
          plan->slotBytes, budget);
      continue;
    }
    if (fitting < stages) {
      loop.emitRemark() << llvm::formatv(
          "pipelined {0} stages deep, not {1}: {1} stages of {2} bytes do "
          "not fit the {3} bytes of shared memory they may take",
          fitting, stages, plan->slotBytes, budget);
      stages = fitting;
      for (StagedLoad &staged : plan->loads) {
        MemRefType type = staged.bufferType;
        staged.bufferType = getSlotBufferType(
            stages, type.getShape().drop_front(), type.getElementType(),
            hasTransposedSlots(type));
      }
    }
    for (StagedLoad &staged : plan->loads)
      if (staged.tensorMap)
        staged.tensorMapArg = getTensorMapArgument(
            loop->getParentOfType<func::FuncOp>(), *staged.tensorMap);
    int64_t spareBytes = budget - stages * plan->slotBytes;
    if (specialize && !warpSpecialize) {
      notSpecialized("the target has no setmaxnreg (sm_90a)");
    } else if (specialize) {
      std::string whyNotSpecialized;
      FailureOr<scf::ForOp> specialized =
          warpSpecializeLoop(loop, *plan, stages, spareBytes, stagedOperands,
                             explained, whyNotSpecialized);
      if (succeeded(specialized)) {
        pipelinedLoops.insert(*specialized);
        continue;
      }
      notSpecialized(whyNotSpecialized);
    }
    pipelinedLoops.insert(pipelineLoop(loop, *plan, stages, spareBytes,
                                       bool(getOverlappableDot(loop, *plan)),
                                       stagedOperands, explained));
  }
  getOperation().walk([&](tile::DotOp dot) {
    if (hasWarpgroupAccumulator(dot) && dot.hasFloat8Operands())
      widenOnMmaSync(dot);
  });
  // Conversions of operands wgmma now reads from their slots (or that
  // widened operands replaced).
  getOperation().walk([](ConvertLayoutOp convert) {
    if (convert->use_empty() &&
        isa<DotOperandEncodingAttr>(convert.getType().getEncoding()))
      convert.erase();
  });
  getOperation().walk([&](tile::DotOp dot) {
    if (!hasWarpgroupAccumulator(dot) || explained.contains(dot))
      return;
    if (pipelinedLoops.contains(dot->getParentOp()))
      dot.emitRemark() << "on mma.sync, not wgmma: wgmma reads B from a "
                          "slot of a pipelined loop, and this B is computed "
                          "from what the loop loads (a cast or other "
                          "elementwise op), not loaded";
    else
      dot.emitRemark() << "on mma.sync, not wgmma: wgmma reads B from a "
                          "slot of a pipelined loop, and it was not "
                          "pipelined";
  });
}
