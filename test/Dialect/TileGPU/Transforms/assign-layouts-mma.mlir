// RUN: kiln-opt %s -split-input-file -tile-assign-layouts | FileCheck %s
// RUN: kiln-opt %s -split-input-file -tile-assign-layouts="compute-capability=75" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM75

// Dots on tensor cores (compute capability 80 by default): the accumulator
// carried by the loop keeps the mma layout from its zero to the store; the
// operands are loaded coalesced and converted to dot operands; the row and
// column offsets that feed both an operand's pointers and the store's are
// converted (64 elements, outside the loop) rather than joining the groups.
// C's pointer has no alignment facts, so its stores are one element wide
// in any layout and the accumulator is stored from its own.
// CHECK-DAG: #[[$MMA:.*]] = #tilegpu.mma<{warpsPerCTA = [2, 2]}>
// CHECK-DAG: #[[$A:.*]] = #tilegpu.dot_operand<{opIdx = 0, parent = #[[$MMA]], kWidth = 2}>
// CHECK-DAG: #[[$B:.*]] = #tilegpu.dot_operand<{opIdx = 1, parent = #[[$MMA]], kWidth = 2}>
// CHECK-LABEL: func.func @loop
// CHECK: %[[ROWS:.*]] = tile.expand_dims %{{.*}} axis 1 : tensor<64xi32, #{{.*}}> -> tensor<64x1xi32, #[[$BLOCKED:[a-z0-9]+]]>
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #[[$MMA]]>
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]], {{.*}}) -> (tensor<64x64xf32, #[[$MMA]]>, tensor<64x32x!tile.ptr<f16>, #[[$BLOCKED]]>, tensor<32x64x!tile.ptr<f16>, #{{.*}}>)
// CHECK:   %[[AV:.*]] = tile.load %{{.*}} : tensor<64x32x!tile.ptr<f16>, #[[$BLOCKED]]> -> tensor<64x32xf16, #[[$BLOCKED]]>
// CHECK:   %[[BV:.*]] = tile.load
// CHECK:   %[[AD:.*]] = tilegpu.convert_layout %[[AV]] : tensor<64x32xf16, #[[$BLOCKED]]> -> tensor<64x32xf16, #[[$A]]>
// CHECK:   %[[BD:.*]] = tilegpu.convert_layout %[[BV]] : tensor<32x64xf16, #{{.*}}> -> tensor<32x64xf16, #[[$B]]>
// CHECK:   %[[D:.*]] = tile.dot %[[AD]], %[[BD]], %[[ACC]] : tensor<64x32xf16, #[[$A]]>, tensor<32x64xf16, #[[$B]]> -> tensor<64x64xf32, #[[$MMA]]>
// CHECK:   scf.yield %[[D]], {{.*}} : tensor<64x64xf32, #[[$MMA]]>,
// CHECK: %[[ROWS_MMA:.*]] = tilegpu.convert_layout %{{.*}} : tensor<64x1xi32, #[[$BLOCKED]]> -> tensor<64x1xi32, #[[$MMA]]>
// CHECK: tile.broadcast %[[ROWS_MMA]] : tensor<64x1xi32, #[[$MMA]]> -> tensor<64x64xi32, #[[$MMA]]>
// CHECK: tile.store %{{.*}} : tensor<64x64x!tile.ptr<f32>, #[[$MMA]]>, tensor<64x64xf32, #[[$MMA]]>
// SM75: remark: not on tensor cores: tensor cores need sm_80 or newer, the target is sm_75
func.func @loop(%a: !tile.ptr<f16>, %b: !tile.ptr<f16>, %c: !tile.ptr<f32>, %steps: i32) {
  %r64 = tile.range 0 to 64 : tensor<64xi32>
  %r32 = tile.range 0 to 32 : tensor<32xi32>
  %rows = tile.expand_dims %r64 axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %cols = tile.expand_dims %r64 axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %kr = tile.expand_dims %r32 axis 0 : tensor<32xi32> -> tensor<1x32xi32>
  %kc = tile.expand_dims %r32 axis 1 : tensor<32xi32> -> tensor<32x1xi32>
  %c32 = arith.constant dense<32> : tensor<64x1xi32>
  %ar = arith.muli %rows, %c32 : tensor<64x1xi32>
  %arb = tile.broadcast %ar : tensor<64x1xi32> -> tensor<64x32xi32>
  %akb = tile.broadcast %kr : tensor<1x32xi32> -> tensor<64x32xi32>
  %aoff = arith.addi %arb, %akb : tensor<64x32xi32>
  %as = tile.splat %a : !tile.ptr<f16> -> tensor<64x32x!tile.ptr<f16>>
  %ap = tile.addptr %as, %aoff : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
  %c64 = arith.constant dense<64> : tensor<32x1xi32>
  %bk = arith.muli %kc, %c64 : tensor<32x1xi32>
  %bkb = tile.broadcast %bk : tensor<32x1xi32> -> tensor<32x64xi32>
  %bnb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<32x64xi32>
  %boff = arith.addi %bkb, %bnb : tensor<32x64xi32>
  %bs = tile.splat %b : !tile.ptr<f16> -> tensor<32x64x!tile.ptr<f16>>
  %bp = tile.addptr %bs, %boff : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc, %ape, %bpe = scf.for %i = %c0 to %steps step %c1 iter_args(%acc_i = %zero, %ap_i = %ap, %bp_i = %bp)
      -> (tensor<64x64xf32>, tensor<64x32x!tile.ptr<f16>>, tensor<32x64x!tile.ptr<f16>>) : i32 {
    %av = tile.load %ap_i : tensor<64x32x!tile.ptr<f16>> -> tensor<64x32xf16>
    %bv = tile.load %bp_i : tensor<32x64x!tile.ptr<f16>> -> tensor<32x64xf16>
    %d = tile.dot %av, %bv, %acc_i : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %d, %ap_i, %bp_i : tensor<64x64xf32>, tensor<64x32x!tile.ptr<f16>>, tensor<32x64x!tile.ptr<f16>>
  }
  %c64r = arith.constant dense<64> : tensor<64x1xi32>
  %cr = arith.muli %rows, %c64r : tensor<64x1xi32>
  %crb = tile.broadcast %cr : tensor<64x1xi32> -> tensor<64x64xi32>
  %ccb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<64x64xi32>
  %coff = arith.addi %crb, %ccb : tensor<64x64xi32>
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %cp = tile.addptr %cs, %coff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %cp, %acc : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}

// -----

// Where C's rows are aligned, a coalesced store is wider than the two
// columns an accumulator's thread holds: the pointers and the mask keep
// the coalesced layout (eight f16 per thread) and the product, cast to f16
// in the mma layout, is converted to it for the store, as Triton's
// epilogue is.
// CHECK-DAG: #[[$MMA:.*]] = #tilegpu.mma<{warpsPerCTA = [2, 2]}>
// CHECK-DAG: #[[$STORE:.*]] = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-LABEL: func.func @aligned_store
// CHECK: %[[D:.*]] = tile.dot {{.*}} -> tensor<64x64xf32, #[[$MMA]]>
// CHECK: %[[H:.*]] = arith.truncf %[[D]] : tensor<64x64xf32, #[[$MMA]]> to tensor<64x64xf16, #[[$MMA]]>
// CHECK: %[[P:.*]] = tile.addptr {{.*}} : tensor<64x64x!tile.ptr<f16>, #[[$STORE]]>, tensor<64x64xi32, #[[$STORE]]>
// CHECK: %[[M:.*]] = arith.cmpi slt, {{.*}} : tensor<64x64xi32, #[[$STORE]]>
// CHECK: %[[V:.*]] = tilegpu.convert_layout %[[H]] : tensor<64x64xf16, #[[$MMA]]> -> tensor<64x64xf16, #[[$STORE]]>
// CHECK: tile.store %[[P]], %[[V]], %[[M]] : tensor<64x64x!tile.ptr<f16>, #[[$STORE]]>, tensor<64x64xf16, #[[$STORE]]>
func.func @aligned_store(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>,
                         %c: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                         %n: i32 {tile.divisibility = 16 : i64}) {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %a, %b, %zero : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  %h = arith.truncf %d : tensor<64x64xf32> to tensor<64x64xf16>
  %r64 = tile.range 0 to 64 : tensor<64xi32>
  %rows = tile.expand_dims %r64 axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %cols = tile.expand_dims %r64 axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %c64 = arith.constant dense<64> : tensor<64x1xi32>
  %ro = arith.muli %rows, %c64 : tensor<64x1xi32>
  %rb = tile.broadcast %ro : tensor<64x1xi32> -> tensor<64x64xi32>
  %cb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<64x64xi32>
  %off = arith.addi %rb, %cb : tensor<64x64xi32>
  %cs = tile.splat %c : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %cp = tile.addptr %cs, %off : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
  %ns = tile.splat %n : i32 -> tensor<64x64xi32>
  %mask = arith.cmpi slt, %cb, %ns : tensor<64x64xi32>
  tile.store %cp, %h, %mask : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xf16>
  return
}

// -----

// A 128x256 f32 product would take 128 KiB of shared memory to convert,
// more than the scratch the pipeline leaves: it is stored from the
// accumulator's layout.
// CHECK-LABEL: func.func @large_store
// CHECK: tile.store %{{.*}}, %{{.*}} : tensor<128x256x!tile.ptr<f32>, #mma{{[0-9]*}}>, tensor<128x256xf32, #mma{{[0-9]*}}>
func.func @large_store(%a: tensor<128x32xf16>, %b: tensor<32x256xf16>,
                       %c: !tile.ptr<f32> {tile.divisibility = 16 : i64}) {
  %zero = arith.constant dense<0.0> : tensor<128x256xf32>
  %d = tile.dot %a, %b, %zero : tensor<128x32xf16>, tensor<32x256xf16> -> tensor<128x256xf32>
  %r128 = tile.range 0 to 128 : tensor<128xi32>
  %r256 = tile.range 0 to 256 : tensor<256xi32>
  %rows = tile.expand_dims %r128 axis 1 : tensor<128xi32> -> tensor<128x1xi32>
  %cols = tile.expand_dims %r256 axis 0 : tensor<256xi32> -> tensor<1x256xi32>
  %c256 = arith.constant dense<256> : tensor<128x1xi32>
  %ro = arith.muli %rows, %c256 : tensor<128x1xi32>
  %rb = tile.broadcast %ro : tensor<128x1xi32> -> tensor<128x256xi32>
  %cb = tile.broadcast %cols : tensor<1x256xi32> -> tensor<128x256xi32>
  %off = arith.addi %rb, %cb : tensor<128x256xi32>
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<128x256x!tile.ptr<f32>>
  %cp = tile.addptr %cs, %off : tensor<128x256x!tile.ptr<f32>>, tensor<128x256xi32>
  tile.store %cp, %d : tensor<128x256x!tile.ptr<f32>>, tensor<128x256xf32>
  return
}

// -----

// A reduction along the product's rows runs in the accumulator layout
// (every warp holds whole 16x8 blocks): no conversion, and the sums are a
// slice of it, as an attention's row maxima and sums are.
// CHECK: #[[$ROWS:slice[0-9]*]] = #tilegpu.slice<{dim = 1, parent = #mma}>
// CHECK-LABEL: func.func @reduced_rows
// CHECK: %[[D:.*]] = tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<32x32xbf16, #dot_op>, tensor<32x32xbf16, #dot_op1> -> tensor<32x32xf32, #mma>
// CHECK-NEXT: tile.reduce %[[D]] axis 1 : tensor<32x32xf32, #mma> -> tensor<32xf32, #[[$ROWS]]>
// SM75: remark: not on tensor cores: tensor cores need sm_80 or newer, the target is sm_75
func.func @reduced_rows(%a: tensor<32x32xbf16>, %b: tensor<32x32xbf16>) -> tensor<32xf32> {
  %zero = arith.constant dense<0.0> : tensor<32x32xf32>
  %d = tile.dot %a, %b, %zero : tensor<32x32xbf16>, tensor<32x32xbf16> -> tensor<32x32xf32>
  %s = tile.reduce %d axis 1 : tensor<32x32xf32> -> tensor<32xf32> {
  ^bb0(%x: f32, %y: f32):
    %r = arith.addf %x, %y : f32
    tile.yield %r : f32
  }
  return %s : tensor<32xf32>
}

// -----

// A reduction along its columns keeps the product's group blocked: the dot
// converts its accumulator in (a splat is made anew in the mma layout) and
// its result out.
// CHECK-LABEL: func.func @reduced_columns
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<32x32xf32, #mma>
// CHECK: %[[D:.*]] = tile.dot %{{.*}}, %{{.*}}, %[[ZERO]] : tensor<32x32xbf16, #dot_op>, tensor<32x32xbf16, #dot_op1> -> tensor<32x32xf32, #mma>
// CHECK: %[[OUT:.*]] = tilegpu.convert_layout %[[D]] : tensor<32x32xf32, #mma> -> tensor<32x32xf32, #blocked>
// CHECK: tile.reduce %[[OUT]] axis 0
// SM75: remark: not on tensor cores: tensor cores need sm_80 or newer, the target is sm_75
func.func @reduced_columns(%a: tensor<32x32xbf16>, %b: tensor<32x32xbf16>) -> tensor<32xf32> {
  %zero = arith.constant dense<0.0> : tensor<32x32xf32>
  %d = tile.dot %a, %b, %zero : tensor<32x32xbf16>, tensor<32x32xbf16> -> tensor<32x32xf32>
  %s = tile.reduce %d axis 0 : tensor<32x32xf32> -> tensor<32xf32> {
  ^bb0(%x: f32, %y: f32):
    %r = arith.addf %x, %y : f32
    tile.yield %r : f32
  }
  return %s : tensor<32xf32>
}

// -----

// Warps go where the tile is longer; K per register follows the type: tf32
// one element, i8 four. More warps than blocks hold replicas.
// CHECK-DAG: #[[$TALL:mma[0-9]*]] = #tilegpu.mma<{warpsPerCTA = [4, 1]}>
// CHECK-DAG: #[[$WIDE:mma[0-9]*]] = #tilegpu.mma<{warpsPerCTA = [1, 4]}>
// CHECK-DAG: #[[$TF32:dot_op[0-9]*]] = #tilegpu.dot_operand<{opIdx = 0, parent = #[[$TALL]], kWidth = 1}>
// CHECK-DAG: #[[$I8:dot_op[0-9]*]] = #tilegpu.dot_operand<{opIdx = 0, parent = #[[$WIDE]], kWidth = 4}>
// CHECK-LABEL: func.func @shapes
// CHECK: tile.dot {{.*}} input_precision = tf32 : tensor<128x16xf32, #[[$TF32]]>, {{.*}} -> tensor<128x16xf32, #[[$TALL]]>
// CHECK: tile.dot {{.*}} : tensor<16x64xi8, #[[$I8]]>, {{.*}} -> tensor<16x128xi32, #[[$WIDE]]>
// CHECK: tile.dot {{.*}} -> tensor<16x8xf32, #[[$TALL]]>
// SM75-COUNT-3: remark: not on tensor cores: tensor cores need sm_80
func.func @shapes(%a: tensor<128x16xf32>, %b: tensor<16x16xf32>, %c: tensor<128x16xf32>,
                  %p: tensor<16x64xi8>, %q: tensor<64x128xi8>, %r: tensor<16x128xi32>,
                  %s: tensor<16x16xf16>, %t: tensor<16x8xf16>, %u: tensor<16x8xf32>)
    -> (tensor<128x16xf32>, tensor<16x128xi32>, tensor<16x8xf32>) {
  %d = tile.dot %a, %b, %c input_precision = tf32 : tensor<128x16xf32>, tensor<16x16xf32> -> tensor<128x16xf32>
  %e = tile.dot %p, %q, %r : tensor<16x64xi8>, tensor<64x128xi8> -> tensor<16x128xi32>
  %f = tile.dot %s, %t, %u : tensor<16x16xf16>, tensor<16x8xf16> -> tensor<16x8xf32>
  return %d, %e, %f : tensor<128x16xf32>, tensor<16x128xi32>, tensor<16x8xf32>
}

// -----

// An attention's inner loop. The queries, which the loop does not change,
// are converted to the dot operand once, before it. The row maxima are
// reduced on the accumulator's rows and carried in their slice of its
// layout; they leave it once, at the store after the loop, rather than in
// every iteration. The key indices the mask wants in the accumulator's
// layout, and the keys' pointers in the load's, are computed again in
// the first (range, splat, add, compare) instead of being converted
// through shared memory in every iteration.
// CHECK-DAG: #[[$MMA:.*]] = #tilegpu.mma<{warpsPerCTA = [2, 2]}>
// CHECK-DAG: #[[$ROWS:.*]] = #tilegpu.slice<{dim = 1, parent = #[[$MMA]]}>
// CHECK-DAG: #[[$COLS:.*]] = #tilegpu.slice<{dim = 0, parent = #[[$MMA]]}>
// CHECK-LABEL: func.func @attention_rows
// CHECK: %[[Q:.*]] = tilegpu.convert_layout %{{.*}} : tensor<64x32xf16, #{{.*}}> -> tensor<64x32xf16, #dot_op>
// CHECK: %[[LOOP:.*]]:2 = scf.for {{.*}} -> (tensor<64x64xf32, #[[$MMA]]>, tensor<64xf32, #[[$ROWS]]>)
// CHECK-NOT: tilegpu.convert_layout %{{.*}} : tensor<64x32xf16
// CHECK:   tile.dot %[[Q]], %{{.*}}, %{{.*}} : tensor<64x32xf16, #dot_op>,
// CHECK-NOT: tilegpu.convert_layout {{.*}}tensor<64xi
// CHECK-DAG:   tile.range 0 to 64 : tensor<64xi32, #[[$COLS]]>
// CHECK-DAG:   tile.splat %{{.*}} : i32 -> tensor<64xi32, #[[$COLS]]>
// CHECK:   %[[IN:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : tensor<64xi32, #[[$COLS]]>
// CHECK:   tile.expand_dims %[[IN]] axis 0 : tensor<64xi1, #[[$COLS]]> -> tensor<1x64xi1, #[[$MMA]]>
// CHECK:   tile.reduce %{{.*}} axis 1 : tensor<64x64xf32, #[[$MMA]]> -> tensor<64xf32, #[[$ROWS]]>
// CHECK-NOT: tilegpu.convert_layout {{.*}}tensor<64x
// CHECK:   scf.yield
// CHECK: %[[STATS:.*]] = tilegpu.convert_layout %[[LOOP]]#1 : tensor<64xf32, #[[$ROWS]]> -> tensor<64xf32, #{{blocked[0-9]*}}>
// CHECK: tile.store %{{.*}}, %[[STATS]]
func.func @attention_rows(%q: tensor<64x32xf16>, %kbase: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                          %m: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                          %n: i32) {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %ninf = arith.constant dense<-1.0e30> : tensor<64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %big = arith.constant dense<-1.0e6> : tensor<64x64xf32>
  %acc, %rows = scf.for %s = %c0 to %n step %c64 iter_args(%acc_i = %zero, %m_i = %ninf)
      -> (tensor<64x64xf32>, tensor<64xf32>) : i32 {
    %r = tile.range 0 to 64 : tensor<64xi32>
    %ss = tile.splat %s : i32 -> tensor<64xi32>
    %cols = arith.addi %ss, %r : tensor<64xi32>
    %c2 = tile.expand_dims %cols axis 0 : tensor<64xi32> -> tensor<1x64xi32>
    %cb = tile.broadcast %c2 : tensor<1x64xi32> -> tensor<32x64xi32>
    %ks = tile.splat %kbase : !tile.ptr<f16> -> tensor<32x64x!tile.ptr<f16>>
    %kp = tile.addptr %ks, %cb : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
    %k = tile.load %kp : tensor<32x64x!tile.ptr<f16>> -> tensor<32x64xf16>
    %qk = tile.dot %q, %k, %zero : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    %ns = tile.splat %n : i32 -> tensor<64xi32>
    %in = arith.cmpi slt, %cols, %ns : tensor<64xi32>
    %in2 = tile.expand_dims %in axis 0 : tensor<64xi1> -> tensor<1x64xi1>
    %inb = tile.broadcast %in2 : tensor<1x64xi1> -> tensor<64x64xi1>
    %masked = arith.select %inb, %qk, %big : tensor<64x64xi1>, tensor<64x64xf32>
    %mx = tile.reduce %masked axis 1 : tensor<64x64xf32> -> tensor<64xf32> {
    ^bb0(%x: f32, %y: f32):
      %z = arith.maximumf %x, %y : f32
      tile.yield %z : f32
    }
    %m_new = arith.maximumf %m_i, %mx : tensor<64xf32>
    %acc_n = arith.addf %acc_i, %masked : tensor<64x64xf32>
    scf.yield %acc_n, %m_new : tensor<64x64xf32>, tensor<64xf32>
  }
  %r64 = tile.range 0 to 64 : tensor<64xi32>
  %ms = tile.splat %m : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %mp = tile.addptr %ms, %r64 : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  tile.store %mp, %rows : tensor<64x!tile.ptr<f32>>, tensor<64xf32>
  return
}

// -----

// A 1-D load that an accumulator's broadcast wants in the slice of the mma
// layout (a bias; an attention backward's row statistics) is made again
// there, through its pointers, instead of converted through shared memory
// (a store, barriers, a load), where nothing between the load and the
// conversion may write memory.
// CHECK-LABEL: func.func @bias_load
// CHECK: %[[P:.*]] = tile.addptr %{{.*}}, %{{.*}} : tensor<64x!tile.ptr<f32>, #[[$SLICE:slice[0-9]*]]>
// CHECK: %[[V:.*]] = tile.load %[[P]] : tensor<64x!tile.ptr<f32>, #[[$SLICE]]> -> tensor<64xf32, #[[$SLICE]]>
// CHECK: tile.expand_dims %[[V]] axis 0
// CHECK-NOT: tilegpu.convert_layout {{.*}} : tensor<64xf32
func.func @bias_load(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %bias: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %o: !tile.ptr<f32> {tile.divisibility = 16 : i64}) {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %a, %b, %zero : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  %r = tile.range 0 to 64 : tensor<64xi32>
  %bs = tile.splat %bias : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %bp = tile.addptr %bs, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %v = tile.load %bp : tensor<64x!tile.ptr<f32>> -> tensor<64xf32>
  %e = tile.expand_dims %v axis 0 : tensor<64xf32> -> tensor<1x64xf32>
  %eb = tile.broadcast %e : tensor<1x64xf32> -> tensor<64x64xf32>
  %s = arith.addf %d, %eb : tensor<64x64xf32>
  %rows = tile.expand_dims %r axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %c64 = arith.constant dense<64> : tensor<64x1xi32>
  %ro = arith.muli %rows, %c64 : tensor<64x1xi32>
  %rob = tile.broadcast %ro : tensor<64x1xi32> -> tensor<64x64xi32>
  %cols = tile.expand_dims %r axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %cob = tile.broadcast %cols : tensor<1x64xi32> -> tensor<64x64xi32>
  %off = arith.addi %rob, %cob : tensor<64x64xi32>
  %os = tile.splat %o : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %op = tile.addptr %os, %off : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %op, %s : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}

// -----

// A store between the load and the conversion could change what a second
// load reads: the conversion stays.
// CHECK-LABEL: func.func @bias_load_after_a_store
// CHECK: tile.load
// CHECK: tile.store
// CHECK: tilegpu.convert_layout {{.*}} : tensor<64xf32, #{{.*}}> -> tensor<64xf32, #{{slice[0-9]*}}>
func.func @bias_load_after_a_store(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %bias: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %o: !tile.ptr<f32> {tile.divisibility = 16 : i64}) {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %a, %b, %zero : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  %r = tile.range 0 to 64 : tensor<64xi32>
  %bs = tile.splat %bias : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %bp = tile.addptr %bs, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %v = tile.load %bp : tensor<64x!tile.ptr<f32>> -> tensor<64xf32>
  %twice = arith.addf %v, %v : tensor<64xf32>
  tile.store %bp, %twice : tensor<64x!tile.ptr<f32>>, tensor<64xf32>
  %e = tile.expand_dims %v axis 0 : tensor<64xf32> -> tensor<1x64xf32>
  %eb = tile.broadcast %e : tensor<1x64xf32> -> tensor<64x64xf32>
  %s = arith.addf %d, %eb : tensor<64x64xf32>
  %rows = tile.expand_dims %r axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %c64 = arith.constant dense<64> : tensor<64x1xi32>
  %ro = arith.muli %rows, %c64 : tensor<64x1xi32>
  %rob = tile.broadcast %ro : tensor<64x1xi32> -> tensor<64x64xi32>
  %cols = tile.expand_dims %r axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %cob = tile.broadcast %cols : tensor<1x64xi32> -> tensor<64x64xi32>
  %off = arith.addi %rob, %cob : tensor<64x64xi32>
  %os = tile.splat %o : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %op = tile.addptr %os, %off : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %op, %s : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}

// -----

// Operands widened from 8 bits beside the dot (int8 weights and
// activations, `x.to(f16)`) convert their bytes to the dot-operand layout
// and widen the fragments in registers. With both operands widened, the
// layout is Triton's kWidth 4 (K 32 a fragment, read as bytes).
// CHECK-DAG: #[[$DA4:.*]] = #tilegpu.dot_operand<{opIdx = 0, parent = #{{.*}}, kWidth = 4}>
// CHECK-DAG: #[[$DB4:.*]] = #tilegpu.dot_operand<{opIdx = 1, parent = #{{.*}}, kWidth = 4}>
// CHECK-LABEL: func.func @both_widened
// CHECK: %[[A:.*]] = tilegpu.convert_layout %{{.*}} : tensor<64x32xi8, #{{.*}}> -> tensor<64x32xi8, #[[$DA4]]>
// CHECK: %[[WA:.*]] = arith.sitofp %[[A]] : tensor<64x32xi8, #[[$DA4]]> to tensor<64x32xf16, #[[$DA4]]>
// CHECK: %[[B:.*]] = tilegpu.convert_layout %{{.*}} : tensor<32x64xf8E4M3FN, #{{.*}}> -> tensor<32x64xf8E4M3FN, #[[$DB4]]>
// CHECK: %[[WB:.*]] = arith.extf %[[B]] : tensor<32x64xf8E4M3FN, #[[$DB4]]> to tensor<32x64xf16, #[[$DB4]]>
// CHECK: tile.dot %[[WA]], %[[WB]]
// CHECK-SAME: tensor<64x32xf16, #[[$DA4]]>, tensor<32x64xf16, #[[$DB4]]>
func.func @both_widened(%a: tensor<64x32xi8>, %b: tensor<32x64xf8E4M3FN>,
                        %o: !tile.ptr<f32> {tile.divisibility = 16 : i64}) {
  %wa = arith.sitofp %a : tensor<64x32xi8> to tensor<64x32xf16>
  %wb = arith.extf %b : tensor<32x64xf8E4M3FN> to tensor<32x64xf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %wa, %wb, %zero : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  %r = tile.range 0 to 64 : tensor<64xi32>
  %rows = tile.expand_dims %r axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %cols = tile.expand_dims %r axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %c64 = arith.constant dense<64> : tensor<64x1xi32>
  %ro = arith.muli %rows, %c64 : tensor<64x1xi32>
  %rb = tile.broadcast %ro : tensor<64x1xi32> -> tensor<64x64xi32>
  %cb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<64x64xi32>
  %off = arith.addi %rb, %cb : tensor<64x64xi32>
  %os = tile.splat %o : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %op = tile.addptr %os, %off : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %op, %d : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}

// -----

// One f16 operand keeps kWidth 2 for both (a lane's pair of K must be the
// same elements in A and B); the int8 one still converts its bytes and
// widens in registers. K = 16 allows no kWidth 4 either.
// CHECK-DAG: #[[$DA2:.*]] = #tilegpu.dot_operand<{opIdx = 0, parent = #{{.*}}, kWidth = 2}>
// CHECK-DAG: #[[$DB2:.*]] = #tilegpu.dot_operand<{opIdx = 1, parent = #{{.*}}, kWidth = 2}>
// CHECK-LABEL: func.func @one_widened
// CHECK-DAG: %[[B:.*]] = tilegpu.convert_layout %{{.*}} : tensor<16x64xi8, #{{.*}}> -> tensor<16x64xi8, #[[$DB2]]>
// CHECK-DAG: %[[WB:.*]] = arith.sitofp %[[B]] : tensor<16x64xi8, #[[$DB2]]> to tensor<16x64xf16, #[[$DB2]]>
// CHECK-DAG: %[[A:.*]] = tilegpu.convert_layout %{{.*}} : tensor<64x16xf16, #{{.*}}> -> tensor<64x16xf16, #[[$DA2]]>
// CHECK: tile.dot %[[A]], %[[WB]]
func.func @one_widened(%a: tensor<64x16xf16>, %b: tensor<16x64xi8>,
                       %o: !tile.ptr<f32> {tile.divisibility = 16 : i64}) {
  %wb = arith.sitofp %b : tensor<16x64xi8> to tensor<16x64xf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %a, %wb, %zero : tensor<64x16xf16>, tensor<16x64xf16> -> tensor<64x64xf32>
  %r = tile.range 0 to 64 : tensor<64xi32>
  %rows = tile.expand_dims %r axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %cols = tile.expand_dims %r axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %c64 = arith.constant dense<64> : tensor<64x1xi32>
  %ro = arith.muli %rows, %c64 : tensor<64x1xi32>
  %rb = tile.broadcast %ro : tensor<64x1xi32> -> tensor<64x64xi32>
  %cb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<64x64xi32>
  %off = arith.addi %rb, %cb : tensor<64x64xi32>
  %os = tile.splat %o : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %op = tile.addptr %os, %off : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %op, %d : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}
