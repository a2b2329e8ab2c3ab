// RUN: kiln-opt %s -split-input-file -tile-assign-layouts -kiln-convert-tile-to-gpu | FileCheck %s
// Every kernel below goes on to PTX, which ptxas assembles for both chips.
// RUN: kiln-translate %s -split-input-file --chip=sm_80 -o /dev/null
// RUN: %if ptxas %{ kiln-translate %s -split-input-file --emit=cubin --chip=sm_80 -o /dev/null %}
// RUN: %if ptxas %{ kiln-translate %s -split-input-file --emit=cubin --chip=sm_90a -o /dev/null %}

// Kernels become gpu.func kernels of num_warps * 32 threads; a program is a
// thread block.
// CHECK: module attributes {gpu.container_module
// CHECK: gpu.module @kiln
// CHECK-LABEL: gpu.func @ids
// CHECK-SAME: (%{{.*}}: !llvm.ptr<1>, %{{.*}}: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>}
// CHECK: gpu.block_id y
// CHECK: gpu.grid_dim z
// CHECK: gpu.return
func.func @ids(%out: !tile.ptr<i32>, %n: i32) {
  %pid = tile.program_id y
  %np = tile.num_programs z
  %s = arith.addi %pid, %np : i32
  tile.store %out, %s : !tile.ptr<i32>, i32
  return
}

// -----

// Contiguous, 16-byte-aligned f32: each thread moves 4 elements at once,
// unmasked as one vector load, masked as a predicated ld.global.v4 whose
// destination registers hold `other` before it (inputs tied to its
// outputs, as Triton's), with no select after it.
// CHECK-LABEL: gpu.func @vectors
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: llvm.inline_asm "@$5 ld.global.v4.b32 {$0, $1, $2, $3}, [$4];", "=r,=r,=r,=r,l,b,0,1,2,3"
// CHECK-SAME: : (!llvm.ptr<1>, i1, i32, i32, i32, i32) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK-NOT: arith.select
// CHECK: llvm.inline_asm has_side_effects "@$5 st.global.v4.b32 [$0], {$1, $2, $3, $4};", "l,r,r,r,r,b"
func.func @vectors(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                   %out: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                   %n: i32 {tile.divisibility = 16 : i64}) {
  %r = tile.range 0 to 512 : tensor<512xi32>
  %ns = tile.splat %n : i32 -> tensor<512xi32>
  %mask = arith.cmpi slt, %r, %ns : tensor<512xi32>
  %zero = arith.constant dense<0.0> : tensor<512xf32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %a = tile.load %xp : tensor<512x!tile.ptr<f32>> -> tensor<512xf32>
  %b = tile.load %xp, %mask, other %zero : tensor<512x!tile.ptr<f32>> -> tensor<512xf32>
  %c = arith.addf %a, %b : tensor<512xf32>
  %os = tile.splat %out : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %op = tile.addptr %os, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  tile.store %op, %c, %mask : tensor<512x!tile.ptr<f32>>, tensor<512xf32>
  return
}

// -----

// Eight halves travel as four 32-bit words.
// CHECK-LABEL: gpu.func @halves
// CHECK: llvm.inline_asm "@$5 ld.global.v4.b32 {$0, $1, $2, $3}, [$4];"
// CHECK: llvm.bitcast %{{.*}} : vector<4xi32> to vector<8xf16>
func.func @halves(%x: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                  %n: i32 {tile.divisibility = 16 : i64}) {
  %r = tile.range 0 to 1024 : tensor<1024xi32>
  %ns = tile.splat %n : i32 -> tensor<1024xi32>
  %mask = arith.cmpi slt, %r, %ns : tensor<1024xi32>
  %xs = tile.splat %x : !tile.ptr<f16> -> tensor<1024x!tile.ptr<f16>>
  %xp = tile.addptr %xs, %r : tensor<1024x!tile.ptr<f16>>, tensor<1024xi32>
  %v = tile.load %xp, %mask : tensor<1024x!tile.ptr<f16>> -> tensor<1024xf16>
  %w = math.exp %v : tensor<1024xf16>
  tile.store %xp, %w, %mask : tensor<1024x!tile.ptr<f16>>, tensor<1024xf16>
  return
}

// -----

