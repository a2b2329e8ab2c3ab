//===- Version.h - What the tools' --version prints -------------*- C++ -*-===//
//
// Kiln's version (pyproject.toml's, which the build reads) and the LLVM
// and MLIR it was built with.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_SUPPORT_VERSION_H
#define KILN_SUPPORT_VERSION_H

#include "llvm/ADT/StringRef.h"

namespace kiln {

/// Kiln's version, such as "0.1.0".
llvm::StringRef getVersion();

/// Makes `--version` print Kiln's version, then its LLVM's and MLIR's.
/// Call before parsing the command line.
void registerVersionPrinter();

} // namespace kiln

#endif // KILN_SUPPORT_VERSION_H
