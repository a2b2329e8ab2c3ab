// RUN: kiln-opt %s -split-input-file | kiln-opt -split-input-file | FileCheck %s
// RUN: kiln-opt %s -split-input-file -mlir-print-op-generic | kiln-opt -split-input-file | FileCheck %s

// Every tile op parses, prints and parses again, from both the custom and
// the generic form.

// CHECK-LABEL: func.func @types
// CHECK-SAME: !tile.ptr<f32>
// CHECK-SAME: !tile.ptr<f16, 3>
// CHECK-SAME: !tile.ptr<!tile.ptr<i8>>
// CHECK-SAME: tensor<4x!tile.ptr<bf16>>
// CHECK-SAME: !tile.block_ptr<64x32xf16>
func.func @types(%a: !tile.ptr<f32>, %b: !tile.ptr<f16, 3>,
                 %c: !tile.ptr<!tile.ptr<i8>>, %d: tensor<4x!tile.ptr<bf16>>,
                 %e: !tile.block_ptr<64x32xf16>) {
  return
}

// -----

// CHECK-LABEL: func.func @program_ids
// CHECK: tile.program_id x
// CHECK: tile.program_id y
// CHECK: tile.program_id z
// CHECK: tile.num_programs x
// CHECK: tile.num_programs y
// CHECK: tile.num_programs z
func.func @program_ids() -> (i32, i32, i32, i32, i32, i32) {
  %0 = tile.program_id x
  %1 = tile.program_id y
  %2 = tile.program_id z
  %3 = tile.num_programs x
  %4 = tile.num_programs y
  %5 = tile.num_programs z
  return %0, %1, %2, %3, %4, %5 : i32, i32, i32, i32, i32, i32
}

// -----

// CHECK-LABEL: func.func @shapes
// CHECK-SAME: (%[[X:.*]]: f32, %[[T:.*]]: tensor<16x8xf32>)
// CHECK: tile.range 0 to 128 : tensor<128xi32>
// CHECK: tile.range 64 to 96 : tensor<32xi32>
// CHECK: %[[S:.*]] = tile.splat %[[X]] : f32 -> tensor<1x8xf32>
// CHECK: tile.broadcast %[[S]] : tensor<1x8xf32> -> tensor<16x8xf32>
// CHECK: tile.expand_dims %[[T]] axis 0 : tensor<16x8xf32> -> tensor<1x16x8xf32>
// CHECK: tile.reshape %[[T]] : tensor<16x8xf32> -> tensor<128xf32>
// CHECK: tile.trans %[[T]] [1, 0] : tensor<16x8xf32> -> tensor<8x16xf32>
func.func @shapes(%x: f32, %t: tensor<16x8xf32>) {
  %r0 = tile.range 0 to 128 : tensor<128xi32>
  %r1 = tile.range 64 to 96 : tensor<32xi32>
  %s = tile.splat %x : f32 -> tensor<1x8xf32>
  %b = tile.broadcast %s : tensor<1x8xf32> -> tensor<16x8xf32>
  %e = tile.expand_dims %t axis 0 : tensor<16x8xf32> -> tensor<1x16x8xf32>
  %r = tile.reshape %t : tensor<16x8xf32> -> tensor<128xf32>
  %tr = tile.trans %t [1, 0] : tensor<16x8xf32> -> tensor<8x16xf32>
  return
}

// -----

// CHECK-LABEL: func.func @pointers
// CHECK-SAME: (%[[P:.*]]: !tile.ptr<f32>, %[[O:.*]]: i32, %[[OS:.*]]: tensor<128xi32>)
// CHECK: tile.addptr %[[P]], %[[O]] : !tile.ptr<f32>, i32
// CHECK: %[[PS:.*]] = tile.splat %[[P]] : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
// CHECK: tile.addptr %[[PS]], %[[OS]] : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
// CHECK: %[[I:.*]] = tile.ptr_to_int %[[P]] : !tile.ptr<f32> -> i64
// CHECK: tile.int_to_ptr %[[I]] : i64 -> !tile.ptr<f16>
// CHECK: tile.ptr_cast %[[PS]] : tensor<128x!tile.ptr<f32>> -> tensor<128x!tile.ptr<i32>>
func.func @pointers(%p: !tile.ptr<f32>, %o: i32, %os: tensor<128xi32>) {
  %0 = tile.addptr %p, %o : !tile.ptr<f32>, i32
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %1 = tile.addptr %ps, %os : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %i = tile.ptr_to_int %p : !tile.ptr<f32> -> i64
  %q = tile.int_to_ptr %i : i64 -> !tile.ptr<f16>
  %c = tile.ptr_cast %ps : tensor<128x!tile.ptr<f32>> -> tensor<128x!tile.ptr<i32>>
  return
}

