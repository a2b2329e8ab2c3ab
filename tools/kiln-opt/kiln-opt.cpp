//===- kiln-opt.cpp - Kiln's opt-style driver -----------------------------===//
//
// Runs Kiln and upstream passes over .mlir files. It registers only what
// Kiln's pipeline uses (kiln/InitAll.h), which keeps the tool small and its
// dependencies visible. An input file must be a regular file nested no
// deeper than Kiln reads (kiln/Support/InputLimits.h), and the work runs on
// a large stack.
//
//===----------------------------------------------------------------------===//

#include "kiln/InitAll.h"
#include "kiln/Support/CommandLine.h"
#include "kiln/Support/InputLimits.h"
#include "kiln/Support/Version.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"

/// Whether the input file is one Kiln reads; standard input is checked as
/// it is parsed, which the depth check cannot precede.
static bool isReadable(llvm::StringRef inputFilename) {
  if (inputFilename == "-")
    return true;
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      kiln::openRegularInputFile(inputFilename, error);
  if (!input) {
    llvm::WithColor::error(llvm::errs(), "kiln-opt") << error << "\n";
    return false;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  mlir::MLIRContext context;
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  return mlir::succeeded(kiln::checkNestingDepth(sourceMgr, &context));
}

int main(int argc, char **argv) {
  // LLVM's crash handlers, and their alternate signal stack, belong to the
  // main thread: registered first on the large-stack thread, the stack was
  // freed with it (AddressSanitizer aborts on that).
  llvm::InitLLVM initLLVM(argc, argv);
  kiln::registerVersionPrinter();
  // --help lists MLIR's options and Kiln's passes, registered below.
  kiln::moveOtherOptionsToHelpHidden();
  mlir::DialectRegistry registry;
  kiln::registerAllDialects(registry);
  kiln::registerAllPasses();
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "Kiln optimizer driver\n", registry);
  mlir::LogicalResult result = mlir::failure();
  kiln::runOnLargeStack([&] {
    if (isReadable(inputFilename))
      result = mlir::MlirOptMain(argc, argv, inputFilename, outputFilename,
                                 registry);
  });
  return mlir::asMainReturnCode(result);
}
