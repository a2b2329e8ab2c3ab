// RUN: kiln-opt %s -split-input-file -tile-assign-layouts="num-warps=4 compute-capability=90 arch-specific=1" -tile-pipeline-loops="shared-memory-limit=232448" | FileCheck %s
// RUN: kiln-opt %s -split-input-file -tile-assign-layouts="num-warps=4 compute-capability=90 arch-specific=1" -tile-pipeline-loops="shared-memory-limit=232448" -verify-diagnostics -o /dev/null

// a @ b.T with b stored N x K (a linear layer's weight): B's tile is
// loaded down its columns, each run of K contiguous. It is staged column
// by column (a slot with strides [_, 1, 32]: element (k, n) at k + 32 n),
// the K-major operand wgmma reads in place.
// CHECK-LABEL: func.func @k_major_b
// CHECK: %[[A:.*]] = tilegpu.local_alloc : memref<3x64x32xf16, 3>
// CHECK: %[[B:.*]] = tilegpu.local_alloc : memref<3x32x64xf16, strided<[2048, 1, 32]>, 3>
// CHECK: tilegpu.async_copy %{{.*}} mask %{{.*}} into %[[B]][%{{.*}}] : memref<3x32x64xf16, strided<[2048, 1, 32]>, 3>, tensor<32x64x!tile.ptr<f16>, #{{.*}}>
// CHECK: scf.for
// CHECK: tilegpu.warpgroup_dot %[[A]][%{{.*}}], %[[B]][%{{.*}}], %{{.*}} : memref<3x64x32xf16, 3>, memref<3x32x64xf16, strided<[2048, 1, 32]>, 3>
func.func @k_major_b(%a: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                     %b: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                     %n: i32) -> tensor<64x64xf32> {
  %r64 = tile.range 0 to 64 : tensor<64xi32>
  %r32 = tile.range 0 to 32 : tensor<32xi32>
  // A: 64 x 32, rows 32 apart (K contiguous).
  %am = tile.expand_dims %r64 axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %ak = tile.expand_dims %r32 axis 0 : tensor<32xi32> -> tensor<1x32xi32>
  %c32a = arith.constant dense<32> : tensor<64x1xi32>
  %amo = arith.muli %am, %c32a : tensor<64x1xi32>
  %amb = tile.broadcast %amo : tensor<64x1xi32> -> tensor<64x32xi32>
  %akb = tile.broadcast %ak : tensor<1x32xi32> -> tensor<64x32xi32>
  %aoff = arith.addi %amb, %akb : tensor<64x32xi32>
  %as = tile.splat %a : !tile.ptr<f16> -> tensor<64x32x!tile.ptr<f16>>
  %ap = tile.addptr %as, %aoff : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
  // B: 32 (K) x 64 (N), element (k, n) at k + 32 n.
  %bk = tile.expand_dims %r32 axis 1 : tensor<32xi32> -> tensor<32x1xi32>
  %bn = tile.expand_dims %r64 axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %c32b = arith.constant dense<32> : tensor<1x64xi32>
  %bno = arith.muli %bn, %c32b : tensor<1x64xi32>
  %bkb = tile.broadcast %bk : tensor<32x1xi32> -> tensor<32x64xi32>
  %bnb = tile.broadcast %bno : tensor<1x64xi32> -> tensor<32x64xi32>
  %boff = arith.addi %bkb, %bnb : tensor<32x64xi32>
  %bs = tile.splat %b : !tile.ptr<f16> -> tensor<32x64x!tile.ptr<f16>>
  %bp = tile.addptr %bs, %boff : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%acc_i = %zero) -> (tensor<64x64xf32>) : i32 {
    %va = tile.load %ap : tensor<64x32x!tile.ptr<f16>> -> tensor<64x32xf16>
    %vb = tile.load %bp : tensor<32x64x!tile.ptr<f16>> -> tensor<32x64xf16>
    %d = tile.dot %va, %vb, %acc_i : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  return %acc : tensor<64x64xf32>
}

// -----