// -----

// CHECK-LABEL: func.func @memory
// CHECK-SAME: (%[[P:.*]]: tensor<64x!tile.ptr<f16>>, %[[M:.*]]: tensor<64xi1>, %[[O:.*]]: tensor<64xf16>, %[[S:.*]]: !tile.ptr<i32>, %[[V:.*]]: i32)
// CHECK: tile.load %[[P]] : tensor<64x!tile.ptr<f16>> -> tensor<64xf16>
// CHECK: tile.load %[[P]], %[[M]] : tensor<64x!tile.ptr<f16>> -> tensor<64xf16>
// CHECK: %[[L:.*]] = tile.load %[[P]], %[[M]], other %[[O]] : tensor<64x!tile.ptr<f16>> -> tensor<64xf16>
// CHECK: tile.load %[[S]] : !tile.ptr<i32> -> i32
// CHECK: tile.store %[[P]], %[[L]] : tensor<64x!tile.ptr<f16>>, tensor<64xf16>
// CHECK: tile.store %[[P]], %[[L]], %[[M]] : tensor<64x!tile.ptr<f16>>, tensor<64xf16>
// CHECK: tile.store %[[S]], %[[V]] : !tile.ptr<i32>, i32
func.func @memory(%p: tensor<64x!tile.ptr<f16>>, %m: tensor<64xi1>,
                  %o: tensor<64xf16>, %s: !tile.ptr<i32>, %v: i32) {
  %0 = tile.load %p : tensor<64x!tile.ptr<f16>> -> tensor<64xf16>
  %1 = tile.load %p, %m : tensor<64x!tile.ptr<f16>> -> tensor<64xf16>
  %2 = tile.load %p, %m, other %o : tensor<64x!tile.ptr<f16>> -> tensor<64xf16>
  %3 = tile.load %s : !tile.ptr<i32> -> i32
  tile.store %p, %2 : tensor<64x!tile.ptr<f16>>, tensor<64xf16>
  tile.store %p, %2, %m : tensor<64x!tile.ptr<f16>>, tensor<64xf16>
  tile.store %s, %v : !tile.ptr<i32>, i32
  return
}

// -----

// CHECK-LABEL: func.func @atomics
// CHECK-SAME: (%[[P:.*]]: tensor<8x!tile.ptr<f32>>, %[[V:.*]]: tensor<8xf32>, %[[M:.*]]: tensor<8xi1>, %[[Q:.*]]: !tile.ptr<i32>, %[[W:.*]]: i32)
// CHECK: tile.atomic_rmw add acq_rel gpu %[[P]], %[[V]], %[[M]] : tensor<8x!tile.ptr<f32>>, tensor<8xf32>
// CHECK: tile.atomic_rmw max relaxed cta %[[P]], %[[V]] : tensor<8x!tile.ptr<f32>>, tensor<8xf32>
// CHECK: tile.atomic_rmw umin acquire sys %[[Q]], %[[W]] : !tile.ptr<i32>, i32
// CHECK: tile.atomic_rmw xor release gpu %[[Q]], %[[W]] : !tile.ptr<i32>, i32
// CHECK: tile.atomic_rmw xchg relaxed gpu %[[P]], %[[V]] : tensor<8x!tile.ptr<f32>>, tensor<8xf32>
func.func @atomics(%p: tensor<8x!tile.ptr<f32>>, %v: tensor<8xf32>,
                   %m: tensor<8xi1>, %q: !tile.ptr<i32>, %w: i32) {
  %0 = tile.atomic_rmw add acq_rel gpu %p, %v, %m : tensor<8x!tile.ptr<f32>>, tensor<8xf32>
  %1 = tile.atomic_rmw max relaxed cta %p, %v : tensor<8x!tile.ptr<f32>>, tensor<8xf32>
  %2 = tile.atomic_rmw umin acquire sys %q, %w : !tile.ptr<i32>, i32
  %3 = tile.atomic_rmw xor release gpu %q, %w : !tile.ptr<i32>, i32
  %4 = tile.atomic_rmw xchg relaxed gpu %p, %v : tensor<8x!tile.ptr<f32>>, tensor<8xf32>
  return
}

// -----

// CHECK-LABEL: func.func @barrier
// CHECK: tile.barrier
func.func @barrier() {
  tile.barrier
  return
}