// Each thread holds its registers as one vector; elementwise math and
// loops carry them unchanged; pointer tiles are i64 addresses.
// CHECK-LABEL: gpu.func @elementwise_loop
// CHECK: arith.addi %{{.*}}, %{{.*}} : vector<1xi32>
// CHECK: llvm.ptrtoint %{{.*}} : !llvm.ptr<1> to i64
// CHECK: arith.extsi %{{.*}} : vector<1xi32> to vector<1xi64>
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (vector<1xf32>)
// CHECK:   math.cos %[[ACC]] : vector<1xf32>
// CHECK:   scf.yield %{{.*}} : vector<1xf32>
func.func @elementwise_loop(%x: !tile.ptr<f32>, %steps: i32) {
  %r = tile.range 0 to 128 : tensor<128xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %init = arith.constant dense<1.0> : tensor<128xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc = scf.for %i = %c0 to %steps step %c1 iter_args(%a = %init) -> (tensor<128xf32>) : i32 {
    %c = math.cos %a : tensor<128xf32>
    scf.yield %c : tensor<128xf32>
  }
  tile.store %xp, %acc : tensor<128x!tile.ptr<f32>>, tensor<128xf32>
  return
}

// -----

// A 1-D sum: the thread's registers, then xor shuffles across the 32 lanes,
// then the four warps through shared memory.
// CHECK: llvm.mlir.global internal @__kiln_shared() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<16 x i8>
// CHECK-LABEL: gpu.func @sum
// CHECK-COUNT-3: arith.addf %{{.*}}, %{{.*}} : f32
// CHECK: gpu.shuffle xor %{{.*}}, %c1_i32, %c32_i32{{.*}} : f32
// CHECK: gpu.shuffle xor %{{.*}}, %c2_i32
// CHECK: gpu.shuffle xor %{{.*}}, %c4_i32
// CHECK: gpu.shuffle xor %{{.*}}, %c8_i32
// CHECK: gpu.shuffle xor %{{.*}}, %c16_i32
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.barrier
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK-COUNT-4: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
func.func @sum(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %out: !tile.ptr<f32>) {
  %r = tile.range 0 to 512 : tensor<512xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %v = tile.load %xp : tensor<512x!tile.ptr<f32>> -> tensor<512xf32>
  %s = tile.reduce %v axis 0 : tensor<512xf32> -> f32 {
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    tile.yield %t : f32
  }
  tile.store %out, %s : !tile.ptr<f32>, f32
  return
}

// -----

// Rows of a 2-D tile: a row max within a warp needs only the lanes along
// the row, and the max broadcast back over the row stays in each thread (a
// register permutation).
// CHECK-LABEL: gpu.func @row_max
// CHECK: gpu.shuffle xor %{{.*}}, %c1_i32
// CHECK-NOT: gpu.barrier
// CHECK: vector.shuffle
// CHECK: arith.subf %{{.*}}, %{{.*}} : vector<
func.func @row_max(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64}) {
  %r16 = tile.range 0 to 16 : tensor<16xi32>
  %r8 = tile.range 0 to 8 : tensor<8xi32>
  %rows = tile.expand_dims %r16 axis 1 : tensor<16xi32> -> tensor<16x1xi32>
  %cols = tile.expand_dims %r8 axis 0 : tensor<8xi32> -> tensor<1x8xi32>
  %c8 = arith.constant dense<8> : tensor<16x1xi32>
  %ro = arith.muli %rows, %c8 : tensor<16x1xi32>
  %rob = tile.broadcast %ro : tensor<16x1xi32> -> tensor<16x8xi32>
  %cob = tile.broadcast %cols : tensor<1x8xi32> -> tensor<16x8xi32>
  %offs = arith.addi %rob, %cob : tensor<16x8xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<16x8x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %offs : tensor<16x8x!tile.ptr<f32>>, tensor<16x8xi32>
  %v = tile.load %xp : tensor<16x8x!tile.ptr<f32>> -> tensor<16x8xf32>
  %m = tile.reduce %v axis 1 : tensor<16x8xf32> -> tensor<16xf32> {
  ^bb0(%a: f32, %b: f32):
    %t = arith.maximumf %a, %b : f32
    tile.yield %t : f32
  }
  %me = tile.expand_dims %m axis 1 : tensor<16xf32> -> tensor<16x1xf32>
  %mb = tile.broadcast %me : tensor<16x1xf32> -> tensor<16x8xf32>
  %d = arith.subf %v, %mb : tensor<16x8xf32>
  tile.store %xp, %d : tensor<16x8x!tile.ptr<f32>>, tensor<16x8xf32>
  return
}

