//===- HostExecutable.h - Tile kernels compiled for the CPU -----*- C++ -*-===//

#ifndef KILN_TARGET_HOST_HOSTEXECUTABLE_H
#define KILN_TARGET_HOST_HOSTEXECUTABLE_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mlir {
class ExecutionEngine;
class ModuleOp;
} // namespace mlir

namespace kiln::host {

/// Bytes [begin, end) of memory that a launch may access: the array passed
/// as argument `argument` of the kernel (-1: not one argument), called
/// `name` in errors (null: "argument N"), which the kernel may write unless
/// `readOnly`.
struct MemoryRange {
  uint64_t begin;
  uint64_t end;
  const char *name;
  int32_t argument;
  int32_t readOnly;
};

/// A checked memory op as the run time knows it (see
/// kiln-convert-tile-to-host): "file:line:col: op", the argument its pointer
/// comes from (-1: any), and whether it writes.
struct AccessSite {
  std::string text;
  int32_t origin;
  bool writes;
};

/// A tile.print or tile.assert as the run time knows it (see
/// kiln-convert-tile-to-host): a print's prefix or an assert's location and
/// message, the shape of its operands and their number.
struct DebugSite {
  std::string text;
  std::vector<int64_t> shape;
  int32_t numOperands;
};

/// The kernels of a tile module, lowered and JIT-compiled for the CPU. A
/// launch runs every program instance of the grid, one after another.
class HostExecutable {
public:
  /// Lowers a copy of `module` (which is left as it is) and compiles it.
  /// With `boundsCheck`, every memory access is checked at run time against
  /// the ranges given to `launch`: an access through a pointer derived from
  /// an array argument against that array, others against every array, and
  /// a write against the arrays that are not read-only. `tile.print` writes to standard output;
  /// a `tile.assert` that fails makes its launch fail. Failures are reported
  /// as diagnostics on
  /// the module's context.
  static mlir::FailureOr<std::unique_ptr<HostExecutable>>
  create(mlir::ModuleOp module, bool boundsCheck = false);

  ~HostExecutable();

  /// Runs `kernel` on a `grid` of program instances. `args` point to the
  /// kernel's arguments in order: an `int64_t` address for each pointer, the
  /// value itself for each scalar. When accesses are checked, one that
  /// `ranges` do not allow is skipped and the launch fails, naming the first
  /// such access. On failure `error` says why.
  mlir::LogicalResult launch(mlir::StringRef kernel,
                             std::array<uint32_t, 3> grid,
                             mlir::ArrayRef<void *> args,
                             mlir::ArrayRef<MemoryRange> ranges,
                             std::string &error);

  /// Runs the launch plan `plan` (kiln-tile): `arguments` are the
  /// addresses of its input tensors, then of its result tensors, which it
  /// fills, then its sizes (see kiln::bindLaunchPlan). A plan runs on the
  /// calling thread, and its accesses are not bounds-checked.
  mlir::LogicalResult runPlan(mlir::StringRef plan,
                              mlir::ArrayRef<int64_t> arguments,
                              std::string &error);

  /// Runs later launches on up to `threads` threads, each taking a
  /// contiguous range of program instances (1, the default, runs them on
  /// the calling thread).
  void setThreads(unsigned threads) { this->threads = threads ? threads : 1; }

private:
  HostExecutable() = default;

  std::unique_ptr<mlir::ExecutionEngine> engine;
  /// Number of arguments of each kernel and plan.
  llvm::StringMap<size_t> numArguments;
  /// Names of the launch plans.
  llvm::StringSet<> plans;
  /// The checked memory ops, by site id.
  std::vector<AccessSite> accessSites;
  /// The print and assert ops, by site id.
  std::vector<DebugSite> debugSites;
  unsigned threads = 1;
};

} // namespace kiln::host

#endif // KILN_TARGET_HOST_HOSTEXECUTABLE_H
