// RUN: kiln-opt %s -tile-assign-layouts -kiln-convert-tile-to-gpu | FileCheck %s
// RUN: kiln-translate %s --chip=sm_90a | FileCheck %s --check-prefix=PTX
// RUN: %if ptxas %{ kiln-translate %s --emit=cubin --chip=sm_80 -o /dev/null %}

// Volatile loads (Triton's `volatile=True`) are `ld.volatile`, masked or
// not, vectorized as other loads are, and each is read where it stands:
// a spin-wait's flag inside its loop, and the same pointers twice.
// CHECK-LABEL: gpu.func @spin
// CHECK: scf.while
// CHECK: llvm.load volatile %{{.*}} : !llvm.ptr<1> -> i32
// CHECK: llvm.inline_asm has_side_effects "@$5 ld.volatile.global.v4.b32
// CHECK: llvm.load volatile %{{.*}} : !llvm.ptr<1> -> vector<4xf32>
// PTX-LABEL: .entry spin(
// PTX: $L__BB0_[[LOOP:[0-9]+]]:
// PTX-NEXT: ld.volatile.global.b32
// PTX: bra $L__BB0_[[LOOP]]
// PTX: @%p{{[0-9]+}} ld.volatile.global.v4.b32
// PTX: ld.volatile.global.v4.b32
// PTX-NOT: ld.global
func.func @spin(%flag: !tile.ptr<i32>,
                %p: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                %n: i32 {tile.divisibility = 16 : i64},
                %out: !tile.ptr<f32> {tile.divisibility = 16 : i64}) {
  %zero = arith.constant 0 : i32
  scf.while : () -> () {
    %f = tile.load %flag {isVolatile} : !tile.ptr<i32> -> i32
    %wait = arith.cmpi eq, %f, %zero : i32
    scf.condition(%wait)
  } do {
    scf.yield
  }
  %r = tile.range 0 to 512 : tensor<512xi32>
  %ns = tile.splat %n : i32 -> tensor<512xi32>
  %in = arith.cmpi slt, %r, %ns : tensor<512xi32>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %pp = tile.addptr %ps, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %x = tile.load %pp, %in {isVolatile} : tensor<512x!tile.ptr<f32>> -> tensor<512xf32>
  %y = tile.load %pp {isVolatile} : tensor<512x!tile.ptr<f32>> -> tensor<512xf32>
  %s = arith.addf %x, %y : tensor<512xf32>
  %os = tile.splat %out : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %op = tile.addptr %os, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  tile.store %op, %s, %in : tensor<512x!tile.ptr<f32>>, tensor<512xf32>
  return
}
