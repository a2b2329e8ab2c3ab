// RUN: kiln-opt %s -split-input-file -kiln-convert-tile-to-host | FileCheck %s

// The kernel takes the program id and grid size along x, y, z, and a
// launcher runs the program instances with linear ids [begin, end), x
// fastest: x = id % gx, y = id / gx % gy, z = id / gx / gy.
// CHECK-LABEL: func.func @grid
// CHECK-SAME: (%[[P:[a-z0-9]+]]: i64, %[[PX:[a-z0-9]+]]: i32, %[[PY:[a-z0-9]+]]: i32, %[[PZ:[a-z0-9]+]]: i32, %[[NX:[a-z0-9]+]]: i32, %[[NY:[a-z0-9]+]]: i32, %[[NZ:[a-z0-9]+]]: i32)
// CHECK: arith.addi %[[PY]], %[[NZ]] : i32
// CHECK-LABEL: func.func @grid_launch
// CHECK-SAME: (%[[ARG:[a-z0-9]+]]: i64, %[[GX:[a-z0-9]+]]: i32, %[[GY:[a-z0-9]+]]: i32, %[[GZ:[a-z0-9]+]]: i32, %[[BEGIN:[a-z0-9]+]]: i64, %[[END:[a-z0-9]+]]: i64)
// CHECK: %[[SX:.*]] = arith.extui %[[GX]] : i32 to i64
// CHECK: %[[SY:.*]] = arith.extui %[[GY]] : i32 to i64
// CHECK: scf.for %[[ID:[a-z0-9]+]] = %[[BEGIN]] to %[[END]] step %{{.*}} : i64
// CHECK:   %[[X:.*]] = arith.remui %[[ID]], %[[SX]] : i64
// CHECK:   %[[IX:.*]] = arith.trunci %[[X]] : i64 to i32
// CHECK:   %[[DX:.*]] = arith.divui %[[ID]], %[[SX]] : i64
// CHECK:   %[[Y:.*]] = arith.remui %[[DX]], %[[SY]] : i64
// CHECK:   %[[IY:.*]] = arith.trunci %[[Y]] : i64 to i32
// CHECK:   %[[Z:.*]] = arith.divui %[[DX]], %[[SY]] : i64
// CHECK:   %[[IZ:.*]] = arith.trunci %[[Z]] : i64 to i32
// CHECK:   func.call @grid(%[[ARG]], %[[IX]], %[[IY]], %[[IZ]], %[[GX]], %[[GY]], %[[GZ]])
func.func @grid(%p: !tile.ptr<i32>) {
  %y = tile.program_id y
  %nz = tile.num_programs z
  %s = arith.addi %y, %nz : i32
  tile.store %p, %s : !tile.ptr<i32>, i32
  return
}

// -----

// Pointers are i64 addresses; addptr adds offset * element size.
// CHECK-LABEL: func.func @addptr
// CHECK-SAME: (%[[P:[a-z0-9]+]]: i64, %[[O:[a-z0-9]+]]: i32, %[[Q:[a-z0-9]+]]: i64, %[[OS:[a-z0-9]+]]: tensor<8xi32>
// CHECK: %[[O64:.*]] = arith.extsi %[[O]] : i32 to i64
// CHECK: %[[C2:.*]] = arith.constant 2 : i64
// CHECK: %[[B:.*]] = arith.muli %[[O64]], %[[C2]] : i64
// CHECK: arith.addi %[[P]], %[[B]] : i64
// CHECK: %[[QS:.*]] = tensor.splat %[[Q]] : tensor<8xi64>
// CHECK: %[[OS64:.*]] = arith.extsi %[[OS]] : tensor<8xi32> to tensor<8xi64>
// CHECK: %[[C8:.*]] = arith.constant dense<8> : tensor<8xi64>
// CHECK: %[[BS:.*]] = arith.muli %[[OS64]], %[[C8]] : tensor<8xi64>
// CHECK: arith.addi %[[QS]], %[[BS]] : tensor<8xi64>
func.func @addptr(%p: !tile.ptr<f16>, %o: i32, %q: !tile.ptr<!tile.ptr<f32>>, %os: tensor<8xi32>) {
  %0 = tile.addptr %p, %o : !tile.ptr<f16>, i32
  %qs = tile.splat %q : !tile.ptr<!tile.ptr<f32>> -> tensor<8x!tile.ptr<!tile.ptr<f32>>>
  %1 = tile.addptr %qs, %os : tensor<8x!tile.ptr<!tile.ptr<f32>>>, tensor<8xi32>
  return
}

