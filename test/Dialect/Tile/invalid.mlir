// RUN: kiln-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of the tile dialect, each checking the message
// that names the operand and the shapes or types involved.

// expected-error @+1 {{pointee type must be an integer, float, index or pointer type, but got 'tensor<4xf32>'}}
func.func private @pointee_not_scalar(!tile.ptr<tensor<4xf32>>)

// -----

// expected-error @+1 {{block pointer must have at least one dimension}}
func.func private @block_ptr_rank0(!tile.block_ptr<f16>)

// -----

// expected-error @+1 {{block pointer dimensions must be positive, but got 0}}
func.func private @block_ptr_empty_dim(!tile.block_ptr<0x4xf16>)

// -----

// expected-error @+1 {{block element type must be an integer or float type, but got '!tile.ptr<f16>'}}
func.func private @block_ptr_of_pointers(!tile.block_ptr<4x!tile.ptr<f16>>)

// -----

func.func @range_empty() {
  // expected-error @+1 {{'tile.range' op end (4) must be greater than start (4)}}
  %0 = tile.range 4 to 4 : tensor<0xi32>
  return
}

// -----

func.func @range_size() {
  // expected-error @+1 {{'tile.range' op result shape 64 does not match the range size 128}}
  %0 = tile.range 0 to 128 : tensor<64xi32>
  return
}

// -----

func.func @range_rank() {
  // expected-error @+1 {{'tile.range' op result shape 8x16 does not match the range size 128}}
  %0 = tile.range 0 to 128 : tensor<8x16xi32>
  return
}

// -----

func.func @splat_element_type(%x: f32) {
  // expected-error @+1 {{'tile.splat' op result element type 'f16' does not match source type 'f32'}}
  %0 = tile.splat %x : f32 -> tensor<4xf16>
  return
}

// -----

func.func @broadcast_element_type(%x: tensor<1x4xf32>) {
  // expected-error @+1 {{'tile.broadcast' op result element type 'f16' does not match source element type 'f32'}}
  %0 = tile.broadcast %x : tensor<1x4xf32> -> tensor<8x4xf16>
  return
}

// -----

func.func @broadcast_rank(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tile.broadcast' op source shape 4 and result shape 8x4 have different ranks}}
  %0 = tile.broadcast %x : tensor<4xf32> -> tensor<8x4xf32>
  return
}

// -----

func.func @broadcast_size(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'tile.broadcast' op source shape 2x4 cannot be broadcast to result shape 8x4 (dimension 0 is 2, not 1 or 8)}}
  %0 = tile.broadcast %x : tensor<2x4xf32> -> tensor<8x4xf32>
  return
}

// -----

func.func @expand_dims_axis(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tile.expand_dims' op axis 2 is out of range for source shape 4}}
  %0 = tile.expand_dims %x axis 2 : tensor<4xf32> -> tensor<4x1xf32>
  return
}

// -----

func.func @expand_dims_result(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tile.expand_dims' op result type 'tensor<4x1xf32>' does not match the expected type 'tensor<1x4xf32>'}}
  %0 = tile.expand_dims %x axis 0 : tensor<4xf32> -> tensor<4x1xf32>
  return
}

// -----

func.func @reshape_element_type(%x: tensor<4x2xf32>) {
  // expected-error @+1 {{'tile.reshape' op result element type 'i32' does not match source element type 'f32'}}
  %0 = tile.reshape %x : tensor<4x2xf32> -> tensor<8xi32>
  return
}

// -----

func.func @reshape_size(%x: tensor<4x2xf32>) {
  // expected-error @+1 {{'tile.reshape' op source shape 4x2 has 8 elements but result shape 16 has 16}}
  %0 = tile.reshape %x : tensor<4x2xf32> -> tensor<16xf32>
  return
}

// -----

