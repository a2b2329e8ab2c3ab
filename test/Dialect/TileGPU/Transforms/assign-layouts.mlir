// RUN: kiln-opt %s -split-input-file -tile-assign-layouts | FileCheck %s
// RUN: kiln-opt %s -split-input-file -tile-assign-layouts=num-warps=8 | FileCheck %s --check-prefix=WARPS8
// Laid-out IR prints in a form that parses back (masks keep their layout).
// RUN: kiln-opt %s -split-input-file -tile-assign-layouts | kiln-opt -split-input-file | FileCheck %s

// Contiguous f32 accesses with 16-byte-aligned pointers and a bound divisible
// by 16: four elements (16 bytes) per thread, one layout for every tile.
// CHECK: #[[$V4:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: module attributes {tilegpu.num_warps = 4 : i32}
// CHECK-LABEL: func.func @aligned
// CHECK: tile.range 0 to 1024 : tensor<1024xi32, #[[$V4]]>
// CHECK: tile.load %{{.*}}, %{{.*}} : tensor<1024x!tile.ptr<f32>, #[[$V4]]> -> tensor<1024xf32, #[[$V4]]>
// CHECK: arith.addf %{{.*}}, %{{.*}} : tensor<1024xf32, #[[$V4]]>
// CHECK: tile.store %{{.*}}, %{{.*}}, %{{.*}} : tensor<1024x!tile.ptr<f32>, #[[$V4]]>, tensor<1024xf32, #[[$V4]]>
// WARPS8: #blocked = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>
// WARPS8: module attributes {tilegpu.num_warps = 8 : i32}
func.func @aligned(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                   %out: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                   %n: i32 {tile.divisibility = 16 : i64}) {
  %c1024 = arith.constant 1024 : i32
  %pid = tile.program_id x
  %start = arith.muli %pid, %c1024 : i32
  %r = tile.range 0 to 1024 : tensor<1024xi32>
  %s = tile.splat %start : i32 -> tensor<1024xi32>
  %offs = arith.addi %s, %r : tensor<1024xi32>
  %ns = tile.splat %n : i32 -> tensor<1024xi32>
  %mask = arith.cmpi slt, %offs, %ns : tensor<1024xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %v = tile.load %xp, %mask : tensor<1024x!tile.ptr<f32>> -> tensor<1024xf32>
  %w = arith.addf %v, %v : tensor<1024xf32>
  %os = tile.splat %out : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %op = tile.addptr %os, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  tile.store %op, %w, %mask : tensor<1024x!tile.ptr<f32>>, tensor<1024xf32>
  return
}

// -----

// Without alignment facts, or with a mask that may change at any element,
// each thread accesses one element at a time.
// CHECK: #[[$V1:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: func.func @unaligned
// CHECK: tile.load {{.*}} -> tensor<256xf32, #[[$V1]]>
// CHECK-LABEL: func.func @ragged_mask
// CHECK: tile.load {{.*}} -> tensor<256xf32, #[[$V1]]>
func.func @unaligned(%x: !tile.ptr<f32>) {
  %r = tile.range 0 to 256 : tensor<256xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  %v = tile.load %xp : tensor<256x!tile.ptr<f32>> -> tensor<256xf32>
  return
}
func.func @ragged_mask(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %n: i32) {
  %r = tile.range 0 to 256 : tensor<256xi32>
  %ns = tile.splat %n : i32 -> tensor<256xi32>
  %mask = arith.cmpi slt, %r, %ns : tensor<256xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  %v = tile.load %xp, %mask : tensor<256x!tile.ptr<f32>> -> tensor<256xf32>
  return
}

// -----