// -----

// CHECK-LABEL: func.func @compare_and_swap
// CHECK: tile.atomic_cas acq_rel gpu %{{.*}}, %{{.*}}, %{{.*}} : !tile.ptr<i32>, i32
// CHECK: tile.atomic_cas relaxed cta %{{.*}}, %{{.*}}, %{{.*}} : tensor<8x!tile.ptr<f16>>, tensor<8xf16>
func.func @compare_and_swap(%lock: !tile.ptr<i32>, %c: i32, %v: i32,
                            %p: tensor<8x!tile.ptr<f16>>, %h: tensor<8xf16>) {
  %0 = tile.atomic_cas acq_rel gpu %lock, %c, %v : !tile.ptr<i32>, i32
  %1 = tile.atomic_cas relaxed cta %p, %h, %h : tensor<8x!tile.ptr<f16>>, tensor<8xf16>
  return
}

// -----

// CHECK-LABEL: func.func @block_pointers
// CHECK-SAME: (%[[B:.*]]: !tile.ptr<f16>, %[[M:.*]]: i64, %[[K:.*]]: i64, %[[O:.*]]: i32)
// CHECK: %[[BP:.*]] = tile.make_block_ptr %[[B]], [%[[M]], %[[K]]], [%[[K]], %{{.*}}], [%[[O]], %{{.*}}] {order = array<i32: 1, 0>} : !tile.ptr<f16> -> !tile.block_ptr<64x32xf16>
// CHECK: %[[NEXT:.*]] = tile.advance %[[BP]], [%{{.*}}, %{{.*}}] : !tile.block_ptr<64x32xf16>
// CHECK: %[[T:.*]] = tile.block_load %[[NEXT]] : !tile.block_ptr<64x32xf16> -> tensor<64x32xf16>
// CHECK: tile.block_load %[[NEXT]] boundary_check = [0, 1] padding = nan : !tile.block_ptr<64x32xf16> -> tensor<64x32xf16>
// CHECK: tile.block_store %[[BP]], %[[T]] boundary_check = [1] : !tile.block_ptr<64x32xf16>, tensor<64x32xf16>
func.func @block_pointers(%base: !tile.ptr<f16>, %m: i64, %k: i64, %off: i32) {
  %c1 = arith.constant 1 : i64
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %bp = tile.make_block_ptr %base, [%m, %k], [%k, %c1], [%off, %c0]
      {order = array<i32: 1, 0>} : !tile.ptr<f16> -> !tile.block_ptr<64x32xf16>
  %next = tile.advance %bp, [%c0, %c32] : !tile.block_ptr<64x32xf16>
  %t = tile.block_load %next : !tile.block_ptr<64x32xf16> -> tensor<64x32xf16>
  %u = tile.block_load %next boundary_check = [0, 1] padding = nan
      : !tile.block_ptr<64x32xf16> -> tensor<64x32xf16>
  tile.block_store %bp, %t boundary_check = [1]
      : !tile.block_ptr<64x32xf16>, tensor<64x32xf16>
  return
}

// -----

// CHECK-LABEL: func.func @dots
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x32xf16>, tensor<32x128xf16> -> tensor<64x128xf32>
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} input_precision = tf32 : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x32xi8>, tensor<32x16xi8> -> tensor<16x16xi32>
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x32xf8E4M3FN>, tensor<32x16xf8E5M2> -> tensor<16x16xf32>
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x16x16xbf16>, tensor<2x16x8xbf16> -> tensor<2x16x8xf32>
func.func @dots(%a: tensor<64x32xf16>, %b: tensor<32x128xf16>, %c: tensor<64x128xf32>,
                %x: tensor<16x16xf32>, %i: tensor<16x32xi8>, %j: tensor<32x16xi8>,
                %ci: tensor<16x16xi32>, %f: tensor<16x32xf8E4M3FN>,
                %g: tensor<32x16xf8E5M2>, %ba: tensor<2x16x16xbf16>,
                %bb: tensor<2x16x8xbf16>, %bc: tensor<2x16x8xf32>) {
  %0 = tile.dot %a, %b, %c : tensor<64x32xf16>, tensor<32x128xf16> -> tensor<64x128xf32>
  %1 = tile.dot %x, %x, %x input_precision = tf32 : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  %2 = tile.dot %i, %j, %ci : tensor<16x32xi8>, tensor<32x16xi8> -> tensor<16x16xi32>
  %3 = tile.dot %f, %g, %x : tensor<16x32xf8E4M3FN>, tensor<32x16xf8E5M2> -> tensor<16x16xf32>
  %4 = tile.dot %ba, %bb, %bc : tensor<2x16x16xbf16>, tensor<2x16x8xbf16> -> tensor<2x16x8xf32>
  return
}

