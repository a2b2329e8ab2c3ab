// REQUIRES: ptxas, cuobjdump, ptx-compiler-library
// Where Kiln has the PTX compiler library, a cubin is assembled in process
// unless $KILN_PTXAS names a program. The library is ptxas: the same
// machine code and the same report as the program of the same release.
// RUN: env -u KILN_PTXAS kiln-translate %kiln_examples/matmul.mlir --chip=sm_90a --emit=cubin -o %t.library.cubin --ptxas-verbose 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: env KILN_PTXAS=%ptxas_program kiln-translate %kiln_examples/matmul.mlir --chip=sm_90a --emit=cubin -o %t.program.cubin --ptxas-verbose 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: %cuobjdump -sass %t.library.cubin > %t.library.sass
// RUN: %cuobjdump -sass %t.program.cubin > %t.program.sass
// RUN: diff %t.library.sass %t.program.sass
// RUN: FileCheck %s --check-prefix=SASS < %t.library.sass

// Its errors come back as diagnostics with ptxas's words, as the program's.
// RUN: env -u KILN_PTXAS not kiln-translate %s --emit=cubin -o %t.bad.cubin 2>&1 | FileCheck %s --check-prefix=LIBRARY-FAILS
// RUN: env KILN_PTXAS=%ptxas_program not kiln-translate %s --emit=cubin -o %t.bad.cubin 2>&1 | FileCheck %s --check-prefix=PROGRAM-FAILS

// REPORT: Compiling entry function 'matmul' for 'sm_90a'
// REPORT: 0 bytes spill stores, 0 bytes spill loads
// REPORT: Used {{[0-9]+}} registers
// SASS: Function : matmul
// SASS: HMMA.16816.F32

// LIBRARY-FAILS: error: ptxas failed for sm_80 (in process: compilation failure):
// LIBRARY-FAILS: error : Unknown modifier '.instruction'
// PROGRAM-FAILS: error: ptxas failed for sm_80 (exit code {{[0-9]+}}):
// PROGRAM-FAILS: error : Unknown modifier '.instruction'
llvm.func @bad() attributes {nvvm.kernel} {
  llvm.inline_asm has_side_effects "not.an.instruction;", "" : () -> ()
  llvm.return
}
