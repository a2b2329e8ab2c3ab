//===- ScratchBound.cpp - Shared scratch beside a loop's slots ------------===//
//
// The shared memory a pipelined loop's slots may take is what the block
// has less the scratch of the ops that run while the slots hold data. The
// scratch of an op after the loop reuses the slots' memory (the
// tile-to-GPU conversion places it in the buffers that are dead there),
// so only the loop's own ops and those of loops around it count. Each
// bound here is at least what the op's lowering in TileToGPU allocates.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/TileGPU/Transforms/ScratchBound.h"
#include "LoopPipelining.h"

#include "kiln/Dialect/TileGPU/IR/ReductionThreads.h"
#include "kiln/Layout/RegisterMap.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tilegpu;
using namespace kiln::tilegpu::pipelining;

/// Bytes an element of `type` takes in shared memory: a byte for i1 and
/// 8-bit floats, eight for pointers and indices.
static int64_t getElementBytes(Type type) {
  if (isa<tile::PointerType, IndexType>(type))
    return 8;
  return std::max<int64_t>(1, type.getIntOrFloatBitWidth() / 8);
}

/// Bytes all of `value`'s elements take in shared memory (one element for
/// a scalar).
static int64_t getTileBytes(Value value) {
  auto tensor = dyn_cast<RankedTensorType>(value.getType());
  if (!tensor)
    return getElementBytes(value.getType());
  return tensor.getNumElements() * getElementBytes(tensor.getElementType());
}

/// Whether every thread keeps the elements `convert` moves: its lowering
/// permutes registers and takes no scratch.
static bool isThreadLocal(ConvertLayoutOp convert) {
  auto from = convert.getSrc().getType(), to = convert.getType();
  auto source = dyn_cast_or_null<DistributedEncodingAttr>(from.getEncoding());
  auto result = dyn_cast_or_null<DistributedEncodingAttr>(to.getEncoding());
  if (!source || !result)
    return false;
  layout::Shape shape(from.getShape().begin(), from.getShape().end());
  return layout::getThreadLocalRegisterMap(
             *source.getLayout(), shape, *result.getLayout(), shape,
             [](const layout::Shape &at) { return at; })
      .has_value();
}

int64_t kiln::tilegpu::getScratchBound(Operation *op, int64_t numWarps) {
  if (auto convert = dyn_cast<ConvertLayoutOp>(op))
    return isThreadLocal(convert) ? 0 : getTileBytes(convert.getSrc());
  if (auto dot = dyn_cast<tile::DotOp>(op)) {
    // On tensor cores the operands come in registers or from slots; on
    // CUDA cores both are staged.
    if (runsOnTensorCores(dot))
      return 0;
    return getTileBytes(dot.getA()) + getTileBytes(dot.getB());
  }
  if (auto reduce = dyn_cast<tile::ReduceOp>(op)) {
    // The warps along the axis exchange a partial result each; within a
    // warp, lanes shuffle.
    auto type = cast<RankedTensorType>(reduce.getSrcs().front().getType());
    std::string whyNot;
    std::optional<AxisThreads> threads = getAxisThreads(
        type.getEncoding(), type.getShape(), reduce.getAxis(), whyNot);
    int64_t warps = threads ? threads->warpsAlong : numWarps;
    if (threads && threads->warps <= 1)
      return 0;
    int64_t bytes = 0;
    for (Value result : op->getResults())
      bytes += getTileBytes(result) * warps;
    return bytes;
  }
  if (auto store = dyn_cast<tile::BlockStoreOp>(op))
    // A TMA store stages the tile at a 1024-byte boundary.
    return getTileBytes(store.getValue()) + 1024;
  if (isa<tile::AtomicRMWOp, tile::AtomicCASOp>(op))
    // The old values, where they are used, pass through shared memory.
    return op->use_empty() ? 0 : getTileBytes(op->getResult(0));
  if (isa<tile::ScanOp, tile::TransOp, tile::ReshapeOp, tile::GatherOp>(op)) {
    int64_t bytes = 0;
    for (Value operand : op->getOperands())
      if (isa<RankedTensorType>(operand.getType()))
        bytes += getTileBytes(operand);
    return bytes;
  }
  return 0;
}

int64_t
kiln::tilegpu::pipelining::getConcurrentScratchBound(scf::ForOp loop,
                                                     const LoopPlan &plan) {
  auto warps = loop->getParentOfType<ModuleOp>()->getAttrOfType<IntegerAttr>(
      "tilegpu.num_warps");
  int64_t numWarps = warps ? warps.getInt() : 1;
  // What the pipeline reads from its slots instead.
  DenseSet<Operation *> staged;
  for (const StagedLoad &load : plan.loads) {
    for (ConvertLayoutOp convert : load.converts)
      staged.insert(convert);
    for (ConvertLayoutOp convert : load.transposedConverts)
      staged.insert(convert);
    for (tile::TransOp trans : load.transposes)
      staged.insert(trans);
  }
  // The outermost loop around `loop`: its whole body runs while the slots
  // hold data (a persistent kernel's next tile's copies start with no
  // barrier after this tile's epilogue).
  Operation *region = loop;
  for (Operation *parent = loop->getParentOp();
       parent && !isa<func::FuncOp>(parent); parent = parent->getParentOp())
    if (isa<LoopLikeOpInterface>(parent))
      region = parent;
  int64_t bound = 0;
  region->walk([&](Operation *op) {
    if (!staged.contains(op))
      bound = std::max(bound, getScratchBound(op, numWarps));
  });
  return bound;
}