// -----

// A tile smaller than the program: 128 threads hold 32 elements, so each
// is held four times and only its canonical copy is stored.
// CHECK-LABEL: gpu.func @replicated
// CHECK: arith.cmpi ult, %{{.*}}, %{{.*}} : vector<1xi32>
// CHECK: %[[PRED:.*]] = vector.extract %{{.*}}[0] : i1 from vector<1xi1>
// CHECK-NOT: llvm.store
// CHECK: llvm.inline_asm has_side_effects "@$2 st.global.b32 [$0], $1;", "l,r,b" %{{.*}}, %{{.*}}, %[[PRED]]
func.func @replicated(%x: !tile.ptr<f32>) {
  %r = tile.range 0 to 32 : tensor<32xi32>
  %v = arith.sitofp %r : tensor<32xi32> to tensor<32xf32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<32x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<32x!tile.ptr<f32>>, tensor<32xi32>
  tile.store %xp, %v : tensor<32x!tile.ptr<f32>>, tensor<32xf32>
  return
}

// -----

// Atomics: one per element under its mask with the scope's syncscope; a
// scalar atomic runs on thread 0, which shares the old value. NVPTX drops
// an atomicrmw's ordering, so fences around it carry it.
// CHECK-LABEL: gpu.func @atomics
// CHECK: scf.if %{{.*}} -> (f32)
// CHECK:   llvm.fence syncscope("device") release
// CHECK:   llvm.atomicrmw fadd %{{.*}}, %{{.*}} syncscope("device") acq_rel : !llvm.ptr<1>, f32
// CHECK:   llvm.fence syncscope("device") acquire
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: arith.cmpi eq, %[[TID]], %{{.*}} : index
// CHECK: llvm.atomicrmw max %{{.*}}, %{{.*}} syncscope("block") monotonic : !llvm.ptr<1>, i32
// CHECK: gpu.barrier
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> i32
func.func @atomics(%x: !tile.ptr<f32>, %c: !tile.ptr<i32>, %n: i32) {
  %r = tile.range 0 to 128 : tensor<128xi32>
  %ns = tile.splat %n : i32 -> tensor<128xi32>
  %mask = arith.cmpi slt, %r, %ns : tensor<128xi32>
  %one = arith.constant dense<1.0> : tensor<128xf32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %old = tile.atomic_rmw add acq_rel gpu %xp, %one, %mask : tensor<128x!tile.ptr<f32>>, tensor<128xf32>
  %prev = tile.atomic_rmw max relaxed cta %c, %n : !tile.ptr<i32>, i32
  %cp = tile.addptr %c, %prev : !tile.ptr<i32>, i32
  tile.store %cp, %n : !tile.ptr<i32>, i32
  tile.store %xp, %old : tensor<128x!tile.ptr<f32>>, tensor<128xf32>
  return
}

// -----

// An atomic or of 0 is an atomic load (tl.atomic_load: ld.acquire), an
// exchange whose old value is unused an atomic store (tl.atomic_store:
// st.release); neither needs a fence.
// CHECK-LABEL: gpu.func @atomic_load_and_store
// CHECK-NOT: llvm.fence
// CHECK: llvm.load %{{.*}} atomic syncscope("device") acquire {alignment = 4 : i64} : !llvm.ptr<1> -> i32
// CHECK-NOT: llvm.fence
// CHECK: llvm.store %{{.*}}, %{{.*}} atomic syncscope("device") release {alignment = 4 : i64} : i32, !llvm.ptr<1>
// CHECK-NOT: llvm.fence
// CHECK: llvm.atomicrmw _or %{{.*}}, %{{.*}} syncscope("device") monotonic
func.func @atomic_load_and_store(%x: !tile.ptr<i32>, %y: !tile.ptr<i32>) {
  %zero = arith.constant dense<0> : tensor<128xi32>
  %r = tile.range 0 to 128 : tensor<128xi32>
  %xs = tile.splat %x : !tile.ptr<i32> -> tensor<128x!tile.ptr<i32>>
  %xp = tile.addptr %xs, %r : tensor<128x!tile.ptr<i32>>, tensor<128xi32>
  %v = tile.atomic_rmw or acquire gpu %xp, %zero : tensor<128x!tile.ptr<i32>>, tensor<128xi32>
  %ys = tile.splat %y : !tile.ptr<i32> -> tensor<128x!tile.ptr<i32>>
  %yp = tile.addptr %ys, %r : tensor<128x!tile.ptr<i32>>, tensor<128xi32>
  %unused = tile.atomic_rmw xchg release gpu %yp, %v : tensor<128x!tile.ptr<i32>>, tensor<128xi32>
  // An or of another value is a read-modify-write.
  %bits = tile.atomic_rmw or relaxed gpu %yp, %r : tensor<128x!tile.ptr<i32>>, tensor<128xi32>
  tile.store %xp, %bits : tensor<128x!tile.ptr<i32>>, tensor<128xi32>
  return
}

