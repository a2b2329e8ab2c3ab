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
// expected-error @+1 {{'func.func' op has a tile of dynamic shape 'tensor<?xf32>': tiles have static shapes on the GPU}}
func.func @dynamic(%x: tensor<?xf32>) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}
