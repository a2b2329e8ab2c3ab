// RUN: kiln-opt %s -split-input-file -tile-assign-layouts -kiln-convert-tile-to-gpu | FileCheck %s
// Every kernel below goes on to PTX, which ptxas assembles for both chips.
// RUN: kiln-translate %s -split-input-file --chip=sm_80 -o /dev/null
// RUN: %if ptxas %{ kiln-translate %s -split-input-file --emit=cubin --chip=sm_80 -o /dev/null %}
// RUN: %if ptxas %{ kiln-translate %s -split-input-file --emit=cubin --chip=sm_90a -o /dev/null %}

// tile.map_elementwise: the region cloned once per `pack` registers of a
// thread. Each thread holds four f32 elements here (pack 1): four clones,
// each with its own scf.if on its own register, a scalar captured from
// outside the region, and the results back into the thread's vector.
// CHECK-LABEL: gpu.func @selu
// CHECK-SAME: %[[ALPHA:[^:]*]]: f32
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: %[[X:.*]] = vector.from_elements %{{.*}} : vector<4xf32>
// CHECK: %[[X0:.*]] = vector.extract %[[X]][0] : f32 from vector<4xf32>
// CHECK: %[[C0:.*]] = arith.cmpf ogt, %[[X0]]
// CHECK: %[[Y0:.*]] = scf.if %[[C0]] -> (f32) {
// CHECK-NEXT: scf.yield %[[X0]] : f32
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[E0:.*]] = math.expm1 %[[X0]] : f32
// CHECK-NEXT: %[[S0:.*]] = arith.mulf %[[ALPHA]], %[[E0]] : f32
// CHECK-NEXT: scf.yield %[[S0]] : f32
// CHECK: %[[X1:.*]] = vector.extract %[[X]][1] : f32 from vector<4xf32>
// CHECK: %[[C1:.*]] = arith.cmpf ogt, %[[X1]]
// CHECK: %[[Y1:.*]] = scf.if %[[C1]] -> (f32)
// CHECK: %[[X2:.*]] = vector.extract %[[X]][2] : f32 from vector<4xf32>
// CHECK: %[[C2:.*]] = arith.cmpf ogt, %[[X2]]
// CHECK: %[[Y2:.*]] = scf.if %[[C2]] -> (f32)
// CHECK: %[[X3:.*]] = vector.extract %[[X]][3] : f32 from vector<4xf32>
// CHECK: %[[C3:.*]] = arith.cmpf ogt, %[[X3]]
// CHECK: %[[Y3:.*]] = scf.if %[[C3]] -> (f32)
// CHECK-NOT: scf.if
// CHECK: vector.from_elements %[[Y0]], %[[Y1]], %[[Y2]], %[[Y3]] : vector<4xf32>
func.func @selu(%px: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %alpha: f32,
                %py: !tile.ptr<f32> {tile.divisibility = 16 : i64}) {
  %r = tile.range 0 to 512 : tensor<512xi32>
  %xs = tile.splat %px : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %x = tile.load %xp : tensor<512x!tile.ptr<f32>> -> tensor<512xf32>
  %y = tile.map_elementwise %x : (tensor<512xf32>) -> tensor<512xf32> {
  ^bb0(%xi: f32):
    %zero = arith.constant 0.0 : f32
    %positive = arith.cmpf ogt, %xi, %zero : f32
    %v = scf.if %positive -> f32 {
      scf.yield %xi : f32
    } else {
      %e = math.expm1 %xi : f32
      %s = arith.mulf %alpha, %e : f32
      scf.yield %s : f32
    }
    tile.yield %v : f32
  }
  %ys = tile.splat %py : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %yp = tile.addptr %ys, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  tile.store %yp, %y : tensor<512x!tile.ptr<f32>>, tensor<512xf32>
  return
}

// -----

