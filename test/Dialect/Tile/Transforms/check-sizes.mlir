// RUN: kiln-opt %s -split-input-file -tile-check-sizes -verify-diagnostics | FileCheck %s
// RUN: not kiln-opt %s -split-input-file -tile-check-sizes=threads=128 2>&1 | FileCheck %s --check-prefix=GPU
// RUN: not kiln-opt %s -split-input-file -kiln-host-lowering 2>&1 | FileCheck %s --check-prefix=HOST
// RUN: not kiln-opt %s -split-input-file -kiln-gpu-lowering 2>&1 | FileCheck %s --check-prefix=GPU-PIPELINE

// Triton's limit holds: 2^20 elements pass, on the host.
// CHECK-LABEL: func.func @limit
func.func @limit(%p: !tile.ptr<f32>) {
  %r = tile.range 0 to 1048576 : tensor<1048576xi32>
  return
}

// -----

func.func @too_many(%p: !tile.ptr<f32>) {
  // expected-error @+1 {{'tile.range' op tile of 2097152 elements ('tensor<2097152xi32>') is more than the 1048576 a tile may have}}
  %r = tile.range 0 to 2097152 : tensor<2097152xi32>
  return
}

// -----

func.func @billion(%v: f32) {
  // expected-error @+1 {{tile of 1073741824 elements ('tensor<32768x32768xf32>') is more than the 1048576 a tile may have}}
  %t = tile.splat %v : f32 -> tensor<32768x32768xf32>
  return
}

// The GPU's per-thread limit: 1024 elements a thread, with 128 threads
// 131072 a tile; the 2^20 tile above is 8192 a thread.
// GPU: error: 'tile.range' op tile of 1048576 elements ('tensor<1048576xi32>') is 8192 per thread with 128 threads, more than the 1024 the GPU lowering takes (use more warps or a smaller block)

// Both targets check before they lower.
// HOST: error: 'tile.range' op tile of 2097152 elements
// HOST: error: 'tile.splat' op tile of 1073741824 elements
// GPU-PIPELINE: error: 'tile.range' op tile of 1048576 elements ('tensor<1048576xi32>') is 8192 per thread with 128 threads
