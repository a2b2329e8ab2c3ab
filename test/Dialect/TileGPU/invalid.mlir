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
