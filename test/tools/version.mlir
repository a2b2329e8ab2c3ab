// Each tool's --version names Kiln's version (pyproject.toml's), then the
// LLVM and MLIR it was built with.
// RUN: kiln-opt --version | FileCheck %s
// RUN: kiln-translate --version | FileCheck %s
// RUN: kiln-run --version | FileCheck %s
// CHECK: Kiln {{[0-9]+\.[0-9]+\.[0-9]+}}
// CHECK-NEXT: built with LLVM and MLIR 22.{{[0-9]+}}.{{[0-9]+}}
