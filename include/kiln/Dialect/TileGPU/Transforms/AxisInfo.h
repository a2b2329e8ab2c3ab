//===- AxisInfo.h - Contiguity and divisibility of integer tiles -*- C++
//-*-===//
//
// What is known, per dimension, about the integer and pointer tiles of a
// kernel: how many consecutive elements increase by one (contiguity), the
// power of two that divides the first of each such run (divisibility, in
// bytes for pointers), and how many consecutive elements are equal
// (constancy). Coalescing reads it to pick vector widths, and the GPU
// lowering to compare a mask once per group of equal elements.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_TILEGPU_TRANSFORMS_AXISINFO_H
#define KILN_DIALECT_TILEGPU_TRANSFORMS_AXISINFO_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace kiln::tilegpu {

struct AxisInfo {
  /// One entry per dimension; a scalar has one entry.
  llvm::SmallVector<int64_t> contiguity;
  llvm::SmallVector<int64_t> divisibility;
  llvm::SmallVector<int64_t> constancy;
  /// The value of every element, when it is one known integer.
  std::optional<int64_t> constant;

  /// What is known of nothing: runs of one, divisible by one.
  static AxisInfo unknown(int64_t rank);
  /// All elements equal to `value`, over `shape` (empty for a scalar).
  static AxisInfo splat(llvm::ArrayRef<int64_t> shape, int64_t divisibility,
                        std::optional<int64_t> constant);
};

/// The largest power of two dividing `value` (a large power for zero).
int64_t largestPowerOfTwoDividing(int64_t value);

/// AxisInfo of every value of one kernel, computed on demand from the ops
/// that define them. Kernel arguments are divisible by their
/// `tile.divisibility` attribute (in bytes for pointers), else by one. A
/// loop's induction variable is divisible by what divides its lower bound
/// and step; a loop-carried value advanced by a loop-invariant step each
/// iteration (`p = p + step`) keeps what its initial value and the step
/// have in common, and so does what the loop returns for it; other
/// loop-carried values are unknown.
class AxisInfoAnalysis {
public:
  /// By value: computing one value's info may add others to the cache.
  AxisInfo get(mlir::Value value);

private:
  AxisInfo compute(mlir::Value value);
  std::optional<AxisInfo> computeLoopArgument(mlir::BlockArgument arg);

  llvm::DenseMap<mlir::Value, AxisInfo> cache;
};

/// Widest access one thread makes at once, in bytes (ld.global.v4.b32).
constexpr int64_t kMaxAccessBytes = 16;

/// How many consecutive elements along `dim` of the pointer tile `ptr` one
/// thread can access as one vector: contiguous, aligned to the vector's
/// size, under one mask value (when `mask` is given), at most
/// kMaxAccessBytes, and a power of two.
int64_t getAccessVectorWidth(AxisInfoAnalysis &axisInfo, mlir::Value ptr,
                             mlir::Value mask, int64_t dim);

} // namespace kiln::tilegpu

#endif // KILN_DIALECT_TILEGPU_TRANSFORMS_AXISINFO_H