// -----

// A masked load reads each element under scf.if and takes `other` where the
// mask is false.
// CHECK-LABEL: func.func @masked_load
// CHECK-SAME: (%[[P:[a-z0-9]+]]: tensor<4xi64>, %[[M:[a-z0-9]+]]: tensor<4xi1>, %[[O:[a-z0-9]+]]: tensor<4xf32>
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: scf.for %[[I:[a-z0-9]+]] = {{.*}} iter_args(%[[ACC:[a-z0-9]+]] = %[[INIT]]) -> (tensor<4xf32>)
// CHECK:   %[[A:.*]] = tensor.extract %[[P]][%[[I]]]
// CHECK:   %[[MI:.*]] = tensor.extract %[[M]][%[[I]]]
// CHECK:   %[[V:.*]] = scf.if %[[MI]] -> (f32) {
// CHECK:     %[[PTR:.*]] = llvm.inttoptr %[[A]] : i64 to !llvm.ptr
// CHECK:     %[[L:.*]] = llvm.load %[[PTR]] : !llvm.ptr -> f32
// CHECK:     scf.yield %[[L]]
// CHECK:   } else {
// CHECK:     %[[OI:.*]] = tensor.extract %[[O]][%[[I]]]
// CHECK:     scf.yield %[[OI]]
// CHECK:   tensor.insert %[[V]] into %[[ACC]][%[[I]]]
func.func @masked_load(%p: tensor<4x!tile.ptr<f32>>, %m: tensor<4xi1>, %o: tensor<4xf32>) -> () {
  %0 = tile.load %p, %m, other %o : tensor<4x!tile.ptr<f32>> -> tensor<4xf32>
  return
}

// -----

// CHECK-LABEL: func.func @masked_store
// CHECK: scf.for
// CHECK:   scf.if
// CHECK:     llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr
func.func @masked_store(%p: tensor<2x2x!tile.ptr<i32>>, %v: tensor<2x2xi32>, %m: tensor<2x2xi1>) {
  tile.store %p, %v, %m : tensor<2x2x!tile.ptr<i32>>, tensor<2x2xi32>
  return
}

// -----

// A host atomic is a load, the combination and a store, under the
// runtime's lock.
// CHECK-LABEL: func.func @atomic
// CHECK: call @__kiln_host_lock()
// CHECK: %[[OLD:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK: %[[NEW:.*]] = arith.maxnumf %[[OLD]], %{{.*}} : f32
// CHECK: llvm.store %[[NEW]], %{{.*}} : f32, !llvm.ptr
// CHECK: call @__kiln_host_unlock()
// CHECK: llvm.store %[[OLD]], %{{.*}} : f32, !llvm.ptr
func.func @atomic(%p: !tile.ptr<f32>, %v: f32) -> () {
  %0 = tile.atomic_rmw max acq_rel gpu %p, %v : !tile.ptr<f32>, f32
  tile.store %p, %0 : !tile.ptr<f32>, f32
  return
}

// -----

// A program instance is one thread: its barrier waits for no one.
// CHECK-LABEL: func.func @barrier
// CHECK-NOT: tile.barrier
// CHECK: return
func.func @barrier() {
  tile.barrier
  return
}

// -----

