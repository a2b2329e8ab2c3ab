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

// -----

// expected-error @+1 {{a tile of rank 1 cannot have a layout of rank 2}}
func.func private @rank(tensor<64xf32, #tilegpu.mma<{warpsPerCTA = [2, 2]}>>)

// -----

// expected-error @+1 {{an mma layout needs two positive warp counts}}
func.func private @mma_warps(tensor<64x64xf32, #tilegpu.mma<{warpsPerCTA = [4]}>>)

// -----

// expected-error @+1 {{a dot operand is operand 0 (A) or 1 (B), not 2}}
func.func private @op_index(tensor<64x64xf16, #tilegpu.dot_operand<{opIdx = 2, parent = #tilegpu.mma<{warpsPerCTA = [2, 2]}>, kWidth = 2}>>)

// -----

// expected-error @+1 {{kWidth is a lane's adjacent K elements per group: 1, 2 or 4, not 3}}
func.func private @k_width(tensor<64x64xf16, #tilegpu.dot_operand<{opIdx = 0, parent = #tilegpu.mma<{warpsPerCTA = [2, 2]}>, kWidth = 3}>>)

// -----

func.func @alloc_space() {
  // expected-error @+1 {{allocates static memrefs in address space 3, laid out by identity or with transposed slots (strides [rows * columns, 1, rows]), not 'memref<3x64x32xf16>'}}
  %buf = tilegpu.local_alloc : memref<3x64x32xf16>
  return
}

// -----

// Slots hold their tiles row by row, or column by column; no other strides.
func.func @alloc_strides() {
  // expected-error @+1 {{allocates static memrefs in address space 3, laid out by identity or with transposed slots (strides [rows * columns, 1, rows]), not 'memref<3x64x32xf16, strided<[2048, 1, 32]>, 3>'}}
  %buf = tilegpu.local_alloc : memref<3x64x32xf16, strided<[2048, 1, 32]>, 3>
  return
}

// -----

#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @copy_shape(%p: tensor<64x32x!tile.ptr<f16>, #blocked>, %s: i32) {
  %buf = tilegpu.local_alloc : memref<3x32x64xf16, 3>
  // expected-error @+1 {{a slot of 'memref<3x32x64xf16, 3>' does not hold a tile of 2 dimensions 'f16' of that shape}}
  tilegpu.async_copy %p into %buf[%s] : memref<3x32x64xf16, 3>, tensor<64x32x!tile.ptr<f16>, #blocked>
  return
}

// -----

#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @load_type(%s: i32) -> tensor<64x32xf32, #blocked> {
  %buf = tilegpu.local_alloc : memref<3x64x32xf16, 3>
  // expected-error @+1 {{a slot of 'memref<3x64x32xf16, 3>' does not hold a tile of 2 dimensions 'f32' of that shape}}
  %t = tilegpu.local_load %buf[%s] : memref<3x64x32xf16, 3> -> tensor<64x32xf32, #blocked>
  return %t : tensor<64x32xf32, #blocked>
}

// -----

// expected-error @+1 {{a warpgroup mma layout has its warps along M in fours (warpsPerCTA = [4k, 1]), not [2, 2]}}
func.func private @warpgroup_warps(tensor<64x64xf32, #tilegpu.mma<{warpsPerCTA = [2, 2], warpgroup = true}>>)

// -----

#mma = #tilegpu.mma<{warpsPerCTA = [4, 1]}>
func.func @warpgroup_dot_layout(%acc: tensor<64x64xf32, #mma>, %s: i32) {
  %a = tilegpu.local_alloc : memref<2x64x32xf16, 3>
  %b = tilegpu.local_alloc : memref<2x32x64xf16, 3>
  // expected-error-re @+1 {{'tilegpu.warpgroup_dot' op accumulates into a 2-D tile with a warpgroup mma layout, not 'tensor<64x64xf32, {{.*}}>'}}
  %d = tilegpu.warpgroup_dot %a[%s], %b[%s], %acc : memref<2x64x32xf16, 3>, memref<2x32x64xf16, 3>, tensor<64x64xf32, #mma>
  return
}

// -----

#wg = #tilegpu.mma<{warpsPerCTA = [4, 1], warpgroup = true}>
func.func @warpgroup_dot_types(%acc: tensor<64x64xf32, #wg>, %s: i32) {
  %a = tilegpu.local_alloc : memref<2x64x32xf16, 3>
  %b = tilegpu.local_alloc : memref<2x32x64xbf16, 3>
  // expected-error @+1 {{'tilegpu.warpgroup_dot' op multiplies f16, bf16, f32 (as tf32), i8 or 8-bit float (f8E4M3FN, f8E5M2) operands of one type, not 'f16' and 'bf16'}}
  %d = tilegpu.warpgroup_dot %a[%s], %b[%s], %acc : memref<2x64x32xf16, 3>, memref<2x32x64xbf16, 3>, tensor<64x64xf32, #wg>
  return
}

// -----

#wg = #tilegpu.mma<{warpsPerCTA = [4, 1], warpgroup = true}>
func.func @warpgroup_dot_int8_accumulator(%acc: tensor<64x64xf32, #wg>, %s: i32) {
  %a = tilegpu.local_alloc : memref<2x64x64xi8, 3>
  %b = tilegpu.local_alloc : memref<2x64x64xi8, strided<[4096, 1, 64]>, 3>
  // expected-error @+1 {{'tilegpu.warpgroup_dot' op accumulates 'i8' products in i32, not 'f32'}}
  %d = tilegpu.warpgroup_dot %a[%s], %b[%s], %acc : memref<2x64x64xi8, 3>, memref<2x64x64xi8, strided<[4096, 1, 64]>, 3>, tensor<64x64xf32, #wg>
  return
}

// -----

// wgmma reads 8-bit operands K-major only: an N-major B is refused.
#wg = #tilegpu.mma<{warpsPerCTA = [4, 1], warpgroup = true}>
func.func @warpgroup_dot_int8_n_major(%acc: tensor<64x64xi32, #wg>, %s: i32) {
  %a = tilegpu.local_alloc : memref<2x64x64xi8, 3>
  %b = tilegpu.local_alloc : memref<2x64x64xi8, 3>
  // expected-error @+1 {{'tilegpu.warpgroup_dot' op reads 'i8' operands K-major only: A from a slot, B from a transposed slot}}
  %d = tilegpu.warpgroup_dot %a[%s], %b[%s], %acc : memref<2x64x64xi8, 3>, memref<2x64x64xi8, 3>, tensor<64x64xi32, #wg>
  return
}

// -----

#wg = #tilegpu.mma<{warpsPerCTA = [4, 1], warpgroup = true}>
func.func @warpgroup_dot_f16_into_i32(%acc: tensor<64x64xi32, #wg>, %s: i32) {
  %a = tilegpu.local_alloc : memref<2x64x32xf16, 3>
  %b = tilegpu.local_alloc : memref<2x32x64xf16, 3>
  // expected-error @+1 {{'tilegpu.warpgroup_dot' op accumulates 'f16' products in f32, not 'i32'}}
  %d = tilegpu.warpgroup_dot %a[%s], %b[%s], %acc : memref<2x64x32xf16, 3>, memref<2x32x64xf16, 3>, tensor<64x64xi32, #wg>
  return
}

// -----

// 8-bit floats, like i8, are read K-major only.
#wg = #tilegpu.mma<{warpsPerCTA = [4, 1], warpgroup = true}>
func.func @warpgroup_dot_fp8_n_major(%acc: tensor<64x64xf32, #wg>, %s: i32) {
  %a = tilegpu.local_alloc : memref<2x64x64xf8E4M3FN, 3>
  %b = tilegpu.local_alloc : memref<2x64x64xf8E4M3FN, 3>
  // expected-error @+1 {{'tilegpu.warpgroup_dot' op reads 'f8E4M3FN' operands K-major only: A from a slot, B from a transposed slot}}
  %d = tilegpu.warpgroup_dot %a[%s], %b[%s], %acc : memref<2x64x64xf8E4M3FN, 3>, memref<2x64x64xf8E4M3FN, 3>, tensor<64x64xf32, #wg>
  return
}

// -----

// f32 operands are read as tf32, K-major only too: A from registers is
// refused.
#wg = #tilegpu.mma<{warpsPerCTA = [4, 1], warpgroup = true}>
#a = #tilegpu.dot_operand<{opIdx = 0, parent = #wg, kWidth = 1}>
func.func @warpgroup_dot_tf32_a_in_registers(%a: tensor<64x32xf32, #a>, %acc: tensor<64x64xf32, #wg>, %s: i32) {
  %b = tilegpu.local_alloc : memref<2x32x64xf32, strided<[2048, 1, 32]>, 3>
  // expected-error @+1 {{'tilegpu.warpgroup_dot' op takes A in registers only as a dot operand (opIdx 0, kWidth 2) of the accumulator's layout}}
  %d = tilegpu.warpgroup_dot %a, %b[%s], %acc : tensor<64x32xf32, #a>, memref<2x32x64xf32, strided<[2048, 1, 32]>, 3>, tensor<64x64xf32, #wg>
  return
}

// -----

#wg = #tilegpu.mma<{warpsPerCTA = [4, 1], warpgroup = true}>
func.func @warpgroup_dot_tf32_n_major(%acc: tensor<64x64xf32, #wg>, %s: i32) {
  %a = tilegpu.local_alloc : memref<2x64x32xf32, 3>
  %b = tilegpu.local_alloc : memref<2x32x64xf32, 3>
  // expected-error @+1 {{'tilegpu.warpgroup_dot' op reads 'f32' operands K-major only: A from a slot, B from a transposed slot}}
  %d = tilegpu.warpgroup_dot %a[%s], %b[%s], %acc : memref<2x64x32xf32, 3>, memref<2x32x64xf32, 3>, tensor<64x64xf32, #wg>
  return
}

// -----

#wg = #tilegpu.mma<{warpsPerCTA = [4, 1], warpgroup = true}>
func.func @warpgroup_dot_fp8_and_i8(%acc: tensor<64x64xf32, #wg>, %s: i32) {
  %a = tilegpu.local_alloc : memref<2x64x64xf8E4M3FN, 3>
  %b = tilegpu.local_alloc : memref<2x64x64xi8, strided<[4096, 1, 64]>, 3>
  // expected-error @+1 {{'tilegpu.warpgroup_dot' op multiplies f16, bf16, f32 (as tf32), i8 or 8-bit float (f8E4M3FN, f8E5M2) operands of one type, not 'f8E4M3FN' and 'i8'}}
  %d = tilegpu.warpgroup_dot %a[%s], %b[%s], %acc : memref<2x64x64xf8E4M3FN, 3>, memref<2x64x64xi8, strided<[4096, 1, 64]>, 3>, tensor<64x64xf32, #wg>
  return
}

// -----

#wg = #tilegpu.mma<{warpsPerCTA = [4, 1], warpgroup = true}>
func.func @warpgroup_dot_int8_k(%acc: tensor<64x64xi32, #wg>, %s: i32) {
  %a = tilegpu.local_alloc : memref<2x64x16xi8, 3>
  %b = tilegpu.local_alloc : memref<2x16x64xi8, strided<[1024, 1, 16]>, 3>
  // expected-error @+1 {{'tilegpu.warpgroup_dot' op needs M a multiple of 64 (16 rows per warp), K of 32 and N of 16, not 64x64x16 (MxNxK)}}
  %d = tilegpu.warpgroup_dot %a[%s], %b[%s], %acc : memref<2x64x16xi8, 3>, memref<2x16x64xi8, strided<[1024, 1, 16]>, 3>, tensor<64x64xi32, #wg>
  return
}

// -----

#wg = #tilegpu.mma<{warpsPerCTA = [4, 1], warpgroup = true}>
func.func @warpgroup_dot_shapes(%acc: tensor<64x64xf32, #wg>, %s: i32) {
  %a = tilegpu.local_alloc : memref<2x64x32xf16, 3>
  %b = tilegpu.local_alloc : memref<2x16x64xf16, 3>
  // expected-error @+1 {{'tilegpu.warpgroup_dot' op operands 'memref<2x64x32xf16, 3>' and 'memref<2x16x64xf16, 3>' are not M x K and K x N operands of a 64x64 accumulator}}
  %d = tilegpu.warpgroup_dot %a[%s], %b[%s], %acc : memref<2x64x32xf16, 3>, memref<2x16x64xf16, 3>, tensor<64x64xf32, #wg>
  return
}

// -----

#wg = #tilegpu.mma<{warpsPerCTA = [8, 1], warpgroup = true}>
func.func @warpgroup_dot_rows(%acc: tensor<64x64xf32, #wg>, %s: i32) {
  %a = tilegpu.local_alloc : memref<2x64x32xf16, 3>
  %b = tilegpu.local_alloc : memref<2x32x64xf16, 3>
  // expected-error @+1 {{'tilegpu.warpgroup_dot' op needs M a multiple of 128 (16 rows per warp), K of 16 and N of 16, not 64x64x32 (MxNxK)}}
  %d = tilegpu.warpgroup_dot %a[%s], %b[%s], %acc : memref<2x64x32xf16, 3>, memref<2x32x64xf16, 3>, tensor<64x64xf32, #wg>
  return
}

// -----

#wg = #tilegpu.mma<{warpsPerCTA = [4, 1], warpgroup = true}>
func.func @warpgroup_dot_space(%acc: tensor<64x64xf32, #wg>, %a: memref<2x64x32xf16>, %b: memref<2x32x64xf16>, %s: i32) {
  // expected-error @+1 {{'tilegpu.warpgroup_dot' op reads its operands from shared memory (address space 3)}}
  %d = tilegpu.warpgroup_dot %a[%s], %b[%s], %acc : memref<2x64x32xf16>, memref<2x32x64xf16>, tensor<64x64xf32, #wg>
  return
}

// -----

#wg = #tilegpu.mma<{warpsPerCTA = [4, 1], warpgroup = true}>
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @warpgroup_dot_registers(%acc: tensor<64x64xf32, #wg>, %a: tensor<64x32xf16, #blocked>, %s: i32) {
  %b = tilegpu.local_alloc : memref<2x32x64xf16, 3>
  // expected-error-re @+1 {{'tilegpu.warpgroup_dot' op takes A in registers only as a dot operand (opIdx 0, kWidth 2) of the accumulator's layout, not 'tensor<64x32xf16, {{.*}}>'}}
  %d = tilegpu.warpgroup_dot %a, %b[%s], %acc : tensor<64x32xf16, #blocked>, memref<2x32x64xf16, 3>, tensor<64x64xf32, #wg>
  return
}

// -----

#wg = #tilegpu.mma<{warpsPerCTA = [4, 1], warpgroup = true}>
func.func @warpgroup_dot_slot(%acc: tensor<64x64xf32, #wg>, %s: i32) {
  %a = tilegpu.local_alloc : memref<2x64x32xf16, 3>
  %b = tilegpu.local_alloc : memref<2x32x64xf16, 3>
  // expected-error @+1 {{'tilegpu.warpgroup_dot' op takes a slot for A exactly when A is a buffer}}
  %d = tilegpu.warpgroup_dot %a, %b[%s], %acc : memref<2x64x32xf16, 3>, memref<2x32x64xf16, 3>, tensor<64x64xf32, #wg>
  return
}

// -----

// expected-error @+1 {{a tensor map box has two sizes from 1 to 256}}
func.func @box_too_big() attributes {tilegpu.tensor_maps = [#tilegpu.tensor_map<argument = 0, elementType = f16, box = [512, 64], swizzle = 128, sources = [0, 1, 1, 1], values = [8, 4, 4, 4]>]} {
  return
}

// -----

// expected-error @+1 {{tensor map swizzle 16 is not 0, 32, 64 or 128 bytes}}
func.func @bad_swizzle() attributes {tilegpu.tensor_maps = [#tilegpu.tensor_map<argument = 0, elementType = f16, box = [64, 64], swizzle = 16, sources = [0, 1, 1, 1], values = [8, 4, 4, 4]>]} {
  return
}

// -----

// expected-error @+1 {{a tensor map has 4 sources and values: base, rows, columns, row stride}}
func.func @few_sources() attributes {tilegpu.tensor_maps = [#tilegpu.tensor_map<argument = 0, elementType = f16, box = [64, 64], swizzle = 128, sources = [0, 1], values = [8, 4]>]} {
  return
}

// -----

// expected-error @+1 {{tensor map source -1 is not an argument}}
func.func @constant_base() attributes {tilegpu.tensor_maps = [#tilegpu.tensor_map<argument = 0, elementType = f16, box = [64, 64], swizzle = 128, sources = [-1, 1, 1, 1], values = [4096, 4, 4, 4]>]} {
  return
}

// -----

// expected-error @+1 {{tensor map argument 1 of 2 bytes: arguments are 4 or 8 bytes}}
func.func @narrow_argument() attributes {tilegpu.tensor_maps = [#tilegpu.tensor_map<argument = 0, elementType = f16, box = [64, 64], swizzle = 128, sources = [0, 1, 1, 1], values = [8, 2, 4, 4]>]} {
  return
}

// -----

func.func @copy_wrong_slot(%map: !tile.ptr<i8, 0>, %bp: !tile.block_ptr<64x32xf16>, %s: i32, %p: i1) {
  %buf = tilegpu.local_alloc : memref<3x64x64xf16, 3>
  %bars = tilegpu.local_alloc : memref<3xi64, 3>
  // expected-error @+1 {{'tilegpu.tensor_map_copy' op a slot of 'memref<3x64x64xf16, 3>' does not hold a tile of 2 dimensions 'f16' of that shape}}
  tilegpu.tensor_map_copy %map, %bp into %buf[%s], %bars if %p : !tile.ptr<i8, 0>, !tile.block_ptr<64x32xf16>, memref<3x64x64xf16, 3>, memref<3xi64, 3>
  return
}

// -----

func.func @copy_global_map(%map: !tile.ptr<i8>, %bp: !tile.block_ptr<64x64xf16>, %s: i32, %p: i1) {
  %buf = tilegpu.local_alloc : memref<3x64x64xf16, 3>
  %bars = tilegpu.local_alloc : memref<3xi64, 3>
  // expected-error @+1 {{'tilegpu.tensor_map_copy' op reads the tensor map through a generic pointer (address space 0)}}
  tilegpu.tensor_map_copy %map, %bp into %buf[%s], %bars if %p : !tile.ptr<i8>, !tile.block_ptr<64x64xf16>, memref<3x64x64xf16, 3>, memref<3xi64, 3>
  return
}

// -----

func.func @copy_barriers(%map: !tile.ptr<i8, 0>, %bp: !tile.block_ptr<64x64xf16>, %s: i32, %p: i1) {
  %buf = tilegpu.local_alloc : memref<3x64x64xf16, 3>
  %bars = tilegpu.local_alloc : memref<2xi64, 3>
  // expected-error @+1 {{'tilegpu.tensor_map_copy' op needs one mbarrier in shared memory per slot, not 'memref<2xi64, 3>'}}
  tilegpu.tensor_map_copy %map, %bp into %buf[%s], %bars if %p : !tile.ptr<i8, 0>, !tile.block_ptr<64x64xf16>, memref<3x64x64xf16, 3>, memref<2xi64, 3>
  return
}

// -----

// expected-error @+1 {{'func.func' op 'tilegpu.tensor_maps' is a list of #tilegpu.tensor_map on a function}}
func.func @not_maps(%map: !tile.ptr<i8, 0>) attributes {tilegpu.tensor_maps = [1 : i32]} {
  return
}

// -----

// expected-error @+1 {{'func.func' op tensor map parameter 1 is not a distinct one of its 1 arguments}}
func.func @map_past_the_arguments(%a: !tile.ptr<f16>) attributes {tilegpu.tensor_maps = [#tilegpu.tensor_map<argument = 1, elementType = f16, box = [64, 64], swizzle = 128, sources = [0, -1, -1, -1], values = [8, 64, 64, 64]>]} {
  return
}

// -----

// expected-error @+1 {{'func.func' op tensor map of parameter 1 is built from argument 5, which is not another of its 2 arguments}}
func.func @map_from_nowhere(%a: !tile.ptr<f16>, %map: !tile.ptr<i8, 0>) attributes {tilegpu.tensor_maps = [#tilegpu.tensor_map<argument = 1, elementType = f16, box = [64, 64], swizzle = 128, sources = [0, 5, -1, -1], values = [8, 4, 64, 64]>]} {
  return
}

// -----

func.func @store_other_shape(%v: tensor<64x32xf16>, %map: !tile.ptr<i8, 0>, %bp: !tile.block_ptr<64x64xf16>) {
  // expected-error @+1 {{'tilegpu.tensor_map_store' op stores a tile of the block's shape and element type ('!tile.block_ptr<64x64xf16>'), not 'tensor<64x32xf16>'}}
  tilegpu.tensor_map_store %v, %map, %bp : tensor<64x32xf16>, !tile.ptr<i8, 0>, !tile.block_ptr<64x64xf16>
  return
}

// -----

func.func @store_one_dimension(%v: tensor<64xf16>, %map: !tile.ptr<i8, 0>, %bp: !tile.block_ptr<64xf16>) {
  // expected-error @+1 {{'tilegpu.tensor_map_store' op stores 2-D blocks, not '!tile.block_ptr<64xf16>'}}
  tilegpu.tensor_map_store %v, %map, %bp : tensor<64xf16>, !tile.ptr<i8, 0>, !tile.block_ptr<64xf16>
  return
}

// -----

func.func @store_global_map(%v: tensor<64x64xf16>, %map: !tile.ptr<i8>, %bp: !tile.block_ptr<64x64xf16>) {
  // expected-error @+1 {{'tilegpu.tensor_map_store' op reads the tensor map through a generic pointer (address space 0)}}
  tilegpu.tensor_map_store %v, %map, %bp : tensor<64x64xf16>, !tile.ptr<i8>, !tile.block_ptr<64x64xf16>
  return
}

// -----

func.func @local_store_other_shape(%v: tensor<32x32xf16>, %s: i32) {
  %buf = tilegpu.local_alloc : memref<1x64x32xf16, 3>
  // expected-error @+1 {{'tilegpu.local_store' op a slot of 'memref<1x64x32xf16, 3>' does not hold a tile of 2 dimensions 'f16' of that shape}}
  tilegpu.local_store %v, %buf[%s] : tensor<32x32xf16>, memref<1x64x32xf16, 3>
  return
}

// -----

// A view transposes each slot: the shape's last two sizes swap and the
// slots' layout flips between rows and columns.
func.func @transpose_slots_shape() {
  %buf = tilegpu.local_alloc : memref<3x32x64xf16, 3>
  // expected-error @+1 {{'tilegpu.transpose_slots' op views 'memref<3x32x64xf16, 3>' as 'memref<3x64x32xf16, strided<[2048, 1, 64]>, 3>', not 'memref<3x64x32xf16, 3>'}}
  %t = tilegpu.transpose_slots %buf : memref<3x32x64xf16, 3> -> memref<3x64x32xf16, 3>
  return
}

// -----

func.func @transpose_slots_global(%buf: memref<3x32x64xf16>) {
  // expected-error @+1 {{'tilegpu.transpose_slots' op views a buffer of slots in shared memory, laid out by identity or with transposed slots, not 'memref<3x32x64xf16>'}}
  %t = tilegpu.transpose_slots %buf : memref<3x32x64xf16> -> memref<3x64x32xf16, strided<[2048, 1, 64]>>
  return
}

// -----

func.func @producer_in_a_loop(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
    // expected-error @+1 {{'tilegpu.warp_specialize' op is in a function's body}}
    tilegpu.warp_specialize attributes {producerWarps = 4 : i32, producerRegisters = 40 : i32, consumerRegisters = 232 : i32} {
    }
  }
  return
}

// -----

func.func @two_producers() {
  // expected-error @+1 {{'tilegpu.warp_specialize' op is the only one of its function}}
  tilegpu.warp_specialize attributes {producerWarps = 4 : i32, producerRegisters = 40 : i32, consumerRegisters = 232 : i32} {
  }
  tilegpu.warp_specialize attributes {producerWarps = 4 : i32, producerRegisters = 40 : i32, consumerRegisters = 232 : i32} {
  }
  return
}

// -----

func.func @producer_warp() {
  // expected-error @+1 {{has a whole number of producer warpgroups (4 warps each), not 1 warps}}
  tilegpu.warp_specialize attributes {producerWarps = 1 : i32, producerRegisters = 40 : i32, consumerRegisters = 232 : i32} {
  }
  return
}

// -----

func.func @registers() {
  // expected-error @+1 {{sets 24 to 256 registers a thread, a multiple of 8, not 236}}
  tilegpu.warp_specialize attributes {producerWarps = 4 : i32, producerRegisters = 40 : i32, consumerRegisters = 236 : i32} {
  }
  return
}

// -----

func.func @captures(%n: i32) {
  %c1 = arith.constant 1 : i32
  %m = arith.addi %n, %c1 : i32
  tilegpu.warp_specialize attributes {producerWarps = 4 : i32, producerRegisters = 40 : i32, consumerRegisters = 232 : i32} {
    // expected-error @+1 {{'arith.muli' op in a tilegpu.warp_specialize uses a value from outside it other than the function's arguments, shared buffers and constants}}
    %k = arith.muli %m, %c1 : i32
  }
  return
}

// -----

func.func @init_count() {
  %bars = tilegpu.local_alloc : memref<2xi64, 3>
  // expected-error @+1 {{attribute 'count' failed to satisfy constraint: 32-bit signless integer attribute whose value is positive}}
  tilegpu.init_barriers %bars {count = 0 : i32} : memref<2xi64, 3>
  return
}

// -----

// wgmma reads a slotted A K-major: an M-major A (a transposed slot) is
// read into registers first.
#wg = #tilegpu.mma<{warpsPerCTA = [4, 1], warpgroup = true}>
func.func @warpgroup_dot_m_major_a(%acc: tensor<64x64xf32, #wg>, %s: i32) {
  %a = tilegpu.local_alloc : memref<2x64x32xf16, strided<[2048, 1, 64]>, 3>
  %b = tilegpu.local_alloc : memref<2x32x64xf16, 3>
  // expected-error @+1 {{'tilegpu.warpgroup_dot' op reads A K-major from its slot, not from a transposed one}}
  %d = tilegpu.warpgroup_dot %a[%s], %b[%s], %acc : memref<2x64x32xf16, strided<[2048, 1, 64]>, 3>, memref<2x32x64xf16, 3>, tensor<64x64xf32, #wg>
  return
}
