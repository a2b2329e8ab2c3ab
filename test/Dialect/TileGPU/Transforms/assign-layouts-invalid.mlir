// RUN: kiln-opt %s -split-input-file -tile-assign-layouts -verify-diagnostics

// expected-error @+1 {{tiles already have layouts: tile-assign-layouts runs once, on tile IR without encodings}}
module {
  func.func @twice() -> () {
    %r = tile.range 0 to 32 : tensor<32xi32, #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>
    return
  }
}

// -----

// RUN: not kiln-opt %s -tile-assign-layouts=num-warps=0 2>&1 | FileCheck %s --check-prefix=WARPS
// WARPS: error: num-warps and threads-per-warp must be positive

// -----

// Found by kiln-fuzz-opt: a dynamic shape reached the layout arithmetic.
// expected-error @+1 {{'func.func' op has a tensor of dynamic shape 'tensor<?xf32>': tiles on the GPU have static shapes of at least one dimension and one element (a scalar is written as one)}}
func.func @dynamic(%x: tensor<?xf32>) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}

// -----

// Found by the GPU-lowering mutation sweep: a 0-D tensor reached the layout
// arithmetic.
func.func @scalar_tensor(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'math.cos' op makes a tensor of rank 0 'tensor<f32>': tiles on the GPU have static shapes of at least one dimension}}
  %y = math.cos %x : tensor<f32>
  return %y : tensor<f32>
}

// -----

// Found by kiln-fuzz-opt: a tensor of no elements reached the layout
// arithmetic (a division by zero).
// expected-error @+1 {{'func.func' op has a tensor of no elements 'tensor<0xf32>': tiles on the GPU have static shapes of at least one dimension and one element}}
func.func @empty(%a: tensor<0xf32>, %b: tensor<4xi32>) {
  return
}
