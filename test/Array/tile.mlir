// RUN: kiln-opt %s -split-input-file -convert-elementwise-to-linalg -kiln-fuse -kiln-tile -canonicalize -verify-diagnostics | FileCheck %s
// RUN: kiln-opt %s -split-input-file -convert-elementwise-to-linalg -kiln-fuse -kiln-tile=block=256 -canonicalize -verify-diagnostics | FileCheck %s --check-prefix=B256

// An elementwise kernel is flattened into blocks of 1024 elements: 3 programs
// for 3000 elements, the last one masked. The function becomes a plan that
// launches it on the caller's buffers.
// CHECK-LABEL: func.func @coscos_kernel0_tile
// CHECK-SAME: (%[[X:.*]]: !tile.ptr<f32>, %[[Y:.*]]: !tile.ptr<f32>)
// CHECK: %[[PID:.*]] = tile.program_id x
// CHECK: tile.range 0 to 1024 : tensor<1024xi32>
// CHECK: %[[MASK:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : tensor<1024xi32>
// CHECK: %[[V:.*]] = tile.load %{{.*}}, %[[MASK]] : tensor<1024x!tile.ptr<f32>> -> tensor<1024xf32>
// CHECK: %[[C1:.*]] = math.cos %[[V]] : tensor<1024xf32>
// CHECK: %[[C2:.*]] = math.cos %[[C1]] : tensor<1024xf32>
// CHECK: tile.store %{{.*}}, %[[C2]], %[[MASK]]
// CHECK-LABEL: func.func @coscos
// CHECK-SAME: (%[[IN:.*]]: i64, %[[OUT:.*]]: i64) attributes {plan.inputs = [tensor<3000xf32>], plan.outputs = [tensor<3000xf32>]}
// CHECK: plan.launch @coscos_kernel0_tile[%c3_i64](%[[IN]], %[[OUT]]) : i64, i64
// B256-LABEL: func.func @coscos
// B256: plan.launch @coscos_kernel0_tile[%c12_i64](%{{.*}}, %{{.*}}) : i64, i64
func.func @coscos(%x: tensor<3000xf32>) -> tensor<3000xf32> {
  %a = math.cos %x : tensor<3000xf32>
  %b = math.cos %a : tensor<3000xf32>
  return %b : tensor<3000xf32>
}

// -----

// A value materialised between kernels lives in a temporary the plan
// allocates and frees.
// CHECK-LABEL: func.func @temporary(
// CHECK-SAME: %[[X:[a-z0-9]+]]: i64, %[[Y:[a-z0-9]+]]: i64, %[[Z:[a-z0-9]+]]: i64)
// CHECK: %[[T:.*]] = plan.alloc %c1024_i64
// CHECK: plan.launch @temporary_kernel0_tile[%{{.*}}](%[[X]], %[[T]])
// CHECK: plan.launch @temporary_kernel1_tile[%{{.*}}](%[[T]], %[[Y]])
// CHECK: plan.launch @temporary_kernel2_tile[%{{.*}}](%[[T]], %[[Z]])
// CHECK: plan.free %[[T]]
#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
func.func @temporary(%x: tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>) {
  %e = math.exp %x : tensor<16x16xf32>
  %l = math.log %e : tensor<16x16xf32>
  // Too costly to recompute in both transposing users, which run over
  // other rows: materialised once.
  // expected-remark @+1 {{not fused with its neighbours}}
  %t = math.tanh %l : tensor<16x16xf32>
  %empty = tensor.empty() : tensor<16x16xf32>
  // expected-remark @+1 {{not fused with its neighbours}}
  %y = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<16x16xf32>) outs(%empty : tensor<16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = math.sin %in : f32
    linalg.yield %s : f32
  } -> tensor<16x16xf32>
  // expected-remark @+1 {{not fused with its neighbours}}
  %z = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<16x16xf32>) outs(%empty : tensor<16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = math.cos %in : f32
    linalg.yield %c : f32
  } -> tensor<16x16xf32>
  return %y, %z : tensor<16x16xf32>, tensor<16x16xf32>
}

// -----

