//===- AsyncCopyToGPU.cpp - Pipelined loads through cp.async --------------===//
//
// The ops of tile-pipeline-loops: kernel-long shared buffers at fixed
// offsets of the shared array, cp.async of each thread's runs into a slot
// (zero-filled where masked off), commit and wait, and slot reads.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "SharedTile.h"
#include "ThreadValues.h"

#include "kiln/Dialect/Tile/IR/TileDialect.h"
#include "kiln/Dialect/TileGPU/IR/TileGPUDialect.h"
#include "kiln/Dialect/TileGPU/Transforms/ScratchBound.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tiletogpu;

/// Attribute giving a local_alloc its offset in the shared array.
static constexpr llvm::StringLiteral kOffsetName = "kiln.shared_offset";


/// Alignment of the buffers: wgmma applies the swizzle to address bits
/// [4, 10), so a swizzled slot must start on a 1024-byte boundary for its
/// layout (swizzled relative to its start) to be what wgmma reads.
static constexpr int64_t kBufferAlignment = 1024;

/// The last op of `alloc`'s block that uses its buffer (itself, through
/// an op nested in it or through a view of the buffer); null where a use
/// lies outside the block.
static Operation *getLastUse(tilegpu::LocalAllocOp alloc) {
  Block *block = alloc->getBlock();
  Operation *last = alloc;
  SmallVector<Value> views = {alloc.getBuffer()};
  while (!views.empty()) {
    for (Operation *user : views.pop_back_val().getUsers()) {
      if (auto view = dyn_cast<tilegpu::TransposeSlotsOp>(user))
        views.push_back(view.getResult());
      Operation *inBlock = block->findAncestorOpInBlock(*user);
      if (!inBlock)
        return nullptr;
      if (last->isBeforeInBlock(inBlock))
        last = inBlock;
    }
  }
  return last;
}

/// Whether `a` and `b` lie in different branches of one scf.if (a
/// flattened loop and the loops it falls back to), which never run
/// together.
static bool inOtherBranches(Operation *a, Operation *b) {
  Operation *common = a->getParentOp();
  while (common && !common->isProperAncestor(b))
    common = common->getParentOp();
  if (!isa_and_nonnull<scf::IfOp>(common))
    return false;
  auto branchOf = [&](Operation *op) {
    Region *region = op->getParentRegion();
    while (region->getParentOp() != common)
      region = region->getParentOp()->getParentRegion();
    return region;
  };
  return branchOf(a) != branchOf(b);
}

/// Whether the buffers of `a` and `b` may be in use at the same time: in
/// one block, where their allocations' first-to-last uses overlap; in
/// two branches of an scf.if, never; in other blocks, always.
static bool livesOverlap(tilegpu::LocalAllocOp a, tilegpu::LocalAllocOp b) {
  if (inOtherBranches(a, b))
    return false;
  Operation *lastA = getLastUse(a), *lastB = getLastUse(b);
  if (a->getBlock() != b->getBlock() || !lastA || !lastB)
    return true;
  return !(lastA->isBeforeInBlock(b) || lastB->isBeforeInBlock(a));
}

/// Whether `alloc`'s buffer is done with when `op` runs: `op` comes after
/// its last use, or after the op that holds the allocation (a loop whose
/// body allocates), or, where `shareBefore`, before the allocation
/// (placeKernelBuffers then puts a barrier there, so that `op`'s reads of
/// its scratch end before the buffer's first copies land); but not ops in
/// a loop that allocates it again, nor mbarriers.
static bool isDeadAt(tilegpu::LocalAllocOp alloc, Operation *op,
                     bool shareBefore) {
  // mbarriers are not repurposed (PTX asks for mbarrier.inval first).
  if (cast<MemRefType>(alloc.getBuffer().getType()).getRank() == 1)
    return false;
  if (inOtherBranches(alloc, op))
    return true;
  // In a loop around both (a persistent kernel's loop over tiles), the
  // next iteration's copies into the buffer start with no barrier after
  // `op`'s last reads.
  for (Operation *loop = op->getParentOp(); loop; loop = loop->getParentOp())
    if (isa<LoopLikeOpInterface>(loop) && loop->isAncestor(alloc))
      return false;
  if (Operation *at = alloc->getBlock()->findAncestorOpInBlock(*op)) {
    if (shareBefore && at->isBeforeInBlock(alloc))
      return true;
    Operation *last = getLastUse(alloc);
    return last && last->isBeforeInBlock(at);
  }
  for (Operation *at = op; at; at = at->getParentOp()) {
    if (!at->getBlock())
      return false;
    if (Operation *holder = at->getBlock()->findAncestorOpInBlock(*alloc))
      return holder->isBeforeInBlock(at);
  }
  return false;
}

