// RUN: kiln-opt %s -tile-specialize-arguments="divisible=0,1,2" -tile-assign-layouts -kiln-convert-tile-to-gpu | FileCheck %s
// RUN: kiln-opt %s -tile-specialize-arguments="divisible=0,1,2" | kiln-translate --chip=sm_80 | FileCheck %s --check-prefix=PTX
// RUN: %if ptxas %{ kiln-translate %s --chip=sm_80 --emit=cubin -o /dev/null %}
// RUN: %if ptxas %{ kiln-translate %s --chip=sm_90a --emit=cubin -o /dev/null %}
// RUN: %if ptxas && cuobjdump %{ kiln-opt %s -tile-specialize-arguments="divisible=0,1,2" | kiln-translate --chip=sm_80 --emit=cubin -o %t.cubin && %cuobjdump -sass %t.cubin | FileCheck %s --check-prefix=SASS %}

// 32x32x32 products on tensor cores, one per element type, four warps as
// 2x2: each warp's 16x16 share is one M block by two N blocks. Operands go
// to swizzled shared memory as 16-byte vectors (the loads are 16-byte
// aligned), 16-bit ones come back with ldmatrix (A as stored, B
// transposed), 8-bit A too (as bytes), the others element by element.

// CHECK-LABEL: gpu.func @dot_f16
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xf16>, !llvm.ptr<3>
// CHECK-COUNT-2: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xf16>, !llvm.ptr<3>
// CHECK-COUNT-2: nvvm.ldmatrix %{{.*}} {{.*}}layout = #nvvm.mma_layout<col>, num = 4 : i32
// CHECK-COUNT-4: nvvm.mma.sync A[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] B[%{{.*}}, %{{.*}}] C[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NOT: nvvm.mma.sync
// CHECK-LABEL: gpu.func @dot_bf16
// CHECK-COUNT-4: nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-LABEL: gpu.func @dot_f32
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK-NOT: nvvm.ldmatrix
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-COUNT-8: nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<tf32>, multiplicandBPtxType = #nvvm.mma_type<tf32>, shape = #nvvm.shape<m = 16, n = 8, k = 8>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-LABEL: gpu.func @dot_i8
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<16xi8>, !llvm.ptr<3>
// CHECK: nvvm.ldmatrix %{{.*}} {{.*}}layout = #nvvm.mma_layout<row>, num = 4 : i32
// CHECK: llvm.bitcast %{{.*}} : i32 to vector<4xi8>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<16xi8>, !llvm.ptr<3>
// CHECK-NOT: nvvm.ldmatrix
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> i8
// CHECK-COUNT-2: nvvm.mma.sync {{.*}} {intOverflowBehavior = #nvvm.mma_int_overflow<wrapped>, {{.*}}multiplicandAPtxType = #nvvm.mma_type<s8>, multiplicandBPtxType = #nvvm.mma_type<s8>, shape = #nvvm.shape<m = 16, n = 8, k = 32>} : (i32, i32, i32) -> !llvm.struct<(i32, i32, i32, i32)>

// int8 tiles widened to f16 (`a.to(f16)`, as weight-only quantized
// kernels write it) are converted as bytes, into fragments of kWidth 4
// (Triton's layout for them): A comes back with ldmatrix as bytes, the
// widening runs on the fragments, and each fragment of K 32 is two
// m16n8k16, 2 K steps per N block here.
// CHECK-LABEL: gpu.func @dot_i8_as_f16
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<16xi8>, !llvm.ptr<3>
// CHECK: nvvm.ldmatrix %{{.*}} {{.*}}layout = #nvvm.mma_layout<row>, num = 4 : i32
// CHECK: arith.sitofp %{{.*}} : vector<16xi8> to vector<16xf16>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<16xi8>, !llvm.ptr<3>
// CHECK: arith.sitofp %{{.*}} : vector<16xi8> to vector<16xf16>
// CHECK-COUNT-4: nvvm.mma.sync {{.*}}shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32)
// CHECK-NOT: nvvm.mma.sync

// PTX-LABEL: .entry dot_f16(
// PTX-COUNT-2: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX-COUNT-2: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX-COUNT-4: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// PTX-LABEL: .entry dot_bf16(
// PTX-COUNT-4: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX-LABEL: .entry dot_f32(
// PTX-COUNT-8: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// PTX-LABEL: .entry dot_i8(
// PTX-COUNT-2: mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32

// SASS-DAG: HMMA.16816.F32.BF16
// SASS-DAG: HMMA.1688.F32.TF32
// SASS-DAG: IMMA.16832.S8.S8
// SASS-DAG: LDSM.16.MT88.4