func.func @trans_order_size(%x: tensor<4x2xf32>) {
  // expected-error @+1 {{'tile.trans' op order has 3 entries but the rank is 2}}
  %0 = tile.trans %x [1, 0, 2] : tensor<4x2xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @trans_order_range(%x: tensor<4x2xf32>) {
  // expected-error @+1 {{'tile.trans' op order dimension 2 is out of range for rank 2}}
  %0 = tile.trans %x [2, 0] : tensor<4x2xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @trans_order_repeat(%x: tensor<4x2xf32>) {
  // expected-error @+1 {{'tile.trans' op order lists dimension 0 twice}}
  %0 = tile.trans %x [0, 0] : tensor<4x2xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @trans_result(%x: tensor<4x2xf32>) {
  // expected-error @+1 {{'tile.trans' op result type 'tensor<4x2xf32>' does not match the expected type 'tensor<2x4xf32>'}}
  %0 = tile.trans %x [1, 0] : tensor<4x2xf32> -> tensor<4x2xf32>
  return
}

// -----

func.func @addptr_offset_shape(%p: tensor<8x!tile.ptr<f32>>, %o: tensor<4xi32>) {
  // expected-error @+1 {{'tile.addptr' op offset shape 4 does not match pointer shape 8}}
  %0 = tile.addptr %p, %o : tensor<8x!tile.ptr<f32>>, tensor<4xi32>
  return
}

// -----

func.func @addptr_scalar_offset(%p: tensor<8x!tile.ptr<f32>>, %o: i32) {
  // expected-error @+1 {{'tile.addptr' op offset shape scalar does not match pointer shape 8}}
  %0 = tile.addptr %p, %o : tensor<8x!tile.ptr<f32>>, i32
  return
}

// -----

func.func @addptr_result(%p: !tile.ptr<f32>, %o: i32) {
  // expected-error @+1 {{'tile.addptr' op failed to verify that all of {ptr, result} have same type}}
  %0 = "tile.addptr"(%p, %o) : (!tile.ptr<f32>, i32) -> !tile.ptr<f16>
  return
}

// -----

func.func @load_mask_shape(%p: tensor<128x32x!tile.ptr<f32>>, %m: tensor<128x64xi1>) {
  // expected-error @+1 {{'tile.load' op mask shape 128x64 does not match pointer shape 128x32}}
  %0 = "tile.load"(%p, %m) <{operandSegmentSizes = array<i32: 1, 1, 0>}>
      : (tensor<128x32x!tile.ptr<f32>>, tensor<128x64xi1>) -> tensor<128x32xf32>
  return
}

// -----

func.func @load_mask_in_custom_form(%p: tensor<8x!tile.ptr<f32>>, %m: tensor<4xi1>) {
  // The custom form derives the mask type from the pointers' shape.
  // expected-error @+2 {{use of value '%m' expects different type than prior uses: 'tensor<8xi1>' vs 'tensor<4xi1>'}}
  // expected-note @-3 {{prior use here}}
  %0 = tile.load %p, %m : tensor<8x!tile.ptr<f32>> -> tensor<8xf32>
  return
}

// -----

func.func @load_result_type(%p: tensor<8x!tile.ptr<f32>>) {
  // expected-error @+1 {{'tile.load' op result type 'tensor<8xf16>' does not match the pointee type 'tensor<8xf32>' of pointer type 'tensor<8x!tile.ptr<f32>>'}}
  %0 = tile.load %p : tensor<8x!tile.ptr<f32>> -> tensor<8xf16>
  return
}

// -----

func.func @load_scalar_result(%p: !tile.ptr<f32>) {
  // expected-error @+1 {{'tile.load' op result type 'tensor<1xf32>' does not match the pointee type 'f32' of pointer type '!tile.ptr<f32>'}}
  %0 = tile.load %p : !tile.ptr<f32> -> tensor<1xf32>
  return
}

// -----

func.func @load_other_type(%p: tensor<8x!tile.ptr<f32>>, %m: tensor<8xi1>, %o: tensor<8xf16>) {
  // expected-error @+1 {{'tile.load' op other type 'tensor<8xf16>' does not match result type 'tensor<8xf32>'}}
  %0 = "tile.load"(%p, %m, %o) <{operandSegmentSizes = array<i32: 1, 1, 1>}>
      : (tensor<8x!tile.ptr<f32>>, tensor<8xi1>, tensor<8xf16>) -> tensor<8xf32>
  return
}

// -----

func.func @load_other_without_mask(%p: tensor<8x!tile.ptr<f32>>, %o: tensor<8xf32>) {
  // expected-error @+1 {{'tile.load' op has an other value but no mask}}
  %0 = "tile.load"(%p, %o) <{operandSegmentSizes = array<i32: 1, 0, 1>}>
      : (tensor<8x!tile.ptr<f32>>, tensor<8xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @store_mask_shape(%p: tensor<8x!tile.ptr<f32>>, %v: tensor<8xf32>, %m: i1) {
  // expected-error @+1 {{'tile.store' op mask shape scalar does not match pointer shape 8}}
  "tile.store"(%p, %v, %m) : (tensor<8x!tile.ptr<f32>>, tensor<8xf32>, i1) -> ()
  return
}

// -----

func.func @store_value_type(%p: tensor<8x!tile.ptr<f32>>, %v: tensor<4xf32>) {
  // expected-error @+1 {{'tile.store' op value type 'tensor<4xf32>' does not match the pointee type 'tensor<8xf32>' of pointer type 'tensor<8x!tile.ptr<f32>>'}}
  tile.store %p, %v : tensor<8x!tile.ptr<f32>>, tensor<4xf32>
  return
}

// -----

func.func @atomic_mask_shape(%p: tensor<8x!tile.ptr<i32>>, %v: tensor<8xi32>, %m: tensor<2xi1>) {
  // expected-error @+1 {{'tile.atomic_rmw' op mask shape 2 does not match pointer shape 8}}
  %0 = "tile.atomic_rmw"(%p, %v, %m) <{kind = 0 : i32, scope = 1 : i32, sem = 3 : i32}>
      : (tensor<8x!tile.ptr<i32>>, tensor<8xi32>, tensor<2xi1>) -> tensor<8xi32>
  return
}

// -----

func.func @atomic_value_type(%p: !tile.ptr<i32>, %v: i64) {
  // expected-error @+1 {{'tile.atomic_rmw' op value type 'i64' does not match the pointee type 'i32' of pointer type '!tile.ptr<i32>'}}
  %0 = tile.atomic_rmw add relaxed gpu %p, %v : !tile.ptr<i32>, i64
  return
}

// -----

func.func @atomic_float_bitwise(%p: !tile.ptr<f32>, %v: f32) {
  // expected-error @+1 {{'tile.atomic_rmw' op 'and' is not defined on float type 'f32'}}
  %0 = tile.atomic_rmw and relaxed gpu %p, %v : !tile.ptr<f32>, f32
  return
}

// -----

func.func @atomic_float_unsigned(%p: !tile.ptr<f16>, %v: f16) {
  // expected-error @+1 {{'tile.atomic_rmw' op 'umax' is not defined on float type 'f16'}}
  %0 = tile.atomic_rmw umax relaxed gpu %p, %v : !tile.ptr<f16>, f16
  return
}

// -----

func.func @cas_of_bytes(%p: !tile.ptr<i8>, %v: i8) {
  // expected-error @+1 {{'tile.atomic_cas' op compares and swaps integers or floats of 16, 32 or 64 bits, not 'i8'}}
  %0 = tile.atomic_cas acq_rel gpu %p, %v, %v : !tile.ptr<i8>, i8
  return
}

// -----

func.func @cas_of_another_type(%p: !tile.ptr<i32>, %v: i64) {
  // expected-error @+1 {{'tile.atomic_cas' op value type 'i64' does not match the pointee type 'i32' of pointer type '!tile.ptr<i32>'}}
  %0 = tile.atomic_cas acq_rel gpu %p, %v, %v : !tile.ptr<i32>, i64
  return
}

// -----

func.func @atomic_on_pointers(%p: !tile.ptr<!tile.ptr<f32>>, %v: !tile.ptr<f32>) {
  // expected-error @+1 {{'tile.atomic_rmw' op value element type '!tile.ptr<f32>' is not an integer or float type}}
  %0 = tile.atomic_rmw xchg relaxed gpu %p, %v : !tile.ptr<!tile.ptr<f32>>, !tile.ptr<f32>
  return
}

// -----

func.func @atomic_result(%p: !tile.ptr<i32>, %v: i32) {
  // expected-error @+1 {{'tile.atomic_rmw' op failed to verify that all of {value, result} have same type}}
  %0 = "tile.atomic_rmw"(%p, %v) <{kind = 0 : i32, scope = 1 : i32, sem = 3 : i32}>
      : (!tile.ptr<i32>, i32) -> i64
  return
}

// -----

func.func @ptr_to_int_shape(%p: tensor<4x!tile.ptr<f32>>) {
  // expected-error @+1 {{'tile.ptr_to_int' op source shape 4 does not match result shape 8}}
  %0 = tile.ptr_to_int %p : tensor<4x!tile.ptr<f32>> -> tensor<8xi64>
  return
}

// -----

func.func @ptr_to_int_width(%p: !tile.ptr<f32>) {
  // expected-error @+1 {{'tile.ptr_to_int' op integer type 'i32' must have 64-bit elements}}
  %0 = tile.ptr_to_int %p : !tile.ptr<f32> -> i32
  return
}

// -----

func.func @int_to_ptr_shape(%a: tensor<4xi64>) {
  // expected-error @+1 {{'tile.int_to_ptr' op source shape 4 does not match result shape scalar}}
  %0 = tile.int_to_ptr %a : tensor<4xi64> -> !tile.ptr<f32>
  return
}

// -----

func.func @int_to_ptr_width(%a: i16) {
  // expected-error @+1 {{'tile.int_to_ptr' op integer type 'i16' must have 64-bit elements}}
  %0 = tile.int_to_ptr %a : i16 -> !tile.ptr<f32>
  return
}

// -----

func.func @ptr_cast_shape(%p: tensor<4x!tile.ptr<f32>>) {
  // expected-error @+1 {{'tile.ptr_cast' op source shape 4 does not match result shape 2x2}}
  %0 = tile.ptr_cast %p : tensor<4x!tile.ptr<f32>> -> tensor<2x2x!tile.ptr<i32>>
  return
}

// -----

func.func @ptr_cast_address_space(%p: !tile.ptr<f32>) {
  // expected-error @+1 {{'tile.ptr_cast' op cannot change address space 1 to 3}}
  %0 = tile.ptr_cast %p : !tile.ptr<f32> -> !tile.ptr<f32, 3>
  return
}

// -----

func.func @make_block_ptr_sizes(%b: !tile.ptr<f16>, %s: i64, %o: i32) {
  // expected-error @+1 {{'tile.make_block_ptr' op has 1 sizes for a block of rank 2}}
  %0 = tile.make_block_ptr %b, [%s], [%s, %s], [%o, %o] {order = array<i32: 1, 0>}
      : !tile.ptr<f16> -> !tile.block_ptr<64x32xf16>
  return
}

// -----

func.func @make_block_ptr_strides(%b: !tile.ptr<f16>, %s: i64, %o: i32) {
  // expected-error @+1 {{'tile.make_block_ptr' op has 3 strides for a block of rank 2}}
  %0 = tile.make_block_ptr %b, [%s, %s], [%s, %s, %s], [%o, %o] {order = array<i32: 1, 0>}
      : !tile.ptr<f16> -> !tile.block_ptr<64x32xf16>
  return
}

// -----

func.func @make_block_ptr_offsets(%b: !tile.ptr<f16>, %s: i64, %o: i32) {
  // expected-error @+1 {{'tile.make_block_ptr' op has 1 offsets for a block of rank 2}}
  %0 = tile.make_block_ptr %b, [%s, %s], [%s, %s], [%o] {order = array<i32: 1, 0>}
      : !tile.ptr<f16> -> !tile.block_ptr<64x32xf16>
  return
}

// -----

func.func @make_block_ptr_order(%b: !tile.ptr<f16>, %s: i64, %o: i32) {
  // expected-error @+1 {{'tile.make_block_ptr' op order lists dimension 1 twice}}
  %0 = tile.make_block_ptr %b, [%s, %s], [%s, %s], [%o, %o] {order = array<i32: 1, 1>}
      : !tile.ptr<f16> -> !tile.block_ptr<64x32xf16>
  return
}

// -----

func.func @make_block_ptr_pointee(%b: !tile.ptr<f32>, %s: i64, %o: i32) {
  // expected-error @+1 {{'tile.make_block_ptr' op base pointee type 'f32' does not match block element type 'f16'}}
  %0 = tile.make_block_ptr %b, [%s, %s], [%s, %s], [%o, %o] {order = array<i32: 1, 0>}
      : !tile.ptr<f32> -> !tile.block_ptr<64x32xf16>
  return
}

// -----

func.func @make_block_ptr_shared(%b: !tile.ptr<f16, 3>, %s: i64, %o: i32) {
  // expected-error @+1 {{'tile.make_block_ptr' op base must point to global memory (address space 1), not address space 3}}
  %0 = tile.make_block_ptr %b, [%s, %s], [%s, %s], [%o, %o] {order = array<i32: 1, 0>}
      : !tile.ptr<f16, 3> -> !tile.block_ptr<64x32xf16>
  return
}

// -----

func.func @advance_offsets(%bp: !tile.block_ptr<64x32xf16>, %o: i32) {
  // expected-error @+1 {{'tile.advance' op has 1 offsets for a block of rank 2}}
  %0 = tile.advance %bp, [%o] : !tile.block_ptr<64x32xf16>
  return
}

// -----

func.func @block_load_type(%bp: !tile.block_ptr<64x32xf16>) {
  // expected-error @+1 {{'tile.block_load' op result type 'tensor<32x64xf16>' does not match the block type 'tensor<64x32xf16>'}}
  %0 = tile.block_load %bp : !tile.block_ptr<64x32xf16> -> tensor<32x64xf16>
  return
}

// -----

func.func @block_load_boundary_check(%bp: !tile.block_ptr<64x32xf16>) {
  // expected-error @+1 {{'tile.block_load' op boundary_check dimension 2 is out of range for rank 2}}
  %0 = tile.block_load %bp boundary_check = [0, 2] : !tile.block_ptr<64x32xf16> -> tensor<64x32xf16>
  return
}

// -----

func.func @block_load_nan_padding(%bp: !tile.block_ptr<8xi32>) {
  // expected-error @+1 {{'tile.block_load' op padding nan needs float elements, not 'i32'}}
  %0 = tile.block_load %bp padding = nan : !tile.block_ptr<8xi32> -> tensor<8xi32>
  return
}

// -----

func.func @block_store_boundary_check(%bp: !tile.block_ptr<64x32xf16>, %v: tensor<64x32xf16>) {
  // expected-error @+1 {{'tile.block_store' op boundary_check lists dimension 0 twice}}
  tile.block_store %bp, %v boundary_check = [0, 0] : !tile.block_ptr<64x32xf16>, tensor<64x32xf16>
  return
}

// -----

func.func @block_store_type(%bp: !tile.block_ptr<64x32xf16>, %v: tensor<64x32xf32>) {
  // expected-error @+1 {{'tile.block_store' op value type 'tensor<64x32xf32>' does not match the block type 'tensor<64x32xf16>'}}
  tile.block_store %bp, %v : !tile.block_ptr<64x32xf16>, tensor<64x32xf32>
  return
}

// -----

func.func @dot_rank(%a: tensor<16xf16>, %c: tensor<16xf32>) {
  // expected-error @+1 {{'tile.dot' op operand a must be 2-D (or 3-D with a batch dimension), but has shape 16}}
  %0 = tile.dot %a, %a, %c : tensor<16xf16>, tensor<16xf16> -> tensor<16xf32>
  return
}

// -----

func.func @dot_ranks_differ(%a: tensor<16x16xf16>, %b: tensor<1x16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'tile.dot' op operands a (16x16), b (1x16x16) and acc (16x16) must have one rank}}
  %0 = tile.dot %a, %b, %c : tensor<16x16xf16>, tensor<1x16x16xf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_batch(%a: tensor<2x16x16xf16>, %b: tensor<3x16x16xf16>, %c: tensor<2x16x16xf32>) {
  // expected-error @+1 {{'tile.dot' op batch sizes of a (2x16x16), b (3x16x16) and acc (2x16x16) differ}}
  %0 = tile.dot %a, %b, %c : tensor<2x16x16xf16>, tensor<3x16x16xf16> -> tensor<2x16x16xf32>
  return
}

// -----

func.func @dot_reduction_size(%a: tensor<64x32xf16>, %b: tensor<16x128xf16>, %c: tensor<64x128xf32>) {
  // expected-error @+1 {{'tile.dot' op reduction sizes differ: a is 64x32 and b is 16x128}}
  %0 = tile.dot %a, %b, %c : tensor<64x32xf16>, tensor<16x128xf16> -> tensor<64x128xf32>
  return
}

// -----

func.func @dot_accumulator_shape(%a: tensor<64x32xf16>, %b: tensor<32x128xf16>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.dot' op accumulator shape 64x64 does not match the product shape 64x128 of a (64x32) and b (32x128)}}
  %0 = tile.dot %a, %b, %c : tensor<64x32xf16>, tensor<32x128xf16> -> tensor<64x64xf32>
  return
}

// -----

func.func @dot_input_type(%a: tensor<16x16xi16>, %c: tensor<16x16xi32>) {
  // expected-error @+1 {{'tile.dot' op operand element type 'i16' is not one of f16, bf16, f32, f64, f8E4M3FN, f8E5M2, i8}}
  %0 = tile.dot %a, %a, %c : tensor<16x16xi16>, tensor<16x16xi16> -> tensor<16x16xi32>
  return
}

// -----

func.func @dot_f64_accumulator_type(%a: tensor<16x16xf64>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'tile.dot' op accumulator element type 'f32' is not allowed for 'f64' inputs}}
  %0 = tile.dot %a, %a, %c : tensor<16x16xf64>, tensor<16x16xf64> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_input_types_differ(%a: tensor<16x16xf16>, %b: tensor<16x16xbf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'tile.dot' op operand element types differ: a has 'f16' and b has 'bf16'}}
  %0 = tile.dot %a, %b, %c : tensor<16x16xf16>, tensor<16x16xbf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_accumulator_type(%a: tensor<16x16xbf16>, %c: tensor<16x16xbf16>) {
  // expected-error @+1 {{'tile.dot' op accumulator element type 'bf16' is not allowed for 'bf16' inputs}}
  %0 = tile.dot %a, %a, %c : tensor<16x16xbf16>, tensor<16x16xbf16> -> tensor<16x16xbf16>
  return
}

// -----

func.func @dot_int_accumulator(%a: tensor<16x16xi8>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'tile.dot' op accumulator element type 'f32' is not allowed for 'i8' inputs}}
  %0 = tile.dot %a, %a, %c : tensor<16x16xi8>, tensor<16x16xi8> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_precision(%a: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'tile.dot' op input_precision tf32 applies only to f32 inputs, not 'f16'}}
  %0 = tile.dot %a, %a, %c input_precision = tf32 : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_result(%a: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'tile.dot' op failed to verify that all of {acc, result} have same type}}
  %0 = "tile.dot"(%a, %a, %c) : (tensor<16x16xf16>, tensor<16x16xf16>, tensor<16x16xf32>) -> tensor<16x16xf16>
  return
}

