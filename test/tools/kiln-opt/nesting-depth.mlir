// Input nested past Kiln's limit (1000 levels) is refused with an error at
// the bracket that goes past it, by every tool and before parsing: the
// parser and passes recurse once per level, and crashed (SIGSEGV) at a few
// thousand. Input at the limit lowers, on the tools' large stack.

// RUN: mkdir -p %t
// RUN: python3 -c "print('func.func @f() attributes {a = ' + '[' * 1001 + '1' + ']' * 1001 + '} {\n  return\n}')" > %t/array.mlir
// RUN: not kiln-opt %t/array.mlir 2>&1 | FileCheck %s --check-prefix=ARRAY
// RUN: not kiln-translate %t/array.mlir 2>&1 | FileCheck %s --check-prefix=ARRAY
// RUN: not kiln-run %t/array.mlir --kernel=f --target=host 2>&1 | FileCheck %s --check-prefix=ARRAY
// ARRAY: array.mlir:1:1031: error: input nested more than 1000 levels deep; Kiln reads no deeper (the parser and passes recurse once per level)

// 990 nested run-time ifs, each on its own condition: both lowerings take
// them.
// RUN: python3 %S/Inputs/nested_ifs.py 990 > %t/ifs.mlir
// RUN: kiln-opt %t/ifs.mlir -kiln-host-lowering | FileCheck %s --check-prefix=LOWERED
// RUN: kiln-opt %t/ifs.mlir -kiln-gpu-lowering | FileCheck %s --check-prefix=LOWERED
// LOWERED: llvm.store

// Past the limit, the same kernel is refused where it goes past it.
// RUN: python3 %S/Inputs/nested_ifs.py 1001 > %t/deep-ifs.mlir
// RUN: not kiln-opt %t/deep-ifs.mlir -kiln-host-lowering 2>&1 | FileCheck %s --check-prefix=IFS
// IFS: deep-ifs.mlir:{{[0-9]+}}:{{[0-9]+}}: error: input nested more than 1000 levels deep

// Brackets in strings, comments, `->` and `>=` count for nothing.
// RUN: python3 -c "print('// ' + '[' * 2000 + '\nfunc.func @f() -> () attributes {s = \"' + '{' * 2000 + '\"} {\n  return\n}')" > %t/quoted.mlir
// RUN: kiln-opt %t/quoted.mlir | FileCheck %s --check-prefix=QUOTED
// QUOTED: func.func @f()

// A device or a FIFO is not read (reading /dev/zero never ended).
// RUN: not kiln-opt /dev/zero 2>&1 | FileCheck %s --check-prefix=DEVICE
// RUN: not kiln-translate /dev/zero 2>&1 | FileCheck %s --check-prefix=DEVICE
// RUN: not kiln-run /dev/zero --kernel=f 2>&1 | FileCheck %s --check-prefix=DEVICE
// DEVICE: input '/dev/zero' is not a regular file (a device, FIFO or folder)
// RUN: rm -f %t/fifo && mkfifo %t/fifo
// RUN: not kiln-opt %t/fifo 2>&1 | FileCheck %s --check-prefix=FIFO
// FIFO: fifo' is not a regular file
