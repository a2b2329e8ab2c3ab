// RUN: kiln-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{invalid blocked layout: order must be a permutation of the dimensions}}
func.func private @order(tensor<4x4xf32, #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [0, 0]}>>)

// -----

// expected-error @+1 {{invalid blocked layout: sizePerThread, threadsPerWarp, warpsPerCTA and order must have one rank}}
func.func private @ranks(tensor<4x4xf32, #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>>)

// -----

// expected-error @+1 {{invalid blocked layout: sizes must be positive}}
func.func private @sizes(tensor<4xf32, #tilegpu.blocked<{sizePerThread = [0], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>)


// -----

// expected-error @+1 {{slice dimension 2 is out of range for a parent of rank 2}}
func.func private @slice_dim(tensor<4xf32, #tilegpu.slice<{dim = 2, parent = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>}>>)

// -----

// expected-error @+1 {{a slice needs a parent of rank 2 or more}}
func.func private @slice_rank(tensor<f32, #tilegpu.slice<{dim = 0, parent = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>}>>)

// -----

#a = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @convert_shape(%x: tensor<512xf32, #a>) {
  // The types print in full, with their layouts; the shapes differ.
  // expected-error-re @+1 {{'tilegpu.convert_layout' op converts 'tensor<512xf32, {{.*}}>' to 'tensor<256xf32, {{.*}}>': only the layout may change}}
  %y = tilegpu.convert_layout %x : tensor<512xf32, #a> -> tensor<256xf32, #a>
  return
}

// -----

#a = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @convert_unlaid(%x: tensor<512xf32, #a>) {
  // expected-error @+1 {{'tilegpu.convert_layout' op type 'tensor<512xf32>' has no distributed layout encoding}}
  %y = tilegpu.convert_layout %x : tensor<512xf32, #a> -> tensor<512xf32>
  return
}