// A row-major 64x32 f16 tile: 8 halves (16 bytes) per thread along the
// rows, 4 threads per row, warps down the columns.
// CHECK: #[[$ROWS:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-LABEL: func.func @row_major
// CHECK: tile.load {{.*}} -> tensor<64x32xf16, #[[$ROWS]]>
func.func @row_major(%a: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                     %stride: i32 {tile.divisibility = 16 : i64}) {
  %r64 = tile.range 0 to 64 : tensor<64xi32>
  %r32 = tile.range 0 to 32 : tensor<32xi32>
  %rows = tile.expand_dims %r64 axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %cols = tile.expand_dims %r32 axis 0 : tensor<32xi32> -> tensor<1x32xi32>
  %ss = tile.splat %stride : i32 -> tensor<64x1xi32>
  %ro = arith.muli %rows, %ss : tensor<64x1xi32>
  %rob = tile.broadcast %ro : tensor<64x1xi32> -> tensor<64x32xi32>
  %cob = tile.broadcast %cols : tensor<1x32xi32> -> tensor<64x32xi32>
  %offs = arith.addi %rob, %cob : tensor<64x32xi32>
  %as = tile.splat %a : !tile.ptr<f16> -> tensor<64x32x!tile.ptr<f16>>
  %ap = tile.addptr %as, %offs : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
  %v = tile.load %ap : tensor<64x32x!tile.ptr<f16>> -> tensor<64x32xf16>
  return
}

// -----

// Contiguous down the columns (a transposed read): dimension 0 is fastest.
// CHECK: #[[$COLS:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>
// CHECK-LABEL: func.func @column_major
// CHECK: tile.load {{.*}} -> tensor<64x32xf32, #[[$COLS]]>
func.func @column_major(%a: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                        %stride: i32 {tile.divisibility = 16 : i64}) {
  %r64 = tile.range 0 to 64 : tensor<64xi32>
  %r32 = tile.range 0 to 32 : tensor<32xi32>
  %rows = tile.expand_dims %r64 axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %cols = tile.expand_dims %r32 axis 0 : tensor<32xi32> -> tensor<1x32xi32>
  %ss = tile.splat %stride : i32 -> tensor<1x32xi32>
  %co = arith.muli %cols, %ss : tensor<1x32xi32>
  %rob = tile.broadcast %rows : tensor<64x1xi32> -> tensor<64x32xi32>
  %cob = tile.broadcast %co : tensor<1x32xi32> -> tensor<64x32xi32>
  %offs = arith.addi %rob, %cob : tensor<64x32xi32>
  %as = tile.splat %a : !tile.ptr<f32> -> tensor<64x32x!tile.ptr<f32>>
  %ap = tile.addptr %as, %offs : tensor<64x32x!tile.ptr<f32>>, tensor<64x32xi32>
  %v = tile.load %ap : tensor<64x32x!tile.ptr<f32>> -> tensor<64x32xf32>
  return
}

// -----