// pack = 2 and two results of different element types, on a blocked 2-D
// layout of four consecutive elements of a row a thread (16 registers):
// the block takes registers r and r + 1 of the first operand, then of the
// second; it yields them for the first result, then for the second.
// CHECK-LABEL: gpu.func @pairs
// CHECK: %[[A:.*]] = vector.from_elements {{.*}} : vector<16xi32>
// CHECK: %[[B:.*]] = vector.from_elements {{.*}} : vector<16xi32>
// CHECK: %[[A0:.*]] = vector.extract %[[A]][0] : i32 from vector<16xi32>
// CHECK-NEXT: %[[A1:.*]] = vector.extract %[[A]][1] : i32 from vector<16xi32>
// CHECK-NEXT: %[[B0:.*]] = vector.extract %[[B]][0] : i32 from vector<16xi32>
// CHECK-NEXT: %[[B1:.*]] = vector.extract %[[B]][1] : i32 from vector<16xi32>
// CHECK-NEXT: %[[Q0:.*]] = arith.divsi %[[A0]], %[[B0]] : i32
// CHECK-NEXT: %[[Q1:.*]] = arith.divsi %[[A1]], %[[B1]] : i32
// CHECK-NEXT: %[[F0:.*]] = arith.sitofp %[[Q0]] : i32 to f32
// CHECK-NEXT: %[[F1:.*]] = arith.sitofp %[[Q1]] : i32 to f32
// CHECK-NEXT: %[[A2:.*]] = vector.extract %[[A]][2] : i32 from vector<16xi32>
// CHECK-NEXT: %[[A3:.*]] = vector.extract %[[A]][3] : i32 from vector<16xi32>
// CHECK-NEXT: %[[B2:.*]] = vector.extract %[[B]][2] : i32 from vector<16xi32>
// CHECK-NEXT: %[[B3:.*]] = vector.extract %[[B]][3] : i32 from vector<16xi32>
// CHECK-COUNT-14: arith.divsi %{{.*}}, %{{.*}} : i32
// CHECK-NOT: arith.divsi
// CHECK: vector.from_elements %[[Q0]], %[[Q1]], %{{.*}} : vector<16xi32>
// CHECK: vector.from_elements %[[F0]], %[[F1]], %{{.*}} : vector<16xf32>
func.func @pairs(%pa: !tile.ptr<i32> {tile.divisibility = 16 : i64},
                 %pb: !tile.ptr<i32> {tile.divisibility = 16 : i64},
                 %pq: !tile.ptr<i32> {tile.divisibility = 16 : i64},
                 %pf: !tile.ptr<f32> {tile.divisibility = 16 : i64}) {
  %rows = tile.range 0 to 32 : tensor<32xi32>
  %cols = tile.range 0 to 64 : tensor<64xi32>
  %r2 = tile.expand_dims %rows axis 1 : tensor<32xi32> -> tensor<32x1xi32>
  %c2 = tile.expand_dims %cols axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %c64 = arith.constant dense<64> : tensor<32x1xi32>
  %r64 = arith.muli %r2, %c64 : tensor<32x1xi32>
  %rb = tile.broadcast %r64 : tensor<32x1xi32> -> tensor<32x64xi32>
  %cb = tile.broadcast %c2 : tensor<1x64xi32> -> tensor<32x64xi32>
  %offs = arith.addi %rb, %cb : tensor<32x64xi32>
  %as = tile.splat %pa : !tile.ptr<i32> -> tensor<32x64x!tile.ptr<i32>>
  %ap = tile.addptr %as, %offs : tensor<32x64x!tile.ptr<i32>>, tensor<32x64xi32>
  %a = tile.load %ap : tensor<32x64x!tile.ptr<i32>> -> tensor<32x64xi32>
  %bs = tile.splat %pb : !tile.ptr<i32> -> tensor<32x64x!tile.ptr<i32>>
  %bp = tile.addptr %bs, %offs : tensor<32x64x!tile.ptr<i32>>, tensor<32x64xi32>
  %b = tile.load %bp : tensor<32x64x!tile.ptr<i32>> -> tensor<32x64xi32>
  %q, %f = tile.map_elementwise %a, %b pack = 2
      : (tensor<32x64xi32>, tensor<32x64xi32>) -> (tensor<32x64xi32>, tensor<32x64xf32>) {
  ^bb0(%a0: i32, %a1: i32, %b0: i32, %b1: i32):
    %q0 = arith.divsi %a0, %b0 : i32
    %q1 = arith.divsi %a1, %b1 : i32
    %f0 = arith.sitofp %q0 : i32 to f32
    %f1 = arith.sitofp %q1 : i32 to f32
    tile.yield %q0, %q1, %f0, %f1 : i32, i32, f32, f32
  }
  %qs = tile.splat %pq : !tile.ptr<i32> -> tensor<32x64x!tile.ptr<i32>>
  %qp = tile.addptr %qs, %offs : tensor<32x64x!tile.ptr<i32>>, tensor<32x64xi32>
  tile.store %qp, %q : tensor<32x64x!tile.ptr<i32>>, tensor<32x64xi32>
  %fs = tile.splat %pf : !tile.ptr<f32> -> tensor<32x64x!tile.ptr<f32>>
  %fp = tile.addptr %fs, %offs : tensor<32x64x!tile.ptr<f32>>, tensor<32x64xi32>
  tile.store %fp, %f : tensor<32x64x!tile.ptr<f32>>, tensor<32x64xf32>
  return
}

