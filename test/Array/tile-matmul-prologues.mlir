// RUN: kiln-opt %s -split-input-file -convert-elementwise-to-linalg -kiln-fuse -kiln-tile -canonicalize | FileCheck %s
// RUN: kiln-run %s --kernel=shifted --init=iota | FileCheck %s --check-prefix=SHIFTED

// Prologues on both operands whose value at zero is not zero, (x + 1) @
// (y + 2), with K = 3: the last (only) K step loads 32 columns of A and
// rows of B, zeros past K, and the prologues make them 1 and 2. Those
// are set back to zero before the dot, or each of the 29 would add 2 to
// every element (found by a random program: the result was 58 too
// large). One step: canonicalization removes the loop. (Prologues that
// keep zeros zero get no select: the last case.)
// CHECK-LABEL: func.func @shifted_kernel0_tile
// CHECK: %[[A:.*]] = arith.addf %{{.*}}, %{{.*}} : tensor<64x32xf32>
// CHECK: %[[A0:.*]] = arith.select %{{.*}}, %[[A]], %{{.*}} : tensor<64x32xi1>, tensor<64x32xf32>
// CHECK: %[[B:.*]] = arith.addf %{{.*}}, %{{.*}} : tensor<32x64xf32>
// CHECK: %[[B0:.*]] = arith.select %{{.*}}, %[[B]], %{{.*}} : tensor<32x64xi1>, tensor<32x64xf32>
// CHECK: tile.dot %[[A0]], %[[B0]]
//
// x = [[0, 1, 2], [3, 4, 5]] and y = [[0, 1], [2, 3], [4, 5]]:
// (x + 1) @ (y + 2) = [[28, 34], [64, 79]].
// SHIFTED: result0 f32[4]: sum=205 min=28 max=79 first=[28, 34, 64, 79]
func.func @shifted(%x: tensor<2x3xf32>, %y: tensor<3x2xf32>) -> tensor<2x2xf32> {
  %one = arith.constant dense<1.0> : tensor<2x3xf32>
  %two = arith.constant dense<2.0> : tensor<3x2xf32>
  %a = arith.addf %x, %one : tensor<2x3xf32>
  %b = arith.addf %y, %two : tensor<3x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %c = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x2xf32>) outs(%f : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %c : tensor<2x2xf32>
}

// -----

// K = 64, a multiple of block-k (32): no step reads past K, and the
// prologues' blocks go to the dot as they are.
// CHECK-LABEL: func.func @whole_steps_kernel0_tile
// CHECK: scf.for
// CHECK-NOT: arith.select {{.*}} tensor<64x32xf32>
// CHECK: tile.dot
func.func @whole_steps(%x: tensor<8x64xf32>, %y: tensor<64x8xf32>) -> tensor<8x8xf32> {
  %one = arith.constant dense<1.0> : tensor<8x64xf32>
  %two = arith.constant dense<2.0> : tensor<64x8xf32>
  %a = arith.addf %x, %one : tensor<8x64xf32>
  %b = arith.addf %y, %two : tensor<64x8xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %c = linalg.matmul ins(%a, %b : tensor<8x64xf32>, tensor<64x8xf32>) outs(%f : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %c : tensor<8x8xf32>
}

// -----

// Prologues that keep zeros zero (a scale, a cast: kiln-tile folds each
// body on zeros to know) need no select, whatever K.
// CHECK-LABEL: func.func @scaled_kernel0_tile
// CHECK-NOT: arith.select {{.*}} tensor<64x32xf32>
// CHECK-NOT: arith.select {{.*}} tensor<32x64xf32>
// CHECK: tile.dot
func.func @scaled(%x: tensor<2x3xf32>, %y: tensor<3x2xf16>) -> tensor<2x2xf32> {
  %three = arith.constant dense<3.0> : tensor<2x3xf32>
  %a = arith.mulf %x, %three : tensor<2x3xf32>
  %b = arith.extf %y : tensor<3x2xf16> to tensor<3x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %c = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x2xf32>) outs(%f : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %c : tensor<2x2xf32>
}

// -----

// A bias broadcast along K ((x + a) with a per-row a) loads its values
// past K too: (x + a) folds to 0 on zeros, but its padding is a, so the
// select stays.
// CHECK-LABEL: func.func @biased_kernel0_tile
// CHECK: %[[A:.*]] = arith.addf %{{.*}}, %{{.*}} : tensor<64x32xf32>
// CHECK: arith.select %{{.*}}, %[[A]], %{{.*}} : tensor<64x32xi1>, tensor<64x32xf32>
// CHECK: tile.dot
func.func @biased(%x: tensor<2x3xf32>, %a: tensor<2xf32>, %y: tensor<3x2xf32>) -> tensor<2x2xf32> {
  %e0 = tensor.empty() : tensor<2x3xf32>
  %xa = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %a : tensor<2x3xf32>, tensor<2xf32>) outs(%e0 : tensor<2x3xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %s = arith.addf %v, %w : f32
    linalg.yield %s : f32
  } -> tensor<2x3xf32>
  %two = arith.constant dense<2.0> : tensor<3x2xf32>
  %b = arith.addf %y, %two : tensor<3x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %c = linalg.matmul ins(%xa, %b : tensor<2x3xf32>, tensor<3x2xf32>) outs(%f : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %c : tensor<2x2xf32>
}
