//===- kiln-opt.cpp - Kiln's opt-style driver -----------------------------===//
//
// Runs Kiln and upstream passes over .mlir files. It registers only what
// Kiln's pipeline uses (kiln/InitAll.h), which keeps the tool small and its
// dependencies visible.
//
//===----------------------------------------------------------------------===//

#include "kiln/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  kiln::registerAllDialects(registry);
  kiln::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Kiln optimizer driver\n", registry));
}
