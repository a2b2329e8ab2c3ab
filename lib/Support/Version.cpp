//===- Version.cpp - What the tools' --version prints ---------------------===//

#include "kiln/Support/Version.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

llvm::StringRef kiln::getVersion() { return KILN_VERSION; }

void kiln::registerVersionPrinter() {
  llvm::cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "Kiln " << getVersion() << "\n  built with LLVM and MLIR "
       << LLVM_VERSION_STRING << "\n";
  });
}
