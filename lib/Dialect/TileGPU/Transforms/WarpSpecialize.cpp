//===- WarpSpecialize.cpp - A producer warpgroup for a loop's copies ------===//
//
// Pipelining by warp specialization (sm_90a), as Triton and CUTLASS do on
// Hopper: a warpgroup of its own, the producer, issues a loop's TMA copies
// into a ring of slots; the kernel's warps, the consumers, run the loop on
// the slots. Each slot has two mbarriers: "full", on which the producer
// arrives expecting the slot's bytes and the copies complete, and
// "empty", on which every consumer thread arrives once it has read the
// slot. The producer waits for a slot's empty phase before refilling it,
// so neither side meets the other at a block barrier, and it moves most
// of its registers to the consumers (setmaxnreg).
//
//===----------------------------------------------------------------------===//

#include "LoopPipelining.h"

#include "kiln/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tilegpu;
using namespace kiln::tilegpu::pipelining;

/// The producer is one warpgroup: setmaxnreg sets a warpgroup's registers.
static constexpr int64_t kProducerWarps = 4;
/// Registers a producer thread keeps: it only computes block offsets and
/// issues copies (CUTLASS's and Triton's figure).
static constexpr int64_t kProducerRegisters = 40;

/// Registers a consumer thread may take once the producer has given its
/// own back: what the block's registers leave, in setmaxnreg's multiples
/// of 8, at most its 256. Never fewer than a thread has at launch (the
/// block's share, as the kernel's .maxnreg says), which setmaxnreg.inc
/// may not go below.
static int64_t getConsumerRegisters(int64_t consumerThreads) {
  int64_t left = WarpSpecializeOp::kBlockRegisters -
                 kProducerWarps * 32 * kProducerRegisters;
  return std::min<int64_t>(256, left / consumerThreads / 8 * 8);
}

/// The ops outside `loop` that the producer computes again for it: what
/// its bounds, the values it carries into stage 0, the operands stage 0
/// takes from outside it and the conditions of the `ifs` around it come
/// from, in the order the function computes them. Fails, with the reason
/// in `whyNot`, where one of them has effects or regions, or a value
/// comes from a block argument other than the function's.
static FailureOr<SmallVector<Operation *>>
getProducerSlice(scf::ForOp loop, LoopPlan &plan, ArrayRef<scf::IfOp> ifs,
                 func::FuncOp kernel, std::string &whyNot) {
  SmallVector<Value> worklist{loop.getLowerBound(), loop.getUpperBound(),
                              loop.getStep()};
  for (BlockArgument arg : plan.stage0Args)
    worklist.push_back(loop.getInitArgs()[arg.getArgNumber() - 1]);
  for (Operation *op : plan.stage0)
    for (Value operand : op->getOperands())
      if (loop.isDefinedOutsideOfLoop(operand))
        worklist.push_back(operand);
  for (scf::IfOp choice : ifs)
    worklist.push_back(choice.getCondition());
  DenseSet<Operation *> slice;
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      if (arg.getOwner() == &kernel.getBody().front())
        continue;
      whyNot = "what its copies need comes from a loop around it";
      return failure();
    }
    Operation *op = value.getDefiningOp();
    if (!slice.insert(op).second)
      continue;
    if (!isMemoryEffectFree(op) || !tile::canSpeculate(op) ||
        op->getNumRegions()) {
      whyNot = llvm::formatv("what its copies need comes from '{0}', which "
                             "the producer warps cannot compute again",
                             op->getName())
                   .str();
      return failure();
    }
    llvm::append_range(worklist, op->getOperands());
  }
  SmallVector<Operation *> ordered;
  kernel.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (slice.contains(op))
      ordered.push_back(op);
  });
  return ordered;
}

/// The `scf.if`s between `loop` and `kernel`'s body, outermost first, or
/// failure where something else is in between.
static FailureOr<SmallVector<scf::IfOp>> getEnclosingIfs(scf::ForOp loop,
                                                         func::FuncOp kernel) {
  SmallVector<scf::IfOp> ifs;
  for (Operation *parent = loop->getParentOp(); parent != kernel;
       parent = parent->getParentOp()) {
    auto choice = dyn_cast<scf::IfOp>(parent);
    if (!choice)
      return failure();
    ifs.push_back(choice);
  }
  std::reverse(ifs.begin(), ifs.end());
  return ifs;
}

/// Whether `op` is in the `then` region of `choice`.
static bool isInThen(scf::IfOp choice, Operation *op) {
  return choice.getThenRegion().isAncestor(op->getParentRegion());
}

namespace {
/// An iteration's use of the slots: its index, its slot among the
/// stages, and the parity of that slot's use (the phase it waits for).
struct SlotUse {
  Value index, slot, parity;
};
} // namespace