// -----

func.func @reduce_no_operands() {
  // expected-error @+1 {{'tile.reduce' op needs at least one operand}}
  "tile.reduce"() <{axis = 0 : i32}> ({
  ^bb0:
    tile.yield
  }) : () -> ()
  return
}

// -----

func.func @reduce_operand_shapes(%a: tensor<8xf32>, %b: tensor<4xi32>) {
  // expected-error @+1 {{'tile.reduce' op operand 1 has shape 4 but operand 0 has shape 8}}
  %0, %1 = tile.reduce %a, %b axis 0 : tensor<8xf32>, tensor<4xi32> -> f32, i32 {
  ^bb0(%x: f32, %i: i32, %y: f32, %j: i32):
    tile.yield %x, %i : f32, i32
  }
  return
}

// -----

func.func @reduce_axis(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'tile.reduce' op axis 2 is out of range for operand shape 4x8}}
  %0 = tile.reduce %a axis 2 : tensor<4x8xf32> -> tensor<4xf32> {
  ^bb0(%x: f32, %y: f32):
    tile.yield %x : f32
  }
  return
}

// -----

func.func @reduce_result_count(%a: tensor<8xf32>) {
  // expected-error @+1 {{'tile.reduce' op has 2 results for 1 operands}}
  %0, %1 = tile.reduce %a axis 0 : tensor<8xf32> -> f32, f32 {
  ^bb0(%x: f32, %y: f32):
    tile.yield %x : f32
  }
  return
}