// -----

// A compare-and-swap is a cmpxchg on the elements' bits (a float's
// bitcast), its failure order the success order without release; a
// scalar one (a lock) runs on thread 0, after a barrier where it releases,
// and shares the old value.
// CHECK-LABEL: gpu.func @compare_and_swap
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK: llvm.cmpxchg %{{.*}}, %{{.*}}, %{{.*}} syncscope("device") acq_rel acquire : !llvm.ptr<1>, i32
// CHECK: gpu.barrier
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// CHECK: llvm.bitcast %{{.*}} : f16 to i16
// CHECK: llvm.cmpxchg %{{.*}}, %{{.*}}, %{{.*}} syncscope("block") monotonic monotonic : !llvm.ptr<1>, i16
// CHECK: llvm.bitcast %{{.*}} : i16 to f16
func.func @compare_and_swap(%lock: !tile.ptr<i32>, %h: !tile.ptr<f16>) {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %old = tile.atomic_cas acq_rel gpu %lock, %zero, %one : !tile.ptr<i32>, i32
  tile.store %lock, %old : !tile.ptr<i32>, i32
  %r = tile.range 0 to 128 : tensor<128xi32>
  %hs = tile.splat %h : !tile.ptr<f16> -> tensor<128x!tile.ptr<f16>>
  %hp = tile.addptr %hs, %r : tensor<128x!tile.ptr<f16>>, tensor<128xi32>
  %v = arith.constant dense<2.0> : tensor<128xf16>
  %c = arith.constant dense<0.0> : tensor<128xf16>
  %hold = tile.atomic_cas relaxed cta %hp, %c, %v : tensor<128x!tile.ptr<f16>>, tensor<128xf16>
  tile.store %hp, %hold : tensor<128x!tile.ptr<f16>>, tensor<128xf16>
  return
}

// -----

// scf.if carries tiles as it carries scalars.
// CHECK-LABEL: gpu.func @branch
// CHECK: scf.if %{{.*}} -> (vector<1xf32>)
// CHECK:   scf.yield %{{.*}} : vector<1xf32>
// CHECK: } else {
// CHECK:   scf.yield %{{.*}} : vector<1xf32>
func.func @branch(%x: !tile.ptr<f32>, %flag: i1) {
  %r = tile.range 0 to 128 : tensor<128xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %v = tile.load %xp : tensor<128x!tile.ptr<f32>> -> tensor<128xf32>
  %w = scf.if %flag -> (tensor<128xf32>) {
    %e = math.exp %v : tensor<128xf32>
    scf.yield %e : tensor<128xf32>
  } else {
    scf.yield %v : tensor<128xf32>
  }
  tile.store %xp, %w : tensor<128x!tile.ptr<f32>>, tensor<128xf32>
  return
}

// -----

