// RUN: kiln-translate %s --emit=llvm | FileCheck %s
// RUN: kiln-translate %s --emit=llvm --opt-level=0 | FileCheck %s --check-prefix=O0

// The IR is for the NVPTX target, with its data layout; nvvm.kernel and
// nvvm.maxntid become the PTX calling convention and a function attribute.
// CHECK: target datalayout = "e-
// CHECK: target triple = "nvptx64-nvidia-cuda"
// CHECK-LABEL: define ptx_kernel void @store_tid(
// CHECK-SAME: #[[ATTRS:[0-9]+]]
// CHECK: call {{.*}}i32 @llvm.nvvm.read.ptx.sreg.tid.x()
// CHECK: attributes #[[ATTRS]] = {{{.*}}"nvvm.maxntid"="64,1,1"

// Optimization (here inference of pointer attributes) follows --opt-level.
// O0-LABEL: define ptx_kernel void @store_tid(ptr addrspace(1) %0)
llvm.func @store_tid(%out: !llvm.ptr<1>) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 64, 1, 1>} {
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %dst = llvm.getelementptr %out[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
  llvm.store %tid, %dst : i32, !llvm.ptr<1>
  llvm.return
}