// -----

func.func @reduce_result_type(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'tile.reduce' op result 0 has type 'tensor<8xf32>' but reducing 'tensor<4x8xf32>' along axis 1 gives 'tensor<4xf32>'}}
  %0 = tile.reduce %a axis 1 : tensor<4x8xf32> -> tensor<8xf32> {
  ^bb0(%x: f32, %y: f32):
    tile.yield %x : f32
  }
  return
}

// -----

func.func @reduce_region_arity(%a: tensor<8xf32>) {
  // expected-error @+1 {{'tile.reduce' op combining region must take 2 arguments for 1 operand(s), but takes 1}}
  %0 = tile.reduce %a axis 0 : tensor<8xf32> -> f32 {
  ^bb0(%x: f32):
    tile.yield %x : f32
  }
  return
}

// -----

func.func @reduce_region_argument_type(%a: tensor<8xf32>) {
  // expected-error @+1 {{'tile.reduce' op combining region argument 1 has type 'f16' but operand 0 has element type 'f32'}}
  %0 = tile.reduce %a axis 0 : tensor<8xf32> -> f32 {
  ^bb0(%x: f32, %y: f16):
    tile.yield %x : f32
  }
  return
}

// -----

func.func @reduce_yield_count(%a: tensor<8xf32>) {
  %0 = tile.reduce %a axis 0 : tensor<8xf32> -> f32 {
  ^bb0(%x: f32, %y: f32):
    // expected-error @+1 {{'tile.yield' op yields 2 value(s) but tile.reduce has 1 operand(s)}}
    tile.yield %x, %y : f32, f32
  }
  return
}

