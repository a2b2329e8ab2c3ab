// RUN: kiln-opt %s -tile-assign-layouts="compute-capability=90 arch-specific=1" | FileCheck %s
// RUN: %if ptxas %{ kiln-translate %s --emit=cubin --chip=sm_80 -o /dev/null %}
// RUN: %if ptxas %{ kiln-translate %s --emit=cubin --chip=sm_90a -o /dev/null %}

// Two chained 16-row dots on four warps (a 16x16 block of attention):
// the scores' mma layout splits its warps 2 x 2, over 32 rows, so their
// row maxima and sums cannot run on it, and run on a blocked layout. The
// second dot's accumulator, whose row sums divide it, split its warps
// 1 x 4; the scores' group took that layout from its slices, and the
// reductions on it failed to compile.
// CHECK-DAG: #[[$BLOCKED:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-DAG: #[[$SCORES:mma[0-9]*]] = #tilegpu.mma<{warpsPerCTA = [2, 2]}>
// CHECK-LABEL: func.func @small_attention
// CHECK: tile.dot {{.*}} -> tensor<16x16xf32, #[[$SCORES]]>
// CHECK: tile.reduce %{{.*}} axis 1 : tensor<16x16xf32, #[[$BLOCKED]]>
// CHECK: tile.dot
// CHECK: tile.reduce %{{.*}} axis 1 : tensor<16x16xf32, #[[$BLOCKED]]>
func.func @small_attention(%arg0: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                           %arg1: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                           %arg2: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                           %arg3: !tile.ptr<f32> {tile.divisibility = 16 : i64}) {
  %v0 = tile.range 0 to 16 : tensor<16xi32>
  %v1 = tile.range 0 to 16 : tensor<16xi32>
  %v2 = tile.range 0 to 32 : tensor<32xi32>
  %v3 = tile.expand_dims %v0 axis 1 : tensor<16xi32> -> tensor<16x1xi32>
  %v4 = arith.constant 32 : i32
  %v5 = tile.splat %v4 : i32 -> tensor<16x1xi32>
  %v6 = arith.muli %v3, %v5 : tensor<16x1xi32>
  %v7 = tile.splat %arg0 : !tile.ptr<f16> -> tensor<16x1x!tile.ptr<f16>>
  %v8 = tile.addptr %v7, %v6 : tensor<16x1x!tile.ptr<f16>>, tensor<16x1xi32>
  %v9 = tile.expand_dims %v2 axis 0 : tensor<32xi32> -> tensor<1x32xi32>
  %v10 = tile.broadcast %v8 : tensor<16x1x!tile.ptr<f16>> -> tensor<16x32x!tile.ptr<f16>>
  %v11 = tile.broadcast %v9 : tensor<1x32xi32> -> tensor<16x32xi32>
  %v12 = tile.addptr %v10, %v11 : tensor<16x32x!tile.ptr<f16>>, tensor<16x32xi32>
  %v13 = tile.load %v12 : tensor<16x32x!tile.ptr<f16>> -> tensor<16x32xf16>
  %v14 = tile.expand_dims %v1 axis 0 : tensor<16xi32> -> tensor<1x16xi32>
  %v15 = arith.constant 32 : i32
  %v16 = tile.splat %v15 : i32 -> tensor<1x16xi32>
  %v17 = arith.muli %v14, %v16 : tensor<1x16xi32>
  %v18 = tile.splat %arg1 : !tile.ptr<f16> -> tensor<1x16x!tile.ptr<f16>>
  %v19 = tile.addptr %v18, %v17 : tensor<1x16x!tile.ptr<f16>>, tensor<1x16xi32>
  %v20 = tile.expand_dims %v2 axis 1 : tensor<32xi32> -> tensor<32x1xi32>
  %v21 = tile.broadcast %v19 : tensor<1x16x!tile.ptr<f16>> -> tensor<32x16x!tile.ptr<f16>>
  %v22 = tile.broadcast %v20 : tensor<32x1xi32> -> tensor<32x16xi32>
  %v23 = tile.addptr %v21, %v22 : tensor<32x16x!tile.ptr<f16>>, tensor<32x16xi32>
  %v24 = tile.load %v23 : tensor<32x16x!tile.ptr<f16>> -> tensor<32x16xf16>
  %v25 = tile.expand_dims %v1 axis 1 : tensor<16xi32> -> tensor<16x1xi32>
  %v26 = arith.constant 32 : i32
  %v27 = tile.splat %v26 : i32 -> tensor<16x1xi32>
  %v28 = arith.muli %v25, %v27 : tensor<16x1xi32>
  %v29 = tile.splat %arg2 : !tile.ptr<f16> -> tensor<16x1x!tile.ptr<f16>>
  %v30 = tile.addptr %v29, %v28 : tensor<16x1x!tile.ptr<f16>>, tensor<16x1xi32>
  %v31 = tile.expand_dims %v2 axis 0 : tensor<32xi32> -> tensor<1x32xi32>
  %v32 = tile.broadcast %v30 : tensor<16x1x!tile.ptr<f16>> -> tensor<16x32x!tile.ptr<f16>>
  %v33 = tile.broadcast %v31 : tensor<1x32xi32> -> tensor<16x32xi32>
  %v34 = tile.addptr %v32, %v33 : tensor<16x32x!tile.ptr<f16>>, tensor<16x32xi32>
  %v35 = tile.load %v34 : tensor<16x32x!tile.ptr<f16>> -> tensor<16x32xf16>
  %v36 = arith.constant dense<0.0> : tensor<16x16xf32>
  %v37 = tile.dot %v13, %v24, %v36 : tensor<16x32xf16>, tensor<32x16xf16> -> tensor<16x16xf32>
  %v38 = tile.reduce %v37 axis 1 : tensor<16x16xf32> -> tensor<16xf32> {
  ^bb0(%a: f32, %b: f32):
    %r = arith.maxnumf %a, %b : f32
    tile.yield %r : f32
  }
  %v39 = tile.expand_dims %v38 axis 1 : tensor<16xf32> -> tensor<16x1xf32>
  %v40 = tile.broadcast %v39 : tensor<16x1xf32> -> tensor<16x16xf32>
  %v41 = arith.subf %v37, %v40 : tensor<16x16xf32>
  %v42 = math.exp %v41 fastmath<afn> : tensor<16x16xf32>
  %v43 = arith.truncf %v42 : tensor<16x16xf32> to tensor<16x16xf16>
  %v44 = arith.constant dense<0.0> : tensor<16x32xf32>
  %v45 = tile.dot %v43, %v35, %v44 : tensor<16x16xf16>, tensor<16x32xf16> -> tensor<16x32xf32>
  %v46 = tile.expand_dims %v0 axis 1 : tensor<16xi32> -> tensor<16x1xi32>
  %v47 = arith.constant 32 : i32
  %v48 = tile.splat %v47 : i32 -> tensor<16x1xi32>
  %v49 = arith.muli %v46, %v48 : tensor<16x1xi32>
  %v50 = tile.splat %arg3 : !tile.ptr<f32> -> tensor<16x1x!tile.ptr<f32>>
  %v51 = tile.addptr %v50, %v49 : tensor<16x1x!tile.ptr<f32>>, tensor<16x1xi32>
  %v52 = tile.expand_dims %v2 axis 0 : tensor<32xi32> -> tensor<1x32xi32>
  %v53 = tile.broadcast %v51 : tensor<16x1x!tile.ptr<f32>> -> tensor<16x32x!tile.ptr<f32>>
  %v54 = tile.broadcast %v52 : tensor<1x32xi32> -> tensor<16x32xi32>
  %v55 = tile.addptr %v53, %v54 : tensor<16x32x!tile.ptr<f32>>, tensor<16x32xi32>
  %v56 = tile.reduce %v42 axis 1 : tensor<16x16xf32> -> tensor<16xf32> {
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    tile.yield %r : f32
  }
  %v57 = tile.expand_dims %v56 axis 1 : tensor<16xf32> -> tensor<16x1xf32>
  %v58 = tile.broadcast %v57 : tensor<16x1xf32> -> tensor<16x32xf32>
  %v59 = arith.divf %v45, %v58 fastmath<arcp> : tensor<16x32xf32>
  tile.store %v55, %v59 : tensor<16x32x!tile.ptr<f32>>, tensor<16x32xf32>
  return
}
