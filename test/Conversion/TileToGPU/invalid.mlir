// RUN: kiln-opt %s -split-input-file -tile-assign-layouts -kiln-convert-tile-to-gpu -verify-diagnostics
// RUN: not kiln-opt %s -split-input-file -kiln-convert-tile-to-gpu 2>&1 | FileCheck %s --check-prefix=NOLAYOUT

// NOLAYOUT: the module has no tilegpu.num_warps; run tile-assign-layouts first

func.func @dot_too_big(%a: tensor<128x64xf32>, %b: tensor<64x128xf32>, %c: tensor<128x128xf32>) {
  // expected-remark @+2 {{not on tensor cores: f32 products with input_precision = ieee need CUDA cores (tf32 allows tensor cores)}}
  // expected-error @+1 {{'tile.dot' op target nvptx: without tensor cores, the operands are staged in 65536 bytes of shared memory, over the 49152 a kernel has; use smaller tiles}}
  %d = tile.dot %a, %b, %c : tensor<128x64xf32>, tensor<64x128xf32> -> tensor<128x128xf32>
  return
}

// -----

func.func @calls(%x: i32) {
  // expected-error @+1 {{'func.call' op has no lowering for target nvptx: kernels cannot call functions; inline them first}}
  func.call @helper(%x) : (i32) -> ()
  return
}

func.func private @helper(i32)

// -----

func.func @constant(%out: !tile.ptr<f32>) {
  // expected-error @+1 {{'arith.constant' op target nvptx: a tile constant with different elements has no lowering; build it from tile.range or tile.splat}}
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %r = tile.range 0 to 4 : tensor<4xi32>
  %os = tile.splat %out : !tile.ptr<f32> -> tensor<4x!tile.ptr<f32>>
  %op = tile.addptr %os, %r : tensor<4x!tile.ptr<f32>>, tensor<4xi32>
  tile.store %op, %c : tensor<4x!tile.ptr<f32>>, tensor<4xf32>
  return
}

// -----

func.func @returns(%x: i32) -> i32 {
  // expected-error @-1 {{'func.func' op target nvptx: a kernel returns no values}}
  return %x : i32
}

// -----

func.func @not_power_of_two(%x: tensor<48xf32>, %out: !tile.ptr<f32>) {
  // expected-error @+1 {{target nvptx: a reduction needs powers of two along its axis (size 48, 1 per thread, 32 lanes)}}
  %s = tile.reduce %x axis 0 : tensor<48xf32> -> f32 {
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    tile.yield %t : f32
  }
  tile.store %out, %s : !tile.ptr<f32>, f32
  return
}

// -----

// expected-error @+1 {{'func.func' op target nvptx: a kernel needs a body}}
func.func private @declared(i32)

// -----

// A zero-width argument: NVPTX would end the process with a fatal error
// ("Empty parameter types are not supported"; found by the fuzzer).
// expected-error @+1 {{'func.func' op target nvptx: a kernel argument of type 'i0' (no bits) is not supported}}
func.func @no_bits(%x: tensor<4xf32>, %b: i0) {
  tile.print "x", %x : tensor<4xf32>
  return
}

// -----

// Only libdevice is linked: a function of another name would reach ptxas
// unresolved.
func.func @extern_not_libdevice(%p: !tile.ptr<f32>, %x: f32) {
  // expected-error @+1 {{'tile.extern_elementwise' op target nvptx: calls 'hypotf', which is not a libdevice function (those are named __nv_*): the GPU target links only libdevice}}
  %y = tile.extern_elementwise "hypotf" host "hypotf" pure %x, %x : (f32, f32) -> f32
  tile.store %p, %y : !tile.ptr<f32>, f32
  return
}

// -----

// One function, one declaration: calls of other types are refused.
func.func @extern_two_types(%p: !tile.ptr<f32>, %x: f32, %d: f64) {
  %y = tile.extern_elementwise "__nv_expf" host "expf" pure %x : (f32) -> f32
  // expected-error @+1 {{'tile.extern_elementwise' op target nvptx: calls '__nv_expf' as '!llvm.func<f32 (f64)>', but the kernels already call it as '!llvm.func<f32 (f32)>'}}
  %z = tile.extern_elementwise "__nv_expf" host "expf" pure %d : (f64) -> f32
  %s = arith.addf %y, %z : f32
  tile.store %p, %s : !tile.ptr<f32>, f32
  return
}

// -----

func.func @extern_float8(%p: !tile.ptr<f32>, %x: f8E4M3FN) {
  // expected-error @+1 {{'tile.extern_elementwise' op target nvptx: calls '__nv_expf' with elements of type 'f8E4M3FN', which no libdevice function takes}}
  %y = tile.extern_elementwise "__nv_expf" pure %x : (f8E4M3FN) -> f32
  tile.store %p, %y : !tile.ptr<f32>, f32
  return
}
