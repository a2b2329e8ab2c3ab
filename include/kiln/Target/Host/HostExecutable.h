//===- HostExecutable.h - Tile kernels compiled for the CPU -----*- C++ -*-===//

#ifndef KILN_TARGET_HOST_HOSTEXECUTABLE_H
#define KILN_TARGET_HOST_HOSTEXECUTABLE_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace llvm::orc {
class LLJIT;
} // namespace llvm::orc

namespace mlir {
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

/// The kernels of a tile module, lowered and compiled for the CPU into an
/// object file, which is linked into the process (LLVM's ORC JIT). A launch
/// runs every program instance of the grid, one after another. The object
/// and a description of its kernels (artifacts()) make the executable again
/// in another process without compiling (load()).
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

  /// The executable whose artifacts() are `object` and `description`,
  /// linked without compiling; on failure `error` says why.
  static std::unique_ptr<HostExecutable> load(llvm::StringRef object,
                                              llvm::StringRef description,
                                              std::string &error);

  ~HostExecutable();

  /// The compiled object file, and its kernels' description (JSON: their
  /// arguments, the plans, the checked and debug sites), for load().
  llvm::StringRef getObject() const { return object; }
  std::string describe() const;

  /// What an object compiled here is specific to: the target triple, the
  /// CPU and its features.
  static std::string getHostTarget();

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

  /// Links `object` into a new JIT with the runtime's symbols.
  mlir::LogicalResult link(std::string &error);
  /// The packed entry point of `function` (see addPackedEntryPoints).
  llvm::Expected<void (*)(void **)> lookupPacked(llvm::StringRef function);

  std::string object;
  std::unique_ptr<llvm::orc::LLJIT> jit;
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