/// Puts a barrier before `alloc` (and the allocations just before it),
/// unless there is one.
static void putBarrierBefore(tilegpu::LocalAllocOp alloc) {
  Operation *first = alloc;
  while (isa_and_nonnull<tilegpu::LocalAllocOp>(first->getPrevNode()))
    first = first->getPrevNode();
  if (isa_and_nonnull<gpu::BarrierOp>(first->getPrevNode()))
    return;
  OpBuilder b(first);
  gpu::BarrierOp::create(b, alloc.getLoc());
}

/// The most shared scratch an op before `alloc` in its block may take (a
/// layout conversion, a reduction), with `numWarps` warps.
static int64_t getScratchBefore(tilegpu::LocalAllocOp alloc, int64_t numWarps) {
  int64_t bytes = 0;
  for (Operation *op = alloc->getPrevNode(); op; op = op->getPrevNode())
    op->walk([&](Operation *nested) {
      bytes = std::max(bytes, tilegpu::getScratchBound(nested, numWarps));
    });
  return bytes;
}

void kiln::tiletogpu::placeKernelBuffers(gpu::GPUModuleOp module,
                                         int64_t limit) {
  int64_t end = 0;
  struct Placed {
    tilegpu::LocalAllocOp alloc;
    int64_t begin, end;
  };
  SmallVector<std::pair<func::FuncOp, SmallVector<Placed>>> kernels;
  for (auto kernel : module.getOps<func::FuncOp>()) {
    // Kernels run apart: each one's buffers start at 0. A buffer takes the
    // lowest offset where it misses those it may be in use with, so that
    // loops one after another (a causal attention's two) share their
    // stages' memory, also around a buffer both loops read.
    SmallVector<Placed> &placed =
        kernels.emplace_back(kernel, SmallVector<Placed>()).second;
    kernel.walk([&](tilegpu::LocalAllocOp alloc) {
      auto type = cast<MemRefType>(alloc.getBuffer().getType());
      int64_t bytes =
          type.getNumElements() * getStorageBytes(type.getElementType());
      SmallVector<std::pair<int64_t, int64_t>> taken;
      for (const Placed &other : placed)
        if (livesOverlap(alloc, other.alloc))
          taken.emplace_back(other.begin, other.end);
      llvm::sort(taken);
      int64_t offset = 0;
      for (auto [begin, end] : taken) {
        if (offset + bytes <= begin)
          break;
        offset = std::max<int64_t>(offset, llvm::alignTo(end, kBufferAlignment));
      }
      // Memory an earlier loop used may still be read by other threads:
      // all of them finish with it before this buffer is written.
      if (llvm::any_of(placed, [&](const Placed &other) {
            return other.begin < offset + bytes && offset < other.end;
          }))
        putBarrierBefore(alloc);
      alloc->setAttr(kOffsetName,
                     IntegerAttr::get(IntegerType::get(module.getContext(), 64),
                                      offset));
      placed.push_back({alloc, offset, offset + bytes});
      end = std::max(end, offset + bytes);
    });
  }
  if (end > 0)
    reserveSharedArray(module, end, kBufferAlignment);
  int64_t scratch = llvm::alignTo(end, 16);
  setScratchOffset(module, scratch);
  // An op past some buffers' lives (an epilogue's layout conversion after
  // the pipelined loop) takes its scratch from the memory they are done
  // with; it waits at a barrier before writing, as every scratch user
  // does, and the pipeline has waited for its last copies. An op before
  // them (the conversion of a Q that the loop reads) does too where its
  // scratch past them would not fit the block, and a barrier before the
  // buffers then waits for its reads.
  for (auto &[kernel, placed] : kernels) {
    int64_t numWarps = getLayoutThreads(kernel) / kWarpSize;
    int64_t buffersEnd = 0, scratchBefore = 0;
    for (const Placed &buffer : placed) {
      buffersEnd = std::max(buffersEnd, buffer.end);
      scratchBefore =
          std::max(scratchBefore, getScratchBefore(buffer.alloc, numWarps));
    }
    bool shareBefore =
        int64_t(llvm::alignTo(buffersEnd, 16)) + scratchBefore > limit;
    if (shareBefore)
      for (const Placed &buffer : placed)
        putBarrierBefore(buffer.alloc);
    kernel.walk([&](Operation *op) {
      if (!llvm::any_of(op->getOperandTypes(), llvm::IsaPred<RankedTensorType>))
        return;
      SmallVector<int64_t> inUse;
      for (const Placed &buffer : placed)
        if (!isDeadAt(buffer.alloc, op, shareBefore))
          inUse.append({buffer.begin, buffer.end});
      if (inUse.size() < 2 * placed.size())
        setBuffersInUse(op, inUse);
    });
  }
}

namespace {

struct LocalAllocLowering : OpConversionPattern<tilegpu::LocalAllocOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tilegpu::LocalAllocOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto offset = op->getAttrOfType<IntegerAttr>(kOffsetName);
    if (!offset)
      return rewriter.notifyMatchFailure(op, "not placed in shared memory");
    auto module = op->getParentOfType<gpu::GPUModuleOp>();
    Location loc = op.getLoc();
    Value base = getSharedArray(rewriter, loc, module, getScratchOffset(module));
    rewriter.replaceOpWithNewOp<LLVM::GEPOp>(
        op, base.getType(), rewriter.getI8Type(), base,
        ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(offset.getInt())});
    return success();
  }
};

