//===- CommandLine.cpp - What the tools' --help lists ---------------------===//

#include "kiln/Support/CommandLine.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Compiler.h"

using namespace llvm;

// Most options live in libLLVM, built without RTTI: UBSan's vptr check
// cannot tell their type, and reports every member call on them.
LLVM_NO_SANITIZE("vptr")
void kiln::moveOtherOptionsToHelpHidden(
    ArrayRef<const cl::OptionCategory *> shown) {
  const auto &options = cl::getRegisteredOptions();
  // The generic options' category is --help's own.
  const cl::OptionCategory *generic = options.lookup("help")->Categories[0];
  for (auto &[name, option] : options) {
    bool listed = llvm::any_of(option->Categories,
                               [&](const cl::OptionCategory *category) {
                                 return category == generic ||
                                        llvm::is_contained(shown, category);
                               });
    if (!listed && option->getOptionHiddenFlag() == cl::NotHidden)
      option->setHiddenFlag(cl::Hidden);
  }
}