// An A tile loaded down its columns (an M-major A, as `a.T @ b` loads it)
// is staged column by column too (transposed slot strides, 16-byte
// copies); wgmma reads a 16-bit M-major A from registers, loaded from the
// slot each step, so the dot is not left running.
// CHECK-LABEL: func.func @m_major_a
// CHECK: %[[A:.*]] = tilegpu.local_alloc : memref<3x64x32xf16, strided<[2048, 1, 64]>, 3>
// CHECK: scf.for
// CHECK: %[[REGS:.*]] = tilegpu.local_load %[[A]][%{{.*}}] : memref<3x64x32xf16, strided<[2048, 1, 64]>, 3> -> tensor<64x32xf16, #dot_op>
// CHECK-NEXT: tilegpu.warpgroup_dot %[[REGS]], %{{.*}}[%{{.*}}], %{{.*}} : tensor<64x32xf16, #dot_op>, memref<1x32x64xf16, 3>
// CHECK-NOT: tilegpu.warpgroup_wait
// CHECK: return
func.func @m_major_a(%a: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                              %n: i32) -> tensor<64x64xf32> {
  %r64 = tile.range 0 to 64 : tensor<64xi32>
  %r32 = tile.range 0 to 32 : tensor<32xi32>
  %am = tile.expand_dims %r64 axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %ak = tile.expand_dims %r32 axis 0 : tensor<32xi32> -> tensor<1x32xi32>
  %c64 = arith.constant dense<64> : tensor<1x32xi32>
  %ako = arith.muli %ak, %c64 : tensor<1x32xi32>
  %amb = tile.broadcast %am : tensor<64x1xi32> -> tensor<64x32xi32>
  %akb = tile.broadcast %ako : tensor<1x32xi32> -> tensor<64x32xi32>
  %aoff = arith.addi %amb, %akb : tensor<64x32xi32>
  %as = tile.splat %a : !tile.ptr<f16> -> tensor<64x32x!tile.ptr<f16>>
  %ap = tile.addptr %as, %aoff : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
  %ones = arith.constant dense<1.0> : tensor<32x64xf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%acc_i = %zero) -> (tensor<64x64xf32>) : i32 {
    %va = tile.load %ap : tensor<64x32x!tile.ptr<f16>> -> tensor<64x32xf16>
    %d = tile.dot %va, %ones, %acc_i : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  return %acc : tensor<64x64xf32>
}

// -----

// Stages that do not fit shared memory are fewer, not none: of four stages
// of two 128x128 f16 tiles (64 KiB a stage), three fit sm_90's 227 KiB
// (nothing else in the loop takes scratch).
// CHECK-LABEL: func.func @fewer_stages
// CHECK: tilegpu.local_alloc : memref<3x128x128xf16, 3>
// CHECK: tilegpu.local_alloc : memref<3x128x128xf16, 3>
func.func @fewer_stages(%a: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                        %n: i32) -> tensor<128x128xf32> {
  %r = tile.range 0 to 128 : tensor<128xi32>
  %rows = tile.expand_dims %r axis 1 : tensor<128xi32> -> tensor<128x1xi32>
  %cols = tile.expand_dims %r axis 0 : tensor<128xi32> -> tensor<1x128xi32>
  %c128 = arith.constant dense<128> : tensor<128x1xi32>
  %ro = arith.muli %rows, %c128 : tensor<128x1xi32>
  %rob = tile.broadcast %ro : tensor<128x1xi32> -> tensor<128x128xi32>
  %cob = tile.broadcast %cols : tensor<1x128xi32> -> tensor<128x128xi32>
  %off = arith.addi %rob, %cob : tensor<128x128xi32>
  %as = tile.splat %a : !tile.ptr<f16> -> tensor<128x128x!tile.ptr<f16>>
  %ap = tile.addptr %as, %off : tensor<128x128x!tile.ptr<f16>>, tensor<128x128xi32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // expected-remark @+1 {{pipelined 3 stages deep, not 4: 4 stages of 65536 bytes do not fit the 232448 bytes of shared memory they may take}}
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%acc_i = %zero) -> (tensor<128x128xf32>) : i32 {
    %va = tile.load %ap : tensor<128x128x!tile.ptr<f16>> -> tensor<128x128xf16>
    %vb = tile.load %ap : tensor<128x128x!tile.ptr<f16>> -> tensor<128x128xf16>
    %d = tile.dot %va, %vb, %acc_i : tensor<128x128xf16>, tensor<128x128xf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  } {tile.num_stages = 4 : i64}
  return %acc : tensor<128x128xf32>
}
