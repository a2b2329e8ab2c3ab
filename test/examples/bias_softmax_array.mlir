// RUN: kiln-run %kiln_examples/bias_softmax_array.mlir --kernel=bias_softmax --dims=4096 --init=rand --report | FileCheck %s
// RUN: kiln-run %kiln_examples/bias_softmax_array.mlir --kernel=bias_softmax --dims=64 --init=rand --report | FileCheck %s --check-prefix=SMALL

// The figures docs/array-programs.md explains: seven kernels and 131 MB
// become one kernel that reads x and b and writes y once, memory-bound at
// 4096 rows; every row of the result sums to 1.
// CHECK: before fusion:
// CHECK: each dynamic dimension taken as 4096
// CHECK: total: 7 kernels, 24576000 FLOPs, 131207072 bytes; estimated 0.37 us arithmetic, 39.17 us memory, 21.00 us launches: memory-bound
// CHECK: after fusion:
// CHECK: kernel @bias_softmax_kernel0: 24576000 FLOPs, 32772000 bytes, 0.75 FLOP/B, memory-bound
// CHECK: total: 1 kernels, 24576000 FLOPs, 32772000 bytes; estimated 0.37 us arithmetic, 9.78 us memory, 3.00 us launches: memory-bound
// CHECK: array function bias_softmax on host
// CHECK: input0 f32[4096000]:
// CHECK: result0 f32[4096000]: sum=4096 min=
// At 64 rows the launches bound it.
// SMALL: total: 1 kernels, 384000 FLOPs, 516000 bytes; estimated 0.01 us arithmetic, 0.15 us memory, 3.00 us launches: overhead-bound
// SMALL: result0 f32[64000]: sum=64 min=
