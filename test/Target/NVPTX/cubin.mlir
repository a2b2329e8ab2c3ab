// REQUIRES: ptxas
// RUN: kiln-translate %s --emit=cubin -o %t.sm80.cubin
// RUN: llvm-readelf -h -s %t.sm80.cubin | FileCheck %s --check-prefix=ELF
// RUN: kiln-translate %s --emit=cubin --chip=sm_90a -o %t.sm90a.cubin --ptxas-verbose 2>&1 | FileCheck %s --check-prefix=VERBOSE
// RUN: llvm-readelf -h -s %t.sm90a.cubin | FileCheck %s --check-prefix=ELF

// ptxas turns the PTX into an ELF file for the GPU holding the kernel.
// ELF: Machine: NVIDIA CUDA architecture
// ELF: FUNC {{.*}} scale

// --ptxas-verbose passes on what ptxas says of each kernel.
// VERBOSE: Compiling entry function 'scale' for 'sm_90a'
// VERBOSE: Used {{[0-9]+}} registers
llvm.func @scale(%data: !llvm.ptr<1>, %factor: f32) attributes {nvvm.kernel} {
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %ptr = llvm.getelementptr %data[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  %x = llvm.load %ptr : !llvm.ptr<1> -> f32
  %y = llvm.fmul %x, %factor : f32
  llvm.store %y, %ptr : f32, !llvm.ptr<1>
  llvm.return
}
