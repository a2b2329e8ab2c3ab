// What LLVM's NVPTX back end or ptxas makes of bad inline assembly comes
// back as an error, never as an abort.
// RUN: not kiln-translate %s -split-input-file --chip=sm_90a 2>&1 | FileCheck %s --check-prefix=LLVM
// RUN: %if ptxas %{ not kiln-translate %s -split-input-file --chip=sm_90a --emit=cubin -o /dev/null 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// NVPTX has no register class 'x'.
// LLVM: error: cannot compile to PTX: couldn't allocate output register for constraint 'x'
func.func @unknown_register_class(%p: !tile.ptr<i32>, %x: i32) {
  %y = tile.inline_asm_elementwise "mov.b32 $0, $1;", "=x,x" pure %x : (i32) -> i32
  tile.store %p, %y : !tile.ptr<i32>, i32
  return
}

// -----

// The text is copied into the PTX as it is; ptxas reads it.
// PTXAS: error: ptxas failed for sm_90a
// PTXAS: Not a name of any known instruction: 'frobnicate'
func.func @unknown_instruction(%p: !tile.ptr<i32>, %x: i32) {
  %y = tile.inline_asm_elementwise "frobnicate.b32 $0, $1;", "=r,r" pure %x : (i32) -> i32
  tile.store %p, %y : !tile.ptr<i32>, i32
  return
}