// -----

func.func @reduce_yield_type(%a: tensor<8xf32>) {
  %0 = tile.reduce %a axis 0 : tensor<8xf32> -> f32 {
  ^bb0(%x: f32, %y: f32):
    %c = arith.constant 0 : i32
    // expected-error @+1 {{'tile.yield' op value 0 has type 'i32' but operand 0 has element type 'f32'}}
    tile.yield %c : i32
  }
  return
}

// -----

func.func @reduce_empty_region(%a: tensor<8xf32>) {
  // expected-error @+1 {{'tile.reduce' op region #0 ('combiner') failed to verify constraint: region with 1 blocks}}
  %0 = "tile.reduce"(%a) <{axis = 0 : i32}> ({
  }) : (tensor<8xf32>) -> f32
  return
}

// -----

func.func @scan_operand_shapes(%a: tensor<8xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'tile.scan' op operand 1 has shape 4 but operand 0 has shape 8}}
  %0, %1 = tile.scan %a, %b axis 0 : tensor<8xf32>, tensor<4xf32> -> tensor<8xf32>, tensor<4xf32> {
  ^bb0(%x: f32, %i: f32, %y: f32, %j: f32):
    tile.yield %x, %i : f32, f32
  }
  return
}

// -----

func.func @scan_axis(%a: tensor<8xf32>) {
  // expected-error @+1 {{'tile.scan' op axis -1 is out of range for operand shape 8}}
  %0 = tile.scan %a axis -1 : tensor<8xf32> -> tensor<8xf32> {
  ^bb0(%x: f32, %y: f32):
    tile.yield %x : f32
  }
  return
}

// -----

func.func @scan_result_type(%a: tensor<8xf32>) {
  // expected-error @+1 {{'tile.scan' op result types must match the operand types}}
  %0 = tile.scan %a axis 0 : tensor<8xf32> -> tensor<8xf16> {
  ^bb0(%x: f32, %y: f32):
    tile.yield %x : f32
  }
  return
}

// -----

func.func @scan_region(%a: tensor<8xi32>) {
  // expected-error @+1 {{'tile.scan' op combining region argument 0 has type 'i64' but operand 0 has element type 'i32'}}
  %0 = tile.scan %a axis 0 : tensor<8xi32> -> tensor<8xi32> {
  ^bb0(%x: i64, %y: i32):
    tile.yield %y : i32
  }
  return
}

// -----

func.func @yield_outside_combiner(%x: f32) {
  // expected-error @+1 {{'tile.yield' op expects parent op to be one of 'tile.reduce, tile.scan, tile.map_elementwise'}}
  tile.yield %x : f32
}

// -----

func.func @dynamic_tile(%x: tensor<?xf32>) {
  // Tiles have static shapes: the launch picks the block size, not the data.
  // expected-error @+1 {{'tile.reshape' op operand #0 must be tile (statically shaped, rank >= 1) of integer, float, index or pointer values, but got 'tensor<?xf32>'}}
  %0 = tile.reshape %x : tensor<?xf32> -> tensor<4xf32>
  return
}

// -----

func.func @zero_d_tile(%x: tensor<f32>) {
  // A 0-D value is a scalar: tiles have at least one dimension.
  // expected-error @+1 {{'tile.reshape' op operand #0 must be tile (statically shaped, rank >= 1) of integer, float, index or pointer values, but got 'tensor<f32>'}}
  %0 = tile.reshape %x : tensor<f32> -> tensor<1xf32>
  return
}

// -----

func.func @print_shapes(%x: tensor<4xf32>, %y: tensor<8xf32>) {
  // expected-error @+1 {{'tile.print' op operand #1 of type 'tensor<8xf32>' does not have the shape of operand #0, of type 'tensor<4xf32>'}}
  tile.print "xy", %x, %y : tensor<4xf32>, tensor<8xf32>
  return
}

// -----

func.func @print_pointer(%p: !tile.ptr<f32>) {
  // expected-error @+1 {{'tile.print' op operand #0 must be variadic of integer, float or tile of them, but got '!tile.ptr<f32>'}}
  tile.print "p", %p : !tile.ptr<f32>
  return
}

// -----

func.func @assert_not_bool(%x: tensor<4xi32>) {
  // expected-error @+1 {{'tile.assert' op operand #0 must be i1 or tile of i1, but got 'tensor<4xi32>'}}
  tile.assert %x, "x" : tensor<4xi32>
  return
}

// -----

func.func @assume_rank(%x: tensor<8x4xi32>) {
  // expected-error @+1 {{'tile.assume' op contiguity has 1 entries for a value of rank 2}}
  %0 = tile.assume %x {contiguity = array<i64: 4>} : tensor<8x4xi32>
  return
}

// -----