// -----

// A thread holds one element here and pack is 2: the group's second
// arguments are copies of its first (a value the tile holds, never one
// made up), and what comes back for them is dropped.
// CHECK-LABEL: gpu.func @padded
// CHECK: %[[X:.*]] = vector.extract %[[V:.*]][0] : i32 from vector<1xi32>
// CHECK-NEXT: %[[COPY:.*]] = vector.extract %[[V]][0] : i32 from vector<1xi32>
// CHECK-NEXT: %[[Y:.*]] = arith.muli %[[X]], %[[X]] : i32
// CHECK-NEXT: arith.muli %[[COPY]], %[[COPY]] : i32
// CHECK-NEXT: vector.from_elements %[[Y]] : vector<1xi32>
func.func @padded(%p: !tile.ptr<i32>) {
  %r = tile.range 0 to 128 : tensor<128xi32>
  %ps = tile.splat %p : !tile.ptr<i32> -> tensor<128x!tile.ptr<i32>>
  %ptrs = tile.addptr %ps, %r : tensor<128x!tile.ptr<i32>>, tensor<128xi32>
  %x = tile.load %ptrs : tensor<128x!tile.ptr<i32>> -> tensor<128xi32>
  %y = tile.map_elementwise %x pack = 2 : (tensor<128xi32>) -> tensor<128xi32> {
  ^bb0(%x0: i32, %x1: i32):
    %y0 = arith.muli %x0, %x0 : i32
    %y1 = arith.muli %x1, %x1 : i32
    tile.yield %y0, %y1 : i32, i32
  }
  tile.store %ptrs, %y : tensor<128x!tile.ptr<i32>>, tensor<128xi32>
  return
}

// -----

