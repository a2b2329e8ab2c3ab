// RUN: kiln-opt %s -kiln-fuse -kiln-tile -canonicalize | FileCheck %s
// RUN: kiln-run %s --kernel=attention_scores --init=iota | FileCheck %s --check-prefix=HOST
// RUN: kiln-opt %s -kiln-fuse -kiln-tile -canonicalize "-symbol-privatize=exclude=attention_scores_kernel0_tile,half_kernel0_tile,double_kernel0_tile" -symbol-dce -o %t.mlir
// RUN: kiln-translate %t.mlir --chip=sm_80 | FileCheck %s --check-prefix=PTX
// RUN: %if ptxas %{ kiln-translate %t.mlir --chip=sm_80 | %ptxas -arch=sm_80 -v 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: %if ptxas %{ kiln-translate %t.mlir --chip=sm_90a | %ptxas -arch=sm_90a -v 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// A batched matmul (linalg.batch_matmul) is a matmul kernel whose
// programs each take one [block-m, block-n] block of one batch, batches
// one after another (here 2 blocks a batch), each operand and the result
// advanced by the batch's stride: q @ k^T per batch (k read transposed in
// place, its prologue) with its epilogue (a scale), one kernel.
// CHECK-LABEL: func.func @attention_scores_kernel0_tile
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : i32
// CHECK-DAG: %[[QSTRIDE:.*]] = arith.constant 1120 : i32
// CHECK-DAG: %[[KSTRIDE:.*]] = arith.constant 640 : i32
// CHECK-DAG: %[[SSTRIDE:.*]] = arith.constant 2800 : i32
// CHECK: %[[PID:.*]] = tile.program_id x
// CHECK: %[[BATCH:.*]] = arith.divui %[[PID]], %[[C2]]
// CHECK: arith.remui %[[PID]], %[[C2]]
// CHECK-DAG: arith.muli %[[BATCH]], %[[QSTRIDE]]
// CHECK-DAG: arith.muli %[[BATCH]], %[[KSTRIDE]]
// CHECK: tile.dot
// CHECK: arith.muli %[[BATCH]], %[[SSTRIDE]]
// CHECK: tile.store
// CHECK-LABEL: func.func @attention_scores(
// CHECK: plan.launch @attention_scores_kernel0_tile[%c6_i64]
//
// Inputs 0, 1, 2, ...: numpy gives a sum of 7.0202770e+10, values from
// 310 to 25625654, the first 310, 790, 1270, 1750.
// HOST: result0 f32[8400]: sum=7.02028e+10 min=310 max=2.56257e+07 first=[310, 790, 1270, 1750]
//
// On tensor cores (f16 operands, an f32 accumulator) and with the FMA
// product of float64; each assembles for sm_80 and sm_90a without spills.
// PTX-LABEL: .entry half_kernel0_tile(
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// PTX-LABEL: .entry double_kernel0_tile(
// PTX-NOT: mma.sync
// PTX: fma.rn.f64
// PTXAS-COUNT-3: 0 bytes spill stores, 0 bytes spill loads
func.func @attention_scores(%q: tensor<3x70x16xf32>, %k: tensor<3x40x16xf32>) -> tensor<3x70x40xf32> {
  %et = tensor.empty() : tensor<3x16x40xf32>
  %kt = linalg.transpose ins(%k : tensor<3x40x16xf32>) outs(%et : tensor<3x16x40xf32>) permutation = [0, 2, 1]
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x70x40xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3x70x40xf32>) -> tensor<3x70x40xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<3x70x16xf32>, tensor<3x16x40xf32>) outs(%f : tensor<3x70x40xf32>) -> tensor<3x70x40xf32>
  %quarter = arith.constant 0.25 : f32
  %e2 = tensor.empty() : tensor<3x70x40xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<3x70x40xf32>) outs(%e2 : tensor<3x70x40xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = arith.mulf %v, %quarter : f32
    linalg.yield %t : f32
  } -> tensor<3x70x40xf32>
  return %r : tensor<3x70x40xf32>
}

func.func @half(%a: tensor<4x64x32xf16>, %b: tensor<4x32x64xf16>) -> tensor<4x64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x64x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
  %p = linalg.batch_matmul ins(%a, %b : tensor<4x64x32xf16>, tensor<4x32x64xf16>) outs(%f : tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
  return %p : tensor<4x64x64xf32>
}

func.func @double(%a: tensor<2x20x30xf64>, %b: tensor<2x30x10xf64>) -> tensor<2x20x10xf64> {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<2x20x10xf64>
  %f = linalg.fill ins(%zero : f64) outs(%e : tensor<2x20x10xf64>) -> tensor<2x20x10xf64>
  %p = linalg.batch_matmul ins(%a, %b : tensor<2x20x30xf64>, tensor<2x30x10xf64>) outs(%f : tensor<2x20x10xf64>) -> tensor<2x20x10xf64>
  return %p : tensor<2x20x10xf64>
}