// A row reduction gives a slice of its operand's layout; expanding it back
// gives the parent layout again, with nothing to convert.
// CHECK-DAG: #[[$P:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [1, 4], {{.*}}order = [1, 0]}>
// CHECK-DAG: #[[$S:slice[0-9]*]] = #tilegpu.slice<{dim = 1, parent = #[[$P]]}>
// CHECK-LABEL: func.func @reduce_and_expand
// CHECK: %[[X:.*]] = tile.load {{.*}} -> tensor<16x64xf32, #[[$P]]>
// CHECK: %[[R:.*]] = tile.reduce %[[X]] axis 1 : tensor<16x64xf32, #[[$P]]> -> tensor<16xf32, #[[$S]]>
// CHECK-NOT: tilegpu.convert_layout
// CHECK: tile.expand_dims %[[R]] axis 1 : tensor<16xf32, #[[$S]]> -> tensor<16x1xf32, #[[$P]]>
func.func @reduce_and_expand(%a: !tile.ptr<f32> {tile.divisibility = 16 : i64}) {
  %r16 = tile.range 0 to 16 : tensor<16xi32>
  %r64 = tile.range 0 to 64 : tensor<64xi32>
  %rows = tile.expand_dims %r16 axis 1 : tensor<16xi32> -> tensor<16x1xi32>
  %cols = tile.expand_dims %r64 axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %c64 = arith.constant dense<64> : tensor<16x1xi32>
  %ro = arith.muli %rows, %c64 : tensor<16x1xi32>
  %rob = tile.broadcast %ro : tensor<16x1xi32> -> tensor<16x64xi32>
  %cob = tile.broadcast %cols : tensor<1x64xi32> -> tensor<16x64xi32>
  %offs = arith.addi %rob, %cob : tensor<16x64xi32>
  %as = tile.splat %a : !tile.ptr<f32> -> tensor<16x64x!tile.ptr<f32>>
  %ap = tile.addptr %as, %offs : tensor<16x64x!tile.ptr<f32>>, tensor<16x64xi32>
  %x = tile.load %ap : tensor<16x64x!tile.ptr<f32>> -> tensor<16x64xf32>
  %s = tile.reduce %x axis 1 : tensor<16x64xf32> -> tensor<16xf32> {
  ^bb0(%l: f32, %r: f32):
    %t = arith.addf %l, %r : f32
    tile.yield %t : f32
  }
  %e = tile.expand_dims %s axis 1 : tensor<16xf32> -> tensor<16x1xf32>
  %eb = tile.broadcast %e : tensor<16x1xf32> -> tensor<16x64xf32>
  %y = arith.subf %x, %eb : tensor<16x64xf32>
  tile.store %ap, %y : tensor<16x64x!tile.ptr<f32>>, tensor<16x64xf32>
  return
}

// -----

// One range expanded along both axes needs two slices of the 2-D layout: the
// second use gets the range again, made in its slice, rather than a
// conversion through shared memory.
// CHECK-LABEL: func.func @range_used_twice
// CHECK: %[[R:.*]] = tile.range 0 to 16 : tensor<16xi32, #[[$SA:slice[0-9]*]]>
// CHECK: tile.expand_dims %[[R]] axis 1
// CHECK: %[[C:.*]] = tile.range 0 to 16 : tensor<16xi32, #{{slice[0-9]*}}>
// CHECK: tile.expand_dims %[[C]] axis 0
// CHECK-NOT: tilegpu.convert_layout
func.func @range_used_twice(%a: !tile.ptr<i32>) {
  %r = tile.range 0 to 16 : tensor<16xi32>
  %rows = tile.expand_dims %r axis 1 : tensor<16xi32> -> tensor<16x1xi32>
  %cols = tile.expand_dims %r axis 0 : tensor<16xi32> -> tensor<1x16xi32>
  %rb = tile.broadcast %rows : tensor<16x1xi32> -> tensor<16x16xi32>
  %cb = tile.broadcast %cols : tensor<1x16xi32> -> tensor<16x16xi32>
  %sum = arith.addi %rb, %cb : tensor<16x16xi32>
  %as = tile.splat %a : !tile.ptr<i32> -> tensor<16x16x!tile.ptr<i32>>
  %ap = tile.addptr %as, %sum : tensor<16x16x!tile.ptr<i32>>, tensor<16x16xi32>
  tile.store %ap, %sum : tensor<16x16x!tile.ptr<i32>>, tensor<16x16xi32>
  return
}

// -----

// Outside loops, a conversion whose value reaches a loop stays: made again
// before the loop, the index vector is more values in registers all
// through it (in the corpus, the causal attention backward at d64 then
// spilled 24 bytes instead of 4, and the TMA attention at d128 took 255
// registers instead of 218).
// CHECK-LABEL: func.func @range_into_a_loop
// CHECK: tilegpu.convert_layout
// CHECK: scf.for
func.func @range_into_a_loop(%a: !tile.ptr<i32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = tile.range 0 to 16 : tensor<16xi32>
  %rows = tile.expand_dims %r axis 1 : tensor<16xi32> -> tensor<16x1xi32>
  %cols = tile.expand_dims %r axis 0 : tensor<16xi32> -> tensor<1x16xi32>
  %rb = tile.broadcast %rows : tensor<16x1xi32> -> tensor<16x16xi32>
  %cb = tile.broadcast %cols : tensor<1x16xi32> -> tensor<16x16xi32>
  %as = tile.splat %a : !tile.ptr<i32> -> tensor<16x16x!tile.ptr<i32>>
  scf.for %i = %c0 to %n step %c1 : i32 {
    %sum = arith.addi %rb, %cb : tensor<16x16xi32>
    %ap = tile.addptr %as, %sum : tensor<16x16x!tile.ptr<i32>>, tensor<16x16xi32>
    tile.store %ap, %sum : tensor<16x16x!tile.ptr<i32>>, tensor<16x16xi32>
  }
  return
}

