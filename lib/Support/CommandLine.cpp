//===- CommandLine.cpp - What the tools' --help lists ---------------------===//

#include "kiln/Support/CommandLine.h"

#include "llvm/ADT/STLExtras.h"

using namespace llvm;

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
