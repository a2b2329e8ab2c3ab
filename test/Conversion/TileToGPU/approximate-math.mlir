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

// -----

// Triton's float32 % (afn): x - trunc(x / y) * y with a correctly rounded
// quotient, and x where y is infinite; % without the flag (the array
// level's) stays for libdevice's exact fmodf.
// CHECK-LABEL: func @remainders
// CHECK-DAG: %[[INF:.*]] = arith.constant dense<0x7F800000> : vector<2xf32>
// CHECK-DAG: %[[SIGN:.*]] = arith.constant dense<2147483647> : vector<2xi32>
// CHECK: %[[Q:.*]] = arith.divf %[[X:[^,]*]], %[[Y:[^ ]*]] : vector<2xf32>
// CHECK: %[[T:.*]] = math.trunc %[[Q]] : vector<2xf32>
// CHECK: %[[P:.*]] = arith.mulf %[[T]], %[[Y]] : vector<2xf32>
// CHECK: %[[D:.*]] = arith.subf %[[X]], %[[P]] : vector<2xf32>
// CHECK: %[[BITS:.*]] = arith.bitcast %[[Y]] : vector<2xf32> to vector<2xi32>
// CHECK: %[[MAG:.*]] = arith.andi %[[BITS]], %[[SIGN]] : vector<2xi32>
// CHECK: %[[ABS:.*]] = arith.bitcast %[[MAG]] : vector<2xi32> to vector<2xf32>
// CHECK: %[[IS:.*]] = arith.cmpf oeq, %[[ABS]], %[[INF]] : vector<2xf32>
// CHECK: arith.select %[[IS]], %[[X]], %[[D]] : vector<2xi1>, vector<2xf32>
// CHECK: arith.remf %{{.*}}, %{{.*}} : f32
// Float64's likewise (Triton's frem: div.rn.f64, cvt.rzi, fma).
// CHECK: %[[QD:.*]] = arith.divf %[[XD:[^,]*]], %[[YD:[^ ]*]] : f64
// CHECK: math.trunc %[[QD]] : f64
// CHECK: arith.cmpf oeq, %{{.*}}, %{{.*}} : f64
// CHECK-NOT: arith.remf
gpu.module @kernels {
  gpu.func @remainders(%p: !llvm.ptr<1>, %x: vector<2xf32>, %y: vector<2xf32>, %u: f32, %v: f32, %a: f64, %b: f64) kernel {
    %triton = arith.remf %x, %y fastmath<afn> : vector<2xf32>
    %exact = arith.remf %u, %v : f32
    %wide = arith.remf %a, %b fastmath<afn> : f64
    llvm.store %triton, %p : vector<2xf32>, !llvm.ptr<1>
    %q = llvm.getelementptr %p[2] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
    llvm.store %exact, %q : f32, !llvm.ptr<1>
    llvm.store %wide, %p : f64, !llvm.ptr<1>
    gpu.return
  }
}

// -----

// Triton's minimum, maximum and fma are LLVM's intrinsics and its abs
// clears the sign bit, for every float type: libdevice's functions, linked
// flushing subnormals, would flush them.
// CHECK-LABEL: func @intrinsics
// CHECK: %[[MASK:.*]] = arith.constant 32767 : i16
// CHECK: llvm.intr.maxnum(%{{.*}}, %{{.*}}) : (vector<2xf32>, vector<2xf32>) -> vector<2xf32>
// CHECK: llvm.intr.minnum(%{{.*}}, %{{.*}}) : (f16, f16) -> f16
// CHECK: llvm.intr.fma(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<2xf32>, vector<2xf32>, vector<2xf32>) -> vector<2xf32>
// CHECK: %[[B:.*]] = arith.bitcast %{{.*}} : f16 to i16
// CHECK: %[[A:.*]] = arith.andi %[[B]], %[[MASK]] : i16
// CHECK: arith.bitcast %[[A]] : i16 to f16
// CHECK-NOT: arith.maxnumf
// CHECK-NOT: math.absf
gpu.module @kernels {
  gpu.func @intrinsics(%p: !llvm.ptr<1>, %x: vector<2xf32>, %y: vector<2xf32>, %h: f16, %g: f16) kernel {
    %max = arith.maxnumf %x, %y : vector<2xf32>
    %min = arith.minnumf %h, %g : f16
    %fma = math.fma %max, %x, %y : vector<2xf32>
    %abs = math.absf %min : f16
    llvm.store %fma, %p : vector<2xf32>, !llvm.ptr<1>
    %q = llvm.getelementptr %p[2] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
    llvm.store %abs, %q : f16, !llvm.ptr<1>
    gpu.return
  }
}
