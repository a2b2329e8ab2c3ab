// RUN: kiln-opt %s -split-input-file -kiln-convert-tile-to-host -verify-diagnostics

// expected-error @+1 {{a tile kernel returns nothing, but 'returns_value' returns 1 value(s)}}
func.func @returns_value(%x: i32) -> i32 {
  return %x : i32
}

// -----

func.func @fp8_dot(%a: tensor<16x16xf8E4M3FN>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'tile.dot' op has 8-bit float inputs, which tile-expand-float8 widens first}}
  %0 = tile.dot %a, %a, %c : tensor<16x16xf8E4M3FN>, tensor<16x16xf8E4M3FN> -> tensor<16x16xf32>
  return
}

// -----

// The GPU passes' ops are below the level the host runs: refused by name,
// not left half-converted (found by kiln-fuzz-opt on the TMA tests).
func.func @gpu_level(%map: !tile.ptr<i8, 0>, %bp: !tile.block_ptr<64x64xf16>, %s: i32, %p: i1) {
  // expected-error @+1 {{'tilegpu.local_alloc' op is GPU-level IR (made by the GPU passes), which the host target does not run}}
  %buf = tilegpu.local_alloc : memref<3x64x64xf16, 3>
  // expected-error @+1 {{'tilegpu.local_alloc' op is GPU-level IR (made by the GPU passes), which the host target does not run}}
  %bars = tilegpu.local_alloc : memref<3xi64, 3>
  // expected-error @+1 {{'tilegpu.tensor_map_copy' op is GPU-level IR (made by the GPU passes), which the host target does not run}}
  tilegpu.tensor_map_copy %map, %bp into %buf[%s], %bars if %p : !tile.ptr<i8, 0>, !tile.block_ptr<64x64xf16>, memref<3x64x64xf16, 3>, memref<3xi64, 3>
  return
}

// -----

// PTX has no meaning on the CPU: refused where it is written, scalar or
// tile.
func.func @inline_asm(%x: i32, %t: tensor<64xi8>) {
  // expected-error @+1 {{inline PTX assembly (tile.inline_asm_elementwise) runs on the GPU target only}}
  %0 = tile.inline_asm_elementwise "shl.b32 $0, $1, 3;", "=r,r" pure %x : (i32) -> i32
  // expected-error @+1 {{inline PTX assembly (tile.inline_asm_elementwise) runs on the GPU target only}}
  %1 = tile.inline_asm_elementwise "prmt.b32 $0, $1, 0, 0x0123;", "=r,r" pure pack = 4 %t : (tensor<64xi8>) -> tensor<64xi8>
  return
}

// -----

// A libdevice function without a C math library's (no `host`) runs on the
// GPU only.
func.func @extern_without_host(%x: tensor<16xf32>) {
  // expected-error @+1 {{__nv_erfinvf has no host implementation (no C math library function): it runs on the GPU target only}}
  %y = tile.extern_elementwise "__nv_erfinvf" pure %x : (tensor<16xf32>) -> tensor<16xf32>
  tile.print "y", %y : tensor<16xf32>
  return
}
