//===- Patterns.h - Patterns of the tile-to-GPU lowering --------*- C++ -*-===//

#ifndef KILN_LIB_CONVERSION_TILETOGPU_PATTERNS_H
#define KILN_LIB_CONVERSION_TILETOGPU_PATTERNS_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Transforms/DialectConversion.h"

#include "llvm/ADT/DenseMap.h"

namespace kiln::tiletogpu {

/// Elements each memory access moves per thread at once, by op: decided
/// before the conversion, from the contiguity and alignment of the
/// pointers and the layout.
using AccessWidths = llvm::DenseMap<mlir::Operation *, int64_t>;

/// Loads, stores, atomics and pointer arithmetic.
void populateMemoryOpsToGPUPatterns(const mlir::TypeConverter &converter,
                                    mlir::RewritePatternSet &patterns,
                                    const AccessWidths &widths);

/// Program ids, ranges, splats and every op that only moves elements
/// (broadcast, expand_dims, reshape, trans, convert_layout).
void populateShapeOpsToGPUPatterns(const mlir::TypeConverter &converter,
                                   mlir::RewritePatternSet &patterns);

/// tile.reduce: within a thread, across lanes with shuffles, across warps
/// through shared memory.
void populateReduceOpToGPUPatterns(const mlir::TypeConverter &converter,
                                   mlir::RewritePatternSet &patterns);

/// tile.scan: rounds of Hillis and Steele through shared memory.
void populateScanOpToGPUPatterns(const mlir::TypeConverter &converter,
                                 mlir::RewritePatternSet &patterns);

/// tile.dot on CUDA cores: operands staged in shared memory, one vector
/// fma per step of K.
void populateDotOpToGPUPatterns(const mlir::TypeConverter &converter,
                                mlir::RewritePatternSet &patterns);

/// The software pipeline's ops: kernel-long shared buffers, cp.async into
/// their slots, commit, wait and slot reads.
void populateAsyncCopyToGPUPatterns(const mlir::TypeConverter &converter,
                                    mlir::RewritePatternSet &patterns,
                                    const AccessWidths &widths);

/// The TMA ops of the software pipeline (sm_90): mbarrier initialization,
/// arrival expecting bytes and wait, and cp.async.bulk.tensor copies into
/// slots through tensor-map parameters.
void populateTensorMapCopyToGPUPatterns(const mlir::TypeConverter &converter,
                                        mlir::RewritePatternSet &patterns);

/// tile.print as printf (vprintf) of each element a thread holds;
/// tile.assert as cf.assert (__assertfail).
void populateDebugOpsToGPUPatterns(const mlir::TypeConverter &converter,
                                   mlir::RewritePatternSet &patterns);

/// tile.inline_asm_elementwise as one llvm.inline_asm per `pack` registers
/// of a thread.
void populateInlineAsmToGPUPatterns(const mlir::TypeConverter &converter,
                                    mlir::RewritePatternSet &patterns);

/// tile.extern_elementwise as one llvm.call of its libdevice function per
/// register of a thread.
void populateExternElementwiseToGPUPatterns(
    const mlir::TypeConverter &converter, mlir::RewritePatternSet &patterns);

/// Checks, with a diagnostic at the op, that every tile.extern_elementwise
/// of `module` calls a libdevice function (named __nv_*) with types the GPU
/// has, each name with one function type.
mlir::LogicalResult verifyExternCalls(mlir::ModuleOp module);

/// tile.map_elementwise as its region cloned once per `pack` registers of
/// a thread.
void populateMapElementwiseToGPUPatterns(const mlir::TypeConverter &converter,
                                         mlir::RewritePatternSet &patterns);

/// Lowers each tilegpu.warp_specialize of `module`'s converted kernels:
/// its producer warpgroup, the threads past the layouts' `consumerThreads`,
/// gives its registers back, runs the region and exits; the consumers take
/// the registers and go on, and the block barriers after the split count
/// only them (barrier 1 of `consumerThreads` threads).
void lowerWarpSpecialize(mlir::gpu::GPUModuleOp module,
                         int64_t consumerThreads);

/// Gives every tilegpu.local_alloc of `module`'s kernels its offset in the
/// shared array, and puts the scratch after them, or in the memory of
/// those not in use while it is, where a block's `limit` bytes would not
/// hold it past them.
void placeKernelBuffers(mlir::gpu::GPUModuleOp module, int64_t limit);

/// tile.dot on tensor cores: mma.sync on operands already in the fragment
/// layouts (tile-assign-layouts chose them).
void populateMmaDotOpToGPUPatterns(const mlir::TypeConverter &converter,
                                   mlir::RewritePatternSet &patterns);

/// tilegpu.warpgroup_dot on wgmma.mma_async (sm_90a), and the proxy fence
/// before it.
void populateWarpgroupDotOpToGPUPatterns(const mlir::TypeConverter &converter,
                                         mlir::RewritePatternSet &patterns);

/// Whether `op` (a tile.dot) can be lowered on CUDA cores, its operands
/// staged in at most `sharedMemoryLimit` bytes; emits the reason when not.
mlir::LogicalResult checkDotLowerable(mlir::Operation *op,
                                      int64_t sharedMemoryLimit);

/// Whether `op` (a reduction) can be lowered; emits the reason when not.
/// Checked before the conversion starts, so that a failure is reported
/// once, by name.
mlir::LogicalResult checkReduceLowerable(mlir::Operation *op);

} // namespace kiln::tiletogpu

#endif // KILN_LIB_CONVERSION_TILETOGPU_PATTERNS_H
