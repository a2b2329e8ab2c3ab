// RUN: kiln-translate %s --chip=sm_90a --num-warps=4 | FileCheck %s
// RUN: %if ptxas %{ kiln-translate %s --chip=sm_90a --num-warps=4 | %ptxas -arch=sm_90a -v 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: %if ptxas && cuobjdump %{ kiln-translate %s --chip=sm_90a --num-warps=4 --emit=cubin -o %t.cubin && %cuobjdump -sass %t.cubin | FileCheck %s --check-prefix=SASS %}
// RUN: kiln-translate %s --chip=sm_80 --num-warps=4 2>%t.remarks | FileCheck %s --check-prefix=SM80
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks

// A matmul of 8-bit floats (e4m3 times e5m2, into f32: Triton's
// float8e4nv and float8e5), both copied by cp.async. On sm_90a wgmma
// multiplies them as they are, K-major (m64nNk32.f32.e4m3.e5m2): A from
// its slot, B (N-major in memory) transposed through a buffer of its own
// a byte at a time, as for int8.
// CHECK: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16
// CHECK-COUNT-32: st.shared.b8
// CHECK: fence.proxy.async.shared::cta
// CHECK-NEXT: bar.sync 0
// CHECK: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e5m2
// CHECK: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e5m2
// CHECK-NOT: wgmma.mma_async
// CHECK-NOT: mma.sync
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// SASS: QGMMA.64x64x32.F32.E4M3.E5M2
// sm_80 has no 8-bit float tensor cores Kiln uses: the operands, still
// copied by cp.async, are widened to f16 (exactly) after their slots are
// read, and multiplied by mma.sync.
// SM80: cp.async.cg.shared.global
// SM80: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// SM80-NOT: wgmma
// REMARK: remark: 8-bit float operands widened to f16: only sm_90a's wgmma multiplies 8-bit floats here
func.func @fp8(%a: !tile.ptr<f8E4M3FN> {tile.divisibility = 16 : i64},
                     %b: !tile.ptr<f8E5M2> {tile.divisibility = 16 : i64},
                     %c: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                     %n: i32) {
  %r64 = tile.range 0 to 64 : tensor<64xi32>
  %c64 = arith.constant dense<64> : tensor<64x1xi32>
  %rows = tile.expand_dims %r64 axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %cols = tile.expand_dims %r64 axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %rowo = arith.muli %rows, %c64 : tensor<64x1xi32>
  %rowb = tile.broadcast %rowo : tensor<64x1xi32> -> tensor<64x64xi32>
  %colb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<64x64xi32>
  %off = arith.addi %rowb, %colb : tensor<64x64xi32>
  %as = tile.splat %a : !tile.ptr<f8E4M3FN> -> tensor<64x64x!tile.ptr<f8E4M3FN>>
  %ap = tile.addptr %as, %off : tensor<64x64x!tile.ptr<f8E4M3FN>>, tensor<64x64xi32>
  %bs = tile.splat %b : !tile.ptr<f8E5M2> -> tensor<64x64x!tile.ptr<f8E5M2>>
  %bp = tile.addptr %bs, %off : tensor<64x64x!tile.ptr<f8E5M2>>, tensor<64x64xi32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%acc_i = %zero) -> (tensor<64x64xf32>) : i32 {
    %va = tile.load %ap : tensor<64x64x!tile.ptr<f8E4M3FN>> -> tensor<64x64xf8E4M3FN>
    %vb = tile.load %bp : tensor<64x64x!tile.ptr<f8E5M2>> -> tensor<64x64xf8E5M2>
    %d = tile.dot %va, %vb, %acc_i : tensor<64x64xf8E4M3FN>, tensor<64x64xf8E5M2> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %cp = tile.addptr %cs, %off : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %cp, %acc : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}