struct AsyncCopyLowering : OpConversionPattern<tilegpu::AsyncCopyOp> {
  AsyncCopyLowering(const TypeConverter &converter, MLIRContext *context,
                    const AccessWidths &widths)
      : OpConversionPattern(converter, context), widths(widths) {}

  LogicalResult
  matchAndRewrite(tilegpu::AsyncCopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto ptrType = cast<RankedTensorType>(op.getPtrs().getType());
    MemRefType bufferType = op.getBuffer().getType();
    int64_t width = widths.lookup(op);
    int64_t bytes = width * getStorageBytes(bufferType.getElementType());
    if (bytes != 4 && bytes != 8 && bytes != 16)
      return op.emitOpError() << "target nvptx: cp.async copies 4, 8 or 16 "
                                 "bytes, not "
                              << bytes;
    FailureOr<TileCoordinates> at = emitTileCoordinates(rewriter, loc, ptrType);
    if (failed(at))
      return failure();
    SharedTile slot = getBufferSlot(rewriter, loc, adaptor.getBuffer(),
                                    bufferType, adaptor.getSlot());
    // The copies' targets, shared where they differ by constants: a
    // loop's copies would otherwise keep one address each live through it.
    SmallVector<Value> targets =
        getRunAddresses(rewriter, loc, slot, ptrType,
                        slot.byteOffset(rewriter, loc, at->coordinates), width);
    Type i32 = rewriter.getI32Type();
    auto global = LLVM::LLVMPointerType::get(rewriter.getContext(), 1);
    // A run is one copy from its first register's address; a masked-off
    // run reads nothing and fills the slot with zeros.
    for (int64_t reg = 0, e = getNumRegisters(ptrType); reg < e;
         reg += width) {
      Value source = LLVM::IntToPtrOp::create(
          rewriter, loc, global,
          extractRegister(rewriter, loc, adaptor.getPtrs(), reg));
      Value target = targets[reg / width];
      Value size = constantInt(rewriter, loc, i32, bytes);
      if (Value mask = adaptor.getMask())
        size = arith::SelectOp::create(
            rewriter, loc, extractRegister(rewriter, loc, mask, reg), size,
            constantInt(rewriter, loc, i32, 0));
      NVVM::CpAsyncOp::create(rewriter, loc, target, source,
                              static_cast<uint32_t>(bytes),
                              bytes == 16 ? NVVM::LoadCacheModifierKind::CG
                                          : NVVM::LoadCacheModifierKind::CA,
                              size);
    }
    rewriter.eraseOp(op);
    return success();
  }

  const AccessWidths &widths;
};

struct AsyncCommitGroupLowering
    : OpConversionPattern<tilegpu::AsyncCommitGroupOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tilegpu::AsyncCommitGroupOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncCommitGroupOp>(op);
    return success();
  }
};

struct AsyncWaitLowering : OpConversionPattern<tilegpu::AsyncWaitOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tilegpu::AsyncWaitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncWaitGroupOp>(op, op.getPending());
    return success();
  }
};

struct LocalLoadLowering : OpConversionPattern<tilegpu::LocalLoadOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tilegpu::LocalLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    SharedTile slot =
        getBufferSlot(rewriter, op.getLoc(), adaptor.getBuffer(),
                      op.getBuffer().getType(), adaptor.getSlot());
    FailureOr<Value> registers =
        loadSharedTile(rewriter, op.getLoc(), slot, type);
    if (failed(registers))
      return failure();
    rewriter.replaceOp(op, *registers);
    return success();
  }
};

/// A view is the buffer's own address: the ops reading it lay its slots
/// out by its type.
struct TransposeSlotsLowering
    : OpConversionPattern<tilegpu::TransposeSlotsOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tilegpu::TransposeSlotsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getBuffer());
    return success();
  }
};

struct LocalStoreLowering : OpConversionPattern<tilegpu::LocalStoreOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tilegpu::LocalStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SharedTile slot =
        getBufferSlot(rewriter, op.getLoc(), adaptor.getBuffer(),
                      op.getBuffer().getType(), adaptor.getSlot());
    if (failed(storeSharedTile(rewriter, op.getLoc(), slot,
                               adaptor.getValue(),
                               cast<RankedTensorType>(op.getValue().getType()))))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void kiln::tiletogpu::populateAsyncCopyToGPUPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns,
    const AccessWidths &widths) {
  patterns.add<LocalAllocLowering, AsyncCommitGroupLowering, AsyncWaitLowering,
               LocalLoadLowering, LocalStoreLowering, TransposeSlotsLowering>(
      converter,
                                                      patterns.getContext());
  patterns.add<AsyncCopyLowering>(converter, patterns.getContext(), widths);
}
