// RUN: kiln-translate %s --emit=ptx --split-input-file --verify-diagnostics
// A kernel takes scalars and pointers. A tile argument became one 4-byte
// parameter that every thread took as its own registers of the tile (so
// each stored a different value): refused at the kernel boundary.

// expected-error @+1 {{'func.func' op target nvptx: kernel argument 0 is a tile ('tensor<16xf32>'); a kernel takes scalars and pointers (pass a pointer and load the tile)}}
func.func @k(%t: tensor<16xf32>, %p: !tile.ptr<f32>) {
  %r = tile.range 0 to 16 : tensor<16xi32>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<16x!tile.ptr<f32>>
  %a = tile.addptr %ps, %r : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
  tile.store %a, %t : tensor<16x!tile.ptr<f32>>, tensor<16xf32>
  return
}

// -----

// expected-error @+1 {{kernel argument 1 is a tile ('tensor<4x!tile.ptr<f32>>')}}
func.func @pointers(%v: f32, %ps: tensor<4x!tile.ptr<f32>>) {
  %vs = tile.splat %v : f32 -> tensor<4xf32>
  tile.store %ps, %vs : tensor<4x!tile.ptr<f32>>, tensor<4xf32>
  return
}
