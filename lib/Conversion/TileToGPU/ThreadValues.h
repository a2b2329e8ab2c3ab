//===- ThreadValues.h - A thread's share of a tile, as values ---*- C++ -*-===//
//
// After the GPU lowering, a tile is, in each thread, a vector of the
// registers its layout gives that thread (register r of the layout is
// element r of the vector). These helpers build the per-thread code every
// pattern of the lowering needs: where a thread's elements sit in the tile,
// moving registers, lanes exchanging values, and shared-memory scratch.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_CONVERSION_TILETOGPU_THREADVALUES_H
#define KILN_LIB_CONVERSION_TILETOGPU_THREADVALUES_H

#include "kiln/Layout/DistributedLayout.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Transforms/DialectConversion.h"

#include <functional>
#include <memory>

namespace kiln::tiletogpu {

/// Threads per warp on every NVIDIA GPU.
constexpr int64_t kWarpSize = 32;

/// The layout function of a laid-out tile type.
std::shared_ptr<const layout::DistributedLayout>
getLayout(mlir::RankedTensorType type);

/// The tile's shape in the layout library's terms.
layout::Shape getShape(mlir::RankedTensorType type);

/// Registers one thread holds of a laid-out tile.
int64_t getNumRegisters(mlir::RankedTensorType type);

/// The element type a thread keeps in registers: pointers become i64
/// addresses.
mlir::Type getRegisterType(mlir::Type elementType);

/// Where a thread's registers sit in the tile: one vector of i32 per
/// dimension (element r: register r's coordinate), and which registers hold
/// the canonical copy of their element (null when no register is a
/// replica).
struct TileCoordinates {
  llvm::SmallVector<mlir::Value> coordinates;
  mlir::Value canonical;
};

/// Emits the running thread's coordinates in a tile of `type`; fails with a
/// diagnostic at `loc` for layouts the lowering does not know.
mlir::FailureOr<TileCoordinates> emitTileCoordinates(mlir::OpBuilder &b,
                                                     mlir::Location loc,
                                                     mlir::RankedTensorType type);

/// An i32 or index constant (as `type`).
mlir::Value constantInt(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Type type, int64_t value);

/// Register `index` of the per-thread vector `registers`.
mlir::Value extractRegister(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value registers, int64_t index);

/// Registers `indices` of the per-thread vector `registers`, in order, as
/// vectors of `perWord` elements each: the 32-bit registers of a
/// tensor-core operand fragment.
llvm::SmallVector<mlir::Value>
packFragmentWords(mlir::OpBuilder &b, mlir::Location loc, mlir::Value registers,
                  llvm::ArrayRef<int64_t> indices, int64_t perWord);

/// A per-thread vector of `type` from one scalar per register.
mlir::Value fromRegisters(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::VectorType type, mlir::ValueRange registers);

/// The registers of `source` in the order `map` names them.
mlir::Value permuteRegisters(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value source, llvm::ArrayRef<int64_t> map);

/// `value` (any integer or float of at most 64 bits) from the lane whose
/// index is this lane's xor `mask`.
mlir::Value shuffleXor(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value value, int64_t mask);

/// The ops of `block` (a single-block region's) cloned at `b` with its
/// arguments given by `arguments`; what its terminator returns, as the
/// clones compute it.
llvm::SmallVector<mlir::Value>
inlineBlock(mlir::OpBuilder &b, mlir::Block &block, mlir::ValueRange arguments);

/// The combining region of a reduce or scan (its block takes the running
/// values, then the next ones, and yields the combined ones) applied to
/// `acc` and `next`.
llvm::SmallVector<mlir::Value> combineValues(mlir::OpBuilder &b,
                                             mlir::Region &combiner,
                                             mlir::ValueRange acc,
                                             mlir::ValueRange next);

/// Scratch shared memory for `op`: one buffer of each size in `bytes`, as
/// addrspace(3) pointers into the kernel's single shared array, past the
/// buffers in use while it runs (tilegpu.local_alloc, setBuffersInUse). All ops
/// reuse that scratch (the array is as large as the most any op asks for),
/// so each op must wait at a barrier before it first writes, which keeps it
/// from overwriting what the previous op's threads are still reading.
/// Each buffer starts `alignment`-aligned (16 bytes for vector accesses;
/// more for what TMA swizzles).
llvm::SmallVector<mlir::Value>
allocateSharedMemory(mlir::OpBuilder &b, mlir::Operation *op,
                     llvm::ArrayRef<int64_t> bytes, int64_t alignment = 16);
mlir::Value allocateSharedMemory(mlir::OpBuilder &b, mlir::Operation *op,
                                 int64_t bytes);

/// Once every op is lowered: checks the shared array against `limit`
/// bytes, and makes it dynamic shared memory when it is more than the
/// static 48 KiB (recording its size as kDynamicSharedBytesAttrName).
mlir::LogicalResult finishSharedArray(mlir::gpu::GPUModuleOp module,
                                      int64_t limit);

/// Makes the shared array of the kernels of `module` at least `bytes` long
/// and `alignment`-aligned.
void reserveSharedArray(mlir::gpu::GPUModuleOp module, int64_t bytes,
                        int64_t alignment);

/// The shared array of the kernels of `module`, grown to at least `bytes`.
mlir::Value getSharedArray(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::gpu::GPUModuleOp module, int64_t bytes);

/// Where the scratch of `module`'s kernels starts in the shared array by
/// default: the end of their kernel-long buffers (set before the
/// conversion).
int64_t getScratchOffset(mlir::gpu::GPUModuleOp module);
void setScratchOffset(mlir::gpu::GPUModuleOp module, int64_t offset);

/// Records that only the kernel-long buffers at [begin, end) pairs
/// `inUse` may be in use while `op` runs: its scratch goes in the lowest
/// gap between them that fits.
void setBuffersInUse(mlir::Operation *op, llvm::ArrayRef<int64_t> inUse);

/// The element type a value of `type` is stored as in memory (i1 and
/// 8-bit floats, which LLVM lacks, as i8; pointers as i64 addresses).
mlir::Type getStorageType(mlir::Type type);

/// `value` as its storage type (getStorageType), and back.
mlir::Value toStorage(mlir::OpBuilder &b, mlir::Location loc,
                      mlir::Value value);
mlir::Value fromStorage(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value stored, mlir::Type type);

/// Bytes an element of `type` takes in memory.
int64_t getStorageBytes(mlir::Type type);

/// An i1 that holds in thread 0 of the program alone: where a scalar, which
/// every thread holds, is used once.
mlir::Value isThreadZero(mlir::OpBuilder &b, mlir::Location loc);

/// Threads the layouts of `op`'s kernel spread tiles over: its module's
/// tilegpu.num_warps warps (in a warp-specialized kernel, the consumers;
/// the producer's threads follow theirs).
int64_t getLayoutThreads(mlir::Operation *op);

/// Lane and warp (i32) of the running thread.
std::pair<mlir::Value, mlir::Value> getLaneAndWarp(mlir::OpBuilder &b,
                                                   mlir::Location loc);

/// Stores the scalar `value` at element `index` (i32) of the shared array
/// `base`, and loads one back; `type` is the value's type.
void storeShared(mlir::OpBuilder &b, mlir::Location loc, mlir::Value base,
                 mlir::Value index, mlir::Value value);
mlir::Value loadShared(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value base, mlir::Value index, mlir::Type type);

/// Row-major linear index (i32 vector) of `coordinates` in `shape`.
mlir::Value linearize(mlir::OpBuilder &b, mlir::Location loc,
                      llvm::ArrayRef<mlir::Value> coordinates,
                      llvm::ArrayRef<int64_t> shape);

/// Computes, from the coordinates (i32 vectors) of the result's registers,
/// the row-major linear index in the source tile of the element each one
/// takes.
using SourceIndexFn = std::function<mlir::Value(
    mlir::OpBuilder &, mlir::Location, llvm::ArrayRef<mlir::Value>)>;

/// Moves the tile `source` (per-thread registers of `sourceType`) into the
/// layout of `resultType` through shared memory: every thread writes what
/// it holds at its linear index, then reads for each result register the
/// element `sourceIndex` names.
mlir::FailureOr<mlir::Value>
redistributeThroughSharedMemory(mlir::OpBuilder &b, mlir::Operation *op,
                                mlir::Value source,
                                mlir::RankedTensorType sourceType,
                                mlir::RankedTensorType resultType,
                                const SourceIndexFn &sourceIndex);

} // namespace kiln::tiletogpu

#endif // KILN_LIB_CONVERSION_TILETOGPU_THREADVALUES_H
