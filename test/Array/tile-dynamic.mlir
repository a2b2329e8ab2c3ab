// RUN: kiln-opt %s -split-input-file -convert-elementwise-to-linalg -kiln-fuse -kiln-tile -canonicalize -verify-diagnostics | FileCheck %s

// An elementwise kernel over a dynamic size takes it as an i32 after its
// pointers and masks by it; the plan takes it as an i64 after the buffers,
// and launches ceil(n / 1024) programs.
// CHECK-LABEL: func.func @coscos_kernel0_tile
// CHECK-SAME: (%{{.*}}: !tile.ptr<f32>, %{{.*}}: !tile.ptr<f32>, %[[N:.*]]: i32)
// CHECK: %[[NS:.*]] = tile.splat %[[N]] : i32 -> tensor<1024xi32>
// CHECK: %[[MASK:.*]] = arith.cmpi slt, %{{.*}}, %[[NS]] : tensor<1024xi32>
// CHECK: tile.load %{{.*}}, %[[MASK]]
// CHECK: tile.store %{{.*}}, %{{.*}}, %[[MASK]]
// CHECK-LABEL: func.func @coscos(
// CHECK-SAME: %[[X:.*]]: i64, %[[Y:.*]]: i64, %[[SIZE:.*]]: i64) attributes {plan.inputs = [tensor<?xf32>], plan.outputs = [tensor<?xf32>], plan.sizes = array<i64: 0, 0>}
// CHECK: %[[N32:.*]] = arith.trunci %[[SIZE]] : i64 to i32
// CHECK: %[[UP:.*]] = arith.addi %[[SIZE]], %c1023_i64
// CHECK: %[[PROGRAMS:.*]] = arith.divui %[[UP]], %c1024_i64
// CHECK: plan.launch @coscos_kernel0_tile[%[[PROGRAMS]]](%[[X]], %[[Y]], %[[N32]]) : i64, i64, i32
func.func @coscos(%x: tensor<?xf32>) -> tensor<?xf32> {
  %a = math.cos %x : tensor<?xf32>
  %b = math.cos %a : tensor<?xf32>
  return %b : tensor<?xf32>
}

// -----

