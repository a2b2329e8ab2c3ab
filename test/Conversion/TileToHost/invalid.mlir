// RUN: kiln-opt %s -split-input-file -kiln-convert-tile-to-host -verify-diagnostics

func.func @block_pointers(%p: !tile.ptr<f32>, %n: i64, %o: i32) {
  // expected-error @+1 {{'tile.make_block_ptr' op has no lowering for the host target yet}}
  %bp = tile.make_block_ptr %p, [%n], [%n], [%o] {order = array<i32: 0>}
      : !tile.ptr<f32> -> !tile.block_ptr<8xf32>
  // expected-error @+1 {{'tile.block_load' op has no lowering for the host target yet}}
  %t = tile.block_load %bp : !tile.block_ptr<8xf32> -> tensor<8xf32>
  return
}

// -----

// expected-error @+1 {{a tile kernel returns nothing, but 'returns_value' returns 1 value(s)}}
func.func @returns_value(%x: i32) -> i32 {
  return %x : i32
}