func.func @dot_f16(%a: !tile.ptr<f16>, %b: !tile.ptr<f16>, %out: !tile.ptr<f32>) {
  %r = tile.range 0 to 32 : tensor<32xi32>
  %rows = tile.expand_dims %r axis 1 : tensor<32xi32> -> tensor<32x1xi32>
  %cols = tile.expand_dims %r axis 0 : tensor<32xi32> -> tensor<1x32xi32>
  %cn = arith.constant dense<32> : tensor<32x1xi32>
  %ro = arith.muli %rows, %cn : tensor<32x1xi32>
  %rob = tile.broadcast %ro : tensor<32x1xi32> -> tensor<32x32xi32>
  %cob = tile.broadcast %cols : tensor<1x32xi32> -> tensor<32x32xi32>
  %offs = arith.addi %rob, %cob : tensor<32x32xi32>
  %as = tile.splat %a : !tile.ptr<f16> -> tensor<32x32x!tile.ptr<f16>>
  %ap = tile.addptr %as, %offs : tensor<32x32x!tile.ptr<f16>>, tensor<32x32xi32>
  %av = tile.load %ap : tensor<32x32x!tile.ptr<f16>> -> tensor<32x32xf16>
  %bs = tile.splat %b : !tile.ptr<f16> -> tensor<32x32x!tile.ptr<f16>>
  %bp = tile.addptr %bs, %offs : tensor<32x32x!tile.ptr<f16>>, tensor<32x32xi32>
  %bv = tile.load %bp : tensor<32x32x!tile.ptr<f16>> -> tensor<32x32xf16>
  %zero = arith.constant dense<0.0> : tensor<32x32xf32>
  %d = tile.dot %av, %bv, %zero : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
  %os = tile.splat %out : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>>
  %op = tile.addptr %os, %offs : tensor<32x32x!tile.ptr<f32>>, tensor<32x32xi32>
  tile.store %op, %d : tensor<32x32x!tile.ptr<f32>>, tensor<32x32xf32>
  return
}


func.func @dot_bf16(%a: !tile.ptr<bf16>, %b: !tile.ptr<bf16>, %out: !tile.ptr<f32>) {
  %r = tile.range 0 to 32 : tensor<32xi32>
  %rows = tile.expand_dims %r axis 1 : tensor<32xi32> -> tensor<32x1xi32>
  %cols = tile.expand_dims %r axis 0 : tensor<32xi32> -> tensor<1x32xi32>
  %cn = arith.constant dense<32> : tensor<32x1xi32>
  %ro = arith.muli %rows, %cn : tensor<32x1xi32>
  %rob = tile.broadcast %ro : tensor<32x1xi32> -> tensor<32x32xi32>
  %cob = tile.broadcast %cols : tensor<1x32xi32> -> tensor<32x32xi32>
  %offs = arith.addi %rob, %cob : tensor<32x32xi32>
  %as = tile.splat %a : !tile.ptr<bf16> -> tensor<32x32x!tile.ptr<bf16>>
  %ap = tile.addptr %as, %offs : tensor<32x32x!tile.ptr<bf16>>, tensor<32x32xi32>
  %av = tile.load %ap : tensor<32x32x!tile.ptr<bf16>> -> tensor<32x32xbf16>
  %bs = tile.splat %b : !tile.ptr<bf16> -> tensor<32x32x!tile.ptr<bf16>>
  %bp = tile.addptr %bs, %offs : tensor<32x32x!tile.ptr<bf16>>, tensor<32x32xi32>
  %bv = tile.load %bp : tensor<32x32x!tile.ptr<bf16>> -> tensor<32x32xbf16>
  %zero = arith.constant dense<0.0> : tensor<32x32xf32>
  %d = tile.dot %av, %bv, %zero : tensor<32x32xbf16>, tensor<32x32xbf16> -> tensor<32x32xf32>
  %os = tile.splat %out : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>>
  %op = tile.addptr %os, %offs : tensor<32x32x!tile.ptr<f32>>, tensor<32x32xi32>
  tile.store %op, %d : tensor<32x32x!tile.ptr<f32>>, tensor<32x32xf32>
  return
}


func.func @dot_f32(%a: !tile.ptr<f32>, %b: !tile.ptr<f32>, %out: !tile.ptr<f32>) {
  %r = tile.range 0 to 32 : tensor<32xi32>
  %rows = tile.expand_dims %r axis 1 : tensor<32xi32> -> tensor<32x1xi32>
  %cols = tile.expand_dims %r axis 0 : tensor<32xi32> -> tensor<1x32xi32>
  %cn = arith.constant dense<32> : tensor<32x1xi32>
  %ro = arith.muli %rows, %cn : tensor<32x1xi32>
  %rob = tile.broadcast %ro : tensor<32x1xi32> -> tensor<32x32xi32>
  %cob = tile.broadcast %cols : tensor<1x32xi32> -> tensor<32x32xi32>
  %offs = arith.addi %rob, %cob : tensor<32x32xi32>
  %as = tile.splat %a : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>>
  %ap = tile.addptr %as, %offs : tensor<32x32x!tile.ptr<f32>>, tensor<32x32xi32>
  %av = tile.load %ap : tensor<32x32x!tile.ptr<f32>> -> tensor<32x32xf32>
  %bs = tile.splat %b : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>>
  %bp = tile.addptr %bs, %offs : tensor<32x32x!tile.ptr<f32>>, tensor<32x32xi32>
  %bv = tile.load %bp : tensor<32x32x!tile.ptr<f32>> -> tensor<32x32xf32>
  %zero = arith.constant dense<0.0> : tensor<32x32xf32>
  %d = tile.dot %av, %bv, %zero input_precision = tf32 : tensor<32x32xf32>, tensor<32x32xf32> -> tensor<32x32xf32>
  %os = tile.splat %out : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>>
  %op = tile.addptr %os, %offs : tensor<32x32x!tile.ptr<f32>>, tensor<32x32xi32>
  tile.store %op, %d : tensor<32x32x!tile.ptr<f32>>, tensor<32x32xf32>
  return
}


