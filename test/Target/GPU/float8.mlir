// RUN: kiln-opt %s -tile-specialize-arguments="divisible=0,1,2" | kiln-translate --chip=sm_80 | FileCheck %s
// RUN: kiln-opt %s -tile-specialize-arguments="divisible=0,1,2" | kiln-translate --chip=sm_90a | FileCheck %s --check-prefix=SM90
// RUN: kiln-opt %s -tile-specialize-arguments="divisible=0,1,2" | kiln-translate --chip=sm_90a | FileCheck %s --check-prefix=STORES
// RUN: kiln-opt %s -kiln-host-lowering | FileCheck %s --check-prefix=HOST
// RUN: %if ptxas %{ kiln-opt %s -tile-specialize-arguments="divisible=0,1,2" | kiln-translate --chip=sm_80 | %ptxas -arch=sm_80 %}
// RUN: %if ptxas %{ kiln-opt %s -tile-specialize-arguments="divisible=0,1,2" | kiln-translate --chip=sm_90a | %ptxas -arch=sm_90a %}

// An fp8 tile is loaded as bytes (16 per thread in one 16-byte load when
// aligned), widened and stored as f32; then twice it is narrowed back to
// fp8 (clamped to 448, rounded to nearest even) and stored as bytes, 16
// per thread in one store. Before sm_89 the conversions are integer
// operations: widening places the bits in f16's (byte permutations put
// the codes in high bytes, a product by 256 on pairs rebiases the
// exponent), narrowing rounds the f32 mantissa.
// CHECK-LABEL: .entry widen_and_narrow(
// CHECK: ld.global.v4.b32
// CHECK-DAG: prmt.b32
// CHECK-DAG: mul.f16x2
// CHECK-DAG: cvt.f32.f16
// CHECK-DAG: min.f32
// CHECK-DAG: cvt.rni.f32.f32
// CHECK-NOT: e4m3x2
// From sm_89 on, each is one cvt per pair, as Triton emits them: a
// thread's 16 values widened by 8, and narrowed by 8.
// SM90-LABEL: .entry widen_and_narrow(
// SM90: ld.global.v4.b32
// SM90-COUNT-8: cvt.rn.f16x2.e4m3x2
// SM90-COUNT-8: cvt.rn.satfinite.e4m3x2.f32
// SM90-NOT: cvt.rni.f32.f32
// SM90-NOT: mul.f16x2
// STORES-COUNT-5: st.global.v4.b32
// STORES-NOT: st.global
// HOST-LABEL: llvm.func @widen_and_narrow(
// HOST-NOT: f8E4M3FN
// HOST: llvm.load %{{.*}} : !llvm.ptr -> i8
// HOST: llvm.store %{{.*}}, %{{.*}} : i8, !llvm.ptr
func.func @widen_and_narrow(%in: !tile.ptr<f8E4M3FN>, %out: !tile.ptr<f32>,
                            %back: !tile.ptr<f8E4M3FN>) {
  %r = tile.range 0 to 512 : tensor<512xi32>
  %ip = tile.splat %in : !tile.ptr<f8E4M3FN> -> tensor<512x!tile.ptr<f8E4M3FN>>
  %ia = tile.addptr %ip, %r : tensor<512x!tile.ptr<f8E4M3FN>>, tensor<512xi32>
  %x = tile.load %ia : tensor<512x!tile.ptr<f8E4M3FN>> -> tensor<512xf8E4M3FN>
  %w = arith.extf %x : tensor<512xf8E4M3FN> to tensor<512xf32>
  %op = tile.splat %out : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %oa = tile.addptr %op, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  tile.store %oa, %w : tensor<512x!tile.ptr<f32>>, tensor<512xf32>
  %d = arith.addf %w, %w : tensor<512xf32>
  %n = arith.truncf %d : tensor<512xf32> to tensor<512xf8E4M3FN>
  %bp = tile.splat %back : !tile.ptr<f8E4M3FN> -> tensor<512x!tile.ptr<f8E4M3FN>>
  %ba = tile.addptr %bp, %r : tensor<512x!tile.ptr<f8E4M3FN>>, tensor<512xi32>
  tile.store %ba, %n : tensor<512x!tile.ptr<f8E4M3FN>>, tensor<512xf8E4M3FN>
  return
}
