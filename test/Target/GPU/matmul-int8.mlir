// RUN: kiln-translate %s --chip=sm_90a --num-warps=4 | FileCheck %s
// RUN: %if ptxas %{ kiln-translate %s --chip=sm_90a --num-warps=4 | %ptxas -arch=sm_90a -v 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: %if ptxas && cuobjdump %{ kiln-translate %s --chip=sm_90a --num-warps=4 --emit=cubin -o %t.cubin && %cuobjdump -sass %t.cubin | FileCheck %s --check-prefix=SASS %}
// RUN: kiln-translate %s --chip=sm_80 --num-warps=4 | FileCheck %s --check-prefix=SM80

// An int8 matmul into i32 (Triton's `tl.dot` of int8 tiles), both
// operands copied by cp.async. wgmma reads 8-bit operands K-major only
// (m64nNk32.s32.s8.s8): A (M x K, K contiguous) is read from its slot;
// an N-major B (K x N row-major, as Triton users store it) is read from
// its slot into registers, 16 bytes a thread, and written back transposed
// a byte at a time into a buffer of its own, fenced into the async proxy
// before the barrier that publishes it, as Triton 3.9 does.
// CHECK-LABEL: .entry n_major_b(
// CHECK: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16
// CHECK: ld.shared.v4.b32
// CHECK-COUNT-32: st.shared.b8
// CHECK-NOT: st.shared.b8
// CHECK: fence.proxy.async.shared::cta
// CHECK-NEXT: bar.sync 0
// CHECK: wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.s8
// CHECK: wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.s8
// CHECK-NOT: wgmma.mma_async
// CHECK: wgmma.wait_group.sync.aligned 0
// CHECK-NOT: mma.sync
// A K-major B (`a @ b.T`) is staged transposed by the copies themselves.
// CHECK-LABEL: .entry k_major_b(
// CHECK-NOT: st.shared.b8
// CHECK: wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.s8
// CHECK-NOT: mma.sync
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// SASS: IGMMA.64x64x32.S8.S8
// On sm_80 the same kernels run on mma.sync m16n8k32.
// SM80: mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
func.func @n_major_b(%a: !tile.ptr<i8> {tile.divisibility = 16 : i64},
                     %b: !tile.ptr<i8> {tile.divisibility = 16 : i64},
                     %c: !tile.ptr<i32> {tile.divisibility = 16 : i64},
                     %n: i32) {
  %r64 = tile.range 0 to 64 : tensor<64xi32>
  %c64 = arith.constant dense<64> : tensor<64x1xi32>
  %rows = tile.expand_dims %r64 axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %cols = tile.expand_dims %r64 axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %rowo = arith.muli %rows, %c64 : tensor<64x1xi32>
  %rowb = tile.broadcast %rowo : tensor<64x1xi32> -> tensor<64x64xi32>
  %colb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<64x64xi32>
  %off = arith.addi %rowb, %colb : tensor<64x64xi32>
  %as = tile.splat %a : !tile.ptr<i8> -> tensor<64x64x!tile.ptr<i8>>
  %ap = tile.addptr %as, %off : tensor<64x64x!tile.ptr<i8>>, tensor<64x64xi32>
  %bs = tile.splat %b : !tile.ptr<i8> -> tensor<64x64x!tile.ptr<i8>>
  %bp = tile.addptr %bs, %off : tensor<64x64x!tile.ptr<i8>>, tensor<64x64xi32>
  %zero = arith.constant dense<0> : tensor<64x64xi32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%acc_i = %zero) -> (tensor<64x64xi32>) : i32 {
    %va = tile.load %ap : tensor<64x64x!tile.ptr<i8>> -> tensor<64x64xi8>
    %vb = tile.load %bp : tensor<64x64x!tile.ptr<i8>> -> tensor<64x64xi8>
    %d = tile.dot %va, %vb, %acc_i : tensor<64x64xi8>, tensor<64x64xi8> -> tensor<64x64xi32>
    scf.yield %d : tensor<64x64xi32>
  }
  %cs = tile.splat %c : !tile.ptr<i32> -> tensor<64x64x!tile.ptr<i32>>
  %cp = tile.addptr %cs, %off : tensor<64x64x!tile.ptr<i32>>, tensor<64x64xi32>
  tile.store %cp, %acc : tensor<64x64x!tile.ptr<i32>>, tensor<64x64xi32>
  return
}

func.func @k_major_b(%a: !tile.ptr<i8> {tile.divisibility = 16 : i64},
                     %b: !tile.ptr<i8> {tile.divisibility = 16 : i64},
                     %c: !tile.ptr<i32> {tile.divisibility = 16 : i64},
                     %n: i32) {
  %r64 = tile.range 0 to 64 : tensor<64xi32>
  %c64 = arith.constant dense<64> : tensor<64x1xi32>
  %rows = tile.expand_dims %r64 axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %cols = tile.expand_dims %r64 axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %rowo = arith.muli %rows, %c64 : tensor<64x1xi32>
  %rowb = tile.broadcast %rowo : tensor<64x1xi32> -> tensor<64x64xi32>
  %colb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<64x64xi32>
  %off = arith.addi %rowb, %colb : tensor<64x64xi32>
  %bk = tile.expand_dims %r64 axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %bn = tile.expand_dims %r64 axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %c64r = arith.constant dense<64> : tensor<1x64xi32>
  %colo = arith.muli %bn, %c64r : tensor<1x64xi32>
  %colob = tile.broadcast %colo : tensor<1x64xi32> -> tensor<64x64xi32>
  %rowsb = tile.broadcast %bk : tensor<64x1xi32> -> tensor<64x64xi32>
  %toff = arith.addi %rowsb, %colob : tensor<64x64xi32>
  %as = tile.splat %a : !tile.ptr<i8> -> tensor<64x64x!tile.ptr<i8>>
  %ap = tile.addptr %as, %off : tensor<64x64x!tile.ptr<i8>>, tensor<64x64xi32>
  %bs = tile.splat %b : !tile.ptr<i8> -> tensor<64x64x!tile.ptr<i8>>
  %bp = tile.addptr %bs, %toff : tensor<64x64x!tile.ptr<i8>>, tensor<64x64xi32>
  %zero = arith.constant dense<0> : tensor<64x64xi32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%acc_i = %zero) -> (tensor<64x64xi32>) : i32 {
    %va = tile.load %ap : tensor<64x64x!tile.ptr<i8>> -> tensor<64x64xi8>
    %vb = tile.load %bp : tensor<64x64x!tile.ptr<i8>> -> tensor<64x64xi8>
    %d = tile.dot %va, %vb, %acc_i : tensor<64x64xi8>, tensor<64x64xi8> -> tensor<64x64xi32>
    scf.yield %d : tensor<64x64xi32>
  }
  %cs = tile.splat %c : !tile.ptr<i32> -> tensor<64x64x!tile.ptr<i32>>
  %cp = tile.addptr %cs, %off : tensor<64x64x!tile.ptr<i32>>, tensor<64x64xi32>
  tile.store %cp, %acc : tensor<64x64x!tile.ptr<i32>>, tensor<64x64xi32>
  return
}
