// RUN: kiln-opt %s -convert-elementwise-to-linalg -kiln-fuse=report -o /dev/null | FileCheck %s
// RUN: kiln-opt %s -convert-elementwise-to-linalg -kiln-cost-report=dynamic-size=1048576 -o /dev/null | FileCheck %s --check-prefix=MILLION
// RUN: not kiln-opt %s -kiln-cost-report=dynamic-size=0 -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not kiln-opt %s -kiln-fuse="report dynamic-size=-3" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD-FUSE

// cos(cos(x)) on N dynamic fp32 elements: the report counts N as the
// dynamic size it was given (1024 by default) and says so, so the saving
// reads as 16 N bytes in 2 kernels before fusion and 8 N after.
// CHECK: before kiln-fuse:
// CHECK: kiln cost report: @coscos on h100 ({{.*}} FLOP/B), each dynamic dimension taken as 1024
// CHECK: kernel linalg.generic: 1024 FLOPs, 8192 bytes
// CHECK: total: 2 kernels, 2048 FLOPs, 16384 bytes
// CHECK: after kiln-fuse:
// CHECK: kernel @coscos_kernel0: 2048 FLOPs, 8192 bytes
// CHECK: total: 1 kernels, 2048 FLOPs, 8192 bytes
// MILLION: each dynamic dimension taken as 1048576
// MILLION: total: 2 kernels, 2097152 FLOPs, 16777216 bytes
// BAD: error: dynamic-size must be positive, not 0
// BAD-FUSE: error: dynamic-size must be positive, not -3
func.func @coscos(%x: tensor<?xf32>) -> tensor<?xf32> {
  %a = math.cos %x : tensor<?xf32>
  %b = math.cos %a : tensor<?xf32>
  return %b : tensor<?xf32>
}