func.func @assume_positive(%x: i32) {
  // expected-error @+1 {{'tile.assume' op divisibility must be positive, found 0}}
  %0 = tile.assume %x {divisibility = array<i64: 0>} : i32
  return
}

// -----

func.func @assume_float(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tile.assume' op operand #0 must be}}
  %0 = tile.assume %x {divisibility = array<i64: 4>} : tensor<4xf32>
  return
}

// -----

func.func @gather_rank(%t: tensor<4x8xf32>, %i: tensor<4xi32>) {
  // expected-error @+1 {{'tile.gather' op index has rank 1 but the source has rank 2}}
  %0 = tile.gather %t[%i] axis 0 : tensor<4x8xf32>, tensor<4xi32> -> tensor<4xf32>
  return
}

// -----

func.func @gather_axis(%t: tensor<4x8xf32>, %i: tensor<4x8xi32>) {
  // expected-error @+1 {{'tile.gather' op axis 2 is not a dimension of a rank-2 source}}
  %0 = tile.gather %t[%i] axis 2 : tensor<4x8xf32>, tensor<4x8xi32> -> tensor<4x8xf32>
  return
}

// -----

func.func @gather_other_dimension(%t: tensor<4x8xf32>, %i: tensor<16x4xi32>) {
  // expected-error @+1 {{'tile.gather' op index dimension 1 has size 4 but the source's has 8}}
  %0 = tile.gather %t[%i] axis 0 : tensor<4x8xf32>, tensor<16x4xi32> -> tensor<16x4xf32>
  return
}

// -----

func.func @gather_result(%t: tensor<4x8xf32>, %i: tensor<16x8xi32>) {
  // expected-error @+1 {{'tile.gather' op result type 'tensor<16x8xf16>' does not match the expected type 'tensor<16x8xf32>'}}
  %0 = tile.gather %t[%i] axis 0 : tensor<4x8xf32>, tensor<16x8xi32> -> tensor<16x8xf16>
  return
}

// -----

func.func @gather_float_index(%t: tensor<4x8xf32>, %i: tensor<16x8xf32>) {
  // expected-error @+1 {{operand #1 must be tile}}
  %0 = tile.gather %t[%i] axis 0 : tensor<4x8xf32>, tensor<16x8xf32> -> tensor<16x8xf32>
  return
}

// -----

func.func @inline_asm_pack_zero(%x: tensor<128xi32>) {
  // expected-error @+1 {{'tile.inline_asm_elementwise' op pack 0 is not positive}}
  %0 = tile.inline_asm_elementwise "mov.b32 $0, $1;", "=r,r" pure pack = 0 %x : (tensor<128xi32>) -> tensor<128xi32>
  return
}

// -----

func.func @inline_asm_scalar_and_tile(%x: tensor<128xi32>, %s: i32) {
  // expected-error @+1 {{'tile.inline_asm_elementwise' op operand #1 of type 'i32' does not have the shape and layout of operand #0, of type 'tensor<128xi32>': the operands and results are all scalars or all tiles of one shape}}
  %0 = tile.inline_asm_elementwise "add.s32 $0, $1, $2;", "=r,r,r" pure %x, %s : (tensor<128xi32>, i32) -> tensor<128xi32>
  return
}

// -----

func.func @inline_asm_shapes(%x: tensor<128xi32>) {
  // expected-error @+1 {{'tile.inline_asm_elementwise' op all non-scalar operands/results must have the same shape}}
  %0 = tile.inline_asm_elementwise "mov.b32 $0, $1;", "=r,r" pure %x : (tensor<128xi32>) -> tensor<64xi32>
  return
}

// -----

