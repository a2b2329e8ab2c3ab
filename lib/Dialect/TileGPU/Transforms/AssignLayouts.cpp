//===- AssignLayouts.cpp - Give every tile a layout -----------------------===//
//
// Groups the tiles that must share a layout, gives the accumulators of
// dots on tensor cores the mma layout, groups with memory accesses the
// layout that coalesces them (from AxisInfo), derives slice
// layouts across reductions and expand_dims, defaults the rest, and joins
// disagreeing choices with tilegpu.convert_layout.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/TileGPU/Transforms/Passes.h"

#include "kiln/Dialect/Tile/IR/TileDialect.h"
#include "kiln/Dialect/TileGPU/Transforms/AxisInfo.h"
#include "kiln/Dialect/TileGPU/Transforms/TensorCores.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

#define DEBUG_TYPE "tile-assign-layouts"

namespace kiln::tilegpu {
#define GEN_PASS_DEF_TILEASSIGNLAYOUTSPASS
#include "kiln/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace kiln::tilegpu

using namespace mlir;
using namespace kiln;
using namespace kiln::tilegpu;

namespace {
/// Groups of tiles that must share a layout (union-find).
class LayoutGroups {
public:
  Value find(Value v) {
    auto it = parent.find(v);
    if (it == parent.end() || it->second == v)
      return v;
    Value root = find(it->second);
    parent[v] = root;
    return root;
  }

  void join(Value a, Value b) {
    Value ra = find(a), rb = find(b);
    if (ra != rb)
      parent[ra] = rb;
  }