// -----

// CHECK-LABEL: func.func @reductions
// CHECK: tile.reduce %{{.*}} axis 1 : tensor<4x8xf32> -> tensor<4xf32> {
// CHECK: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32):
// CHECK:   %[[S:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK:   tile.yield %[[S]] : f32
// CHECK: tile.reduce %{{.*}}, %{{.*}} axis 0 : tensor<8xf32>, tensor<8xi32> -> f32, i32 {
// CHECK: tile.scan %{{.*}} axis 0 : tensor<8xi32> -> tensor<8xi32> {
// CHECK: tile.scan %{{.*}} axis 1 reverse : tensor<4x8xf32> -> tensor<4x8xf32> {
func.func @reductions(%t: tensor<4x8xf32>, %v: tensor<8xf32>, %i: tensor<8xi32>) {
  %sum = tile.reduce %t axis 1 : tensor<4x8xf32> -> tensor<4xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tile.yield %s : f32
  }
  // An argmax: values and indices reduced together.
  %max, %arg = tile.reduce %v, %i axis 0 : tensor<8xf32>, tensor<8xi32> -> f32, i32 {
  ^bb0(%va: f32, %ia: i32, %vb: f32, %ib: i32):
    %gt = arith.cmpf ogt, %va, %vb : f32
    %vm = arith.select %gt, %va, %vb : f32
    %im = arith.select %gt, %ia, %ib : i32
    tile.yield %vm, %im : f32, i32
  }
  %cum = tile.scan %i axis 0 : tensor<8xi32> -> tensor<8xi32> {
  ^bb0(%a: i32, %b: i32):
    %s = arith.addi %a, %b : i32
    tile.yield %s : i32
  }
  %rev = tile.scan %t axis 1 reverse : tensor<4x8xf32> -> tensor<4x8xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.maximumf %a, %b : f32
    tile.yield %s : f32
  }
  return
}

// -----

// CHECK-LABEL: func.func @debug
// CHECK: tile.print "x", %{{.*}}, %{{.*}} : tensor<4xf32>, tensor<4xi1>
// CHECK: tile.print "n", %{{.*}} : i32
// CHECK: tile.print "here"
// CHECK: tile.assert %{{.*}}, "all positive" : tensor<4xi1>
// CHECK: tile.assert %{{.*}}, "n" : i1
func.func @debug(%x: tensor<4xf32>, %m: tensor<4xi1>, %n: i32, %b: i1) {
  tile.print "x", %x, %m : tensor<4xf32>, tensor<4xi1>
  tile.print "n", %n : i32
  tile.print "here"
  tile.assert %m, "all positive" : tensor<4xi1>
  tile.assert %b, "n" : i1
  return
}

// -----

// CHECK-LABEL: func.func @assume
// CHECK: tile.assume %{{.*}} {contiguity = array<i64: 64>, divisibility = array<i64: 16>} : tensor<64xi32>
// CHECK: tile.assume %{{.*}} {divisibility = array<i64: 16>} : !tile.ptr<f16>
// CHECK: tile.assume %{{.*}} {constancy = array<i64: 8, 1>} : tensor<8x4xi64>
func.func @assume(%x: tensor<64xi32>, %p: !tile.ptr<f16>, %y: tensor<8x4xi64>) {
  %0 = tile.assume %x {contiguity = array<i64: 64>, divisibility = array<i64: 16>} : tensor<64xi32>
  %1 = tile.assume %p {divisibility = array<i64: 16>} : !tile.ptr<f16>
  %2 = tile.assume %y {constancy = array<i64: 8, 1>} : tensor<8x4xi64>
  return
}

// -----

// CHECK-LABEL: func.func @gather
// CHECK: tile.gather %{{.*}}[%{{.*}}] axis 0 : tensor<64x16xf32>, tensor<128x16xi32> -> tensor<128x16xf32>
// CHECK: tile.gather %{{.*}}[%{{.*}}] axis 1 : tensor<64x16xf32>, tensor<64x4xi64> -> tensor<64x4xf32>
func.func @gather(%t: tensor<64x16xf32>, %i: tensor<128x16xi32>, %j: tensor<64x4xi64>) {
  %a = tile.gather %t[%i] axis 0 : tensor<64x16xf32>, tensor<128x16xi32> -> tensor<128x16xf32>
  %b = tile.gather %t[%j] axis 1 : tensor<64x16xf32>, tensor<64x4xi64> -> tensor<64x4xf32>
  return
}

