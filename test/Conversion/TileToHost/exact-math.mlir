// RUN: kiln-opt %s --kiln-host-exact-math --split-input-file --verify-diagnostics | FileCheck %s

// expm1 and log1p become libm calls; exp, which LLVM lowers exactly, stays.
// CHECK-DAG: func.func private @expm1f(f32) -> f32
// CHECK-DAG: func.func private @log1p(f64) -> f64
// CHECK-LABEL: func.func @scalars
// CHECK: call @expm1f(%{{.*}}) : (f32) -> f32
// CHECK: call @log1p(%{{.*}}) : (f64) -> f64
// CHECK: math.exp %{{.*}} : f32
func.func @scalars(%x: f32, %y: f64) -> (f32, f64, f32) {
  %a = math.expm1 %x : f32
  %b = math.log1p %y : f64
  %c = math.exp %x : f32
  return %a, %b, %c : f32, f64, f32
}

// -----

// The GPU's approximations of Triton's float32 `/`, `exp` and `sqrt` (arcp,
// afn) round correctly on the host; other flags stay.
// CHECK-LABEL: func.func @approximations
// CHECK: arith.divf %{{.*}}, %{{.*}} : f32
// CHECK: arith.divf %{{.*}}, %{{.*}} : f32
// CHECK: arith.divf %{{.*}}, %{{.*}} fastmath<nnan> : f32
// CHECK: math.exp %{{.*}} : f32
// CHECK: math.sqrt %{{.*}} : f32
func.func @approximations(%x: f32, %y: f32) -> (f32, f32, f32, f32, f32) {
  %a = arith.divf %x, %y fastmath<arcp> : f32
  %b = arith.divf %x, %y fastmath<afn> : f32
  %c = arith.divf %x, %y fastmath<arcp,nnan> : f32
  %d = math.exp %x fastmath<afn> : f32
  %e = math.sqrt %x fastmath<afn> : f32
  return %a, %b, %c, %d, %e : f32, f32, f32, f32, f32
}

// -----

// A tensor has no libm function: the host runs this pass after the tiles
// became loops over scalars.
func.func @tensor(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{failed to legalize operation 'math.expm1'}}
  %a = math.expm1 %x : tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

// An integer becomes bf16 through f64 (exact for 32-bit integers) and one
// rounding by __truncdfbf2, as the GPU's cvt.rn.bf16.s32; LLVM's own
// conversion rounds through f32 first. Other conversions stay.
// CHECK-LABEL: func.func private @__truncdfbf2(f64) -> bf16
// CHECK-LABEL: func.func @to_bf16(
// CHECK: %[[S:.*]] = arith.sitofp %{{.*}} : i32 to f64
// CHECK: call @__truncdfbf2(%[[S]]) : (f64) -> bf16
// CHECK: %[[U:.*]] = arith.uitofp %{{.*}} : i64 to f64
// CHECK: call @__truncdfbf2(%[[U]]) : (f64) -> bf16
// CHECK: arith.sitofp %{{.*}} : i32 to f32
// CHECK-NOT: call
func.func @to_bf16(%x: i32, %y: i64) -> (bf16, bf16, f32) {
  %a = arith.sitofp %x : i32 to bf16
  %b = arith.uitofp %y : i64 to bf16
  %c = arith.sitofp %x : i32 to f32
  return %a, %b, %c : bf16, bf16, f32
}