#a = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#b = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
func.func @inline_asm_layouts(%x: tensor<128xi32, #a>) {
  // expected-error @+1 {{'tile.inline_asm_elementwise' op result #0 of type 'tensor<128xi32, #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>' does not have the shape and layout of operand #0}}
  %0 = tile.inline_asm_elementwise "mov.b32 $0, $1;", "=r,r" pure %x : (tensor<128xi32, #a>) -> tensor<128xi32, #b>
  return
}

// -----

// A tile result needs a tile operand to take its shape from.
func.func @inline_asm_tile_from_nothing() {
  // expected-error @+1 {{'tile.inline_asm_elementwise' op if a result is non-scalar, then at least one operand must be non-scalar}}
  %0 = tile.inline_asm_elementwise "mov.b32 $0, 1;", "=r" pure : () -> tensor<64xi32>
  return
}

// -----

func.func @inline_asm_nothing() {
  // expected-error @+1 {{'tile.inline_asm_elementwise' op has no operands and no results}}
  tile.inline_asm_elementwise "membar.gl;", "" : () -> ()
  return
}

// -----

func.func @inline_asm_index(%x: index) {
  // expected-error @+1 {{'tile.inline_asm_elementwise' op operand #0 must be variadic of signless integer, float or pointer, or a tile of them, but got 'index'}}
  %0 = tile.inline_asm_elementwise "mov.b32 $0, $1;", "=r,r" pure %x : (index) -> i32
  return
}

// -----

func.func @inline_asm_no_bits(%x: i0) {
  // expected-error @+1 {{'tile.inline_asm_elementwise' op operand #0 has elements of type 'i0', which has no bits to put in a register}}
  %0 = tile.inline_asm_elementwise "mov.b32 $0, $1;", "=r,r" pure %x : (i0) -> i32
  return
}

// -----

// Six i8 elements do not fill 32-bit registers (Triton's lowering would
// read past them).
func.func @inline_asm_partial_register(%x: tensor<128xi8>) {
  // expected-error @+1 {{'tile.inline_asm_elementwise' op pack 6 does not fill whole 32-bit registers of 'i8' (4 to a register) for operand #0: pack at most 4 or a multiple of 4}}
  %0 = tile.inline_asm_elementwise "mov.b32 $0, $1;", "=r,=r,r,r" pure pack = 6 %x : (tensor<128xi8>) -> tensor<128xi32>
  return
}

// -----

func.func @inline_asm_constraint_count(%x: tensor<128xi32>) {
  // expected-error @+1 {{'tile.inline_asm_elementwise' op constraints "=r,r,r" list 1 output(s) and 2 input(s), but with pack 1 the 1 result(s) take 1 and the 1 operand(s) take 1}}
  %0 = tile.inline_asm_elementwise "mov.b32 $0, $1;", "=r,r,r" pure %x : (tensor<128xi32>) -> tensor<128xi32>
  return
}

// -----

// Four i8 elements are one 32-bit register, one constraint; four i32
// elements are four.
func.func @inline_asm_packed_constraint_count(%x: tensor<128xi8>, %y: tensor<128xi32>) {
  // expected-error @+1 {{'tile.inline_asm_elementwise' op constraints "=r,r,r" list 1 output(s) and 2 input(s), but with pack 4 the 1 result(s) take 1 and the 2 operand(s) take 5}}
  %0 = tile.inline_asm_elementwise "mov.b32 $0, $1;", "=r,r,r" pure pack = 4 %x, %y : (tensor<128xi8>, tensor<128xi32>) -> tensor<128xi8>
  return
}

// -----

func.func @inline_asm_malformed_constraints(%x: tensor<128xi32>) {
  // expected-error @+1 {{'tile.inline_asm_elementwise' op constraints "=r,2" are not an LLVM constraint string}}
  %0 = tile.inline_asm_elementwise "mov.b32 $0, $1;", "=r,2" pure %x : (tensor<128xi32>) -> tensor<128xi32>
  return
}

// -----

func.func @inline_asm_output_after_input(%x: tensor<128xi32>) {
  // expected-error @+1 {{'tile.inline_asm_elementwise' op output constraint #1 of "r,=r" comes after an input or a clobber}}
  %0 = tile.inline_asm_elementwise "mov.b32 $0, $1;", "r,=r" pure %x : (tensor<128xi32>) -> tensor<128xi32>
  return
}

// -----

func.func @inline_asm_input_after_clobber(%x: tensor<128xi32>) {
  // expected-error @+1 {{'tile.inline_asm_elementwise' op input constraint #2 of "=r,~{memory},r" comes after a clobber}}
  %0 = tile.inline_asm_elementwise "mov.b32 $0, $1;", "=r,~{memory},r" pure %x : (tensor<128xi32>) -> tensor<128xi32>
  return
}

// -----

func.func @inline_asm_indirect(%x: tensor<128xi32>) {
  // expected-error @+1 {{'tile.inline_asm_elementwise' op constraint #0 of "=*m,r" is an indirect or label operand; elementwise assembly takes and gives only values}}
  %0 = tile.inline_asm_elementwise "st.u32 [$0], $1;", "=*m,r" pure %x : (tensor<128xi32>) -> tensor<128xi32>
  return
}

// -----

func.func @map_pack_zero(%x: tensor<128xf32>) {
  // expected-error @+1 {{'tile.map_elementwise' op pack 0 is not positive}}
  %0 = tile.map_elementwise %x pack = 0 : (tensor<128xf32>) -> tensor<128xf32> {
  ^bb0:
    %c = arith.constant 0.0 : f32
    tile.yield
  }
  return
}

// -----

// As in Triton: the operands give the results their shape.
func.func @map_no_operands() {
  // expected-error @+1 {{'tile.map_elementwise' op needs at least one operand}}
  %0 = tile.map_elementwise : () -> f32 {
  ^bb0:
    %c = arith.constant 0.0 : f32
    tile.yield %c : f32
  }
  return
}

// -----

func.func @map_no_results(%x: f32) {
  // expected-error @+1 {{'tile.map_elementwise' op needs at least one result}}
  tile.map_elementwise %x : (f32) -> () {
  ^bb0(%xi: f32):
    tile.yield
  }
  return
}

// -----

func.func @map_scalar_and_tile(%x: tensor<128xf32>, %s: f32) {
  // expected-error @+1 {{'tile.map_elementwise' op operand #1 of type 'f32' does not have the shape and layout of operand #0, of type 'tensor<128xf32>': the operands and results are all scalars or all tiles of one shape}}
  %0 = tile.map_elementwise %x, %s : (tensor<128xf32>, f32) -> tensor<128xf32> {
  ^bb0(%xi: f32, %si: f32):
    %y = arith.addf %xi, %si : f32
    tile.yield %y : f32
  }
  return
}

// -----

func.func @map_shapes(%x: tensor<128xf32>) {
  // expected-error @+1 {{'tile.map_elementwise' op all non-scalar operands/results must have the same shape}}
  %0 = tile.map_elementwise %x : (tensor<128xf32>) -> tensor<64xf32> {
  ^bb0(%xi: f32):
    tile.yield %xi : f32
  }
  return
}

// -----

#a = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#b = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
func.func @map_layouts(%x: tensor<128xf32, #a>) {
  // expected-error @+1 {{'tile.map_elementwise' op result #0 of type 'tensor<128xf32, #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>' does not have the shape and layout of operand #0}}
  %0 = tile.map_elementwise %x : (tensor<128xf32, #a>) -> tensor<128xf32, #b> {
  ^bb0(%xi: f32):
    tile.yield %xi : f32
  }
  return
}

// -----

func.func @map_argument_count(%x: tensor<128xf32>, %n: tensor<128xi32>) {
  // expected-error @+1 {{'tile.map_elementwise' op region must take 4 scalars (2 per operand for 2 operand(s)), but takes 2}}
  %0 = tile.map_elementwise %x, %n pack = 2 : (tensor<128xf32>, tensor<128xi32>) -> tensor<128xf32> {
  ^bb0(%x0: f32, %x1: f32):
    tile.yield %x0, %x1 : f32, f32
  }
  return
}

// -----

// Operand i's element j of a group is argument i * pack + j: here the
// first two are the f32 operand's.
func.func @map_argument_order(%x: tensor<128xf32>, %n: tensor<128xi32>) {
  // expected-error @+1 {{'tile.map_elementwise' op region argument 1 has type 'i32' but operand #0 has element type 'f32'}}
  %0 = tile.map_elementwise %x, %n pack = 2 : (tensor<128xf32>, tensor<128xi32>) -> tensor<128xf32> {
  ^bb0(%x0: f32, %n0: i32, %x1: f32, %n1: i32):
    tile.yield %x0, %x1 : f32, f32
  }
  return
}

// -----

func.func @map_yield_count(%x: tensor<128xf32>) {
  %0 = tile.map_elementwise %x pack = 2 : (tensor<128xf32>) -> tensor<128xf32> {
  ^bb0(%x0: f32, %x1: f32):
    // expected-error @+1 {{'tile.yield' op yields 1 value(s) but tile.map_elementwise takes 2 (2 per result for 1 result(s))}}
    tile.yield %x0 : f32
  }
  return
}

// -----

func.func @map_yield_type(%x: tensor<128xf32>) {
  %0:2 = tile.map_elementwise %x : (tensor<128xf32>) -> (tensor<128xf32>, tensor<128xi1>) {
  ^bb0(%xi: f32):
    // expected-error @+1 {{'tile.yield' op value 1 has type 'f32' but result #1 has element type 'i1'}}
    tile.yield %xi, %xi : f32, f32
  }
  return
}

// -----

func.func @map_terminator(%x: tensor<128xf32>) {
  // expected-error @+1 {{'tile.map_elementwise' op region must end with tile.yield}}
  %0 = tile.map_elementwise %x : (tensor<128xf32>) -> tensor<128xf32> {
  ^bb0(%xi: f32):
    llvm.unreachable
  }
  return
}

// -----

// Each run of the region has its own elements: no tile is made in it...
func.func @map_tile_inside(%x: tensor<128xf32>) {
  %0 = tile.map_elementwise %x : (tensor<128xf32>) -> tensor<128xf32> {
  ^bb0(%xi: f32):
    // expected-error @+1 {{'tile.splat' op computes on a value of type 'tensor<4xf32>' in the region of tile.map_elementwise, which computes on scalars (integers, floats, index, pointers)}}
    %t = tile.splat %xi : f32 -> tensor<4xf32>
    tile.yield %xi : f32
  }
  return
}

// -----

// ... nor one from outside used.
func.func @map_tile_captured(%x: tensor<128xf32>, %t: tensor<128xf32>) {
  %0 = tile.map_elementwise %x : (tensor<128xf32>) -> tensor<128xf32> {
  ^bb0(%xi: f32):
    // expected-error @+1 {{'tile.reduce' op computes on a value of type 'tensor<128xf32>' in the region of tile.map_elementwise}}
    %s = tile.reduce %t axis 0 : tensor<128xf32> -> f32 {
    ^bb0(%a: f32, %b: f32):
      %c = arith.addf %a, %b : f32
      tile.yield %c : f32
    }
    %y = arith.addf %xi, %s : f32
    tile.yield %y : f32
  }
  return
}

// -----

// A store would happen once for every copy of an element that a GPU
// layout replicates (Triton refuses stores here too); a load may stay.
func.func @map_store(%x: tensor<128xf32>, %p: !tile.ptr<f32>) {
  %0 = tile.map_elementwise %x : (tensor<128xf32>) -> tensor<128xf32> {
  ^bb0(%xi: f32):
    %old = tile.load %p : !tile.ptr<f32> -> f32
    %zero = arith.constant 0.0 : f32
    %positive = arith.cmpf ogt, %xi, %zero : f32
    scf.if %positive {
      // expected-error @+1 {{'tile.store' op may write memory, which the region of tile.map_elementwise does not: it runs once for every copy of an element a thread holds}}
      tile.store %p, %xi : !tile.ptr<f32>, f32
    }
    tile.yield %old : f32
  }
  return
}

// -----

func.func @map_print(%x: tensor<128xf32>) {
  %0 = tile.map_elementwise %x : (tensor<128xf32>) -> tensor<128xf32> {
  ^bb0(%xi: f32):
    // expected-error @+1 {{'tile.print' op may write memory, which the region of tile.map_elementwise does not}}
    tile.print "x", %xi : f32
    tile.yield %xi : f32
  }
  return
}

// -----

func.func @extern_empty_symbol(%x: f32) {
  // expected-error @+1 {{'tile.extern_elementwise' op names no function to call: symbol is empty}}
  %0 = tile.extern_elementwise "" host "expf" pure %x : (f32) -> f32
  return
}

// -----

func.func @extern_empty_host_symbol(%x: f32) {
  // expected-error @+1 {{'tile.extern_elementwise' op names an empty host function: leave `host` out where the C math library has none}}
  %0 = tile.extern_elementwise "__nv_expf" host "" pure %x : (f32) -> f32
  return
}

// -----

func.func @extern_no_operands() {
  // expected-error @+1 {{'tile.extern_elementwise' op needs at least one operand}}
  %0 = tile.extern_elementwise "__nv_nanf" pure : () -> f32
  return
}

// -----

func.func @extern_scalar_and_tile(%x: tensor<128xf32>, %n: i32) {
  // expected-error @+1 {{'tile.extern_elementwise' op operand #1 of type 'i32' does not have the shape and layout of operand #0, of type 'tensor<128xf32>': the operands and results are all scalars or all tiles of one shape}}
  %0 = tile.extern_elementwise "__nv_ldexpf" host "ldexpf" pure %x, %n : (tensor<128xf32>, i32) -> tensor<128xf32>
  return
}

// -----

func.func @extern_shapes(%x: tensor<128xf32>) {
  // expected-error @+1 {{'tile.extern_elementwise' op all non-scalar operands/results must have the same shape}}
  %0 = tile.extern_elementwise "__nv_expf" host "expf" pure %x : (tensor<128xf32>) -> tensor<64xf32>
  return
}

// -----

#a = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#b = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
func.func @extern_layouts(%x: tensor<128xf32, #a>) {
  // expected-error @+1 {{'tile.extern_elementwise' op result #0 of type 'tensor<128xf32, #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>' does not have the shape and layout of operand #0}}
  %0 = tile.extern_elementwise "__nv_expf" host "expf" pure %x : (tensor<128xf32, #a>) -> tensor<128xf32, #b>
  return
}

// -----

func.func @extern_pointer_operand(%p: !tile.ptr<f32>) {
  // expected-error @+1 {{'tile.extern_elementwise' op operand #0 must be variadic of integer, float or tile of them, but got '!tile.ptr<f32>'}}
  %0 = tile.extern_elementwise "__nv_expf" host "expf" pure %p : (!tile.ptr<f32>) -> f32
  return
}

// -----

func.func @extern_index_result(%x: f32) {
  // expected-error @+1 {{'tile.extern_elementwise' op result #0 must be integer, float or tile of them, but got 'index'}}
  %0 = tile.extern_elementwise "__nv_ilogbf" host "ilogbf" pure %x : (f32) -> index
  return
}
