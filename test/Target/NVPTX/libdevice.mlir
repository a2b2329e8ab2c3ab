// REQUIRES: libdevice
// RUN: kiln-translate %s | FileCheck %s
// RUN: kiln-translate %s --emit=llvm | FileCheck %s --check-prefix=LLVM
// RUN: %if ptxas %{ kiln-translate %s | %ptxas -arch=sm_80 %}
// RUN: %if ptxas %{ kiln-translate %s --chip=sm_90a | %ptxas -arch=sm_90a %}

// __nv_expf comes from libdevice, inlined, with its __nvvm_reflect calls
// folded: nothing is left for ptxas to resolve.
// CHECK-NOT: __nv
// CHECK-LABEL: .visible .entry exp_vec4(
// CHECK: ld.global.v4.b32
// CHECK: ex2.approx
// CHECK: st.global.v4.b32
// CHECK-NOT: __nv

// LLVM-NOT: __nv
// LLVM: define ptx_kernel void @exp_vec4(
// LLVM-NOT: __nv
llvm.func @__nv_expf(f32) -> f32

llvm.func @exp_vec4(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>} {
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %four = llvm.mlir.constant(4 : i32) : i32
  %offset = llvm.mul %tid, %four : i32
  %src = llvm.getelementptr %in[%offset] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  %x = llvm.load %src {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
  %zero = llvm.mlir.constant(0 : i32) : i32
  %x0 = llvm.extractelement %x[%zero : i32] : vector<4xf32>
  %e = llvm.call @__nv_expf(%x0) : (f32) -> f32
  %y = llvm.insertelement %e, %x[%zero : i32] : vector<4xf32>
  %dst = llvm.getelementptr %out[%offset] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %y, %dst {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
  llvm.return
}