  /// Joins every tile among `values`.
  void joinAll(ValueRange values) {
    Value first;
    for (Value v : values) {
      if (!isa<RankedTensorType>(v.getType()))
        continue;
      if (first)
        join(first, v);
      else
        first = v;
    }
  }

private:
  DenseMap<Value, Value> parent;
};

/// The coalescing layout one memory access asks for, and how many elements
/// each thread accesses at once with it.
struct AccessChoice {
  BlockedEncodingAttr layout;
  int64_t vector = 0;
};

struct TileAssignLayoutsPass
    : tilegpu::impl::TileAssignLayoutsPassBase<TileAssignLayoutsPass> {
  using TileAssignLayoutsPassBase::TileAssignLayoutsPassBase;

  void runOnOperation() override;

private:
  BlockedEncodingAttr blocked(const kiln::layout::BlockedLayout &layout);
  AccessChoice chooseAccess(AxisInfoAnalysis &axisInfo, Value ptr,
                            Value mask);
  void assignFunction(func::FuncOp func);
};
} // namespace

/// Tiles an op ties to one layout: elementwise operands and results (of
/// arith and math ops, and of every op with the Elementwise trait), the
/// pointers, masks and values of an access. (A broadcast ties its source
/// to its result too, unless that would join what tensor cores keep
/// apart; a store ties its value to its pointers unless the value is an
/// accumulator, which is converted to the coalesced layout instead.)
static bool sharesLayout(Operation *op) {
  return isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
         op->hasTrait<OpTrait::Elementwise>() ||
         isa<tile::LoadOp, tile::AtomicRMWOp,
             tile::AtomicCASOp, tile::AddPtrOp,
             tile::PtrToIntOp, tile::IntToPtrOp, tile::PtrCastOp,
             tile::AssumeOp, tile::ScanOp>(op);
}

namespace {
/// What a group holds that constrains its layout.
enum GroupTag : unsigned {
  /// The accumulator of a dot on tensor cores.
  kAccumulatorTag = 1,
  /// An operand of a dot on tensor cores (loaded best coalesced, then
  /// converted), unless an accumulator computes it.
  kOperandTag = 2,
  /// A reduced or scanned tile (those lowerings take blocked layouts, but
  /// for row reductions of an accumulator: see reducesRowsOnMma).
  kBlockedOnlyTag = 4,
  /// Row statistics of an accumulator: its row reductions on the mma
  /// layout (an attention's running maxima and sums), in its slice.
  kAccumulatorRowsTag = 8,
};

/// Whether a group with `tags` can take the mma layout.
bool canTakeMma(unsigned tags) {
  return !(tags & (kOperandTag | kBlockedOnlyTag));
}
} // namespace

/// Consecutive elements of a row one thread of an accumulator holds (c0
/// and c1 of mma.sync's, and of wgmma's).
constexpr int64_t kAccumulatorRun = 2;

/// The most shared memory a store's conversion may stage: what
/// tile-pipeline-loops leaves the other ops' scratch (a 128x256 f16 or
/// 128x128 f32 tile), so that a larger one never makes the kernel need
/// more than the chip has.
constexpr int64_t kStoreConversionBytes = 64 * 1024;

/// Whether converting an accumulator for `store`, whose coalesced layout
/// stores `vector` elements at a time, is worth it: that is wider, and
/// the staging fits.
static bool convertsForStore(tile::StoreOp store, int64_t vector) {
  auto type = cast<RankedTensorType>(store.getValue().getType());
  int64_t bytes = type.getNumElements() *
                  std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
  return vector > kAccumulatorRun && bytes <= kStoreConversionBytes;
}

/// Whether `value` is loaded from memory, maybe through casts.
static bool isLoaded(Value value) {
  Operation *op = value.getDefiningOp();
  while (op && isa<arith::ExtFOp, arith::TruncFOp, arith::ExtSIOp,
                   arith::ExtUIOp, arith::TruncIOp, arith::SIToFPOp,
                   arith::UIToFPOp, arith::FPToSIOp, arith::FPToUIOp,
                   arith::BitcastOp>(op))
    op = op->getOperand(0).getDefiningOp();
  return isa_and_nonnull<tile::LoadOp, tile::BlockLoadOp>(op);
}

/// Whether `reduce` can run on `mma`, its operand's accumulator layout: a
/// reduction along the rows of a tile that every warp covers in whole
/// 16x8 blocks (ReduceOpToGPU), so that an attention's scores and their
/// row maxima and sums never leave the accumulator's registers.
static bool reducesRowsOnMma(tile::ReduceOp reduce, MmaEncodingAttr mma) {
  auto type = cast<RankedTensorType>(reduce.getSrcs().front().getType());
  ArrayRef<int64_t> warps = mma.getWarpsPerCTA();
  return type.getRank() == 2 && reduce.getAxis() == 1 &&
         type.getDimSize(0) % (16 * warps[0]) == 0 &&
         type.getDimSize(1) % (8 * warps[1]) == 0;
}

BlockedEncodingAttr
TileAssignLayoutsPass::blocked(const kiln::layout::BlockedLayout &layout) {
  return BlockedEncodingAttr::get(
      &getContext(), layout.getSizePerThread(),
      layout.getThreadsPerWarpShape(), layout.getWarpsPerCTA(),
      layout.getOrder());
}

AccessChoice TileAssignLayoutsPass::chooseAccess(AxisInfoAnalysis &axisInfo,
                                                 Value ptr, Value mask) {
  auto type = cast<RankedTensorType>(ptr.getType());
  ArrayRef<int64_t> shape = type.getShape();
  const AxisInfo &info = axisInfo.get(ptr);
  int64_t rank = shape.size();
  // Fastest dimension: the longest contiguous runs; the last on ties.
  kiln::layout::Shape order;
  for (int64_t d = rank - 1; d >= 0; --d)
    order.push_back(d);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return info.contiguity[a] > info.contiguity[b];
  });
  int64_t fastest = order[0];
  int64_t vector = getAccessVectorWidth(axisInfo, ptr, mask, fastest);
  auto layout = kiln::layout::BlockedLayout::forCoalescedAccess(
      kiln::layout::Shape(shape.begin(), shape.end()), order, vector,
      numWarps, threadsPerWarp);
  return {blocked(layout), vector};
}

/// `type` with layout `encoding`.
static RankedTensorType withEncoding(RankedTensorType type,
                                     Attribute encoding) {
  return RankedTensorType::get(type.getShape(), type.getElementType(),
                               encoding);
}

/// `value` in the layout of `type`: a uniform tile (a splat constant or a
/// tile.splat) is made anew in that layout, anything else converted.
static Value convertTo(OpBuilder &b, Location loc, Value value,
                       RankedTensorType type) {
  if (auto constant = value.getDefiningOp<arith::ConstantOp>())
    if (auto dense = dyn_cast<SplatElementsAttr>(constant.getValue()))
      return arith::ConstantOp::create(b, loc, dense.reshape(type));
  if (auto splat = value.getDefiningOp<tile::SplatOp>())
    return tile::SplatOp::create(b, loc, type, splat.getSrc());
  return ConvertLayoutOp::create(b, loc, type, value);
}