// A conversion that moves elements between threads goes through shared
// memory: everyone writes, a barrier, everyone reads. (A loaded vector
// that a store follows is converted; a range, or a load that nothing may
// overwrite before the conversion, would be made again in the other
// layout.)
// CHECK-LABEL: gpu.func @transpose_layout
// CHECK: gpu.barrier
// CHECK: llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> i32
func.func @transpose_layout(%a: !tile.ptr<i32>) {
  %i = tile.range 0 to 16 : tensor<16xi32>
  %is = tile.splat %a : !tile.ptr<i32> -> tensor<16x!tile.ptr<i32>>
  %ip = tile.addptr %is, %i : tensor<16x!tile.ptr<i32>>, tensor<16xi32>
  %r = tile.load %ip : tensor<16x!tile.ptr<i32>> -> tensor<16xi32>
  tile.store %ip, %i : tensor<16x!tile.ptr<i32>>, tensor<16xi32>
  %rows = tile.expand_dims %r axis 1 : tensor<16xi32> -> tensor<16x1xi32>
  %cols = tile.expand_dims %r axis 0 : tensor<16xi32> -> tensor<1x16xi32>
  %c16 = arith.constant dense<16> : tensor<16x1xi32>
  %ro = arith.muli %rows, %c16 : tensor<16x1xi32>
  %rob = tile.broadcast %ro : tensor<16x1xi32> -> tensor<16x16xi32>
  %cob = tile.broadcast %cols : tensor<1x16xi32> -> tensor<16x16xi32>
  %offs = arith.addi %rob, %cob : tensor<16x16xi32>
  %as = tile.splat %a : !tile.ptr<i32> -> tensor<16x16x!tile.ptr<i32>>
  %ap = tile.addptr %as, %offs : tensor<16x16x!tile.ptr<i32>>, tensor<16x16xi32>
  tile.store %ap, %offs : tensor<16x16x!tile.ptr<i32>>, tensor<16x16xi32>
  return
}

// -----

// tile.dot on CUDA cores (f32 products with input_precision = ieee): both
// operands to shared memory, then a loop over K with one vector fma for all
// the accumulator registers of the thread.
// CHECK-LABEL: gpu.func @dot
// CHECK: gpu.barrier
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (vector<8xf32>)
// CHECK:   llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK:   math.fma %{{.*}}, %{{.*}}, %[[ACC]] : vector<8xf32>
func.func @dot(%a: !tile.ptr<f32>, %b: !tile.ptr<f32>, %out: !tile.ptr<f32>) {
  %r = tile.range 0 to 32 : tensor<32xi32>
  %rows = tile.expand_dims %r axis 1 : tensor<32xi32> -> tensor<32x1xi32>
  %cols = tile.expand_dims %r axis 0 : tensor<32xi32> -> tensor<1x32xi32>
  %c32 = arith.constant dense<32> : tensor<32x1xi32>
  %ro = arith.muli %rows, %c32 : tensor<32x1xi32>
  %rob = tile.broadcast %ro : tensor<32x1xi32> -> tensor<32x32xi32>
  %cob = tile.broadcast %cols : tensor<1x32xi32> -> tensor<32x32xi32>
  %offs = arith.addi %rob, %cob : tensor<32x32xi32>
  %as = tile.splat %a : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>>
  %ap = tile.addptr %as, %offs : tensor<32x32x!tile.ptr<f32>>, tensor<32x32xi32>
  %av = tile.load %ap : tensor<32x32x!tile.ptr<f32>> -> tensor<32x32xf32>
  %bs = tile.splat %b : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>>
  %bp = tile.addptr %bs, %offs : tensor<32x32x!tile.ptr<f32>>, tensor<32x32xi32>
  %bv = tile.load %bp : tensor<32x32x!tile.ptr<f32>> -> tensor<32x32xf32>
  %zero = arith.constant dense<0.0> : tensor<32x32xf32>
  %d = tile.dot %av, %bv, %zero : tensor<32x32xf32>, tensor<32x32xf32> -> tensor<32x32xf32>
  %os = tile.splat %out : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>>
  %op = tile.addptr %os, %offs : tensor<32x32x!tile.ptr<f32>>, tensor<32x32xi32>
  tile.store %op, %d : tensor<32x32x!tile.ptr<f32>>, tensor<32x32xf32>
  return
}

// -----