// a[:, None] + b[None, :]: two sizes, the result's shape (n, m); element
// (i, j) is at i * m + j, its indices from the linear id by m.
// CHECK-LABEL: func.func @outer_kernel0_tile
// CHECK-SAME: (%[[A:.*]]: !tile.ptr<f32>, %[[B:.*]]: !tile.ptr<f32>, %[[OUT:.*]]: !tile.ptr<f32>, %[[N:.*]]: i32, %[[M:.*]]: i32)
// CHECK: %[[NM:.*]] = arith.muli %[[N]], %[[M]] : i32
// CHECK: %[[MS:.*]] = tile.splat %[[M]]
// CHECK-NEXT: arith.remsi %{{.*}}, %[[MS]]
// CHECK: %[[ROW:.*]] = arith.divsi
// CHECK-NEXT: %[[NS:.*]] = tile.splat %[[N]]
// CHECK-NEXT: arith.remsi %[[ROW]], %[[NS]]
// CHECK-LABEL: func.func @outer(
// CHECK-SAME: %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %[[SN:.*]]: i64, %[[SM:.*]]: i64) attributes {plan.inputs = [tensor<?xf32>, tensor<?xf32>], plan.outputs = [tensor<?x?xf32>], plan.sizes = array<i64: 0, 1, 0, 1>}
// CHECK: arith.muli %[[SN]], %[[SM]] : i64
#col = affine_map<(d0, d1) -> (d0)>
#row = affine_map<(d0, d1) -> (d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @outer(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %m = tensor.dim %b, %c0 : tensor<?xf32>
  %e = tensor.empty(%n, %m) : tensor<?x?xf32>
  %y = linalg.generic {indexing_maps = [#col, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%x: f32, %z: f32, %out: f32):
    %s = arith.addf %x, %z : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// -----

// A size another input fixes is static in the plan: the caller must pass
// 8 elements for x too, and the grid is a constant.
// CHECK-LABEL: func.func @fixed_kernel0_tile
// CHECK-SAME: (%{{.*}}: !tile.ptr<f32>, %{{.*}}: !tile.ptr<f32>, %{{.*}}: !tile.ptr<f32>)
// CHECK-LABEL: func.func @fixed(
// CHECK-SAME: %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64) attributes {plan.inputs = [tensor<8xf32>, tensor<8xf32>], plan.outputs = [tensor<8xf32>]}
// CHECK: plan.launch @fixed_kernel0_tile[%c1_i64](%{{.*}}, %{{.*}}, %{{.*}}) : i64, i64, i64
#v = affine_map<(d0) -> (d0)>
func.func @fixed(%x: tensor<?xf32>, %y: tensor<8xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %s = linalg.generic {indexing_maps = [#v, #v, #v], iterator_types = ["parallel"]}
      ins(%x, %y : tensor<?xf32>, tensor<8xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %t = arith.addf %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<?xf32>
  return %s : tensor<?xf32>
}

// -----

// A temporary of dynamic shape is allocated at run time (n * m * 4 bytes);
// the transposing users tie its sizes to x's, and the second input of the
// last kernel must have x's shape transposed.
// CHECK-LABEL: func.func @temporary(
// CHECK-SAME: %[[X:[a-z0-9]+]]: i64, %[[W:[a-z0-9]+]]: i64, %[[Y:[a-z0-9]+]]: i64, %[[Z:[a-z0-9]+]]: i64, %[[N:[a-z0-9]+]]: i64, %[[M:[a-z0-9]+]]: i64)
// CHECK-SAME: plan.inputs = [tensor<?x?xf32>, tensor<?x?xf32>], plan.outputs = [tensor<?x?xf32>, tensor<?x?xf32>], plan.sizes = array<i64: 0, 1, 1, 0, 1, 0, 1, 0>
// CHECK: %[[N4:.*]] = arith.muli %[[N]], %c4_i64 : i64
// CHECK: %[[BYTES:.*]] = arith.muli %[[N4]], %[[M]] : i64
// CHECK: %[[T:.*]] = plan.alloc %[[BYTES]]
// CHECK: plan.launch @temporary_kernel0_tile[%{{.*}}](%[[X]], %[[T]],
// CHECK: plan.free %[[T]]
#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
func.func @temporary(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %m = tensor.dim %x, %c1 : tensor<?x?xf32>
  %e = math.exp %x : tensor<?x?xf32>
  %l = math.log %e : tensor<?x?xf32>
  // expected-remark @+1 {{not fused with its neighbours}}
  %t = math.tanh %l : tensor<?x?xf32>
  %empty = tensor.empty(%m, %n) : tensor<?x?xf32>
  // expected-remark @+1 {{not fused with its neighbours}}
  %y = linalg.generic {indexing_maps = [#tr, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t, %w : tensor<?x?xf32>, tensor<?x?xf32>) outs(%empty : tensor<?x?xf32>) {
  ^bb0(%in: f32, %v: f32, %out: f32):
    %s = math.sin %in : f32
    %p = arith.mulf %s, %v : f32
    linalg.yield %p : f32
  } -> tensor<?x?xf32>
  // expected-remark @+1 {{not fused with its neighbours}}
  %z = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<?x?xf32>) outs(%empty : tensor<?x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = math.cos %in : f32
    linalg.yield %c : f32
  } -> tensor<?x?xf32>
  return %y, %z : tensor<?x?xf32>, tensor<?x?xf32>
}

// -----

// A size computed from another is more than a mask: refused by name.
func.func @doubled(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %n2 = arith.muli %n, %c2 : index
  // expected-error @+1 {{kiln-tile: a dynamic size that is not the size of a kernel input needs more than a mask}}
  %e = tensor.empty(%n2) : tensor<?xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      outs(%e : tensor<?xf32>) {
  ^bb0(%out: f32):
    %one = arith.constant 1.0 : f32
    linalg.yield %one : f32
  } -> tensor<?xf32>
  return %y : tensor<?xf32>
}

// -----

// A dynamic dimension read at a constant index has a size no program
// sees.
func.func @first_row(%x: tensor<?x4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  // expected-error @+1 {{kiln-tile: dimension 0 of operand 0 is dynamic and read at a constant index, which needs more than a mask}}
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (0, d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<?x4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = math.cos %in : f32
    linalg.yield %c : f32
  } -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// A row kernel over a dynamic number of rows: rows of 8 are short, so a
// program takes 128 of them (a tile of 1024 elements); the kernel takes
// the number of rows to mask the last block, and the grid is
// ceil(rows / 128).
// CHECK-LABEL: func.func @row_sums_kernel0_tile
// CHECK-SAME: (%{{.*}}: !tile.ptr<f32>, %{{.*}}: !tile.ptr<f32>, %[[ROWS:.*]]: i32)
// CHECK: tile.splat %[[ROWS]] : i32 -> tensor<128xi32>
// CHECK: tile.reduce %{{.*}} axis 1 : tensor<128x8xf32> -> tensor<128xf32>
// CHECK-LABEL: func.func @row_sums(
// CHECK-SAME: %[[X:.*]]: i64, %[[Y:.*]]: i64, %[[N:.*]]: i64) attributes {plan.inputs = [tensor<?x8xf32>], plan.outputs = [tensor<?xf32>], plan.sizes = array<i64: 0, 0>}
// CHECK: %[[ROWS32:.*]] = arith.trunci %[[N]]
// CHECK: %[[UP:.*]] = arith.addi %[[N]], %c127_i64 : i64
// CHECK: %[[BLOCKS:.*]] = arith.divui %[[UP]], %c128_i64 : i64
// CHECK: plan.launch @row_sums_kernel0_tile[%[[BLOCKS]]](%[[X]], %[[Y]], %[[ROWS32]]) : i64, i64, i32
func.func @row_sums(%x: tensor<?x8xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x8xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x8xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<?xf32>
  return %s : tensor<?xf32>
}

// -----

// Rows of dynamic length: the kernel takes the length after its pointers
// and sums the row in a loop over chunks of 1024 columns, masked at the
// row's end, carrying a running sum per lane from 0, which one tile.reduce
// adds up after the loop; the plan passes the size.
// CHECK-LABEL: func.func @row_sums_kernel0_tile
// CHECK-SAME: (%[[X:.*]]: !tile.ptr<f32>, %[[S:.*]]: !tile.ptr<f32>, %[[LEN:.*]]: i32)
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[STEP:.*]] = arith.constant 1024 : i32
// CHECK-DAG: %[[ZEROS:.*]] = arith.constant dense<0.000000e+00> : tensor<1024xf32>
// CHECK-DAG: %[[ROW:.*]] = tile.program_id x
// CHECK: %[[START:.*]] = arith.muli %[[ROW]], %[[LEN]] : i32
// CHECK: tile.addptr %[[X]], %[[START]]
// CHECK: %[[LANES:.*]] = scf.for %[[C:.*]] = %{{.*}} to %[[LEN]] step %[[STEP]] iter_args(%[[ACC:.*]] = %[[ZEROS]]) -> (tensor<1024xf32>)
// CHECK: %[[COLS:.*]] = arith.addi %{{.*}}, %{{.*}} : tensor<1024xi32>
// CHECK: %[[MASK:.*]] = arith.cmpi slt, %[[COLS]], %{{.*}} : tensor<1024xi32>
// CHECK: %[[V:.*]] = tile.load %{{.*}}, %[[MASK]]
// CHECK: %[[KEPT:.*]] = arith.select %[[MASK]], %[[V]], %[[ZEROS]]
// CHECK: %[[NEXT:.*]] = arith.addf %[[KEPT]], %[[ACC]] : tensor<1024xf32>
// CHECK: scf.yield %[[NEXT]]
// CHECK: %[[SUM:.*]] = tile.reduce %[[LANES]] axis 0 : tensor<1024xf32> -> f32
// CHECK: %[[TOTAL:.*]] = arith.addf %[[SUM]], %[[ZERO]] : f32
// CHECK: tile.store %{{.*}}, %[[TOTAL]] : !tile.ptr<f32>, f32
// CHECK-LABEL: func.func @row_sums(
// CHECK-SAME: plan.sizes = array<i64: 0>
// CHECK: %[[N:.*]] = arith.trunci %{{.*}} : i64 to i32
// CHECK: plan.launch @row_sums_kernel0_tile[%c8_i64](%{{.*}}, %{{.*}}, %[[N]])
func.func @row_sums(%x: tensor<8x?xf32>) -> tensor<8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x?xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

// A matmul of dynamic M: the kernel takes M and masks its rows by it; the
// plan launches ceil(M / 64) blocks of rows (N = 16 is one block).
// CHECK-LABEL: func.func @matmul_kernel0_tile
// CHECK-SAME: (%{{.*}}: !tile.ptr<f32>, %{{.*}}: !tile.ptr<f32>, %{{.*}}: !tile.ptr<f32>, %[[M:.*]]: i32)
// CHECK: %[[MS:.*]] = tile.splat %[[M]] : i32 -> tensor<64xi32>
// CHECK: arith.cmpi slt, %{{.*}}, %[[MS]] : tensor<64xi32>
// CHECK: tile.dot
// CHECK-LABEL: func.func @matmul(
// CHECK-SAME: %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %[[SM:.*]]: i64) attributes {plan.inputs = [tensor<?x16xf32>, tensor<16x16xf32>], plan.outputs = [tensor<?x16xf32>], plan.sizes = array<i64: 0, 0>}
// CHECK: %[[UP:.*]] = arith.addi %[[SM]], %c63_i64
// CHECK: %[[BLOCKS:.*]] = arith.divui %[[UP]], %c64_i64
func.func @matmul(%a: tensor<?x16xf32>, %b: tensor<16x16xf32>) -> tensor<?x16xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %a, %c0 : tensor<?x16xf32>
  %e = tensor.empty(%n) : tensor<?x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?x16xf32>) -> tensor<?x16xf32>
  %y = linalg.matmul ins(%a, %b : tensor<?x16xf32>, tensor<16x16xf32>) outs(%init : tensor<?x16xf32>) -> tensor<?x16xf32>
  return %y : tensor<?x16xf32>
}

// -----

// M, N and K all dynamic, with a bias over N: three sizes; K bounds the
// loop, and the grid is ceil(M / 64) * ceil(N / 64).
// CHECK-LABEL: func.func @mm_bias_kernel0_tile
// CHECK-SAME: %[[M:[a-z0-9]+]]: i32, %[[N:[a-z0-9]+]]: i32, %[[K:[a-z0-9]+]]: i32)
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[K]] step %c32_i32
// CHECK-LABEL: func.func @mm_bias(
// CHECK-SAME: %[[SM:[a-z0-9]+]]: i64, %[[SK:[a-z0-9]+]]: i64, %[[SN:[a-z0-9]+]]: i64) attributes {plan.inputs = [tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>], plan.outputs = [tensor<?x?xf32>], plan.sizes = array<i64: 0, 1, 1, 2, 2, 0, 2>}
// CHECK-DAG: %[[MB:.*]] = arith.divui %{{.*}}, %c64_i64
// CHECK-DAG: %[[NB:.*]] = arith.divui %{{.*}}, %c64_i64
// CHECK: %[[P:.*]] = arith.muli %[[MB]], %[[NB]] : i64
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @mm_bias(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %bias: tensor<?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%init : tensor<?x?xf32>) -> tensor<?x?xf32>
  %y = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<?x?xf32>, tensor<?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%v: f32, %c: f32, %out: f32):
    %s = arith.addf %v, %c : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// -----

// An elementwise op that writes the matmul's result transposed is no
// epilogue (a program holds one block of the result, and the transpose is
// another's): kiln-fuse leaves it a kernel of its own, which reads the
// product from memory.
// CHECK-LABEL: func.func @mm_transposed_consumer(
// CHECK: plan.launch @mm_transposed_consumer_kernel0_tile
// CHECK: plan.launch @mm_transposed_consumer_kernel1_tile
func.func @mm_transposed_consumer(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<16x16xf32>, tensor<16x16xf32>) outs(%init : tensor<16x16xf32>) -> tensor<16x16xf32>
  // expected-remark @+1 {{not fused with its neighbours}}
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1, d0)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%v: f32, %out: f32):
    %s = math.exp %v : f32
    linalg.yield %s : f32
  } -> tensor<16x16xf32>
  return %y : tensor<16x16xf32>
}

// -----

// A size read past a tensor's rank is no size (found by kiln-fuzz-opt).
func.func @past_the_rank(%a: tensor<?xf32>) -> tensor<?xf32> {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{kiln-tile: dimension 1 of a tensor of rank 1 has no size}}
  %n = tensor.dim %a, %c1 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%a : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32, %out: f32):
    %s = math.exp %x : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %y : tensor<?xf32>
}
