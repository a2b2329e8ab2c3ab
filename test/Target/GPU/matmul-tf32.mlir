// RUN: kiln-translate %s --chip=sm_90a --num-warps=4 | FileCheck %s
// RUN: %if ptxas %{ kiln-translate %s --chip=sm_90a --num-warps=4 | %ptxas -arch=sm_90a -v 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: %if ptxas && cuobjdump %{ kiln-translate %s --chip=sm_90a --num-warps=4 --emit=cubin -o %t.cubin && %cuobjdump -sass %t.cubin | FileCheck %s --check-prefix=SASS %}
// RUN: kiln-translate %s --chip=sm_80 --num-warps=4 | FileCheck %s --check-prefix=SM80

// A float32 matmul on tensor cores (Triton's default `tl.dot` of f32
// tiles, input_precision = tf32). wgmma reads tf32 operands K-major only
// (m64nNk8.f32.tf32.tf32): A (M x K, K contiguous) is copied 16 bytes at a
// time into its slot; an N-major B (K x N row-major, as Triton users store
// it) is copied by the cp.async themselves into a K-major slot, 4 bytes
// (one element) at a time, as Triton 3.9 stages it. Both slots hold what
// the wgmma reads, so it runs asynchronously beside the next step's copies
// (wait_group 1).
// CHECK-LABEL: .entry n_major_b(
// CHECK: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16
// CHECK: cp.async.ca.shared.global [{{.*}}], [{{.*}}], 4
// CHECK: wgmma.fence.sync.aligned
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32
// CHECK-NOT: wgmma.mma_async
// CHECK: wgmma.wait_group.sync.aligned 1
// CHECK-NOT: mma.sync
// A K-major B (`x @ w.T`, the weight stored N x K) is copied 16 bytes at a
// time: its columns are the slot's rows.
// CHECK-LABEL: .entry k_major_b(
// CHECK-NOT: , 4,
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32
// CHECK: wgmma.wait_group.sync.aligned 1
// CHECK-NOT: mma.sync
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// SASS: HGMMA.64x64x8.F32.TF32
// On sm_80 the same kernels run on mma.sync m16n8k8.
// SM80: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
func.func @n_major_b(%a: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                     %b: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                     %c: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                     %n: i32) {
  %r32 = tile.range 0 to 32 : tensor<32xi32>
  %r64 = tile.range 0 to 64 : tensor<64xi32>
  %am = tile.expand_dims %r64 axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %c32 = arith.constant dense<32> : tensor<64x1xi32>
  %amo = arith.muli %am, %c32 : tensor<64x1xi32>
  %amb = tile.broadcast %amo : tensor<64x1xi32> -> tensor<64x32xi32>
  %ak = tile.expand_dims %r32 axis 0 : tensor<32xi32> -> tensor<1x32xi32>
  %akb = tile.broadcast %ak : tensor<1x32xi32> -> tensor<64x32xi32>
  %aoff = arith.addi %amb, %akb : tensor<64x32xi32>
  %as = tile.splat %a : !tile.ptr<f32> -> tensor<64x32x!tile.ptr<f32>>
  %ap = tile.addptr %as, %aoff : tensor<64x32x!tile.ptr<f32>>, tensor<64x32xi32>
  %bk = tile.expand_dims %r32 axis 1 : tensor<32xi32> -> tensor<32x1xi32>
  %c64 = arith.constant dense<64> : tensor<32x1xi32>
  %bko = arith.muli %bk, %c64 : tensor<32x1xi32>
  %bkb = tile.broadcast %bko : tensor<32x1xi32> -> tensor<32x64xi32>
  %bn = tile.expand_dims %r64 axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %bnb = tile.broadcast %bn : tensor<1x64xi32> -> tensor<32x64xi32>
  %boff = arith.addi %bkb, %bnb : tensor<32x64xi32>
  %bs = tile.splat %b : !tile.ptr<f32> -> tensor<32x64x!tile.ptr<f32>>
  %bp = tile.addptr %bs, %boff : tensor<32x64x!tile.ptr<f32>>, tensor<32x64xi32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%acc_i = %zero) -> (tensor<64x64xf32>) : i32 {
    %va = tile.load %ap : tensor<64x32x!tile.ptr<f32>> -> tensor<64x32xf32>
    %vb = tile.load %bp : tensor<32x64x!tile.ptr<f32>> -> tensor<32x64xf32>
    %d = tile.dot %va, %vb, %acc_i input_precision = tf32 : tensor<64x32xf32>, tensor<32x64xf32> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  %c64c = arith.constant dense<64> : tensor<64x1xi32>
  %co = arith.muli %am, %c64c : tensor<64x1xi32>
  %cob = tile.broadcast %co : tensor<64x1xi32> -> tensor<64x64xi32>
  %cn = tile.broadcast %bn : tensor<1x64xi32> -> tensor<64x64xi32>
  %coff = arith.addi %cob, %cn : tensor<64x64xi32>
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %cp = tile.addptr %cs, %coff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %cp, %acc : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}