func.func @dot_i8(%a: !tile.ptr<i8>, %b: !tile.ptr<i8>, %out: !tile.ptr<i32>) {
  %r = tile.range 0 to 32 : tensor<32xi32>
  %rows = tile.expand_dims %r axis 1 : tensor<32xi32> -> tensor<32x1xi32>
  %cols = tile.expand_dims %r axis 0 : tensor<32xi32> -> tensor<1x32xi32>
  %cn = arith.constant dense<32> : tensor<32x1xi32>
  %ro = arith.muli %rows, %cn : tensor<32x1xi32>
  %rob = tile.broadcast %ro : tensor<32x1xi32> -> tensor<32x32xi32>
  %cob = tile.broadcast %cols : tensor<1x32xi32> -> tensor<32x32xi32>
  %offs = arith.addi %rob, %cob : tensor<32x32xi32>
  %as = tile.splat %a : !tile.ptr<i8> -> tensor<32x32x!tile.ptr<i8>>
  %ap = tile.addptr %as, %offs : tensor<32x32x!tile.ptr<i8>>, tensor<32x32xi32>
  %av = tile.load %ap : tensor<32x32x!tile.ptr<i8>> -> tensor<32x32xi8>
  %bs = tile.splat %b : !tile.ptr<i8> -> tensor<32x32x!tile.ptr<i8>>
  %bp = tile.addptr %bs, %offs : tensor<32x32x!tile.ptr<i8>>, tensor<32x32xi32>
  %bv = tile.load %bp : tensor<32x32x!tile.ptr<i8>> -> tensor<32x32xi8>
  %zero = arith.constant dense<0> : tensor<32x32xi32>
  %d = tile.dot %av, %bv, %zero : tensor<32x32xi8>, tensor<32x32xi8> -> tensor<32x32xi32>
  %os = tile.splat %out : !tile.ptr<i32> -> tensor<32x32x!tile.ptr<i32>>
  %op = tile.addptr %os, %offs : tensor<32x32x!tile.ptr<i32>>, tensor<32x32xi32>
  tile.store %op, %d : tensor<32x32x!tile.ptr<i32>>, tensor<32x32xi32>
  return
}

func.func @dot_i8_as_f16(%a: !tile.ptr<i8>, %b: !tile.ptr<i8>, %out: !tile.ptr<f32>) {
  %r = tile.range 0 to 32 : tensor<32xi32>
  %rows = tile.expand_dims %r axis 1 : tensor<32xi32> -> tensor<32x1xi32>
  %cols = tile.expand_dims %r axis 0 : tensor<32xi32> -> tensor<1x32xi32>
  %cn = arith.constant dense<32> : tensor<32x1xi32>
  %ro = arith.muli %rows, %cn : tensor<32x1xi32>
  %rob = tile.broadcast %ro : tensor<32x1xi32> -> tensor<32x32xi32>
  %cob = tile.broadcast %cols : tensor<1x32xi32> -> tensor<32x32xi32>
  %offs = arith.addi %rob, %cob : tensor<32x32xi32>
  %as = tile.splat %a : !tile.ptr<i8> -> tensor<32x32x!tile.ptr<i8>>
  %ap = tile.addptr %as, %offs : tensor<32x32x!tile.ptr<i8>>, tensor<32x32xi32>
  %av = tile.load %ap : tensor<32x32x!tile.ptr<i8>> -> tensor<32x32xi8>
  %aw = arith.sitofp %av : tensor<32x32xi8> to tensor<32x32xf16>
  %bs = tile.splat %b : !tile.ptr<i8> -> tensor<32x32x!tile.ptr<i8>>
  %bp = tile.addptr %bs, %offs : tensor<32x32x!tile.ptr<i8>>, tensor<32x32xi32>
  %bv = tile.load %bp : tensor<32x32x!tile.ptr<i8>> -> tensor<32x32xi8>
  %bw = arith.sitofp %bv : tensor<32x32xi8> to tensor<32x32xf16>
  %zero = arith.constant dense<0.0> : tensor<32x32xf32>
  %d = tile.dot %aw, %bw, %zero : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
  %os = tile.splat %out : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>>
  %op = tile.addptr %os, %offs : tensor<32x32x!tile.ptr<f32>>, tensor<32x32xi32>
  tile.store %op, %d : tensor<32x32x!tile.ptr<f32>>, tensor<32x32xf32>
  return
}