// A scan: log2(128) = 7 rounds, each a store and a barrier-separated load
// of the partner 2^k places before, combined where it exists; reverse
// looks after.
// CHECK-LABEL: gpu.func @cumsum
// CHECK-COUNT-14: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK-LABEL: gpu.func @suffix_max
// CHECK: arith.cmpi slt, %{{.*}}, %c127_i32
// CHECK: arith.maximumf
func.func @cumsum(%x: !tile.ptr<i32>) {
  %r = tile.range 0 to 128 : tensor<128xi32>
  %xs = tile.splat %x : !tile.ptr<i32> -> tensor<128x!tile.ptr<i32>>
  %xp = tile.addptr %xs, %r : tensor<128x!tile.ptr<i32>>, tensor<128xi32>
  %v = tile.load %xp : tensor<128x!tile.ptr<i32>> -> tensor<128xi32>
  %s = tile.scan %v axis 0 : tensor<128xi32> -> tensor<128xi32> {
  ^bb0(%a: i32, %b: i32):
    %t = arith.addi %a, %b : i32
    tile.yield %t : i32
  }
  tile.store %xp, %s : tensor<128x!tile.ptr<i32>>, tensor<128xi32>
  return
}
func.func @suffix_max(%x: !tile.ptr<f32>) {
  %r = tile.range 0 to 128 : tensor<128xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %v = tile.load %xp : tensor<128x!tile.ptr<f32>> -> tensor<128xf32>
  %s = tile.scan %v axis 0 reverse : tensor<128xf32> -> tensor<128xf32> {
  ^bb0(%a: f32, %b: f32):
    %t = arith.maximumf %a, %b : f32
    tile.yield %t : f32
  }
  tile.store %xp, %s : tensor<128x!tile.ptr<f32>>, tensor<128xf32>
  return
}

// -----

// Block pointers: an i64 vector of fields per thread; loads and stores
// compute each register's address and, along checked dimensions, whether
// it is inside the tensor (unsigned compare); padding fills the rest.
// CHECK-LABEL: gpu.func @block_copy
// CHECK: vector.from_elements %{{.*}} : vector<7xi64>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[SRC:.*]] = %{{.*}}, %{{.*}} = %{{.*}}) -> (vector<{{[0-9]+}}xf32>, vector<7xi64>, vector<7xi64>)
// CHECK: arith.cmpi ult
// CHECK: llvm.inline_asm "@$2 ld.global.b32 $0, [$1];"
// CHECK: arith.select
// CHECK: vector.insert %{{.*}}, %{{.*}} [6] : i64 into vector<7xi64>
// CHECK: llvm.inline_asm has_side_effects "@$2 st.global.b32 [$0], $1;"
func.func @block_copy(%a: !tile.ptr<f32>, %out: !tile.ptr<f32>, %m: i64, %k: i64) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i64
  %c32 = arith.constant 32 : i32
  %k32 = arith.trunci %k : i64 to i32
  %src = tile.make_block_ptr %a, [%m, %k], [%k, %c1], [%c0, %c0] {order = array<i32: 1, 0>} : !tile.ptr<f32> -> !tile.block_ptr<16x32xf32>
  %dst = tile.make_block_ptr %out, [%m, %c1], [%c1, %c1], [%c0, %c0] {order = array<i32: 1, 0>} : !tile.ptr<f32> -> !tile.block_ptr<16x32xf32>
  %zero = arith.constant dense<0.0> : tensor<16x32xf32>
  %sum, %p, %q = scf.for %i = %c0 to %k32 step %c32 iter_args(%acc = %zero, %bp = %src, %dp = %dst) -> (tensor<16x32xf32>, !tile.block_ptr<16x32xf32>, !tile.block_ptr<16x32xf32>) : i32 {
    %t = tile.block_load %bp boundary_check = [0, 1] : !tile.block_ptr<16x32xf32> -> tensor<16x32xf32>
    %n = arith.addf %acc, %t : tensor<16x32xf32>
    %next = tile.advance %bp, [%c0, %c32] : !tile.block_ptr<16x32xf32>
    scf.yield %n, %next, %dp : tensor<16x32xf32>, !tile.block_ptr<16x32xf32>, !tile.block_ptr<16x32xf32>
  }
  tile.block_store %q, %sum boundary_check = [0] : !tile.block_ptr<16x32xf32>, tensor<16x32xf32>
  return
}

// -----

