// RUN: kiln-opt %s -tile-assign-layouts -kiln-convert-tile-to-gpu | FileCheck %s
// RUN: %if ptxas %{ kiln-translate %s --emit=cubin --chip=sm_80 -o /dev/null %}
// RUN: %if ptxas %{ kiln-translate %s --emit=cubin --chip=sm_90a -o /dev/null %}

// A store beside a tensor-core dot takes its accumulator's layout, so its
// pointers are converted to it (Triton's `tl.dot(a, b)` stored with
// `.to(tl.float64)`); a 2-D tile of pointers moves through shared memory
// as the i64 registers it is held in (it failed to convert, truncating an
// i64 to a pointer).
// CHECK-LABEL: gpu.func @pointers_beside_a_dot
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : i64, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<3> -> i64
func.func @pointers_beside_a_dot(%arg0: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %arg1: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                                 %arg2: !tile.ptr<f64> {tile.divisibility = 16 : i64}, %arg3: !tile.ptr<i32> {tile.divisibility = 16 : i64}) {
  %v0 = tile.range 0 to 16 : tensor<16xi32>
  %v1 = tile.expand_dims %v0 axis 1 : tensor<16xi32> -> tensor<16x1xi32>
  %v2 = tile.range 0 to 16 : tensor<16xi32>
  %v3 = tile.expand_dims %v2 axis 0 : tensor<16xi32> -> tensor<1x16xi32>
  %v4 = arith.constant 16 : i32
  %v5 = tile.splat %v4 : i32 -> tensor<16x1xi32>
  %v6 = arith.muli %v1, %v5 : tensor<16x1xi32>
  %v7 = tile.splat %arg0 : !tile.ptr<f16> -> tensor<16x1x!tile.ptr<f16>>
  %v8 = tile.addptr %v7, %v6 : tensor<16x1x!tile.ptr<f16>>, tensor<16x1xi32>
  %v9 = tile.broadcast %v8 : tensor<16x1x!tile.ptr<f16>> -> tensor<16x16x!tile.ptr<f16>>
  %v10 = tile.broadcast %v3 : tensor<1x16xi32> -> tensor<16x16xi32>
  %v11 = tile.addptr %v9, %v10 : tensor<16x16x!tile.ptr<f16>>, tensor<16x16xi32>
  %v12 = tile.load %v11 : tensor<16x16x!tile.ptr<f16>> -> tensor<16x16xf16>
  %v13 = arith.constant 16 : i32
  %v14 = tile.splat %v13 : i32 -> tensor<16x1xi32>
  %v15 = arith.muli %v1, %v14 : tensor<16x1xi32>
  %v16 = tile.splat %arg1 : !tile.ptr<f16> -> tensor<16x1x!tile.ptr<f16>>
  %v17 = tile.addptr %v16, %v15 : tensor<16x1x!tile.ptr<f16>>, tensor<16x1xi32>
  %v18 = tile.broadcast %v17 : tensor<16x1x!tile.ptr<f16>> -> tensor<16x16x!tile.ptr<f16>>
  %v19 = tile.broadcast %v3 : tensor<1x16xi32> -> tensor<16x16xi32>
  %v20 = tile.addptr %v18, %v19 : tensor<16x16x!tile.ptr<f16>>, tensor<16x16xi32>
  %v21 = tile.load %v20 : tensor<16x16x!tile.ptr<f16>> -> tensor<16x16xf16>
  %v22 = arith.constant dense<0.0> : tensor<16x16xf32>
  %v23 = tile.dot %v12, %v21, %v22 : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
  %v24 = arith.constant 32 : i32
  tile.store %arg3, %v24 : !tile.ptr<i32>, i32
  %v25 = arith.constant 16 : i32
  %v26 = tile.splat %v25 : i32 -> tensor<16x1xi32>
  %v27 = arith.muli %v1, %v26 : tensor<16x1xi32>
  %v28 = tile.splat %arg2 : !tile.ptr<f64> -> tensor<16x1x!tile.ptr<f64>>
  %v29 = tile.addptr %v28, %v27 : tensor<16x1x!tile.ptr<f64>>, tensor<16x1xi32>
  %v30 = tile.broadcast %v29 : tensor<16x1x!tile.ptr<f64>> -> tensor<16x16x!tile.ptr<f64>>
  %v31 = tile.broadcast %v3 : tensor<1x16xi32> -> tensor<16x16xi32>
  %v32 = tile.addptr %v30, %v31 : tensor<16x16x!tile.ptr<f64>>, tensor<16x16xi32>
  %v33 = arith.extf %v23 : tensor<16x16xf32> to tensor<16x16xf64>
  tile.store %v32, %v33 : tensor<16x16x!tile.ptr<f64>>, tensor<16x16xf64>
  return
}