// A host compare-and-swap compares the elements' bits under the lock.
// CHECK-LABEL: func.func @compare_and_swap
// CHECK: call @__kiln_host_lock()
// CHECK: %[[OLD:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK-DAG: %[[CMP_BITS:.*]] = arith.bitcast %{{.*}} : f32 to i32
// CHECK-DAG: %[[OLD_BITS:.*]] = arith.bitcast %[[OLD]] : f32 to i32
// CHECK: %[[SAME:.*]] = arith.cmpi eq, %[[OLD_BITS]], %[[CMP_BITS]] : i32
// CHECK: %[[NEW:.*]] = arith.select %[[SAME]], %{{.*}}, %[[OLD]] : f32
// CHECK: llvm.store %[[NEW]], %{{.*}} : f32, !llvm.ptr
// CHECK: call @__kiln_host_unlock()
func.func @compare_and_swap(%p: !tile.ptr<f32>, %c: f32, %v: f32) -> () {
  %0 = tile.atomic_cas acq_rel gpu %p, %c, %v : !tile.ptr<f32>, f32
  tile.store %p, %0 : !tile.ptr<f32>, f32
  return
}

// -----

// CHECK-LABEL: func.func @shapes
// CHECK: tensor.generate
// CHECK:   arith.index_cast
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%{{.*}} : tensor<1x8xf32>) outs(%{{.*}} : tensor<4x8xf32>)
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [8, 1] : tensor<8xi32> into tensor<8x1xi32>
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<4x8xf32> into tensor<32xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [2, 16] : tensor<32xf32> into tensor<2x16xf32>
// CHECK: linalg.transpose ins(%{{.*}} : tensor<4x8xf32>) outs(%{{.*}} : tensor<8x4xf32>) permutation = [1, 0]
func.func @shapes(%row: tensor<1x8xf32>) {
  %r = tile.range 3 to 11 : tensor<8xi32>
  %b = tile.broadcast %row : tensor<1x8xf32> -> tensor<4x8xf32>
  %e = tile.expand_dims %r axis 1 : tensor<8xi32> -> tensor<8x1xi32>
  %re = tile.reshape %b : tensor<4x8xf32> -> tensor<2x16xf32>
  %t = tile.trans %b [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  return
}

// -----

// CHECK-LABEL: func.func @dots
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x32xf16>, tensor<32x8xf16>) outs(%{{.*}} : tensor<16x8xf32>)
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<2x4x4xbf16>, tensor<2x4x4xbf16>) outs(%{{.*}} : tensor<2x4x4xf32>)
func.func @dots(%a: tensor<16x32xf16>, %b: tensor<32x8xf16>, %c: tensor<16x8xf32>,
                %x: tensor<2x4x4xbf16>, %z: tensor<2x4x4xf32>) {
  %0 = tile.dot %a, %b, %c : tensor<16x32xf16>, tensor<32x8xf16> -> tensor<16x8xf32>
  %1 = tile.dot %x, %x, %z : tensor<2x4x4xbf16>, tensor<2x4x4xbf16> -> tensor<2x4x4xf32>
  return
}

// -----

// A reduction starts from the first slice along the axis and folds the rest
// in with the combining region.
// CHECK-LABEL: func.func @reduce
// CHECK-SAME: (%[[T:[a-z0-9]+]]: tensor<4x8xf32>
// CHECK: %[[FIRST:.*]] = tensor.extract_slice %[[T]][0, 0] [4, 1] [1, 1]
// CHECK: %[[INIT:.*]] = tensor.collapse_shape %[[FIRST]] {{\[\[}}0, 1]] : tensor<4x1xf32> into tensor<4xf32>
// CHECK: %[[REST:.*]] = tensor.extract_slice %[[T]][0, 1] [4, 7] [1, 1]
// CHECK: linalg.reduce { arith.addf } ins(%[[REST]] : tensor<4x7xf32>) outs(%[[INIT]] : tensor<4xf32>) dimensions = [1]
func.func @reduce(%t: tensor<4x8xf32>) -> () {
  %0 = tile.reduce %t axis 1 : tensor<4x8xf32> -> tensor<4xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tile.yield %s : f32
  }
  return
}

// -----