// -----

// Values carried by a loop share one layout with the loop's results.
// CHECK-LABEL: func.func @loop
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<128xf32, #[[$L:blocked[0-9]*]]>)
// CHECK: arith.addf %{{.*}}, %{{.*}} : tensor<128xf32, #[[$L]]>
// CHECK: scf.yield %{{.*}} : tensor<128xf32, #[[$L]]>
// CHECK: tile.store %{{.*}}, %{{.*}} : tensor<128x!tile.ptr<f32>, #[[$L]]>, tensor<128xf32, #[[$L]]>
func.func @loop(%out: !tile.ptr<f32>, %n: i32) {
  %zero = arith.constant dense<0.0> : tensor<128xf32>
  %one = arith.constant dense<1.0> : tensor<128xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc = scf.for %i = %c0 to %n step %c1 iter_args(%a = %zero) -> (tensor<128xf32>) : i32 {
    %b = arith.addf %a, %one : tensor<128xf32>
    scf.yield %b : tensor<128xf32>
  }
  %r = tile.range 0 to 128 : tensor<128xi32>
  %os = tile.splat %out : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %op = tile.addptr %os, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  tile.store %op, %acc : tensor<128x!tile.ptr<f32>>, tensor<128xf32>
  return
}

// -----

// A pointer advanced by an aligned step each iteration stays aligned and
// contiguous, and a mask against the remaining count (a multiple of 16
// minus an induction variable stepping by 32) is constant over runs of 16:
// the load in the loop takes four f32 at a time. An odd step forgets the
// alignment.
// CHECK: #[[$LOOP4:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: func.func @loop_carried
// CHECK: tile.load %{{.*}}, %{{.*}} : tensor<512x!tile.ptr<f32>, #[[$LOOP4]]>
func.func @loop_carried(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                        %n: i32 {tile.divisibility = 16 : i64}) -> tensor<512xf32> {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %r = tile.range 0 to 512 : tensor<512xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %p0 = tile.addptr %xs, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %step = arith.constant dense<32> : tensor<512xi32>
  %zero = arith.constant dense<0.0> : tensor<512xf32>
  %acc, %p = scf.for %k = %c0 to %n step %c32 iter_args(%a = %zero, %pi = %p0)
      -> (tensor<512xf32>, tensor<512x!tile.ptr<f32>>) : i32 {
    %left = arith.subi %n, %k : i32
    %ls = tile.splat %left : i32 -> tensor<512xi32>
    %mask = arith.cmpi slt, %r, %ls : tensor<512xi32>
    %v = tile.load %pi, %mask : tensor<512x!tile.ptr<f32>> -> tensor<512xf32>
    %s = arith.addf %a, %v : tensor<512xf32>
    %pn = tile.addptr %pi, %step : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
    scf.yield %s, %pn : tensor<512xf32>, tensor<512x!tile.ptr<f32>>
  }
  return %acc : tensor<512xf32>
}

// -----

