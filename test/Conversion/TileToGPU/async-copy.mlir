// RUN: kiln-opt %s -tile-assign-layouts -tile-pipeline-loops -kiln-convert-tile-to-gpu | FileCheck %s
// RUN: kiln-opt %s -tile-assign-layouts -tile-pipeline-loops -kiln-convert-tile-to-gpu="shared-memory-limit=24576" | FileCheck %s --check-prefix=SHARED
// RUN: kiln-opt %s -tile-assign-layouts -tile-pipeline-loops -kiln-convert-tile-to-gpu="shared-memory-limit=24576" | grep -B2 'llvm.getelementptr %[0-9]*\[0\] : (!llvm.ptr<3>)' | FileCheck %s --check-prefix=HANDOVER
// RUN: %if ptxas %{ kiln-translate %s --chip=sm_80 --emit=cubin -o /dev/null %}

// The pipelined K loop in NVVM: the two three-slot buffers (12 KiB each)
// sit at the start of the shared array, 1024-byte aligned (where wgmma's
// swizzle of address bits 4-9 matches the slots'), and the scratch of
// other ops after them; every run of 8 f16 is one 16-byte cp.async bypassing L1, whose
// size operand is 0 where the mask is off (zero fill, no read).
// CHECK: gpu.module @kiln attributes {kiln.shared_scratch_offset = 24576 : i64}
// CHECK: llvm.mlir.global internal @__kiln_shared() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<{{[0-9]+}} x i8>
// CHECK-LABEL: gpu.func @matmul
// CHECK: %[[SCRATCH:.*]] = llvm.mlir.addressof @__kiln_shared : !llvm.ptr<3>
// CHECK: llvm.getelementptr %[[SCRATCH]][24576] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: llvm.getelementptr %{{.*}}[0] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: llvm.getelementptr %{{.*}}[12288] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// Where the block has no more than the slots' 24 KiB, the scratch of the
// ops before the loop (index conversions) takes the slots' memory, which a
// barrier hands over to them before their first copies.
// SHARED: llvm.mlir.global internal @__kiln_shared() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<24576 x i8>
// SHARED-NOT: [24576]
// HANDOVER: gpu.barrier
// HANDOVER-NEXT: llvm.mlir.addressof @__kiln_shared : !llvm.ptr<3>
// HANDOVER-NEXT: llvm.getelementptr %{{.*}}[0] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: %[[SIZE:.*]] = arith.select %{{.*}}, %c16_i32{{.*}}, %c0_i32{{.*}} : i32
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache =  cg, %[[SIZE]] : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK-COUNT-3: nvvm.cp.async.shared.global
// CHECK: nvvm.cp.async.commit.group
// CHECK-COUNT-4: nvvm.cp.async.shared.global
// CHECK: nvvm.cp.async.commit.group
// CHECK: scf.for
// CHECK:   nvvm.cp.async.wait.group 1
// CHECK-NEXT: gpu.barrier
// A thread's two copies of A's next tile (64x32 f16) land 2048 bytes (32
// rows) apart in every thread: the second's target
// is the first's plus that constant, so the loop keeps one address live
// per slot, not one per copy.
// CHECK: %[[SECOND:.*]] = llvm.getelementptr %[[FIRST:.*]][2048] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: nvvm.cp.async.shared.global %[[FIRST]],
// CHECK: nvvm.cp.async.shared.global %[[SECOND]],
// CHECK-COUNT-2: nvvm.cp.async.shared.global
// CHECK:   nvvm.cp.async.commit.group
// CHECK-COUNT-2: nvvm.ldmatrix %{{.*}} {{.*}}layout = #nvvm.mma_layout<row>
// CHECK-COUNT-4: nvvm.ldmatrix %{{.*}} {{.*}}layout = #nvvm.mma_layout<col>
// CHECK: nvvm.mma.sync
// CHECK: nvvm.cp.async.wait.group 0
func.func @matmul(%a: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %b: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %c: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %K: i32 {tile.divisibility = 16 : i64}) {
  %r64 = tile.range 0 to 64 : tensor<64xi32>
  %r32 = tile.range 0 to 32 : tensor<32xi32>
  %rows = tile.expand_dims %r64 axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %cols = tile.expand_dims %r64 axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %kr = tile.expand_dims %r32 axis 0 : tensor<32xi32> -> tensor<1x32xi32>
  %kc = tile.expand_dims %r32 axis 1 : tensor<32xi32> -> tensor<32x1xi32>
  %Ks = tile.splat %K : i32 -> tensor<64x1xi32>
  %ar = arith.muli %rows, %Ks : tensor<64x1xi32>
  %arb = tile.broadcast %ar : tensor<64x1xi32> -> tensor<64x32xi32>
  %akb = tile.broadcast %kr : tensor<1x32xi32> -> tensor<64x32xi32>
  %aoff = arith.addi %arb, %akb : tensor<64x32xi32>
  %as = tile.splat %a : !tile.ptr<f16> -> tensor<64x32x!tile.ptr<f16>>
  %ap = tile.addptr %as, %aoff : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
  %c64 = arith.constant dense<64> : tensor<32x1xi32>
  %bk = arith.muli %kc, %c64 : tensor<32x1xi32>
  %bkb = tile.broadcast %bk : tensor<32x1xi32> -> tensor<32x64xi32>
  %bnb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<32x64xi32>
  %boff = arith.addi %bkb, %bnb : tensor<32x64xi32>
  %bs = tile.splat %b : !tile.ptr<f16> -> tensor<32x64x!tile.ptr<f16>>
  %bp = tile.addptr %bs, %boff : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %pad = arith.constant dense<0.0> : tensor<64x32xf16>
  %astep = arith.constant dense<32> : tensor<64x32xi32>
  %bstep = arith.constant dense<2048> : tensor<32x64xi32>
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %acc, %ape, %bpe = scf.for %k = %c0 to %K step %c32 iter_args(%acc_i = %zero, %ap_i = %ap, %bp_i = %bp)
      -> (tensor<64x64xf32>, tensor<64x32x!tile.ptr<f16>>, tensor<32x64x!tile.ptr<f16>>) : i32 {
    %left = arith.subi %K, %k : i32
    %ls = tile.splat %left : i32 -> tensor<1x32xi32>
    %kok = arith.cmpi slt, %kr, %ls : tensor<1x32xi32>
    %amask = tile.broadcast %kok : tensor<1x32xi1> -> tensor<64x32xi1>
    %av = tile.load %ap_i, %amask, other %pad : tensor<64x32x!tile.ptr<f16>> -> tensor<64x32xf16>
    %bv = tile.load %bp_i : tensor<32x64x!tile.ptr<f16>> -> tensor<32x64xf16>
    %d = tile.dot %av, %bv, %acc_i : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    %apn = tile.addptr %ap_i, %astep : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
    %bpn = tile.addptr %bp_i, %bstep : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
    scf.yield %d, %apn, %bpn : tensor<64x64xf32>, tensor<64x32x!tile.ptr<f16>>, tensor<32x64x!tile.ptr<f16>>
  }
  %c64r = arith.constant dense<64> : tensor<64x1xi32>
  %cr = arith.muli %rows, %c64r : tensor<64x1xi32>
  %crb = tile.broadcast %cr : tensor<64x1xi32> -> tensor<64x64xi32>
  %ccb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<64x64xi32>
  %coff = arith.addi %crb, %ccb : tensor<64x64xi32>
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %cp = tile.addptr %cs, %coff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %cp, %acc : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}