/// Gives `value` the type `type`; a constant's value follows its type.
static void retype(Value value, RankedTensorType type) {
  value.setType(type);
  if (auto constant = value.getDefiningOp<arith::ConstantOp>())
    if (auto dense = dyn_cast<DenseElementsAttr>(constant.getValue()))
      constant.setValueAttr(dense.reshape(type));
}

/// Whether `op` makes a tile whose elements are all one value (a splat
/// constant or a tile.splat): one made anew in any layout.
static bool makesUniformTile(Operation *op) {
  if (auto constant = dyn_cast<arith::ConstantOp>(op))
    return isa<RankedTensorType>(constant.getType()) &&
           isa<SplatElementsAttr>(constant.getValue());
  return isa<tile::SplatOp>(op);
}

/// Gives every use of a uniform tile its own copy, so that one value (the
/// `other` of two unrelated loads, made once by CSE) does not tie the
/// layouts of the groups that use it.
static void copyUniformTilesPerUse(func::FuncOp func) {
  SmallVector<Operation *> uniform;
  func.walk([&](Operation *op) {
    if (makesUniformTile(op) && !op->getResult(0).hasOneUse() &&
        !op->getResult(0).use_empty())
      uniform.push_back(op);
  });
  for (Operation *op : uniform) {
    OpBuilder b(op->getContext());
    b.setInsertionPointAfter(op);
    for (OpOperand &use : llvm::make_early_inc_range(
             llvm::drop_begin(op->getResult(0).getUses())))
      use.set(b.clone(*op)->getResult(0));
  }
}

/// Ops of at most this many a conversion computes again instead.
constexpr int64_t kRematerializedOps = 12;

/// The op that makes `value` by widening a tile of narrower elements to
/// floats (`x.to(f16)` of int8 or 8-bit float tiles), or null.
static Operation *getWideningCast(Value value) {
  Operation *op = value.getDefiningOp();
  if (!isa_and_nonnull<arith::ExtFOp, arith::SIToFPOp, arith::UIToFPOp>(op))
    return nullptr;
  auto narrow = cast<RankedTensorType>(op->getOperand(0).getType());
  auto wide = cast<RankedTensorType>(value.getType());
  return narrow.getElementTypeBitWidth() < wide.getElementTypeBitWidth()
             ? op
             : nullptr;
}

/// Whether nothing between `load` and `at`, later in its block, may write
/// memory: a load made again at `at` reads what `load` read.
static bool readsTheSameAt(tile::LoadOp load, Operation *at) {
  if (load->getBlock() != at->getBlock() || !load->isBeforeInBlock(at))
    return false;
  for (Operation *op = load->getNextNode(); op != at; op = op->getNextNode()) {
    std::optional<SmallVector<MemoryEffects::EffectInstance>> effects =
        getEffectsRecursively(op);
    if (!effects || llvm::any_of(*effects, [](const auto &effect) {
          return isa<MemoryEffects::Write>(effect.getEffect());
        }))
      return false;
  }
  return true;
}

/// Whether `value` is computed from scalars by a few ops that each make a
/// tile of their result's shape in any layout (ranges, splats, constants,
/// elementwise arithmetic and pointer offsets on those: an index vector
/// such as `start + arange(0, n)`, and 1-D loads through such pointers
/// that nothing before `at` may overwrite: an attention backward's row
/// statistics, a bias), to be made again at `at`; appends them to `ops`,
/// operands first.
static bool isRematerializable(Value value, Operation *at,
                               SetVector<Operation *> &ops) {
  Operation *op = value.getDefiningOp();
  if (!op || !isa<RankedTensorType>(value.getType()))
    return false;
  if (ops.contains(op))
    return true;
  if (isa<tile::RangeOp, tile::SplatOp>(op) ||
      (isa<arith::ConstantOp>(op) && makesUniformTile(op))) {
    ops.insert(op);
    return ops.size() <= kRematerializedOps;
  }
  auto load = dyn_cast<tile::LoadOp>(op);
  if (load && (cast<RankedTensorType>(load.getType()).getRank() != 1 ||
               load.getIsVolatile() || !readsTheSameAt(load, at)))
    return false;
  if (!load && !isa<tile::AddPtrOp>(op) &&
      (!isa<arith::ArithDialect>(op->getDialect()) ||
       op->getNumResults() != 1 || !isPure(op)))
    return false;
  for (Value operand : op->getOperands())
    if (isa<RankedTensorType>(operand.getType()) &&
        !isRematerializable(operand, at, ops))
      return false;
  ops.insert(op);
  return ops.size() <= kRematerializedOps;
}

