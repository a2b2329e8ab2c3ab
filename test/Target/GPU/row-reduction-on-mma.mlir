// RUN: kiln-translate %s --chip=sm_90a --num-warps=4 | FileCheck %s
// RUN: %if ptxas %{ kiln-translate %s --chip=sm_90a --num-warps=4 | %ptxas -arch=sm_90a -v 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: kiln-translate %s --chip=sm_80 --num-warps=4 | FileCheck %s --check-prefix=SM80

// The row maxima of a product, as an attention takes them from its scores:
// reduced in the accumulator's registers, the four lanes of each row
// combining theirs with xor shuffles 1 and 2 apart and no wider (a blocked
// layout would spread a row over 4, 8 and 16 lanes too). With warps 2 x 2
// (sm_80) the two warps of a row then combine theirs in shared memory; on
// sm_90a the warpgroup accumulator's warps split the rows only.
// CHECK: mma.sync.aligned.m16n8k16
// CHECK: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// CHECK-NEXT: max.NaN.f32
// CHECK-NEXT: shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;
// CHECK-NOT: shfl.sync.bfly.b32 {{.*}}, {{4|8|16}}, 31, -1;
// CHECK: st.global
// PTXAS: 0 bytes spill stores
// SM80: mma.sync.aligned.m16n8k16
// SM80: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// SM80-NEXT: max.NaN.f32
// SM80-NEXT: shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;
// SM80-NOT: shfl.sync.bfly.b32 {{.*}}, {{4|8|16}}, 31, -1;
// SM80: bar.sync
// SM80: st.shared
func.func @row_max(%a: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                   %out: !tile.ptr<f32> {tile.divisibility = 16 : i64}) {
  %r64 = tile.range 0 to 64 : tensor<64xi32>
  %rows = tile.expand_dims %r64 axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %cols = tile.expand_dims %r64 axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %c64 = arith.constant dense<64> : tensor<64x1xi32>
  %ro = arith.muli %rows, %c64 : tensor<64x1xi32>
  %rob = tile.broadcast %ro : tensor<64x1xi32> -> tensor<64x64xi32>
  %cob = tile.broadcast %cols : tensor<1x64xi32> -> tensor<64x64xi32>
  %off = arith.addi %rob, %cob : tensor<64x64xi32>
  %as = tile.splat %a : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %ap = tile.addptr %as, %off : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
  %x = tile.load %ap : tensor<64x64x!tile.ptr<f16>> -> tensor<64x64xf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %x, %x, %zero : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
  %m = tile.reduce %d axis 1 : tensor<64x64xf32> -> tensor<64xf32> {
  ^bb0(%p: f32, %q: f32):
    %r = arith.maximumf %p, %q : f32
    tile.yield %r : f32
  }
  %os = tile.splat %out : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %op = tile.addptr %os, %r64 : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  tile.store %op, %m : tensor<64x!tile.ptr<f32>>, tensor<64xf32>
  return
}
