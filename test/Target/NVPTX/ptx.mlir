// RUN: kiln-translate %s | FileCheck %s --check-prefixes=CHECK,SM80
// RUN: kiln-translate %s --chip=sm_90a | FileCheck %s --check-prefixes=CHECK,SM90A
// RUN: kiln-translate %s --chip=sm_90 | FileCheck %s --check-prefix=SM90
// RUN: kiln-translate %s --ptx-version=ptx80 | FileCheck %s --check-prefix=PTX80
// RUN: kiln-translate %s --fp-fusion=false --maxnreg=40 | FileCheck %s --check-prefix=STRICT
// RUN: %if ptxas %{ kiln-translate %s --fp-fusion=false --maxnreg=40 | %ptxas -arch=sm_80 %}
// RUN: %if ptxas %{ kiln-translate %s | %ptxas -arch=sm_80 %}
// RUN: %if ptxas %{ kiln-translate %s --chip=sm_90a | %ptxas -arch=sm_90a %}

// Without --ptx-version, a chip gets the lowest PTX version that supports
// it and the instructions Kiln emits for it (sm_90's TMA copies need 8.0).
// SM80: .version 7.0
// SM80-NEXT: .target sm_80
// SM90A: .version 8.0
// SM90A-NEXT: .target sm_90a
// SM90: .version 8.0
// SM90-NEXT: .target sm_90
// PTX80: .version 8.0
// PTX80-NEXT: .target sm_80

// Each thread doubles four consecutive floats with one 16-byte load and one
// 16-byte store.
// CHECK-LABEL: .visible .entry double_vec4(
// CHECK: .maxntid 128, 1, 1
// CHECK: mov.u32 %r{{[0-9]+}}, %tid.x;
// CHECK: ld.global.v4.b32 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}
// CHECK: add.f32
// CHECK: st.global.v4.b32
llvm.func @double_vec4(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>} {
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %four = llvm.mlir.constant(4 : i32) : i32
  %offset = llvm.mul %tid, %four : i32
  %src = llvm.getelementptr %in[%offset] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  %x = llvm.load %src {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
  %y = llvm.fadd %x, %x : vector<4xf32>
  %dst = llvm.getelementptr %out[%offset] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %y, %dst {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
  llvm.return
}

// A multiply feeding an add is one fma, as Triton compiles by default
// (enable_fp_fusion), and no add or multiply carries .rn, which would keep
// ptxas from contracting them.
// CHECK-LABEL: .visible .entry axpy(
// CHECK: fma.rn.f32
// CHECK-NOT: add.rn.f32
// CHECK-NOT: mul.rn.f32
// CHECK: ret;
// Without fusion (Triton's enable_fp_fusion=False), each is rounded on its
// own and marked .rn so that ptxas does not contract them either; --maxnreg
// limits every kernel's registers.
// STRICT-LABEL: .visible .entry axpy(
// STRICT: .maxnreg 40
// STRICT-NOT: fma
// STRICT: mul.rn.f32
// STRICT: add.rn.f32
// STRICT-NOT: fma
// STRICT: ret;
llvm.func @axpy(%x: f32, %y: f32, %a: f32, %out: !llvm.ptr<1>) attributes {nvvm.kernel} {
  %ax = llvm.fmul %a, %x : f32
  %r = llvm.fadd %ax, %y : f32
  llvm.store %r, %out : f32, !llvm.ptr<1>
  llvm.return
}
