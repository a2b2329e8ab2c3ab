// RUN: kiln-opt %s -split-input-file -kiln-convert-tile-to-gpu -verify-diagnostics


// A copy through a pointer that is not a listed tensor-map parameter.
module attributes {tilegpu.num_warps = 4 : i32} {
  func.func @unlisted(%map: !tile.ptr<i8, 0>, %bp: !tile.block_ptr<64x64xf16>, %s: i32, %p: i1) {
    %buf = tilegpu.local_alloc : memref<3x64x64xf16, 3>
    %bars = tilegpu.local_alloc : memref<3xi64, 3>
    // expected-error @+2 {{failed to legalize operation 'tilegpu.tensor_map_copy'}}
    // expected-error @+1 {{'tilegpu.tensor_map_copy' op target nvptx: the tensor map is not a kernel parameter listed in tilegpu.tensor_maps}}
    tilegpu.tensor_map_copy %map, %bp into %buf[%s], %bars if %p : !tile.ptr<i8, 0>, !tile.block_ptr<64x64xf16>, memref<3x64x64xf16, 3>, memref<3xi64, 3>
    return
  }
}

// -----

// A map whose boxes are not the slot's slabs.
module attributes {tilegpu.num_warps = 4 : i32} {
  func.func @wrong_box(%a: !tile.ptr<f16>, %map: !tile.ptr<i8, 0>, %bp: !tile.block_ptr<64x64xf16>, %s: i32, %p: i1)
      attributes {tilegpu.tensor_maps = [#tilegpu.tensor_map<argument = 1, elementType = f16, box = [64, 32], swizzle = 64, sources = [0, -1, -1, -1], values = [8, 64, 64, 64]>]} {
    %buf = tilegpu.local_alloc : memref<3x64x64xf16, 3>
    %bars = tilegpu.local_alloc : memref<3xi64, 3>
    // expected-error @+2 {{failed to legalize operation 'tilegpu.tensor_map_copy'}}
    // expected-error @+1 {{'tilegpu.tensor_map_copy' op target nvptx: the tensor map's boxes are not the slabs of the tile's layout (64x64, swizzle 128)}}
    tilegpu.tensor_map_copy %map, %bp into %buf[%s], %bars if %p : !tile.ptr<i8, 0>, !tile.block_ptr<64x64xf16>, memref<3x64x64xf16, 3>, memref<3xi64, 3>
    return
  }
}
