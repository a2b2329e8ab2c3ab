// RUN: kiln-opt %s -split-input-file -kiln-tile -verify-diagnostics

// Kernels written by hand that gather where kiln-tile does not: kiln-fuse
// never makes them (a gather is in an elementwise or row kernel, from an
// input of it), and kiln-tile refuses each by name.

// A table of dynamic shape.
func.func private @f_kernel0(%ids: tensor<8xi64>, %w: tensor<?x64xf32>) -> tensor<8x64xf32> attributes {kiln.kernel} {
  %e = tensor.empty() : tensor<8x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%ids : tensor<8xi64>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%i: i64, %o: f32):
    %row = arith.index_cast %i : i64 to index
    %col = linalg.index 1 : index
    // expected-error @+1 {{kiln-tile: a body extracts elements of 'tensor<?x64xf32>', a tensor of dynamic shape (gathers read static ones)}}
    %v = tensor.extract %w[%row, %col] : tensor<?x64xf32>
    linalg.yield %v : f32
  } -> tensor<8x64xf32>
  return %r : tensor<8x64xf32>
}
func.func @f(%w: tensor<?x64xf32>, %ids: tensor<8xi64>) -> tensor<8x64xf32> {
  %r = call @f_kernel0(%ids, %w) : (tensor<8xi64>, tensor<?x64xf32>) -> tensor<8x64xf32>
  return %r : tensor<8x64xf32>
}

// -----

// A table the kernel computes: its elements are in other programs' tiles.
func.func private @f_kernel0(%x: tensor<16xf32>, %ids: tensor<16xi32>) -> tensor<16xf32> attributes {kiln.kernel} {
  %e = tensor.empty() : tensor<16xf32>
  %ex = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %a = math.exp %v : f32
    linalg.yield %a : f32
  } -> tensor<16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%ids : tensor<16xi32>) outs(%e : tensor<16xf32>) {
  ^bb0(%i: i32, %o: f32):
    %row = arith.index_cast %i : i32 to index
    // expected-error @+1 {{kiln-tile: a body extracts elements of a tensor that is not an input of its kernel}}
    %g = tensor.extract %ex[%row] : tensor<16xf32>
    linalg.yield %g : f32
  } -> tensor<16xf32>
  return %r : tensor<16xf32>
}
func.func @f(%x: tensor<16xf32>, %ids: tensor<16xi32>) -> tensor<16xf32> {
  %r = call @f_kernel0(%x, %ids) : (tensor<16xf32>, tensor<16xi32>) -> tensor<16xf32>
  return %r : tensor<16xf32>
}

// -----

// A matmul whose prologue gathers a (the first column of w's rows at
// ids, broadcast: w[ids, 0][:, None] * ones @ b).
func.func private @f_kernel0(%ids: tensor<16xi64>, %b: tensor<32x16xf32>, %w: tensor<100x32xf32>) -> tensor<16x16xf32> attributes {kiln.kernel} {
  %e = tensor.empty() : tensor<16x32xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%ids : tensor<16xi64>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%i: i64, %o: f32):
    %row = arith.index_cast %i : i64 to index
    %col = arith.constant 0 : index
    // expected-error @+1 {{kiln-tile: tensor.extract in a matmul kernel's body is not tiled yet}}
    %v = tensor.extract %w[%row, %col] : tensor<100x32xf32>
    linalg.yield %v : f32
  } -> tensor<16x32xf32>
  %zero = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<16x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e2 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %m = linalg.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x16xf32>) outs(%f : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %m : tensor<16x16xf32>
}
func.func @f(%w: tensor<100x32xf32>, %ids: tensor<16xi64>, %b: tensor<32x16xf32>) -> tensor<16x16xf32> {
  %r = call @f_kernel0(%ids, %b, %w) : (tensor<16xi64>, tensor<32x16xf32>, tensor<100x32xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}
