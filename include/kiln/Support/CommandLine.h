//===- CommandLine.h - What the tools' --help lists -------------*- C++ -*-===//
//
// The tools link LLVM, whose libraries register hundreds of options of
// their own (every code generator's, Polly's) before main: --help lists
// the tool's, and those move to --help-hidden, where they still work.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_SUPPORT_COMMANDLINE_H
#define KILN_SUPPORT_COMMANDLINE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/CommandLine.h"

namespace kiln {

/// Hides from --help (not from --help-hidden) every option registered so
/// far outside `shown` and the generic ones (--help, --version). Options
/// registered after the call stay listed.
void moveOtherOptionsToHelpHidden(
    llvm::ArrayRef<const llvm::cl::OptionCategory *> shown = {});

} // namespace kiln

#endif // KILN_SUPPORT_COMMANDLINE_H