// CHECK: #[[$ODD:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: func.func @odd_step
// CHECK: tile.load %{{.*}} : tensor<512x!tile.ptr<f32>, #[[$ODD]]>
func.func @odd_step(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64}) -> tensor<512xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %r = tile.range 0 to 512 : tensor<512xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %p0 = tile.addptr %xs, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %step = arith.constant dense<3> : tensor<512xi32>
  %zero = arith.constant dense<0.0> : tensor<512xf32>
  %acc, %p = scf.for %k = %c0 to %c4 step %c1 iter_args(%a = %zero, %pi = %p0)
      -> (tensor<512xf32>, tensor<512x!tile.ptr<f32>>) : i32 {
    %v = tile.load %pi : tensor<512x!tile.ptr<f32>> -> tensor<512xf32>
    %s = arith.addf %a, %v : tensor<512xf32>
    %pn = tile.addptr %pi, %step : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
    scf.yield %s, %pn : tensor<512xf32>, tensor<512x!tile.ptr<f32>>
  }
  return %acc : tensor<512xf32>
}

// -----

// Found by kiln-fuzz-opt: a 1-D reduction gives a scalar, which has no
// layout (it asked for a slice of a rank-1 layout).
// CHECK-LABEL: func.func @reduce_to_scalar
// CHECK: tile.reduce %{{.*}} axis 0 : tensor<16xf32, #blocked{{[0-9]*}}> -> f32
// CHECK-NOT: tilegpu.convert_layout
// CHECK: tile.store %{{.*}}, %{{.*}} : !tile.ptr<f32>, f32
func.func @reduce_to_scalar(%x: tensor<16xf32>, %out: !tile.ptr<f32>) {
  %s = tile.reduce %x axis 0 : tensor<16xf32> -> f32 {
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    tile.yield %t : f32
  }
  tile.store %out, %s : !tile.ptr<f32>, f32
  return
}

// -----

// One splat used by two accesses (the `other` of two loads, made once by
// CSE) ties nothing: each load keeps the layout that coalesces it, one
// down the columns and one along the rows, with its own copy of the zero.
// CHECK-DAG: #[[$DOWN:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [8, 1], {{.*}}order = [0, 1]}>
// CHECK-DAG: #[[$ALONG:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [1, 8], {{.*}}order = [1, 0]}>
// CHECK-LABEL: func.func @shared_padding
// CHECK-DAG: arith.constant dense<0.000000e+00> : tensor<32x32xf16, #[[$DOWN]]>
// CHECK-DAG: arith.constant dense<0.000000e+00> : tensor<32x32xf16, #[[$ALONG]]>
// CHECK: tile.load {{.*}} : tensor<32x32x!tile.ptr<f16>, #[[$DOWN]]> -> tensor<32x32xf16, #[[$DOWN]]>
// CHECK: tile.load {{.*}} : tensor<32x32x!tile.ptr<f16>, #[[$ALONG]]> -> tensor<32x32xf16, #[[$ALONG]]>
func.func @shared_padding(%p: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                          %out: !tile.ptr<f16> {tile.divisibility = 16 : i64}) {
  // Offsets k + 32 n (runs down the columns) ...
  %r1 = tile.range 0 to 32 : tensor<32xi32>
  %k1 = tile.expand_dims %r1 axis 1 : tensor<32xi32> -> tensor<32x1xi32>
  %n1 = tile.expand_dims %r1 axis 0 : tensor<32xi32> -> tensor<1x32xi32>
  %c32c = arith.constant dense<32> : tensor<1x32xi32>
  %n1o = arith.muli %n1, %c32c : tensor<1x32xi32>
  %k1b = tile.broadcast %k1 : tensor<32x1xi32> -> tensor<32x32xi32>
  %n1b = tile.broadcast %n1o : tensor<1x32xi32> -> tensor<32x32xi32>
  %down = arith.addi %k1b, %n1b : tensor<32x32xi32>
  // ... and 32 m + k (runs along the rows).
  %r2 = tile.range 0 to 32 : tensor<32xi32>
  %m2 = tile.expand_dims %r2 axis 1 : tensor<32xi32> -> tensor<32x1xi32>
  %k2 = tile.expand_dims %r2 axis 0 : tensor<32xi32> -> tensor<1x32xi32>
  %c32r = arith.constant dense<32> : tensor<32x1xi32>
  %m2o = arith.muli %m2, %c32r : tensor<32x1xi32>
  %m2b = tile.broadcast %m2o : tensor<32x1xi32> -> tensor<32x32xi32>
  %k2b = tile.broadcast %k2 : tensor<1x32xi32> -> tensor<32x32xi32>
  %along = arith.addi %m2b, %k2b : tensor<32x32xi32>
  %limit = arith.constant dense<1000> : tensor<32x32xi32>
  %md = arith.cmpi slt, %down, %limit : tensor<32x32xi32>
  %ma = arith.cmpi slt, %along, %limit : tensor<32x32xi32>
  %ps = tile.splat %p : !tile.ptr<f16> -> tensor<32x32x!tile.ptr<f16>>
  %pd = tile.addptr %ps, %down : tensor<32x32x!tile.ptr<f16>>, tensor<32x32xi32>
  %pa = tile.addptr %ps, %along : tensor<32x32x!tile.ptr<f16>>, tensor<32x32xi32>
  %zero = arith.constant dense<0.0> : tensor<32x32xf16>
  %x = tile.load %pd, %md, other %zero : tensor<32x32x!tile.ptr<f16>> -> tensor<32x32xf16>
  %y = tile.load %pa, %ma, other %zero : tensor<32x32x!tile.ptr<f16>> -> tensor<32x32xf16>
  %os = tile.splat %out : !tile.ptr<f16> -> tensor<32x32x!tile.ptr<f16>>
  %od = tile.addptr %os, %down : tensor<32x32x!tile.ptr<f16>>, tensor<32x32xi32>
  %oa = tile.addptr %os, %along : tensor<32x32x!tile.ptr<f16>>, tensor<32x32xi32>
  tile.store %od, %x : tensor<32x32x!tile.ptr<f16>>, tensor<32x32xf16>
  tile.store %oa, %y : tensor<32x32x!tile.ptr<f16>>, tensor<32x32xf16>
  return
}