// CHECK-LABEL: func.func @scan
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<8xi32>)
// CHECK:   tensor.extract_slice
// CHECK:   linalg.generic
// CHECK:     arith.addi
// CHECK:   tensor.insert_slice
func.func @scan(%t: tensor<8xi32>) -> () {
  %0 = tile.scan %t axis 0 : tensor<8xi32> -> tensor<8xi32> {
  ^bb0(%a: i32, %b: i32):
    %s = arith.addi %a, %b : i32
    tile.yield %s : i32
  }
  return
}

// -----

// Pointer casts keep the address; arith.select of pointers selects
// addresses.
// CHECK-LABEL: func.func @casts
// CHECK-SAME: (%[[P:[a-z0-9]+]]: i64, %[[Q:[a-z0-9]+]]: i64, %[[C:[a-z0-9]+]]: i1
// CHECK: %[[S:.*]] = arith.select %[[C]], %[[P]], %[[Q]] : i64
// CHECK: llvm.store %{{.*}}, %{{.*}}
// CHECK: %[[PTR:.*]] = llvm.inttoptr %[[S]]
// CHECK: llvm.store %[[S]], %[[PTR]] : i64, !llvm.ptr
func.func @casts(%p: !tile.ptr<f32>, %q: !tile.ptr<f32>, %c: i1) {
  %s = arith.select %c, %p, %q : !tile.ptr<f32>
  %i = tile.ptr_to_int %s : !tile.ptr<f32> -> i64
  %r = tile.int_to_ptr %i : i64 -> !tile.ptr<i64>
  %k = tile.ptr_cast %s : !tile.ptr<f32> -> !tile.ptr<i64>
  tile.store %r, %i : !tile.ptr<i64>, i64
  tile.store %k, %i : !tile.ptr<i64>, i64
  return
}

// -----

// A block pointer is [base, sizes, strides, offsets] in one i64 array, a
// value (a loop that advances it carries registers, not a buffer); an
// element's address is base + sum((offset + i) * stride) * element size,
// and a checked dimension must hold 0 <= offset + i < size.
// CHECK-LABEL: func.func @block_pointers
// CHECK-SAME: (%[[BASE:[a-z0-9]+]]: i64, %[[M:[a-z0-9]+]]: i64, %[[N:[a-z0-9]+]]: i64, %[[O:[a-z0-9]+]]: i32
// CHECK: %[[O64:.*]] = arith.extsi %[[O]] : i32 to i64
// CHECK: llvm.mlir.poison : !llvm.array<7 x i64>
// CHECK: llvm.insertvalue %[[BASE]], %{{.*}}[0]
// CHECK: llvm.insertvalue %[[M]], %{{.*}}[1]
// CHECK: llvm.insertvalue %[[O64]], %{{.*}}[5]
// CHECK: %[[BP:.*]] = llvm.insertvalue %{{.*}}, %{{.*}}[6] : !llvm.array<7 x i64>
// CHECK: %[[OFF0:.*]] = llvm.extractvalue %[[BP]][5]
// CHECK: arith.addi %[[OFF0]], %{{.*}} : i64
// CHECK: llvm.insertvalue %{{.*}}[6] : !llvm.array<7 x i64>
// CHECK: scf.for
// CHECK:   scf.for
// CHECK:     arith.cmpi sge
// CHECK:     arith.cmpi slt
// CHECK:     scf.if %{{.*}} -> (f32)
// CHECK:       llvm.load
// CHECK:     } else {
// CHECK:       arith.constant 0x7FC00000 : f32
// CHECK: scf.for
// CHECK:   scf.for
// CHECK:     llvm.store
func.func @block_pointers(%base: !tile.ptr<f32>, %m: i64, %n: i64, %o: i32) {
  %c1 = arith.constant 1 : i64
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i32
  %bp = tile.make_block_ptr %base, [%m, %n], [%n, %c1], [%o, %c0]
      {order = array<i32: 1, 0>} : !tile.ptr<f32> -> !tile.block_ptr<4x8xf32>
  %next = tile.advance %bp, [%c4, %c0] : !tile.block_ptr<4x8xf32>
  %t = tile.block_load %next boundary_check = [0] padding = nan
      : !tile.block_ptr<4x8xf32> -> tensor<4x8xf32>
  tile.block_store %bp, %t : !tile.block_ptr<4x8xf32>, tensor<4x8xf32>
  return
}