// A reduction makes a row kernel: each row in one tile of the next power
// of two, masked; the masked elements are set to the neutral element of
// the combining op before tile.reduce. Rows this short (8 wide) are taken
// as many at a time as make a tile of 1024 elements, here all 4: one
// program, whose [4 x 8] tile is reduced along its rows.
// CHECK-LABEL: func.func @row_sums_kernel0_tile
// CHECK: %[[PID:.*]] = tile.program_id x
// CHECK: %[[ROWS:.*]] = arith.addi %{{.*}}, %{{.*}} : tensor<4xi32>
// CHECK: %[[COLS:.*]] = tile.range 0 to 8 : tensor<8xi32>
// CHECK: %[[V:.*]] = tile.load %{{.*}}, %{{.*}} : tensor<4x8x!tile.ptr<f32>> -> tensor<4x8xf32>
// CHECK: %[[M:.*]] = arith.select %{{.*}}, %[[V]], %{{.*}} : tensor<4x8xi1>, tensor<4x8xf32>
// CHECK: %[[S:.*]] = tile.reduce %[[M]] axis 1 : tensor<4x8xf32> -> tensor<4xf32>
// CHECK:   arith.addf
// CHECK: %[[T:.*]] = arith.addf %[[S]], %{{.*}} : tensor<4xf32>
// CHECK: %[[OUT:.*]] = tile.addptr %{{.*}}, %[[ROWS]] : tensor<4x!tile.ptr<f32>>, tensor<4xi32>
// CHECK: tile.store %[[OUT]], %[[T]] : tensor<4x!tile.ptr<f32>>, tensor<4xf32>
// CHECK-LABEL: func.func @row_sums(
// CHECK: plan.launch @row_sums_kernel0_tile[%c1_i64](%{{.*}}, %{{.*}}) : i64, i64
func.func @row_sums(%x: tensor<4x7xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x7xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// A matmul that accumulates into an input (C += A B) is not tiled yet.
func.func @mm(%a: tensor<4x8xf32>, %b: tensor<8x5xf32>, %c: tensor<4x5xf32>) -> tensor<4x5xf32> {
  // expected-error @+1 {{kiln-tile: a matmul must accumulate into a constant fill}}
  %d = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x5xf32>) outs(%c : tensor<4x5xf32>) -> tensor<4x5xf32>
  return %d : tensor<4x5xf32>
}

// -----

// A named op that is a generic with fixed maps (here linalg.transpose) is
// tiled as that generic: one program of the 512 elements, each read at its
// transposed offset (row stride 32 in x) and written at its own (16).
// CHECK-LABEL: func.func @transpose_kernel0_tile
// CHECK: tile.load %{{.*}}, %{{.*}} : tensor<512x!tile.ptr<f32>> -> tensor<512xf32>
// CHECK: tile.store %{{.*}}, %{{.*}}, %{{.*}} : tensor<512x!tile.ptr<f32>>, tensor<512xf32>
func.func @transpose(%x: tensor<16x32xf32>) -> tensor<32x16xf32> {
  %e = tensor.empty() : tensor<32x16xf32>
  %t = linalg.transpose ins(%x : tensor<16x32xf32>) outs(%e : tensor<32x16xf32>) permutation = [1, 0]
  return %t : tensor<32x16xf32>
}

// -----

// One element broadcast to every program (here x[2, 1] of a 5x7 tensor)
// is read at its constant offset, 2 * 7 + 1.
// CHECK-LABEL: func.func @broadcast_element_kernel0_tile
// CHECK-DAG: %[[PIVOT:.*]] = arith.constant dense<15> : tensor<64xi32>
// CHECK: %[[X:.*]] = tile.load
// CHECK: %[[BASE:.*]] = tile.splat %arg0
// CHECK: %[[PTRS:.*]] = tile.addptr %[[BASE]], %[[PIVOT]]
// CHECK: %[[P:.*]] = tile.load %[[PTRS]]
// CHECK: arith.divf %[[X]], %[[P]]
func.func @broadcast_element(%x: tensor<5x7xf32>) -> tensor<5x7xf32> {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %pivot = tensor.extract %x[%c2, %c1] : tensor<5x7xf32>
  %s = tensor.splat %pivot : tensor<5x7xf32>
  %y = arith.divf %x, %s : tensor<5x7xf32>
  return %y : tensor<5x7xf32>
}

// -----

// An element read at an index known only at run time stays between the
// launches, which a plan does not do: it is refused by name.
func.func @element_at_run_time(%x: tensor<16xf32>, %k: tensor<1xi32>) -> tensor<16xf32> {
  %c0 = arith.constant 0 : index
  %a = math.exp %x : tensor<16xf32>
  // expected-error @+1 {{kiln-tile: a launch plan holds only calls of kernels, not tensor.extract}}
  %ki = tensor.extract %k[%c0] : tensor<1xi32>
  %i = arith.index_cast %ki : i32 to index
  %first = tensor.extract %a[%i] : tensor<16xf32>
  %s = tensor.splat %first : tensor<16xf32>
  %y = arith.divf %a, %s : tensor<16xf32>
  return %y : tensor<16xf32>
}

// -----

// A 0-D tensor is one element: one program of a one-element tile (this
// crashed kiln-tile, found by kiln.fuse's tests).
// CHECK-LABEL: func.func @scalar_tensor_kernel0_tile
// CHECK: tile.load %{{.*}}, %{{.*}} : tensor<1x!tile.ptr<f32>> -> tensor<1xf32>
// CHECK: math.cos %{{.*}} : tensor<1xf32>
// CHECK-LABEL: func.func @scalar_tensor(
// CHECK: plan.launch @scalar_tensor_kernel0_tile
func.func @scalar_tensor(%x: tensor<f32>) -> tensor<f32> {
  %y = math.cos %x : tensor<f32>
  return %y : tensor<f32>
}

