// RUN: kiln-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(kiln-approximate-math-to-nvvm))' | FileCheck %s

// Triton's float32 `/` (arcp): div.full; fdiv(approx=True) (afn):
// div.approx; div_rn (no flag) and f64 stay arith.divf (div.rn).
// CHECK-LABEL: func @divisions
// CHECK: llvm.call_intrinsic "llvm.nvvm.div.full"(%{{.*}}, %{{.*}}) : (f32, f32) -> f32
// CHECK: llvm.call_intrinsic "llvm.nvvm.div.approx.f"(%{{.*}}, %{{.*}}) : (f32, f32) -> f32
// CHECK: arith.divf %{{.*}}, %{{.*}} : f32
// CHECK: arith.divf %{{.*}}, %{{.*}} fastmath<arcp> : f64
gpu.module @kernels {
  gpu.func @divisions(%p: !llvm.ptr<1>, %x: f32, %y: f32, %u: f64, %v: f64) kernel {
    %full = arith.divf %x, %y fastmath<arcp> : f32
    %approx = arith.divf %x, %y fastmath<afn> : f32
    %ieee = arith.divf %x, %y : f32
    %wide = arith.divf %u, %v fastmath<arcp> : f64
    %s0 = arith.addf %full, %approx : f32
    %s1 = arith.addf %s0, %ieee : f32
    llvm.store %s1, %p : f32, !llvm.ptr<1>
    %q = llvm.getelementptr %p[1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f64
    llvm.store %wide, %q : f64, !llvm.ptr<1>
    gpu.return
  }
}

// -----

// Triton's float32 exp (afn): ex2.approx of x * log2(e), element by
// element; exp without the flag stays for libdevice. sqrt without afn
// (sqrt_rn) rounds correctly; with it (tl.sqrt), libdevice approximates.
// CHECK-LABEL: func @math
// CHECK: %[[LOG2E:.*]] = arith.constant 1.44269502 : f32
// CHECK: %[[X0:.*]] = vector.extract %{{.*}}[0] : f32 from vector<2xf32>
// CHECK: %[[S0:.*]] = arith.mulf %[[X0]], %[[LOG2E]] : f32
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.f32"(%[[S0]]) : (f32) -> f32
// CHECK: vector.extract %{{.*}}[1] : f32 from vector<2xf32>
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.f32"
// CHECK: math.exp %{{.*}} : f32
// CHECK: llvm.call_intrinsic "llvm.nvvm.sqrt.rn.f"(%{{.*}}) : (f32) -> f32
// CHECK: math.sqrt %{{.*}} fastmath<afn> : f32
gpu.module @kernels {
  gpu.func @math(%p: !llvm.ptr<1>, %v: vector<2xf32>, %x: f32) kernel {
    %e = math.exp %v fastmath<afn> : vector<2xf32>
    %exact = math.exp %x : f32
    %rn = math.sqrt %x : f32
    %approx = math.sqrt %x fastmath<afn> : f32
    llvm.store %e, %p : vector<2xf32>, !llvm.ptr<1>
    %s0 = arith.addf %exact, %rn : f32
    %s1 = arith.addf %s0, %approx : f32
    %q = llvm.getelementptr %p[2] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
    llvm.store %s1, %q : f32, !llvm.ptr<1>
    gpu.return
  }
}
