//===- InputLimits.h - What Kiln's tools and library read --------*- C++ -*-===//
//
// MLIR's parser and many passes recurse once per level of nesting, so input
// nested thousands deep overflows the stack (upstream's tools crash too),
// and reading a device such as /dev/zero never ends. Kiln's tools and C API
// refuse such input with a diagnostic before parsing it, and do their work
// on a thread whose stack has room for the deepest input they accept.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_SUPPORT_INPUTLIMITS_H
#define KILN_SUPPORT_INPUTLIMITS_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <memory>
#include <optional>
#include <string>

namespace llvm {
class MemoryBuffer;
class SourceMgr;
} // namespace llvm

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace kiln {

/// The deepest nesting of brackets ((, [, { and <) Kiln reads.
inline constexpr unsigned kMaxNestingDepth = 1000;

/// The offset in `text` of the first bracket that opens a level past
/// kMaxNestingDepth, or none. String literals and `//` comments are
/// skipped, `<=` opens nothing and the `>` of `->` and `>=` closes
/// nothing.
std::optional<size_t> findExcessiveNesting(llvm::StringRef text);

/// Fails, with an error at the bracket through `context`'s diagnostics,
/// where the main buffer of `sourceMgr` nests deeper than kMaxNestingDepth.
mlir::LogicalResult checkNestingDepth(const llvm::SourceMgr &sourceMgr,
                                      mlir::MLIRContext *context);

/// The contents of the file at `path` ("-": standard input), or null with
/// `error` set where there is none or it is not a regular file (a device,
/// a FIFO, a folder: reading one may never end).
std::unique_ptr<llvm::MemoryBuffer>
openRegularInputFile(llvm::StringRef path, std::string &error);

/// Runs `work` on a thread with a stack large enough for the parser and
/// the passes on input nested kMaxNestingDepth deep, sanitizers included,
/// and waits for it.
void runOnLargeStack(llvm::function_ref<void()> work);

} // namespace kiln

#endif // KILN_SUPPORT_INPUTLIMITS_H