// -----

// A gather is a tensor.generate reading the source at the element's
// coordinates, the axis's from the index, clamped into the axis (a boolean
// index is 0 or 1).
// CHECK-LABEL: func.func @gather
// CHECK: tensor.generate
// CHECK: ^bb0(%[[I:.*]]: index, %[[J:.*]]: index):
// CHECK:   %[[PICK:.*]] = tensor.extract %{{.*}}[%[[I]], %[[J]]] : tensor<16x4xi32>
// CHECK:   %[[WIDE:.*]] = arith.index_cast %[[PICK]] : i32 to index
// CHECK:   %[[LOW:.*]] = arith.maxsi %[[WIDE]], %{{.*}} : index
// CHECK:   %[[ROW:.*]] = arith.minsi %[[LOW]], %{{.*}} : index
// CHECK:   %[[V:.*]] = tensor.extract %{{.*}}[%[[ROW]], %[[J]]] : tensor<8x4xf32>
// CHECK:   tensor.yield %[[V]] : f32
// CHECK: tensor.generate
// CHECK:   arith.index_castui %{{.*}} : i1 to index
func.func @gather(%t: tensor<8x4xf32>, %i: tensor<16x4xi32>, %flags: tensor<16x4xi1>, %out: !tile.ptr<f32>) {
  %g0 = tile.gather %t[%i] axis 0 : tensor<8x4xf32>, tensor<16x4xi32> -> tensor<16x4xf32>
  %g1 = tile.gather %t[%flags] axis 0 : tensor<8x4xf32>, tensor<16x4xi1> -> tensor<16x4xf32>
  %g = arith.addf %g0, %g1 : tensor<16x4xf32>
  %s = tile.reduce %g axis 0 : tensor<16x4xf32> -> tensor<4xf32> {
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    tile.yield %r : f32
  }
  %total = tile.reduce %s axis 0 : tensor<4xf32> -> f32 {
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    tile.yield %r : f32
  }
  tile.store %out, %total : !tile.ptr<f32>, f32
  return
}

// -----

// A stored boolean is true where its byte is not zero, as Triton reads it
// (an i1 load of the byte 2 is undefined).
// CHECK-LABEL: func.func @boolean_load
// CHECK: %[[BYTE:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i8
// CHECK: arith.cmpi ne, %[[BYTE]], %{{.*}} : i8
func.func @boolean_load(%p: !tile.ptr<i1>, %out: !tile.ptr<i32>) {
  %b = tile.load %p : !tile.ptr<i1> -> i1
  %w = arith.extui %b : i1 to i32
  tile.store %out, %w : !tile.ptr<i32>, i32
  return
}

// -----

// A volatile load is LLVM's, which is read each time it runs.
// CHECK-LABEL: func.func @volatile_load
// CHECK: llvm.load volatile %{{.*}} : !llvm.ptr -> i32
// CHECK: llvm.load volatile %{{.*}} : !llvm.ptr -> f32
func.func @volatile_load(%flag: !tile.ptr<i32>, %p: tensor<4x!tile.ptr<f32>>,
                         %m: tensor<4xi1>, %o: tensor<4xf32>,
                         %out: !tile.ptr<i32>,
                         %outs: tensor<4x!tile.ptr<f32>>) {
  %f = tile.load %flag {isVolatile} : !tile.ptr<i32> -> i32
  tile.store %out, %f : !tile.ptr<i32>, i32
  %x = tile.load %p, %m, other %o {isVolatile} : tensor<4x!tile.ptr<f32>> -> tensor<4xf32>
  tile.store %outs, %x : tensor<4x!tile.ptr<f32>>, tensor<4xf32>
  return
}
