// RUN: kiln-translate %s | FileCheck %s
// RUN: %if ptxas %{ kiln-translate %s | %ptxas -arch=sm_80 %}

// Of a module holding a gpu.module, as upstream convert-gpu-to-nvvm leaves
// it, only the gpu.module is translated: host code stays behind.
// CHECK-NOT: host
// CHECK-LABEL: .visible .entry add_one(
// CHECK: add.s32
// CHECK-NOT: host
module attributes {gpu.container_module} {
  llvm.func @host() {
    llvm.return
  }

  gpu.module @kernels {
    llvm.func @add_one(%data: !llvm.ptr<1>) attributes {nvvm.kernel} {
      %tid = nvvm.read.ptx.sreg.tid.x : i32
      %ptr = llvm.getelementptr %data[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
      %x = llvm.load %ptr : !llvm.ptr<1> -> i32
      %one = llvm.mlir.constant(1 : i32) : i32
      %y = llvm.add %x, %one : i32
      llvm.store %y, %ptr : i32, !llvm.ptr<1>
      llvm.return
    }
  }
}
