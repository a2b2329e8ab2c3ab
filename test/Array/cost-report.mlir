// RUN: kiln-opt %s -convert-elementwise-to-linalg -kiln-fuse=report -o /dev/null | FileCheck %s
// RUN: kiln-opt %s -convert-elementwise-to-linalg -kiln-cost-report=target=a100 -o /dev/null | FileCheck %s --check-prefix=A100
// RUN: kiln-opt %s -kiln-cost-report="target=h200 bandwidth-tbps=1" -o /dev/null | FileCheck %s --check-prefix=OVERRIDE
// RUN: not kiln-opt %s -kiln-cost-report=target=v100 2>&1 | FileCheck %s --check-prefix=BAD

// cos(cos(x)) on N = 1M fp32 elements: 16 N bytes in 2 kernels before
// fusion, 8 N bytes in 1 kernel after.
// CHECK: before kiln-fuse:
// CHECK: kiln cost report: @coscos on h100 (67 TFLOP/s fp32, 989 TFLOP/s tensor cores, 3.35 TB/s, ridge 20.0 FLOP/B)
// CHECK: kernel linalg.generic: 1048576 FLOPs, 8388608 bytes, 0.12 FLOP/B, memory-bound
// CHECK: kernel linalg.generic: 1048576 FLOPs, 8388608 bytes, 0.12 FLOP/B, memory-bound
// CHECK: total: 2 kernels, 2097152 FLOPs, 16777216 bytes; estimated 0.03 us arithmetic, 5.01 us memory, 6.00 us launches: overhead-bound
// CHECK: after kiln-fuse:
// CHECK: kernel @coscos_kernel0: 2097152 FLOPs, 8388608 bytes, 0.25 FLOP/B, memory-bound
// CHECK: total: 1 kernels, 2097152 FLOPs, 8388608 bytes; estimated 0.03 us arithmetic, 2.50 us memory, 3.00 us launches: overhead-bound

// On an A100 the ridge is 19.5 / 2.039 FLOP/B.
// A100: kiln cost report: @coscos on a100 (19.5 TFLOP/s fp32, 312 TFLOP/s tensor cores, 2.039 TB/s, ridge 9.6 FLOP/B)
// A100: total: 2 kernels, 2097152 FLOPs, 16777216 bytes; estimated 0.11 us arithmetic, 8.23 us memory, 6.00 us launches: memory-bound

// Before elementwise ops become linalg, each arith/math op is a kernel.
// OVERRIDE: kiln cost report: @coscos on h200 (67 TFLOP/s fp32, 989 TFLOP/s tensor cores, 1 TB/s, ridge 67.0 FLOP/B)
// OVERRIDE: kernel math.cos: 1048576 FLOPs, 8388608 bytes
// OVERRIDE: total: 2 kernels, 2097152 FLOPs, 16777216 bytes; estimated 0.03 us arithmetic, 16.78 us memory, 6.00 us launches: memory-bound

// BAD: error: unknown target 'v100' (a100, h100 or h200)
func.func @coscos(%x: tensor<1048576xf32>) -> tensor<1048576xf32> {
  %a = math.cos %x : tensor<1048576xf32>
  %b = math.cos %a : tensor<1048576xf32>
  return %b : tensor<1048576xf32>
}

// A matmul's FLOPs are 2 M N K, on the tensor cores for f16 inputs: at
// 4096 cubed it is compute-bound even there (ridge 989 / 3.35 = 295 FLOP/B).
// CHECK: kiln cost report: @mm on h100
// CHECK: kernel @mm_kernel0: 137438953472 FLOPs, 134217728 bytes, 1024.00 FLOP/B, compute-bound
func.func @mm(%a: tensor<4096x4096xf16>, %b: tensor<4096x4096xf16>) -> tensor<4096x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4096x4096xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<4096x4096xf16>, tensor<4096x4096xf16>) outs(%init : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  return %mm : tensor<4096x4096xf32>
}