// -----

// CHECK-LABEL: func.func @inline_asm_elementwise
// CHECK: tile.inline_asm_elementwise "shl.b32 $0, $1, 3;", "=r,r" pure %{{.*}} : (tensor<128xi32>) -> tensor<128xi32>
// CHECK: tile.inline_asm_elementwise "prmt.b32 $0, $1, $2, 0x5140;", "=r,r,r" pure pack = 4 %{{.*}}, %{{.*}} : (tensor<128xi8>, tensor<128xi8>) -> tensor<128xi8>
// CHECK: tile.inline_asm_elementwise "mov.b32 $0, $2; mov.b32 $1, $2;", "=r,=r,r" %{{.*}} : (tensor<128xi32>) -> (tensor<128xi32>, tensor<128xf32>)
// CHECK: tile.inline_asm_elementwise "mov.u32 $0, %laneid;", "=r" : () -> i32
// CHECK: tile.inline_asm_elementwise "mov.b64 $0, $1;", "=l,l,~{memory}" %{{.*}} : (!tile.ptr<f32>) -> i64
func.func @inline_asm_elementwise(%x: tensor<128xi32>, %b: tensor<128xi8>, %p: !tile.ptr<f32>) {
  %0 = tile.inline_asm_elementwise "shl.b32 $0, $1, 3;", "=r,r" pure %x : (tensor<128xi32>) -> tensor<128xi32>
  %1 = tile.inline_asm_elementwise "prmt.b32 $0, $1, $2, 0x5140;", "=r,r,r" pure pack = 4 %b, %b : (tensor<128xi8>, tensor<128xi8>) -> tensor<128xi8>
  %2:2 = tile.inline_asm_elementwise "mov.b32 $0, $2; mov.b32 $1, $2;", "=r,=r,r" %x : (tensor<128xi32>) -> (tensor<128xi32>, tensor<128xf32>)
  %3 = tile.inline_asm_elementwise "mov.u32 $0, %laneid;", "=r" : () -> i32
  %4 = tile.inline_asm_elementwise "mov.b64 $0, $1;", "=l,l,~{memory}" %p : (!tile.ptr<f32>) -> i64
  return
}

// -----

