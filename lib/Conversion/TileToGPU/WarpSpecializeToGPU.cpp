//===- WarpSpecializeToGPU.cpp - Producer and consumer warps --------------===//
//
// tilegpu.warp_specialize, once the rest of its kernel is converted: the
// threads past the consumers' (a warpgroup) decrease their registers, run
// the producer's region and exit; the consumers increase theirs. The block
// barriers the conversion put after the split would wait for the producer,
// which never reaches them: they become a named barrier of the consumers'
// threads alone.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "ThreadValues.h"

#include "kiln/Dialect/TileGPU/IR/TileGPUDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tiletogpu;

/// The named barrier the consumers meet at (0 is the whole block's).
static constexpr int64_t kConsumerBarrier = 1;

void kiln::tiletogpu::lowerWarpSpecialize(gpu::GPUModuleOp module,
                                          int64_t consumerThreads) {
  SmallVector<tilegpu::WarpSpecializeOp> specializations;
  module.walk(
      [&](tilegpu::WarpSpecializeOp op) { specializations.push_back(op); });
  for (tilegpu::WarpSpecializeOp op : specializations) {
    Location loc = op.getLoc();
    OpBuilder b(op);
    Type i32 = b.getI32Type();
    Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    Value isProducer = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::uge, tid,
        constantInt(b, loc, b.getIndexType(), consumerThreads));
    auto producer = scf::IfOp::create(b, loc, isProducer, /*withElse=*/false);
    Operation *end = producer.thenBlock()->getTerminator();
    b.setInsertionPoint(end);
    NVVM::SetMaxRegisterOp::create(b, loc, op.getProducerRegisters(),
                                   NVVM::SetMaxRegisterAction::decrease);
    Block &region = op.getProducer().front();
    producer.thenBlock()->getOperations().splice(end->getIterator(),
                                                 region.getOperations());
    NVVM::Exit::create(b, loc);
    b.setInsertionPointAfter(producer);
    NVVM::SetMaxRegisterOp::create(b, loc, op.getConsumerRegisters(),
                                   NVVM::SetMaxRegisterAction::increase);
    // Everything after the split runs on the consumers alone.
    SmallVector<gpu::BarrierOp> barriers;
    for (Operation *next = producer->getNextNode(); next;
         next = next->getNextNode())
      next->walk([&](gpu::BarrierOp barrier) { barriers.push_back(barrier); });
    for (gpu::BarrierOp barrier : barriers) {
      OpBuilder at(barrier);
      NVVM::BarrierOp::create(
          at, barrier.getLoc(), Type(),
          constantInt(at, barrier.getLoc(), i32, kConsumerBarrier),
          constantInt(at, barrier.getLoc(), i32, consumerThreads),
          NVVM::BarrierReductionAttr(), Value());
      barrier.erase();
    }
    op.erase();
  }
}