// -----

// A while loop's tile takes one layout in its test, its body and after it
// (the test's and the body's block arguments were laid out apart from the
// vector loads the body adds, and the loop did not verify).
// CHECK-LABEL: func.func @while_loop
// CHECK: scf.while ({{.*}}) : (tensor<1024xf32, #[[L:.*]]>, i32) -> (tensor<1024xf32, #[[L]]>, i32)
// CHECK: scf.condition(%{{.*}}) %{{.*}}, %{{.*}} : tensor<1024xf32, #[[L]]>, i32
// CHECK: ^bb0(%{{.*}}: tensor<1024xf32, #[[L]]>, %{{.*}}: i32):
// CHECK: tile.load {{.*}} -> tensor<1024xf32, #[[L]]>
func.func @while_loop(%p: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                      %n: i32) {
  %r = tile.range 0 to 1024 : tensor<1024xi32>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %pp = tile.addptr %ps, %r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %zero = arith.constant dense<0.0> : tensor<1024xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %total:2 = scf.while (%t = %zero, %k = %c0) : (tensor<1024xf32>, i32) -> (tensor<1024xf32>, i32) {
    %more = arith.cmpi slt, %k, %n : i32
    scf.condition(%more) %t, %k : tensor<1024xf32>, i32
  } do {
  ^bb0(%t: tensor<1024xf32>, %k: i32):
    %x = tile.load %pp : tensor<1024x!tile.ptr<f32>> -> tensor<1024xf32>
    %next = arith.addf %t, %x : tensor<1024xf32>
    %k1 = arith.addi %k, %c1 : i32
    scf.yield %next, %k1 : tensor<1024xf32>, i32
  }
  %r2 = tile.range 0 to 1024 : tensor<1024xi32>
  %qs = tile.splat %p : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %qq = tile.addptr %qs, %r2 : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  tile.store %qq, %total#0 : tensor<1024x!tile.ptr<f32>>, tensor<1024xf32>
  return
}
