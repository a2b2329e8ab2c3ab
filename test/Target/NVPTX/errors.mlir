// Errors of LLVM's back end and of ptxas come back as diagnostics and an
// exit status of 1, never as an abort.
// RUN: not kiln-translate %s 2>&1 | FileCheck %s --check-prefix=LLVM
// RUN: env KILN_PTXAS=%t.missing not kiln-translate %s --ptx-version=ptx73 --emit=cubin -o %t.cubin 2>&1 | FileCheck %s --check-prefix=NO-PTXAS
// RUN: env KILN_PTXAS=/bin/false not kiln-translate %s --ptx-version=ptx73 --emit=cubin -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS-FAILS
// RUN: echo 'llvm.func @f(' | not kiln-translate 2>&1 | FileCheck %s --check-prefix=MALFORMED

// Dynamic allocas need PTX 7.3; sm_80 defaults to PTX 7.0.
// LLVM: errors.mlir:0:0: error: cannot compile to PTX: {{.*}}Support for dynamic alloca introduced in PTX ISA version 7.3
// NO-PTXAS: errors.mlir:0:0: error: cannot assemble a cubin: ptxas was not found (searched {{.*}}.missing from $KILN_PTXAS)
// PTXAS-FAILS: errors.mlir:0:0: error: ptxas failed for sm_80 (exit code 1)
// MALFORMED: <stdin>:1:14: error: expected non-function type
llvm.func @use(!llvm.ptr)

llvm.func @dynamic_alloca(%n: i64) attributes {nvvm.kernel} {
  %p = llvm.alloca %n x i32 : (i64) -> !llvm.ptr
  llvm.call @use(%p) : (!llvm.ptr) -> ()
  llvm.return
}
