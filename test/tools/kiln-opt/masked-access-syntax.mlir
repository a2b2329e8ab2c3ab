// RUN: not kiln-opt %s -split-input-file 2>&1 | FileCheck %s

// A comma in a load or store must be followed by the operand it announces.

func.func @trailing_comma(%p: tensor<8x!tile.ptr<f32>>) {
  // CHECK: masked-access-syntax.mlir:[[@LINE+1]]:21: error: expected SSA operand
  %0 = tile.load %p, : tensor<8x!tile.ptr<f32>> -> tensor<8xf32>
  return
}

// -----

func.func @other_without_mask(%p: tensor<8x!tile.ptr<f32>>, %o: tensor<8xf32>) {
  // CHECK: masked-access-syntax.mlir:[[@LINE+1]]:21: error: expected SSA operand
  %0 = tile.load %p, other %o : tensor<8x!tile.ptr<f32>> -> tensor<8xf32>
  return
}

// -----

func.func @other_without_operand(%p: tensor<8x!tile.ptr<f32>>, %m: tensor<8xi1>) {
  // CHECK: masked-access-syntax.mlir:[[@LINE+1]]:31: error: expected SSA operand
  %0 = tile.load %p, %m, other : tensor<8x!tile.ptr<f32>> -> tensor<8xf32>
  return
}

// -----

func.func @store_trailing_comma(%p: !tile.ptr<f32>, %v: f32) {
  // CHECK: masked-access-syntax.mlir:[[@LINE+1]]:21: error: expected SSA operand
  tile.store %p, %v, : !tile.ptr<f32>, f32
  return
}