// The old values of an atomic on a tile the layout replicates (4 elements,
// 128 threads): the canonical copies apply it and write the old values to
// shared memory by element; every copy reads its own back.
// CHECK-LABEL: gpu.func @replicated_atomic
// CHECK: scf.if %{{.*}} -> (i32)
// CHECK:   llvm.atomicrmw add
// CHECK: gpu.barrier
// CHECK: scf.if %{{.*}} {
// CHECK:   llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// CHECK: gpu.barrier
func.func @replicated_atomic(%c: !tile.ptr<i32>) {
  %r = tile.range 0 to 4 : tensor<4xi32>
  %cs = tile.splat %c : !tile.ptr<i32> -> tensor<4x!tile.ptr<i32>>
  %cp = tile.addptr %cs, %r : tensor<4x!tile.ptr<i32>>, tensor<4xi32>
  %old = tile.atomic_rmw add acq_rel gpu %cp, %r : tensor<4x!tile.ptr<i32>>, tensor<4xi32>
  %four = arith.constant dense<4> : tensor<4xi32>
  %next = tile.addptr %cp, %four : tensor<4x!tile.ptr<i32>>, tensor<4xi32>
  tile.store %next, %old : tensor<4x!tile.ptr<i32>>, tensor<4xi32>
  return
}

// -----

// tl.debug_barrier is the program's barrier.
// CHECK-LABEL: gpu.func @debug_barrier
// CHECK: llvm.store
// CHECK-NEXT: gpu.barrier
func.func @debug_barrier(%p: !tile.ptr<f32>, %v: f32) {
  tile.store %p, %v : !tile.ptr<f32>, f32
  tile.barrier
  return
}

// -----

// A gather writes the source to shared memory by element and reads each
// result element at the index's row, clamped into the axis; the result is
// laid out as the index.
// CHECK-LABEL: gpu.func @gather
// CHECK: arith.maxsi %{{.*}}, %{{.*}} : vector<{{.*}}xi32>
// CHECK: arith.minsi %{{.*}}, %{{.*}} : vector<{{.*}}xi32>
// CHECK: gpu.barrier
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
func.func @gather(%src: !tile.ptr<f32>, %idx: !tile.ptr<i32>, %out: !tile.ptr<f32>) {
  %r = tile.range 0 to 64 : tensor<64xi32>
  %s = tile.splat %src : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %sp = tile.addptr %s, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %table = tile.load %sp : tensor<64x!tile.ptr<f32>> -> tensor<64xf32>
  %r2 = tile.range 0 to 128 : tensor<128xi32>
  %i = tile.splat %idx : !tile.ptr<i32> -> tensor<128x!tile.ptr<i32>>
  %ip = tile.addptr %i, %r2 : tensor<128x!tile.ptr<i32>>, tensor<128xi32>
  %picks = tile.load %ip : tensor<128x!tile.ptr<i32>> -> tensor<128xi32>
  %g = tile.gather %table[%picks] axis 0 : tensor<64xf32>, tensor<128xi32> -> tensor<128xf32>
  %o = tile.splat %out : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %op = tile.addptr %o, %r2 : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  tile.store %op, %g : tensor<128x!tile.ptr<f32>>, tensor<128xf32>
  return
}

// -----

// A stored boolean is true where its byte is not zero (as Triton reads
// it), not where its low bit is set: bytes 2 or 128 are true.
// CHECK-LABEL: gpu.func @booleans_are_bytes
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i8
// CHECK: arith.cmpi ne, %{{.*}}, %[[ZERO]] : i8
// CHECK-NOT: arith.trunci %{{.*}} : i8 to i1
func.func @booleans_are_bytes(%flags: !tile.ptr<i1> {tile.divisibility = 16 : i64}, %out: !tile.ptr<i32> {tile.divisibility = 16 : i64}) {
  %r = tile.range 0 to 128 : tensor<128xi32>
  %f = tile.splat %flags : !tile.ptr<i1> -> tensor<128x!tile.ptr<i1>>
  %fp = tile.addptr %f, %r : tensor<128x!tile.ptr<i1>>, tensor<128xi32>
  %b = tile.load %fp : tensor<128x!tile.ptr<i1>> -> tensor<128xi1>
  %w = arith.extui %b : tensor<128xi1> to tensor<128xi32>
  %o = tile.splat %out : !tile.ptr<i32> -> tensor<128x!tile.ptr<i32>>
  %op = tile.addptr %o, %r : tensor<128x!tile.ptr<i32>>, tensor<128xi32>
  tile.store %op, %w : tensor<128x!tile.ptr<i32>>, tensor<128xi32>
  return
}