/// Whether what `convert` computes reaches an op in a loop (through the
/// ops that use it, and theirs).
static bool reachesLoop(ConvertLayoutOp convert) {
  SmallVector<Operation *> work(convert->getUsers());
  DenseSet<Operation *> seen;
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    if (!seen.insert(op).second)
      continue;
    if (op->getParentOfType<LoopLikeOpInterface>() ||
        isa<LoopLikeOpInterface>(op))
      return true;
    for (Operation *user : op->getUsers())
      work.push_back(user);
  }
  return false;
}

/// Replaces each conversion of a tile that a few cheap ops compute from
/// scalars with those ops again, in the conversion's layout: no round trip
/// through shared memory (and its barriers) for an index vector that a
/// loop's masks, or a kernel's pointers and masks, want in several
/// layouts. Outside loops, a conversion whose value reaches a loop stays:
/// made again before the loop, the vector would be more values live all
/// through it, which cost the attention kernels registers and spills.
static void rematerializeConversions(func::FuncOp func) {
  SmallVector<ConvertLayoutOp> converts;
  func.walk([&](ConvertLayoutOp convert) {
    if (isa<DotOperandEncodingAttr>(convert.getType().getEncoding()))
      return;
    if (convert->getParentOfType<LoopLikeOpInterface>() ||
        !reachesLoop(convert))
      converts.push_back(convert);
  });
  for (ConvertLayoutOp convert : converts) {
    SetVector<Operation *> ops;
    if (!isRematerializable(convert.getSrc(), convert, ops))
      continue;
    Attribute encoding = convert.getType().getEncoding();
    OpBuilder b(convert);
    IRMapping mapping;
    for (Operation *op : ops) {
      Operation *clone = b.clone(*op, mapping);
      Value result = clone->getResult(0);
      retype(result, withEncoding(cast<RankedTensorType>(result.getType()),
                                  encoding));
    }
    convert.replaceAllUsesWith(mapping.lookup(convert.getSrc()));
    convert.erase();
  }
}

