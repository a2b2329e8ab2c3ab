//===- InputLimits.cpp - What Kiln's tools and library read ---------------===//

#include "kiln/Support/InputLimits.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/thread.h"

using namespace mlir;

/// 256 MiB: the parser and passes take a few KiB per level of nesting, a
/// few times more under AddressSanitizer. Only the pages touched are used.
static constexpr unsigned kLargeStackBytes = 256u << 20;

std::optional<size_t> kiln::findExcessiveNesting(StringRef text) {
  unsigned depth = 0;
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    if (c == '"') {
      // A string literal, with backslash escapes.
      for (++i; i < e && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
    } else if (c == '/' && i + 1 < e && text[i + 1] == '/') {
      i = std::min(text.find('\n', i), e);
    } else if (c == '(' || c == '[' || c == '{' ||
               (c == '<' && (i + 1 == e || text[i + 1] != '='))) {
      if (++depth > kMaxNestingDepth)
        return i;
    } else if (c == ')' || c == ']' || c == '}' ||
               (c == '>' && (i == 0 || text[i - 1] != '-') &&
                (i + 1 == e || text[i + 1] != '='))) {
      depth = depth ? depth - 1 : 0;
    }
  }
  return std::nullopt;
}

LogicalResult kiln::checkNestingDepth(const llvm::SourceMgr &sourceMgr,
                                      MLIRContext *context) {
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  std::optional<size_t> offset = findExcessiveNesting(buffer->getBuffer());
  if (!offset)
    return success();
  auto [line, column] = sourceMgr.getLineAndColumn(
      llvm::SMLoc::getFromPointer(buffer->getBufferStart() + *offset));
  return emitError(FileLineColLoc::get(context,
                                       buffer->getBufferIdentifier(), line,
                                       column))
         << "input nested more than " << kMaxNestingDepth
         << " levels deep; Kiln reads no deeper (the parser and passes "
            "recurse once per level)";
}

std::unique_ptr<llvm::MemoryBuffer>
kiln::openRegularInputFile(StringRef path, std::string &error) {
  if (path != "-") {
    llvm::sys::fs::file_status status;
    if (std::error_code code = llvm::sys::fs::status(path, status)) {
      error = "cannot open input file '" + path.str() + "': " +
              code.message();
      return nullptr;
    }
    if (!llvm::sys::fs::is_regular_file(status)) {
      error = "input '" + path.str() +
              "' is not a regular file (a device, FIFO or folder)";
      return nullptr;
    }
  }
  auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(path, /*IsText=*/true);
  if (!buffer) {
    error = "cannot open input file '" + path.str() + "': " +
            buffer.getError().message();
    return nullptr;
  }
  return std::move(*buffer);
}

void kiln::runOnLargeStack(llvm::function_ref<void()> work) {
  llvm::thread worker(std::optional<unsigned>(kLargeStackBytes),
                      [&] { work(); });
  worker.join();
}