// -----

// x @ w.T: kiln-fuse generalizes the transpose and takes it into the
// matmul kernel as a prologue; the kernel reads w in place, element (k, n)
// of the B block at n * 20 + k (columns 20 apart, rows 1).
// CHECK-LABEL: func.func @x_wt_kernel0_tile
// CHECK-DAG: %[[LD:.*]] = arith.constant dense<20> : tensor<64xi32>
// CHECK: tile.load %{{.*}} -> tensor<64x32xf32>
// CHECK: %[[COLS:.*]] = arith.muli %{{.*}}, %[[LD]] : tensor<64xi32>
// CHECK-NEXT: tile.expand_dims %[[COLS]] axis 0 : tensor<64xi32> -> tensor<1x64xi32>
// CHECK: %[[W:.*]] = tile.load %{{.*}}, %{{.*}}, other %{{.*}} : tensor<32x64x!tile.ptr<f32>> -> tensor<32x64xf32>
// CHECK: tile.dot %{{.*}}, %[[W]], %{{.*}} : tensor<64x32xf32>, tensor<32x64xf32> -> tensor<64x64xf32>
// CHECK-LABEL: func.func @x_wt(
// CHECK-COUNT-1: plan.launch @x_wt_kernel
// CHECK-NOT: plan.launch @x_wt_kernel
func.func @x_wt(%x: tensor<30x20xf32>, %w: tensor<45x20xf32>) -> tensor<30x45xf32> {
  %zero = arith.constant 0.0 : f32
  %et = tensor.empty() : tensor<20x45xf32>
  %wt = linalg.transpose ins(%w : tensor<45x20xf32>) outs(%et : tensor<20x45xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<30x45xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<30x45xf32>) -> tensor<30x45xf32>
  %y = linalg.matmul ins(%x, %wt : tensor<30x20xf32>, tensor<20x45xf32>) outs(%acc : tensor<30x45xf32>) -> tensor<30x45xf32>
  return %y : tensor<30x45xf32>
}

// -----

// Element indices are 32-bit: a kernel of more elements is refused, not
// computed wrong.
func.func @huge(%x: tensor<65536x65536xf32>) -> tensor<65536x65536xf32> {
  // expected-error @+1 {{kiln-tile: kernel 'huge_kernel0' has an operand of 4294967296 elements; element offsets are 32-bit}}
  %y = math.exp %x : tensor<65536x65536xf32>
  return %y : tensor<65536x65536xf32>
}

// -----

// A fill returned on its own is the elementwise kernel that stores its
// value; the fill that starts the row sums is that kernel's own.
// CHECK-LABEL: func.func @zeros_and_sums_kernel1_tile
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<16xf32>
// CHECK: tile.store %{{.*}}, %[[ZERO]], %{{.*}} : tensor<16x!tile.ptr<f32>>, tensor<16xf32>
// CHECK-NOT: tile.load
// CHECK: return
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @zeros_and_sums(%x: tensor<16x8xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %zero = arith.constant 0.0 : f32
  %rows = tensor.empty() : tensor<16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%rows : tensor<16xf32>) -> tensor<16xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x8xf32>) outs(%init : tensor<16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<16xf32>
  return %init, %sum : tensor<16xf32>, tensor<16xf32>
}

// -----

// A generic that yields a constant from outside its body stores it.
// CHECK-LABEL: func.func @sevens_kernel0_tile
// CHECK: %[[SEVEN:.*]] = arith.constant dense<7.000000e+00> : tensor<16xf32>
// CHECK: tile.store %{{.*}}, %[[SEVEN]], %{{.*}} : tensor<16x!tile.ptr<f32>>, tensor<16xf32>
func.func @sevens() -> tensor<16xf32> {
  %seven = arith.constant 7.0 : f32
  %e = tensor.empty() : tensor<16xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      outs(%e : tensor<16xf32>) {
  ^bb0(%out: f32):
    linalg.yield %seven : f32
  } -> tensor<16xf32>
  return %y : tensor<16xf32>
}

// -----

// Two results of one elementwise kernel that read x alike: x is loaded
// once for both.
// CHECK-LABEL: func.func @two_results_kernel0_tile
// CHECK-SAME: (%[[X:.*]]: !tile.ptr<f32>, %{{.*}}: !tile.ptr<f32>, %{{.*}}: !tile.ptr<f32>)
// CHECK: tile.splat %[[X]]
// CHECK: tile.load
// CHECK-NOT: tile.load
// CHECK: math.sin
// CHECK: math.cos
// CHECK-COUNT-2: tile.store
func.func @two_results(%x: tensor<256xf32>) -> (tensor<256xf32>, tensor<256xf32>) {
  %s = math.sin %x : tensor<256xf32>
  %c = math.cos %x : tensor<256xf32>
  return %s, %c : tensor<256xf32>, tensor<256xf32>
}