func.func @k_major_b(%a: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                     %b: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                     %c: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                     %n: i32) {
  %r32 = tile.range 0 to 32 : tensor<32xi32>
  %r64 = tile.range 0 to 64 : tensor<64xi32>
  %am = tile.expand_dims %r64 axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %c32 = arith.constant dense<32> : tensor<64x1xi32>
  %amo = arith.muli %am, %c32 : tensor<64x1xi32>
  %amb = tile.broadcast %amo : tensor<64x1xi32> -> tensor<64x32xi32>
  %ak = tile.expand_dims %r32 axis 0 : tensor<32xi32> -> tensor<1x32xi32>
  %akb = tile.broadcast %ak : tensor<1x32xi32> -> tensor<64x32xi32>
  %aoff = arith.addi %amb, %akb : tensor<64x32xi32>
  %as = tile.splat %a : !tile.ptr<f32> -> tensor<64x32x!tile.ptr<f32>>
  %ap = tile.addptr %as, %aoff : tensor<64x32x!tile.ptr<f32>>, tensor<64x32xi32>
  // B[k, n] at b + n * 32 + k: the weight stored N x K (`x @ w.T`).
  %br32 = tile.range 0 to 32 : tensor<32xi32>
  %br64 = tile.range 0 to 64 : tensor<64xi32>
  %bk = tile.expand_dims %br32 axis 1 : tensor<32xi32> -> tensor<32x1xi32>
  %bkb = tile.broadcast %bk : tensor<32x1xi32> -> tensor<32x64xi32>
  %bn = tile.expand_dims %br64 axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %c32n = arith.constant dense<32> : tensor<1x64xi32>
  %bno = arith.muli %bn, %c32n : tensor<1x64xi32>
  %bnb = tile.broadcast %bno : tensor<1x64xi32> -> tensor<32x64xi32>
  %boff = arith.addi %bkb, %bnb : tensor<32x64xi32>
  %bs = tile.splat %b : !tile.ptr<f32> -> tensor<32x64x!tile.ptr<f32>>
  %bp = tile.addptr %bs, %boff : tensor<32x64x!tile.ptr<f32>>, tensor<32x64xi32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%acc_i = %zero) -> (tensor<64x64xf32>) : i32 {
    %va = tile.load %ap : tensor<64x32x!tile.ptr<f32>> -> tensor<64x32xf32>
    %vb = tile.load %bp : tensor<32x64x!tile.ptr<f32>> -> tensor<32x64xf32>
    %d = tile.dot %va, %vb, %acc_i input_precision = tf32 : tensor<64x32xf32>, tensor<32x64xf32> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  // C's offsets from ranges of their own, as Triton's tutorials write them.
  %cr = tile.range 0 to 64 : tensor<64xi32>
  %cm = tile.expand_dims %cr axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %c64c = arith.constant dense<64> : tensor<64x1xi32>
  %co = arith.muli %cm, %c64c : tensor<64x1xi32>
  %cob = tile.broadcast %co : tensor<64x1xi32> -> tensor<64x64xi32>
  %ccols = tile.expand_dims %cr axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %cn = tile.broadcast %ccols : tensor<1x64xi32> -> tensor<64x64xi32>
  %coff = arith.addi %cob, %cn : tensor<64x64xi32>
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %cp = tile.addptr %cs, %coff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %cp, %acc : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}
