// RUN: kiln-opt %s -split-input-file -convert-elementwise-to-linalg -kiln-fuse -kiln-tile -canonicalize -verify-diagnostics | FileCheck %s

// A reshape of a row-major tensor is its buffer seen with another shape:
// the plan passes x's address to the kernel that reads it as [6, 4], and
// the kernel writes the [6, 5] product straight into the caller's
// [2, 3, 5] result; nothing is allocated or copied.
// CHECK-LABEL: func.func @linear(
// CHECK-SAME: %[[X:.*]]: i64, %[[W:.*]]: i64, %[[B:.*]]: i64, %[[R:.*]]: i64)
// CHECK-SAME: plan.inputs = [tensor<2x3x4xf32>, tensor<4x5xf32>, tensor<5xf32>], plan.outputs = [tensor<2x3x5xf32>]
// CHECK-NOT: plan.alloc
// CHECK: plan.launch @linear_kernel0_tile[%{{.*}}](%[[X]], %[[W]], %[[B]], %[[R]])
// CHECK-NOT: plan.alloc
// CHECK: return
func.func @linear(%x: tensor<2x3x4xf32>, %w: tensor<4x5xf32>, %b: tensor<5xf32>) -> tensor<2x3x5xf32> {
  %zero = arith.constant 0.0 : f32
  %xc = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
  %e = tensor.empty() : tensor<6x5xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<6x5xf32>) -> tensor<6x5xf32>
  %mm = linalg.matmul ins(%xc, %w : tensor<6x4xf32>, tensor<4x5xf32>) outs(%init : tensor<6x5xf32>) -> tensor<6x5xf32>
  %y = tensor.expand_shape %mm [[0, 1], [2]] output_shape [2, 3, 5] : tensor<6x5xf32> into tensor<2x3x5xf32>
  %e3 = tensor.empty() : tensor<2x3x5xf32>
  %z = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%y, %b : tensor<2x3x5xf32>, tensor<5xf32>) outs(%e3 : tensor<2x3x5xf32>) {
  ^bb0(%v: f32, %c: f32, %o: f32):
    %s = arith.addf %v, %c : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<2x3x5xf32>
  return %z : tensor<2x3x5xf32>
}

// -----

// Between two kernels, a reshaped temporary is one buffer: the product
// is allocated once (6 * 5 floats) and the row kernel reads it as
// [2, 15].
// CHECK-LABEL: func.func @product_rows(
// CHECK: %[[BYTES:.*]] = arith.constant 120 : i64
// CHECK: %[[T:.*]] = plan.alloc %[[BYTES]]
// CHECK: plan.launch @product_rows_kernel0_tile[%{{.*}}](%{{.*}}, %{{.*}}, %[[T]])
// CHECK: plan.launch @product_rows_kernel1_tile[%{{.*}}](%[[T]],
// CHECK: plan.free %[[T]]
func.func @product_rows(%x: tensor<6x4xf32>, %w: tensor<4x5xf32>) -> tensor<2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6x5xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<6x5xf32>) -> tensor<6x5xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<6x4xf32>, tensor<4x5xf32>) outs(%init : tensor<6x5xf32>) -> tensor<6x5xf32>
  %r = tensor.collapse_shape %mm [[0, 1]] : tensor<6x5xf32> into tensor<30xf32>
  %rows = tensor.expand_shape %r [[0, 1]] output_shape [2, 15] : tensor<30xf32> into tensor<2x15xf32>
  %es = tensor.empty() : tensor<2xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%es : tensor<2xf32>) -> tensor<2xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%rows : tensor<2x15xf32>) outs(%sinit : tensor<2xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %a = arith.addf %v, %acc : f32
    linalg.yield %a : f32
  } -> tensor<2xf32>
  return %s : tensor<2xf32>
}

// -----

// A reshape of dynamic sizes would need one size computed from others
// (here x's rows, 3 * ?, against y's).
func.func @dynamic_rows(%x: tensor<?x3x4xf32>, %y: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{kiln-tile: a launch plan reshapes only tensors of static shape}}
  %xc = tensor.collapse_shape %x [[0, 1], [2]] : tensor<?x3x4xf32> into tensor<?x4xf32>
  %n = tensor.dim %y, %c0 : tensor<?x4xf32>
  %e = tensor.empty(%n) : tensor<?x4xf32>
  %z = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%xc, %y : tensor<?x4xf32>, tensor<?x4xf32>) outs(%e : tensor<?x4xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %s = math.exp %v : f32
    %t = arith.addf %s, %w : f32
    linalg.yield %t : f32
  } -> tensor<?x4xf32>
  return %z : tensor<?x4xf32>
}