// tile.extern_elementwise: a libdevice function with the C math library's
// or without, pure or not; operands of different element types; scalars;
// a laid-out tile.
// CHECK-LABEL: func.func @extern_elementwise
// CHECK: tile.extern_elementwise "__nv_hypotf" host "hypotf" pure %{{.*}}, %{{.*}} : (tensor<128xf32>, tensor<128xf32>) -> tensor<128xf32>
// CHECK: tile.extern_elementwise "__nv_jnf" host "jnf" pure %{{.*}}, %{{.*}} : (tensor<128xi32>, tensor<128xf32>) -> tensor<128xf32>
// CHECK: tile.extern_elementwise "__nv_erfinvf" pure %{{.*}} : (tensor<128xf32>) -> tensor<128xf32>
// CHECK: tile.extern_elementwise "__nv_ilogb" host "ilogb" %{{.*}} : (f64) -> i32
// CHECK: tile.extern_elementwise "__nv_lgammaf" host "lgammaf" pure %{{.*}} : (tensor<128xf32, #{{.*}}>) -> tensor<128xf32, #{{.*}}>
#blocked = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
func.func @extern_elementwise(%x: tensor<128xf32>, %n: tensor<128xi32>, %d: f64, %b: tensor<128xf32, #blocked>) {
  %0 = tile.extern_elementwise "__nv_hypotf" host "hypotf" pure %x, %x : (tensor<128xf32>, tensor<128xf32>) -> tensor<128xf32>
  %1 = tile.extern_elementwise "__nv_jnf" host "jnf" pure %n, %x : (tensor<128xi32>, tensor<128xf32>) -> tensor<128xf32>
  %2 = tile.extern_elementwise "__nv_erfinvf" pure %x : (tensor<128xf32>) -> tensor<128xf32>
  %3 = tile.extern_elementwise "__nv_ilogb" host "ilogb" %d : (f64) -> i32
  %4 = tile.extern_elementwise "__nv_lgammaf" host "lgammaf" pure %b : (tensor<128xf32, #blocked>) -> tensor<128xf32, #blocked>
  return
}

// -----

// tile.map_elementwise: per operand `pack` scalars in, per result `pack`
// scalars out through tile.yield; branches and loops inside; a scalar
// from outside the region; pointers, and a load; scalars; a laid-out tile.
// CHECK-LABEL: func.func @map_elementwise
// CHECK: tile.map_elementwise %{{.*}}, %{{.*}} : (tensor<128xf32>, tensor<128xi32>) -> tensor<128xf32> {
// CHECK-NEXT: ^bb0(%{{.*}}: f32, %{{.*}}: i32):
// CHECK: scf.if
// CHECK: scf.for
// CHECK: tile.yield %{{.*}} : f32
// CHECK: tile.map_elementwise %{{.*}}, %{{.*}} pack = 2 : (tensor<16x8xi32>, tensor<16x8x!tile.ptr<f16>>) -> (tensor<16x8xf16>, tensor<16x8xi1>) {
// CHECK-NEXT: ^bb0(%{{.*}}: i32, %{{.*}}: i32, %{{.*}}: !tile.ptr<f16>, %{{.*}}: !tile.ptr<f16>):
// CHECK: tile.load
// CHECK: tile.yield %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : f16, f16, i1, i1
// CHECK: tile.map_elementwise %{{.*}} pack = 4 : (i64) -> (i64, f64) {
// CHECK: scf.while
// CHECK: tile.map_elementwise %{{.*}} : (tensor<128xf32, #blocked>) -> tensor<128xf32, #blocked> {
#blocked = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
func.func @map_elementwise(%x: tensor<128xf32>, %n: tensor<128xi32>, %alpha: f32,
                           %k: tensor<16x8xi32>, %p: tensor<16x8x!tile.ptr<f16>>,
                           %s: i64, %laid: tensor<128xf32, #blocked>) {
  %0 = tile.map_elementwise %x, %n : (tensor<128xf32>, tensor<128xi32>) -> tensor<128xf32> {
  ^bb0(%xi: f32, %ni: i32):
    %zero = arith.constant 0.0 : f32
    %positive = arith.cmpf ogt, %xi, %zero : f32
    %r = scf.if %positive -> f32 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %pow = scf.for %i = %c0 to %ni step %c1 iter_args(%acc = %alpha) -> (f32) : i32 {
        %m = arith.mulf %acc, %xi : f32
        scf.yield %m : f32
      }
      scf.yield %pow : f32
    } else {
      %e = math.exp %xi : f32
      scf.yield %e : f32
    }
    tile.yield %r : f32
  }
  %1:2 = tile.map_elementwise %k, %p pack = 2 : (tensor<16x8xi32>, tensor<16x8x!tile.ptr<f16>>) -> (tensor<16x8xf16>, tensor<16x8xi1>) {
  ^bb0(%k0: i32, %k1: i32, %p0: !tile.ptr<f16>, %p1: !tile.ptr<f16>):
    %q0 = tile.addptr %p0, %k0 : !tile.ptr<f16>, i32
    %q1 = tile.addptr %p1, %k1 : !tile.ptr<f16>, i32
    %v0 = tile.load %q0 : !tile.ptr<f16> -> f16
    %v1 = tile.load %q1 : !tile.ptr<f16> -> f16
    %zero = arith.constant 0 : i32
    %b0 = arith.cmpi eq, %k0, %zero : i32
    %b1 = arith.cmpi eq, %k1, %zero : i32
    tile.yield %v0, %v1, %b0, %b1 : f16, f16, i1, i1
  }
  %2:2 = tile.map_elementwise %s pack = 4 : (i64) -> (i64, f64) {
  ^bb0(%s0: i64, %s1: i64, %s2: i64, %s3: i64):
    %one = arith.constant 1 : i64
    %steps = scf.while (%v = %s0) : (i64) -> i64 {
      %more = arith.cmpi sgt, %v, %one : i64
      scf.condition(%more) %v : i64
    } do {
    ^bb0(%v: i64):
      %half = arith.shrsi %v, %one : i64
      scf.yield %half : i64
    }
    %f = arith.sitofp %steps : i64 to f64
    tile.yield %steps, %s1, %s2, %s3, %f, %f, %f, %f : i64, i64, i64, i64, f64, f64, f64, f64
  }
  %3 = tile.map_elementwise %laid : (tensor<128xf32, #blocked>) -> tensor<128xf32, #blocked> {
  ^bb0(%l: f32):
    %a = math.absf %l : f32
    tile.yield %a : f32
  }
  return
}