void TileAssignLayoutsPass::assignFunction(func::FuncOp func) {
  copyUniformTilesPerUse(func);
  LayoutGroups groups;
  SmallVector<Value> tiles;
  auto noteTile = [&](Value v) {
    if (isa<RankedTensorType>(v.getType()))
      tiles.push_back(v);
  };
  func.walk([&](Block *block) {
    for (BlockArgument arg : block->getArguments())
      noteTile(arg);
  });
  SmallVector<tile::BroadcastOp> broadcasts;
  SmallVector<tile::StoreOp> stores;
  func.walk([&](Operation *op) {
    for (Value result : op->getResults())
      noteTile(result);
    if (sharesLayout(op)) {
      SmallVector<Value> values(op->getOperands());
      llvm::append_range(values, op->getResults());
      groups.joinAll(values);
    }
    if (auto store = dyn_cast<tile::StoreOp>(op)) {
      if (store.getMask())
        groups.joinAll({store.getPtr(), store.getMask()});
      stores.push_back(store);
    }
    if (auto dot = dyn_cast<tile::DotOp>(op))
      groups.join(dot.getAcc(), dot.getResult());
    // A gather's result is laid out as its index; the source, which it
    // reads through shared memory, as its own group.
    if (auto gather = dyn_cast<tile::GatherOp>(op))
      groups.join(gather.getIndex(), gather.getResult());
    if (auto reduce = dyn_cast<tile::ReduceOp>(op)) {
      groups.joinAll(reduce.getSrcs());
      groups.joinAll(reduce.getResults());
    }
    if (auto forOp = dyn_cast<scf::ForOp>(op)) {
      auto yield = cast<scf::YieldOp>(forOp.getBody()->getTerminator());
      for (auto [i, init] : llvm::enumerate(forOp.getInitArgs()))
        groups.joinAll({init, forOp.getRegionIterArgs()[i],
                        yield.getOperand(i), forOp.getResult(i)});
    }
    // A while loop's values: what it starts from and each body yields
    // into its test's arguments; what the test passes on into the body's
    // arguments and the results.
    if (auto whileOp = dyn_cast<scf::WhileOp>(op)) {
      for (auto [i, init] : llvm::enumerate(whileOp.getInits()))
        groups.joinAll({init, whileOp.getBeforeArguments()[i],
                        whileOp.getYieldOp().getOperand(i)});
      for (auto [i, passed] :
           llvm::enumerate(whileOp.getConditionOp().getArgs()))
        groups.joinAll(
            {passed, whileOp.getAfterArguments()[i], whileOp.getResult(i)});
    }
    if (auto broadcast = dyn_cast<tile::BroadcastOp>(op))
      broadcasts.push_back(broadcast);
    if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
      for (auto [i, result] : llvm::enumerate(ifOp.getResults())) {
        SmallVector<Value> values = {result};
        for (Region *region : {&ifOp.getThenRegion(), &ifOp.getElseRegion()})
          if (!region->empty())
            values.push_back(
                region->front().getTerminator()->getOperand(i));
        groups.joinAll(values);
      }
    }
  });

  // Which dots run on tensor cores, and what the groups hold.
  DenseMap<Value, unsigned> tags;
  auto tag = [&](Value v, GroupTag t) { tags[groups.find(v)] |= t; };
  SmallVector<std::tuple<tile::DotOp, MmaEncodingAttr, int64_t>> mmaDots;
  SmallVector<tile::ReduceOp> reductions;
  func.walk([&](Operation *op) {
    if (auto reduce = dyn_cast<tile::ReduceOp>(op))
      reductions.push_back(reduce);
    if (auto scan = dyn_cast<tile::ScanOp>(op))
      for (Value src : scan->getOperands())
        tag(src, kBlockedOnlyTag);
    auto dot = dyn_cast<tile::DotOp>(op);
    if (!dot)
      return;
    std::string whyNot, wgmmaWhyNot;
    std::optional<MmaChoice> choice = chooseMma(
        dot, computeCapability, archSpecific, numWarps, whyNot, wgmmaWhyNot);
    if (!choice) {
      dot.emitRemark() << "not on tensor cores: " << whyNot;
      return;
    }
    if (!wgmmaWhyNot.empty())
      dot.emitRemark() << "on mma.sync, not wgmma: " << wgmmaWhyNot;
    mmaDots.emplace_back(dot,
                         MmaEncodingAttr::get(&getContext(),
                                              choice->warpsPerCTA,
                                              choice->warpgroup),
                         choice->kWidth);
    tag(dot.getResult(), kAccumulatorTag);
  });
  // Operands are loaded best coalesced, then converted; one computed from
  // an accumulator (attention's probabilities, from the scores of the dot
  // before) stays with it, in the mma layout, and is converted from there.
  for (auto &mmaDot : mmaDots)
    for (Value operand :
         {std::get<0>(mmaDot).getA(), std::get<0>(mmaDot).getB()})
      if (isLoaded(operand) ||
          !(tags.lookup(groups.find(operand)) & kAccumulatorTag))
        tag(operand, kOperandTag);

  for (tile::ReduceOp reduce : reductions) {
    Value group = groups.find(reduce.getSrcs().front());
    bool onMma = (tags.lookup(group) & kAccumulatorTag) &&
                 llvm::any_of(mmaDots, [&](auto &mmaDot) {
                   return groups.find(std::get<0>(mmaDot).getResult()) ==
                              group &&
                          reducesRowsOnMma(reduce, std::get<1>(mmaDot));
                 });
    if (!onMma)
      for (Value src : reduce.getSrcs())
        tag(src, kBlockedOnlyTag);
    else if (isa<RankedTensorType>(reduce.getResult(0).getType()))
      tag(reduce.getResult(0), kAccumulatorRowsTag);
  }

  // A store joins its value's group to its pointers', except that an
  // accumulator's values are converted to the layout that stores them
  // coalesced, as wide as Triton's epilogue (16 bytes, not the two
  // elements of a row an accumulator's thread holds), where that is wider
  // and the staging fits; and an accumulator's row statistics (an
  // attention's log-sum-exp) are converted once at their store, rather
  // than in every iteration of the loop that computes them.
  AxisInfoAnalysis axisInfo;
  for (tile::StoreOp store : stores) {
    Value value = groups.find(store.getValue());
    Value pointers = groups.find(store.getPtr());
    if (value == pointers || !isa<RankedTensorType>(value.getType()))
      continue;
    unsigned valueTags = tags.lookup(value);
    if ((valueTags & kAccumulatorTag) && canTakeMma(valueTags) &&
        convertsForStore(
            store,
            chooseAccess(axisInfo, store.getPtr(), store.getMask()).vector))
      continue;
    if (valueTags & kAccumulatorRowsTag)
      continue;
    unsigned merged = valueTags | tags.lookup(pointers);
    groups.join(value, pointers);
    tags[groups.find(value)] = merged;
  }

  // Broadcasts join their source's group to their result's, except where
  // that would put an accumulator with an operand or a reduction: the
  // (small) source is converted instead, so that operand loads stay
  // coalesced and the accumulator need not leave the mma layout.
  SmallVector<tile::BroadcastOp> convertedBroadcasts;
  for (tile::BroadcastOp broadcast : broadcasts) {
    Value source = groups.find(broadcast.getSrc());
    Value result = groups.find(broadcast.getResult());
    if (source == result)
      continue;
    unsigned merged = tags.lookup(source) | tags.lookup(result);
    if ((merged & kAccumulatorTag) && !canTakeMma(merged)) {
      convertedBroadcasts.push_back(broadcast);
      continue;
    }
    groups.join(source, result);
    tags[groups.find(result)] = merged;
  }

  // Tensor-core accumulators anchor their groups to the mma layout where
  // nothing else in the group forbids it; elsewhere the dot converts its
  // accumulator in and out.
  DenseMap<Value, Attribute> layouts;
  for (auto [dot, mma, kWidth] : mmaDots) {
    Value group = groups.find(dot.getResult());
    if (canTakeMma(tags.lookup(group)))
      layouts.try_emplace(group, mma);
  }

  // Memory accesses choose the other groups' layouts; the widest wins.
  DenseMap<Value, AccessChoice> chosen;
  func.walk([&](Operation *op) {
    Value ptr, mask;
    if (auto load = dyn_cast<tile::LoadOp>(op))
      ptr = load.getPtr(), mask = load.getMask();
    else if (auto store = dyn_cast<tile::StoreOp>(op))
      ptr = store.getPtr(), mask = store.getMask();
    else if (auto atomic = dyn_cast<tile::AtomicRMWOp>(op))
      ptr = atomic.getPtr(), mask = atomic.getMask();
    else if (auto cas = dyn_cast<tile::AtomicCASOp>(op))
      ptr = cas.getPtr();
    if (!ptr || !isa<RankedTensorType>(ptr.getType()))
      return;
    AccessChoice choice = chooseAccess(axisInfo, ptr, mask);
    AccessChoice &current = chosen[groups.find(ptr)];
    if (choice.vector > current.vector)
      current = choice;
  });
  for (auto &[group, choice] : chosen)
    layouts.try_emplace(group, choice.layout);

  // Slices across reductions and expand_dims, until nothing changes.
  bool changed = true;
  while (changed) {
    changed = false;
    auto derive = [&](Value from, Value to, int64_t axis, bool toSlice) {
      Attribute source = layouts.lookup(groups.find(from));
      Value target = groups.find(to);
      if (!source || layouts.count(target))
        return;
      if (toSlice) {
        layouts[target] = SliceEncodingAttr::get(
            &getContext(), axis, cast<DistributedEncodingAttr>(source));
      } else if (auto slice = dyn_cast<SliceEncodingAttr>(source);
                 slice && slice.getDim() == axis) {
        // A group that cannot take the mma layout (a reduction that does
        // not run on it) gets its own, and the slice is converted.
        if (isa<MmaEncodingAttr>(slice.getParent()) &&
            !canTakeMma(tags.lookup(target)))
          return;
        layouts[target] = slice.getParent();
      } else {
        return;
      }
      changed = true;
    };
    func.walk([&](Operation *op) {
      if (auto reduce = dyn_cast<tile::ReduceOp>(op)) {
        Value result = reduce.getResult(0);
        if (!isa<RankedTensorType>(result.getType()))
          return;
        derive(reduce.getSrcs()[0], result, reduce.getAxis(), true);
        derive(result, reduce.getSrcs()[0], reduce.getAxis(), false);
      }
      if (auto expand = dyn_cast<tile::ExpandDimsOp>(op)) {
        derive(expand.getResult(), expand.getSrc(), expand.getAxis(), true);
        derive(expand.getSrc(), expand.getResult(), expand.getAxis(), false);
      }
    });
  }

  // Row-major defaults for the rest, then the types.
  for (Value tile : tiles) {
    Value group = groups.find(tile);
    if (layouts.count(group))
      continue;
    auto type = cast<RankedTensorType>(tile.getType());
    kiln::layout::Shape shape(type.getShape().begin(), type.getShape().end());
    kiln::layout::Shape order;
    for (int64_t d = type.getRank() - 1; d >= 0; --d)
      order.push_back(d);
    layouts[group] = blocked(kiln::layout::BlockedLayout::forCoalescedAccess(
        shape, order, 1, numWarps, threadsPerWarp));
  }
  for (Value tile : tiles)
    retype(tile, withEncoding(cast<RankedTensorType>(tile.getType()),
                              layouts[groups.find(tile)]));

  // Where an op needs a layout its neighbour's group did not get, convert.
  OpBuilder b(&getContext());
  func.walk([&](Operation *op) {
    if (auto reduce = dyn_cast<tile::ReduceOp>(op)) {
      auto srcType = cast<RankedTensorType>(reduce.getSrcs()[0].getType());
      // A 1-D reduction gives scalars, which have no layout.
      if (srcType.getRank() < 2)
        return;
      auto needed = SliceEncodingAttr::get(
          &getContext(), reduce.getAxis(),
          cast<DistributedEncodingAttr>(srcType.getEncoding()));
      b.setInsertionPointAfter(reduce);
      for (Value result : reduce.getResults()) {
        auto type = dyn_cast<RankedTensorType>(result.getType());
        if (!type || type.getEncoding() == needed)
          continue;
        auto convert = ConvertLayoutOp::create(b, reduce.getLoc(), type,
                                               result);
        result.replaceAllUsesExcept(convert.getResult(), convert);
        result.setType(withEncoding(type, needed));
      }
    }
    if (auto expand = dyn_cast<tile::ExpandDimsOp>(op)) {
      auto resultType = expand.getType();
      auto needed = SliceEncodingAttr::get(
          &getContext(), expand.getAxis(),
          cast<DistributedEncodingAttr>(resultType.getEncoding()));
      auto srcType = expand.getSrc().getType();
      if (srcType.getEncoding() == needed)
        return;
      b.setInsertionPoint(expand);
      auto convert = ConvertLayoutOp::create(
          b, expand.getLoc(), withEncoding(srcType, needed), expand.getSrc());
      expand.getSrcMutable().assign(convert.getResult());
    }
  });

  for (tile::StoreOp store : stores) {
    auto needed = cast<RankedTensorType>(store.getPtr().getType());
    auto type = dyn_cast<RankedTensorType>(store.getValue().getType());
    if (!type || type.getEncoding() == needed.getEncoding())
      continue;
    b.setInsertionPoint(store);
    store.getValueMutable().assign(
        convertTo(b, store.getLoc(), store.getValue(),
                  withEncoding(type, needed.getEncoding())));
  }

  for (tile::BroadcastOp broadcast : convertedBroadcasts) {
    auto srcType = broadcast.getSrc().getType();
    b.setInsertionPoint(broadcast);
    broadcast.getSrcMutable().assign(convertTo(
        b, broadcast.getLoc(), broadcast.getSrc(),
        withEncoding(srcType, broadcast.getType().getEncoding())));
  }

  // Tensor-core dots take their operands as dot operands and their
  // accumulator in the mma layout. An operand the dot's loops do not
  // change (an attention's queries) is converted once, before them. A
  // cast of narrower elements beside the dot (int8 or 8-bit float tiles
  // widened to f16) converts its source instead and casts the fragments
  // in registers, as Triton does: fewer bytes through shared memory, and
  // a staged operand is read straight into its fragments.
  for (auto [dot, mma, kWidth] : mmaDots) {
    for (auto [index, operand] : llvm::enumerate(
             SmallVector<OpOperand *>{&dot.getAMutable(), &dot.getBMutable()})) {
      auto type = cast<RankedTensorType>(operand->get().getType());
      auto needed = withEncoding(
          type, DotOperandEncodingAttr::get(&getContext(), index, mma, kWidth));
      if (Operation *widening = getWideningCast(operand->get());
          widening && widening->getBlock() == dot->getBlock() &&
          widening->hasOneUse()) {
        b.setInsertionPoint(widening);
        Value narrow = widening->getOperand(0);
        widening->setOperand(
            0, ConvertLayoutOp::create(
                   b, dot.getLoc(),
                   withEncoding(cast<RankedTensorType>(narrow.getType()),
                                needed.getEncoding()),
                   narrow));
        widening->getResult(0).setType(needed);
        continue;
      }
      Operation *at = dot;
      while (auto loop = at->getParentOfType<LoopLikeOpInterface>()) {
        if (!loop.isDefinedOutsideOfLoop(operand->get()))
          break;
        at = loop;
      }
      b.setInsertionPoint(at);
      operand->assign(ConvertLayoutOp::create(b, dot.getLoc(), needed,
                                              operand->get()));
    }
    b.setInsertionPoint(dot);
    auto accType = cast<RankedTensorType>(dot.getAcc().getType());
    if (accType.getEncoding() == mma)
      continue;
    dot.getAccMutable().assign(convertTo(b, dot.getLoc(), dot.getAcc(),
                                         withEncoding(accType, mma)));
    b.setInsertionPointAfter(dot);
    auto convert = ConvertLayoutOp::create(b, dot.getLoc(), accType,
                                           dot.getResult());
    dot.getResult().replaceAllUsesExcept(convert.getResult(), convert);
    dot.getResult().setType(withEncoding(accType, mma));
  }

  rematerializeConversions(func);

  // Tile arguments and results of the function keep their types in step.
  SmallVector<Type> results(func.getFunctionType().getResults());
  func.walk([&](func::ReturnOp ret) {
    results.assign(ret.getOperandTypes().begin(), ret.getOperandTypes().end());
  });
  func.setFunctionType(FunctionType::get(
      &getContext(), func.getBody().front().getArgumentTypes(), results));
}