// A region with a loop and a load under a branch: pointers reach it as
// LLVM pointers (a tile's registers hold them as i64 addresses), and a
// result of pointers goes back to addresses. Scalars (every thread holds
// them) run the region once per thread.
// CHECK-LABEL: gpu.func @pointers
// CHECK: %[[ADDRESS:.*]] = vector.extract %{{.*}}[0] : i64 from vector<1xi64>
// CHECK-NEXT: %[[P:.*]] = llvm.inttoptr %[[ADDRESS]] : i64 to !llvm.ptr<1>
// CHECK: scf.if %{{.*}} -> (f32) {
// CHECK-NEXT: llvm.load %[[P]] {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (f32)  : i32
// CHECK: %[[NEXT:.*]] = llvm.getelementptr %[[P]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
// CHECK: %[[NEXT_ADDRESS:.*]] = llvm.ptrtoint %[[NEXT]] : !llvm.ptr<1> to i64
// CHECK: vector.from_elements %[[NEXT_ADDRESS]] : vector<1xi64>
// CHECK: %[[N:.*]] = arith.muli %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.addi %[[N]], %{{.*}} : i32
func.func @pointers(%px: !tile.ptr<f32>, %py: !tile.ptr<f32>, %n: i32) {
  %r = tile.range 0 to 128 : tensor<128xi32>
  %xs = tile.splat %px : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %y, %next = tile.map_elementwise %xp, %r
      : (tensor<128x!tile.ptr<f32>>, tensor<128xi32>) -> (tensor<128xf32>, tensor<128x!tile.ptr<f32>>) {
  ^bb0(%p: !tile.ptr<f32>, %i: i32):
    %c3 = arith.constant 3 : i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %m = arith.remsi %i, %c3 : i32
    %every3 = arith.cmpi eq, %m, %c0 : i32
    %v = scf.if %every3 -> f32 {
      %l = tile.load %p : !tile.ptr<f32> -> f32
      scf.yield %l : f32
    } else {
      %one = arith.constant 1.0 : f32
      %s = scf.for %k = %c0 to %m step %c1 iter_args(%acc = %one) -> (f32) : i32 {
        %d = arith.addf %acc, %acc : f32
        scf.yield %d : f32
      }
      scf.yield %s : f32
    }
    %q = tile.addptr %p, %m : !tile.ptr<f32>, i32
    tile.yield %v, %q : f32, !tile.ptr<f32>
  }
  %w = tile.load %next : tensor<128x!tile.ptr<f32>> -> tensor<128xf32>
  %z = arith.addf %y, %w : tensor<128xf32>
  %ys = tile.splat %py : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %yp = tile.addptr %ys, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  tile.store %yp, %z : tensor<128x!tile.ptr<f32>>, tensor<128xf32>
  %s = tile.map_elementwise %n pack = 2 : (i32) -> i32 {
  ^bb0(%n0: i32, %n1: i32):
    %sq = arith.muli %n0, %n1 : i32
    %c1 = arith.constant 1 : i32
    %sq1 = arith.addi %sq, %c1 : i32
    tile.yield %sq1, %sq1 : i32, i32
  }
  %sf = arith.sitofp %s : i32 to f32
  tile.store %py, %sf : !tile.ptr<f32>, f32
  return
}

// -----

// On a tensor-core accumulator (its stores convert it to a wider layout
// after the map): the region runs on the mma layout's registers as they
// come out of mma.sync, with no trip through shared memory between, two
// registers (a pair of adjacent columns of a row) at a time.
// CHECK-LABEL: gpu.func @on_accumulator
// CHECK: nvvm.mma.sync
// CHECK-NOT: llvm.store
// CHECK-COUNT-32: arith.cmpf ogt, %{{.*}}, %{{.*}} : f32
// CHECK-NOT: arith.cmpf ogt
func.func @on_accumulator(%pa: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %o: !tile.ptr<f32> {tile.divisibility = 16 : i64}) {
  %r = tile.range 0 to 64 : tensor<64xi32>
  %r0 = tile.expand_dims %r axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %r1 = tile.expand_dims %r axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %c64 = arith.constant dense<64> : tensor<64x1xi32>
  %rows = arith.muli %r0, %c64 : tensor<64x1xi32>
  %rb = tile.broadcast %rows : tensor<64x1xi32> -> tensor<64x64xi32>
  %cb = tile.broadcast %r1 : tensor<1x64xi32> -> tensor<64x64xi32>
  %off = arith.addi %rb, %cb : tensor<64x64xi32>
  %as = tile.splat %pa : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %aptrs = tile.addptr %as, %off : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
  %a = tile.load %aptrs : tensor<64x64x!tile.ptr<f16>> -> tensor<64x64xf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %a, %a, %zero : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
  %e = tile.map_elementwise %d pack = 2 : (tensor<64x64xf32>) -> tensor<64x64xf32> {
  ^bb0(%d0: f32, %d1: f32):
    %c0 = arith.constant 0.0 : f32
    %p0 = arith.cmpf ogt, %d0, %c0 : f32
    %p1 = arith.cmpf ogt, %d1, %c0 : f32
    %e0 = arith.select %p0, %d0, %c0 : f32
    %e1 = arith.select %p1, %d1, %c0 : f32
    tile.yield %e0, %e1 : f32, f32
  }
  %os = tile.splat %o : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %optrs = tile.addptr %os, %off : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %optrs, %e : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}
