// RUN: kiln-opt %s -kiln-convert-tile-to-gpu | FileCheck %s

// ldmatrix loads of mma.sync operands from swizzled slots: a load whose
// address is an earlier load's plus one constant in every thread (checked
// over all threads when compiling) is addressed from it, the constant
// folding into the instruction, so a K loop keeps only the distinct
// addresses live, as Triton's does (the corpus's matmul_split_k: 6
// addresses for 16 loads, 96 registers where it took 106).
// A, 16x128 (two 128-byte slabs of 16 rows): its 8 K steps take 4
// addresses, those of the second slab being the first's plus 2048 bytes.
// CHECK-LABEL: gpu.func @operands
// CHECK: %[[SLOT:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK: %[[A0:.*]] = llvm.getelementptr %[[SLOT]][%{{.*}}] : (!llvm.ptr<3>, i32)
// CHECK-NEXT: nvvm.ldmatrix %[[A0]]
// CHECK: %[[A1:.*]] = llvm.getelementptr %[[SLOT]][%{{.*}}] : (!llvm.ptr<3>, i32)
// CHECK-NEXT: nvvm.ldmatrix %[[A1]]
// CHECK: %[[A2:.*]] = llvm.getelementptr %[[SLOT]][%{{.*}}] : (!llvm.ptr<3>, i32)
// CHECK-NEXT: nvvm.ldmatrix %[[A2]]
// CHECK: %[[A3:.*]] = llvm.getelementptr %[[SLOT]][%{{.*}}] : (!llvm.ptr<3>, i32)
// CHECK-NEXT: nvvm.ldmatrix %[[A3]]
// CHECK: llvm.getelementptr %[[A0]][2048] : (!llvm.ptr<3>)
// CHECK: llvm.getelementptr %[[A1]][2048] : (!llvm.ptr<3>)
// CHECK: llvm.getelementptr %[[A2]][2048] : (!llvm.ptr<3>)
// CHECK: llvm.getelementptr %[[A3]][2048] : (!llvm.ptr<3>)
// B, 64x16 read transposed: each 8-column block's two loads (K 0-31,
// 32-63) take one address, the second 1024 bytes (32 rows) on.
// CHECK: %[[BSLOT:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK: %[[B0:.*]] = llvm.getelementptr %[[BSLOT]][%{{.*}}] : (!llvm.ptr<3>, i32)
// CHECK-NEXT: nvvm.ldmatrix %[[B0]]
// CHECK: llvm.getelementptr %[[B0]][1024] : (!llvm.ptr<3>)
// CHECK: %[[B1:.*]] = llvm.getelementptr %[[BSLOT]][%{{.*}}] : (!llvm.ptr<3>, i32)
// CHECK-NEXT: nvvm.ldmatrix %[[B1]]
// CHECK: llvm.getelementptr %[[B1]][1024] : (!llvm.ptr<3>)
// CHECK-COUNT-4: llvm.store
#mma = #tilegpu.mma<{warpsPerCTA = [1, 1]}>
#a = #tilegpu.dot_operand<{opIdx = 0, parent = #mma, kWidth = 2}>
#b = #tilegpu.dot_operand<{opIdx = 1, parent = #mma, kWidth = 2}>
module attributes {tilegpu.num_warps = 1 : i64} {
func.func @operands(%out: !tile.ptr<f16>, %outb: !tile.ptr<f16>, %s: i32) {
  %buf = tilegpu.local_alloc : memref<2x16x128xf16, 3>
  %v = tilegpu.local_load %buf[%s] : memref<2x16x128xf16, 3> -> tensor<16x128xf16, #a>
  %p = tile.splat %out : !tile.ptr<f16> -> tensor<16x128x!tile.ptr<f16>, #a>
  tile.store %p, %v : tensor<16x128x!tile.ptr<f16>, #a>, tensor<16x128xf16, #a>
  %bbuf = tilegpu.local_alloc : memref<2x64x16xf16, 3>
  %w = tilegpu.local_load %bbuf[%s] : memref<2x64x16xf16, 3> -> tensor<64x16xf16, #b>
  %q = tile.splat %outb : !tile.ptr<f16> -> tensor<64x16x!tile.ptr<f16>, #b>
  tile.store %q, %w : tensor<64x16x!tile.ptr<f16>, #b>, tensor<64x16xf16, #b>
  return
}
}