void TileAssignLayoutsPass::runOnOperation() {
  ModuleOp module = getOperation();
  if (numWarps <= 0 || threadsPerWarp <= 0) {
    module.emitError("num-warps and threads-per-warp must be positive");
    return signalPassFailure();
  }
  bool hasLayouts = false;
  module.walk([&](Operation *op) {
    for (Type type : op->getResultTypes())
      if (auto tensor = dyn_cast<RankedTensorType>(type))
        hasLayouts |= tensor.getEncoding() != nullptr;
  });
  if (hasLayouts) {
    module.emitError("tiles already have layouts: tile-assign-layouts runs "
                     "once, on tile IR without encodings");
    return signalPassFailure();
  }
  // Layouts spread static tiles of at least one element; a dynamic, 0-D
  // or empty tensor has no lowering.
  WalkResult dynamic = module.walk([&](Operation *op) {
    auto problem = [](Type type) -> StringRef {
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (!tensor)
        return {};
      if (!tensor.hasStaticShape())
        return "of dynamic shape";
      if (tensor.getRank() == 0)
        return "of rank 0";
      if (tensor.getNumElements() == 0)
        return "of no elements";
      return {};
    };
    auto refuse = [&](StringRef verb, Type type, StringRef why) {
      op->emitOpError() << verb << " a tensor " << why << " " << type
                        << ": tiles on the GPU have static shapes of at "
                           "least one dimension and one element (a scalar "
                           "is written as one)";
      return WalkResult::interrupt();
    };
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (StringRef why = problem(arg.getType()); !why.empty())
            return refuse("has", arg.getType(), why);
    for (Type type : op->getResultTypes())
      if (StringRef why = problem(type); !why.empty())
        return refuse("makes", type, why);
    return WalkResult::advance();
  });
  if (dynamic.wasInterrupted())
    return signalPassFailure();
  // 8-bit floats stay as they are only where wgmma multiplies them; other
  // dots multiply their f16 widenings, which are exact.
  module.walk([&](tile::DotOp dot) {
    if (!dot.hasFloat8Operands())
      return;
    std::string whyNot, wgmmaWhyNot;
    std::optional<MmaChoice> choice = chooseMma(
        dot, computeCapability, archSpecific, numWarps, whyNot, wgmmaWhyNot);
    if (choice && choice->warpgroup)
      return;
    bool hasWgmma = computeCapability == 90 && archSpecific;
    dot.emitRemark() << "8-bit float operands widened to f16: "
                     << (!hasWgmma ? "only sm_90a's wgmma multiplies 8-bit "
                                     "floats here"
                         : !wgmmaWhyNot.empty() ? wgmmaWhyNot
                                                : whyNot);
    dot.widenFloat8Operands();
  });
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal())
      assignFunction(func);
  module->setAttr("tilegpu.num_warps",
                  IntegerAttr::get(IntegerType::get(&getContext(), 32),
                                   numWarps));
}