/// The slot use of the iteration whose induction variable is `iv`, of a
/// loop from `lower` by `step` over `stages` slots.
static SlotUse getSlotUse(OpBuilder &b, Location loc, Value iv, Value lower,
                          Value step, int64_t stages) {
  Type i32 = b.getI32Type();
  auto constant = [&](int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(i32, v));
  };
  Value index = arith::DivUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, iv, lower), step);
  Value slot = arith::RemUIOp::create(b, loc, index, constant(stages));
  Value parity = arith::RemUIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, index, constant(stages)),
      constant(2));
  return {index, slot, parity};
}

FailureOr<scf::ForOp> pipelining::warpSpecializeLoop(
    scf::ForOp loop, LoopPlan &plan, int64_t stages, int64_t spareBytes,
    StagedOperands &stagedOperands, DenseSet<Operation *> &explained,
    std::string &whyNot) {
  if (llvm::any_of(plan.loads,
                   [](StagedLoad &staged) { return !staged.tensorMap; })) {
    whyNot = "a load it pipelines is not copied by TMA";
    return failure();
  }
  auto kernel = loop->getParentOfType<func::FuncOp>();
  auto module = kernel->getParentOfType<ModuleOp>();
  if (llvm::range_size(module.getOps<func::FuncOp>()) != 1) {
    whyNot = "its kernel is not its module's only function, and the "
             "producer warps would be launched with every kernel";
    return failure();
  }
  if (!kernel.getBody().getOps<WarpSpecializeOp>().empty()) {
    whyNot = "another loop of the kernel is warp-specialized";
    return failure();
  }
  auto numWarps = module->getAttrOfType<IntegerAttr>("tilegpu.num_warps");
  int64_t consumerThreads = numWarps ? numWarps.getInt() * 32 : 0;
  if (!consumerThreads || consumerThreads % 128 ||
      consumerThreads + kProducerWarps * 32 > 1024) {
    whyNot = llvm::formatv("the consumers are whole warpgroups and a block "
                           "at most 1024 threads with the producer's 128, "
                           "and the kernel has {0} warps",
                           consumerThreads / 32)
                 .str();
    return failure();
  }
  FailureOr<SmallVector<scf::IfOp>> ifs = getEnclosingIfs(loop, kernel);
  if (failed(ifs)) {
    whyNot = "it is in another loop or region, not only in scf.if's";
    return failure();
  }
  FailureOr<SmallVector<Operation *>> slice =
      getProducerSlice(loop, plan, *ifs, kernel, whyNot);
  if (failed(slice))
    return failure();
  bool overlap = bool(getOverlappableDot(loop, plan));

  // Before the warps part: the slots and their mbarriers, which both
  // sides use, initialized while all of the block's threads are there.
  Location loc = loop.getLoc();
  OpBuilder b = OpBuilder::atBlockBegin(&kernel.getBody().front());
  SmallVector<Value> buffers, views;
  DenseMap<Value, RankedTensorType> stagedTypes;
  allocateSlots(b, loc, plan, buffers, views, stagedTypes);
  auto barrierType =
      MemRefType::get({stages}, b.getI64Type(), MemRefLayoutAttrInterface(),
                      b.getI64IntegerAttr(3));
  Value full = LocalAllocOp::create(b, loc, barrierType);
  Value empty = LocalAllocOp::create(b, loc, barrierType);
  InitBarriersOp::create(b, loc, full);
  InitBarriersOp::create(b, loc, empty, b.getI32IntegerAttr(consumerThreads));
  int64_t consumerRegisters = getConsumerRegisters(consumerThreads);
  auto specialize = WarpSpecializeOp::create(
      b, loc, kProducerWarps, kProducerRegisters, consumerRegisters);
  Block *producer = b.createBlock(&specialize.getProducer());

  // The producer: what the copies need, under the loop's conditions, then
  // the copies of each iteration into its slot once the consumers have
  // emptied it. A fresh mbarrier's phase of parity 1 counts as complete,
  // so the first use of each slot does not wait.
  b.setInsertionPointToStart(producer);
  IRMapping mapping;
  for (Operation *op : *slice)
    b.clone(*op, mapping);
  for (scf::IfOp choice : *ifs) {
    Value condition = mapping.lookup(choice.getCondition());
    if (!isInThen(choice, loop))
      condition = arith::XOrIOp::create(
          b, loc, condition, arith::ConstantIntOp::create(b, loc, 1, 1));
    auto inner = scf::IfOp::create(b, loc, condition, /*withElse=*/false);
    b.setInsertionPoint(inner.thenBlock()->getTerminator());
  }
  Value lower = mapping.lookupOrDefault(loop.getLowerBound());
  Value upper = mapping.lookupOrDefault(loop.getUpperBound());
  Value step = mapping.lookupOrDefault(loop.getStep());
  // `stages` iterations more, which issue nothing but wait until the
  // consumers have emptied every slot: the producer then exits with no
  // copy in flight.
  Value past = arith::AddIOp::create(
      b, loc, upper,
      arith::MulIOp::create(
          b, loc, step,
          arith::ConstantOp::create(b, loc,
                                    b.getIntegerAttr(b.getI32Type(), stages))));
  SmallVector<Value> inits;
  for (BlockArgument arg : plan.stage0Args)
    inits.push_back(
        mapping.lookupOrDefault(loop.getInitArgs()[arg.getArgNumber() - 1]));
  auto copies = scf::ForOp::create(b, loc, lower, past, step, inits);
  Block *copiesBody = copies.getBody();
  if (!copiesBody->empty())
    copiesBody->getTerminator()->erase();
  b.setInsertionPointToStart(copiesBody);
  SlotUse use =
      getSlotUse(b, loc, copies.getInductionVar(), lower, step, stages);
  BarrierWaitOp::create(
      b, loc, empty, use.slot,
      arith::XOrIOp::create(b, loc, use.parity,
                            arith::ConstantIntOp::create(b, loc, 1, 32)));
  for (auto [i, arg] : llvm::enumerate(plan.stage0Args))
    mapping.map(arg, copies.getRegionIterArgs()[i]);
  emitStage0(b, loc, plan, buffers, full, copies.getInductionVar(), upper,
             use.slot, loop, mapping);
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  SmallVector<Value> next;
  for (BlockArgument arg : plan.stage0Args)
    next.push_back(
        mapping.lookupOrDefault(yield.getOperand(arg.getArgNumber() - 1)));
  scf::YieldOp::create(b, loc, next);

  // The consumers: the loop as written, each iteration waiting for its
  // slot's copies, reading the slots where it converted the loads to dot
  // operands, and emptying the slot at its end.
  b.setInsertionPointToStart(loop.getBody());
  SlotUse current = getSlotUse(b, loc, loop.getInductionVar(),
                               loop.getLowerBound(), loop.getStep(), stages);
  BarrierWaitOp::create(b, loc, full, current.slot, current.parity);
  for (auto [staged, buffer, view] : llvm::zip(plan.loads, buffers, views)) {
    for (ConvertLayoutOp convert : staged.converts) {
      b.setInsertionPoint(convert);
      convert.replaceAllUsesWith(
          LocalLoadOp::create(b, loc, convert.getType(), buffer, current.slot)
              .getResult());
      convert.erase();
    }
    for (ConvertLayoutOp convert : staged.transposedConverts) {
      b.setInsertionPoint(convert);
      convert.replaceAllUsesWith(
          LocalLoadOp::create(b, loc, convert.getType(), view, current.slot)
              .getResult());
      convert.erase();
    }
    for (tile::TransOp trans : staged.transposes)
      trans.erase();
    staged.load->erase();
  }
  loop->removeAttr("tile.num_stages");
  useWarpgroupDots(loop, spareBytes, stagedTypes, stagedOperands, explained);
  if (WarpgroupWaitOp done = overlap ? overlapDot(loop) : WarpgroupWaitOp()) {
    // The dot's wgmma runs on; its wait is for the previous iteration's,
    // whose slot is then empty. The last slot is, once the wait after the
    // loop is done.
    auto constant = [&](int64_t v) {
      return arith::ConstantIntOp::create(b, loc, v, 32);
    };
    // Where `condition` holds, every consumer empties the slot of the
    // iteration with index `index`.
    auto emptyWhere = [&](Value condition, Value index) {
      auto choice = scf::IfOp::create(b, loc, condition, /*withElse=*/false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(choice.thenBlock()->getTerminator());
      BarrierArriveOp::create(
          b, loc, empty,
          arith::RemUIOp::create(b, loc, index, constant(stages)));
    };
    b.setInsertionPointAfter(*loop.getBody()->getOps<WarpgroupDotOp>().begin());
    emptyWhere(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt,
                                     current.index, constant(0)),
               arith::SubIOp::create(b, loc, current.index, constant(1)));
    b.setInsertionPointAfter(done);
    Value span = arith::SubIOp::create(b, loc, loop.getUpperBound(),
                                       loop.getLowerBound());
    Value trips = arith::DivSIOp::create(
        b, loc,
        arith::AddIOp::create(
            b, loc, span,
            arith::SubIOp::create(b, loc, loop.getStep(), constant(1))),
        loop.getStep());
    emptyWhere(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, span,
                                     constant(0)),
               arith::SubIOp::create(b, loc, trips, constant(1)));
    return loop;
  }
  // The slot is empty once the last op that reads it has (a wgmma waits
  // for its reads): what follows, such as a flattened loop's epilogue,
  // runs while the producer refills it.
  DenseSet<Value> slots(buffers.begin(), buffers.end());
  for (Value view : views)
    if (view)
      slots.insert(view);
  Operation *lastRead = nullptr;
  for (Operation &op : loop.getBody()->without_terminator())
    op.walk([&](Operation *nested) {
      if (llvm::any_of(nested->getOperands(),
                       [&](Value v) { return slots.contains(v); }))
        lastRead = &op;
    });
  if (lastRead)
    b.setInsertionPointAfter(lastRead);
  else
    b.setInsertionPoint(yield);
  BarrierArriveOp::create(b, loc, empty, current.slot);
  return loop;
}
