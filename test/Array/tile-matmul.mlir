// RUN: kiln-opt %kiln_examples/matmul_bias_gelu_array.mlir -convert-elementwise-to-linalg -kiln-fuse -kiln-tile -canonicalize | FileCheck %s
// RUN: kiln-opt %kiln_examples/matmul_bias_gelu_array.mlir -convert-elementwise-to-linalg -kiln-fuse -kiln-tile="block-m=32 block-n=128 block-k=64" -canonicalize | FileCheck %s --check-prefix=BLOCKS
// RUN: not kiln-opt %kiln_examples/matmul_bias_gelu_array.mlir -convert-elementwise-to-linalg -kiln-fuse -kiln-tile="block-k=24" 2>&1 | FileCheck %s --check-prefix=BAD
// The registered pipeline does the same, its options kiln-tile's.
// RUN: kiln-opt %kiln_examples/matmul_bias_gelu_array.mlir -pass-pipeline='builtin.module(kiln-array-pipeline)' | FileCheck %s
// RUN: kiln-opt %kiln_examples/matmul_bias_gelu_array.mlir -pass-pipeline='builtin.module(kiln-array-pipeline{block-m=32 block-n=128 block-k=64})' | FileCheck %s --check-prefix=BLOCKS
// RUN: not kiln-opt %kiln_examples/matmul_bias_gelu_array.mlir -pass-pipeline='builtin.module(kiln-array-pipeline{block-q=3})' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: env KILN_CUDA_DRIVER=%kiln_fake_cuda_driver KILN_PTXAS=%t.no-ptxas kiln-run %kiln_examples/matmul_bias_gelu_array.mlir --kernel=mlp --target=gpu --check=none | FileCheck %s --check-prefix=GPU

// docs/examples/matmul_bias_gelu_array.mlir: one kernel, 2 x 3 programs of
// 64x64 blocks of the 100x150 result (ragged); each loops over K = 200 in
// steps of 32: the x block loaded (masked, zeros outside) and cast to f16
// on the way, the w block loaded, one tile.dot; then the bias (a column
// vector, broadcast), the GELU and the cast on the accumulator, and one
// masked store of the f16 block.
// CHECK-LABEL: func.func @mlp_kernel0_tile
// CHECK-SAME: (%[[X:.*]]: !tile.ptr<f32>, %[[W:.*]]: !tile.ptr<f16>, %[[B:.*]]: !tile.ptr<f32>, %[[Y:.*]]: !tile.ptr<f16>)
// CHECK: %[[PID:.*]] = tile.program_id x
// CHECK: arith.divui %[[PID]], %c3_i32
// CHECK: arith.remui %[[PID]], %c3_i32
// CHECK: %[[ACC:.*]] = scf.for %{{.*}} = %c0_i32 to %c200_i32 step %c32_i32 iter_args(%[[A:.*]] = %{{.*}}) -> (tensor<64x64xf32>)
// CHECK:   %[[XB:.*]] = tile.load %{{.*}}, %{{.*}}, other %{{.*}} : tensor<64x32x!tile.ptr<f32>> -> tensor<64x32xf32>
// CHECK:   %[[XH:.*]] = arith.truncf %[[XB]] : tensor<64x32xf32> to tensor<64x32xf16>
// CHECK:   %[[WB:.*]] = tile.load %{{.*}}, %{{.*}}, other %{{.*}} : tensor<32x64x!tile.ptr<f16>> -> tensor<32x64xf16>
// CHECK:   %[[D:.*]] = tile.dot %[[XH]], %[[WB]], %[[A]] : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
// CHECK:   scf.yield %[[D]]
// CHECK: %[[BIAS:.*]] = tile.load %{{.*}}, %{{.*}}, other %{{.*}} : tensor<64x!tile.ptr<f32>> -> tensor<64xf32>
// CHECK: %[[BROW:.*]] = tile.expand_dims %[[BIAS]] axis 0 : tensor<64xf32> -> tensor<1x64xf32>
// CHECK: %[[BB:.*]] = tile.broadcast %[[BROW]] : tensor<1x64xf32> -> tensor<64x64xf32>
// CHECK: arith.addf %[[ACC]], %[[BB]] : tensor<64x64xf32>
// CHECK: math.tanh
// CHECK: %[[OUT:.*]] = arith.truncf %{{.*}} : tensor<64x64xf32> to tensor<64x64xf16>
// CHECK: tile.store %{{.*}}, %[[OUT]], %{{.*}} : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xf16>
// CHECK-NOT: tile.dot
// CHECK-LABEL: func.func @mlp(
// CHECK: plan.launch @mlp_kernel0_tile[%c6_i64](%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : i64, i64, i64, i64

// BLOCKS-LABEL: func.func @mlp_kernel0_tile
// BLOCKS: arith.divui %{{.*}}, %c2_i32
// BLOCKS: scf.for %{{.*}} = %c0_i32 to %c200_i32 step %c64_i32
// BLOCKS: tile.dot %{{.*}} : tensor<32x64xf16>, tensor<64x128xf16> -> tensor<32x128xf32>
// BLOCKS: plan.launch @mlp_kernel0_tile[%c8_i64]
// UNKNOWN: no such option block-q

// BAD: kiln-tile: matmul blocks must be powers of two of at least 16, not 24

// On the GPU (a stand-in driver that loads the PTX): the tile kernel
// compiles, with its dot on tensor cores, and the plan runs.
// GPU: array function mlp on Kiln Fake GPU (sm_90a)
