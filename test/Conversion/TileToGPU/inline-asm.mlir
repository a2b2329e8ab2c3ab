// RUN: kiln-opt %s -split-input-file -tile-assign-layouts -kiln-convert-tile-to-gpu | FileCheck %s
// Every kernel below goes on to PTX, which ptxas assembles for both chips.
// RUN: kiln-translate %s -split-input-file --chip=sm_80 -o /dev/null
// RUN: %if ptxas %{ kiln-translate %s -split-input-file --emit=cubin --chip=sm_80 -o /dev/null %}
// RUN: %if ptxas %{ kiln-translate %s -split-input-file --emit=cubin --chip=sm_90a -o /dev/null %}

// tile.inline_asm_elementwise: one llvm.inline_asm per `pack` registers of
// a thread. Here each thread holds two i32 elements: two invocations of
// one register in and one out, pure (no has_side_effects).
// CHECK-LABEL: gpu.func @shl
// CHECK: %[[X:.*]] = vector.from_elements %{{.*}}, %{{.*}} : vector<2xi32>
// CHECK: %[[X0:.*]] = vector.extract %[[X]][0] : i32 from vector<2xi32>
// CHECK: %[[X1:.*]] = vector.extract %[[X]][1] : i32 from vector<2xi32>
// CHECK: %[[Y0:.*]] = llvm.inline_asm asm_dialect = att "shl.b32 $0, $1, 3;", "=r,r" %[[X0]] : (i32) -> i32
// CHECK: %[[Y1:.*]] = llvm.inline_asm asm_dialect = att "shl.b32 $0, $1, 3;", "=r,r" %[[X1]] : (i32) -> i32
// CHECK: vector.from_elements %[[Y0]], %[[Y1]] : vector<2xi32>
func.func @shl(%p: !tile.ptr<i32>) {
  %r = tile.range 0 to 256 : tensor<256xi32>
  %ps = tile.splat %p : !tile.ptr<i32> -> tensor<256x!tile.ptr<i32>>
  %ptrs = tile.addptr %ps, %r : tensor<256x!tile.ptr<i32>>, tensor<256xi32>
  %x = tile.load %ptrs : tensor<256x!tile.ptr<i32>> -> tensor<256xi32>
  %y = tile.inline_asm_elementwise "shl.b32 $0, $1, 3;", "=r,r" pure %x : (tensor<256xi32>) -> tensor<256xi32>
  tile.store %ptrs, %y : tensor<256x!tile.ptr<i32>>, tensor<256xi32>
  return
}

// -----

// pack = 4 on i8: four consecutive elements of a thread are one 32-bit
// register, a vector<4xi8>; two results come back in a struct, in order.
// CHECK-LABEL: gpu.func @bytes
// CHECK: %[[X:.*]] = vector.from_elements %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<4xi8>
// CHECK-NEXT: %[[Y:.*]] = vector.from_elements %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<4xi8>
// CHECK-NEXT: %[[R:.*]] = llvm.inline_asm asm_dialect = att "prmt.b32 $0, $2, $3, 0x5140; prmt.b32 $1, $2, $3, 0x7362;", "=r,=r,r,r" %[[X]], %[[Y]] : (vector<4xi8>, vector<4xi8>) -> !llvm.struct<(vector<4xi8>, vector<4xi8>)>
// CHECK-NEXT: %[[LO:.*]] = llvm.extractvalue %[[R]][0]
// CHECK-NEXT: vector.extract %[[LO]][0] : i8 from vector<4xi8>
// CHECK-NEXT: vector.extract %[[LO]][1] : i8 from vector<4xi8>
// CHECK-NEXT: vector.extract %[[LO]][2] : i8 from vector<4xi8>
// CHECK-NEXT: vector.extract %[[LO]][3] : i8 from vector<4xi8>
// CHECK-NEXT: %[[HI:.*]] = llvm.extractvalue %[[R]][1]
// CHECK-COUNT-3: "prmt.b32
func.func @bytes(%p: !tile.ptr<i8> {tile.divisibility = 16 : i64}, %q: !tile.ptr<i8> {tile.divisibility = 16 : i64}) {
  %r = tile.range 0 to 512 : tensor<512xi32>
  %ps = tile.splat %p : !tile.ptr<i8> -> tensor<512x!tile.ptr<i8>>
  %ptrs = tile.addptr %ps, %r : tensor<512x!tile.ptr<i8>>, tensor<512xi32>
  %x = tile.load %ptrs : tensor<512x!tile.ptr<i8>> -> tensor<512xi8>
  %qs = tile.splat %q : !tile.ptr<i8> -> tensor<512x!tile.ptr<i8>>
  %qptrs = tile.addptr %qs, %r : tensor<512x!tile.ptr<i8>>, tensor<512xi32>
  %y = tile.load %qptrs : tensor<512x!tile.ptr<i8>> -> tensor<512xi8>
  %lo, %hi = tile.inline_asm_elementwise "prmt.b32 $0, $2, $3, 0x5140; prmt.b32 $1, $2, $3, 0x7362;", "=r,=r,r,r" pure pack = 4 %x, %y : (tensor<512xi8>, tensor<512xi8>) -> (tensor<512xi8>, tensor<512xi8>)
  tile.store %ptrs, %lo : tensor<512x!tile.ptr<i8>>, tensor<512xi8>
  tile.store %qptrs, %hi : tensor<512x!tile.ptr<i8>>, tensor<512xi8>
  return
}

// -----

// pack = 2 on 32-bit elements: each element is an operand of its own, the
// results' first (two outputs), then the arguments' (two inputs). Without
// `pure` the assembly has side effects.
// CHECK-LABEL: gpu.func @pairs
// CHECK: %[[X0:.*]] = vector.extract %[[X:.*]][0] : f32 from vector<2xf32>
// CHECK: %[[X1:.*]] = vector.extract %[[X]][1] : f32 from vector<2xf32>
// CHECK: %[[R:.*]] = llvm.inline_asm has_side_effects asm_dialect = att "cvt.rn.f16x2.f32 $0, $3, $2; mov.b32 $1, $0;", "=r,=r,r,r" %[[X0]], %[[X1]] : (f32, f32) -> !llvm.struct<(i32, i32)>
// CHECK: llvm.extractvalue %[[R]][0]
// CHECK: llvm.extractvalue %[[R]][1]
func.func @pairs(%p: !tile.ptr<f32>, %q: !tile.ptr<i32>) {
  %r = tile.range 0 to 256 : tensor<256xi32>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>>
  %ptrs = tile.addptr %ps, %r : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  %x = tile.load %ptrs : tensor<256x!tile.ptr<f32>> -> tensor<256xf32>
  %y = tile.inline_asm_elementwise "cvt.rn.f16x2.f32 $0, $3, $2; mov.b32 $1, $0;", "=r,=r,r,r" pack = 2 %x : (tensor<256xf32>) -> tensor<256xi32>
  %qs = tile.splat %q : !tile.ptr<i32> -> tensor<256x!tile.ptr<i32>>
  %qptrs = tile.addptr %qs, %r : tensor<256x!tile.ptr<i32>>, tensor<256xi32>
  tile.store %qptrs, %y : tensor<256x!tile.ptr<i32>>, tensor<256xi32>
  return
}

// -----

// A thread holds one element here and pack is 4: the other three are
// zeros, and what comes back for them is dropped.
// CHECK-LABEL: gpu.func @padded
// CHECK: %[[X:.*]] = vector.extract %{{.*}}[0] : i8 from vector<1xi8>
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i8
// CHECK: %[[V:.*]] = vector.from_elements %[[X]], %[[ZERO]], %[[ZERO]], %[[ZERO]] : vector<4xi8>
// CHECK: %[[R:.*]] = llvm.inline_asm asm_dialect = att "prmt.b32 $0, $1, 0, 0x0123;", "=r,r" %[[V]] : (vector<4xi8>) -> vector<4xi8>
// CHECK: %[[Y:.*]] = vector.extract %[[R]][0] : i8 from vector<4xi8>
// CHECK: vector.from_elements %[[Y]] : vector<1xi8>
func.func @padded(%p: !tile.ptr<i8>) {
  %r = tile.range 0 to 128 : tensor<128xi32>
  %ps = tile.splat %p : !tile.ptr<i8> -> tensor<128x!tile.ptr<i8>>
  %ptrs = tile.addptr %ps, %r : tensor<128x!tile.ptr<i8>>, tensor<128xi32>
  %x = tile.load %ptrs : tensor<128x!tile.ptr<i8>> -> tensor<128xi8>
  %y = tile.inline_asm_elementwise "prmt.b32 $0, $1, 0, 0x0123;", "=r,r" pure pack = 4 %x : (tensor<128xi8>) -> tensor<128xi8>
  tile.store %ptrs, %y : tensor<128x!tile.ptr<i8>>, tensor<128xi8>
  return
}

// -----

// Scalars (every thread holds them) run once per thread; pointers are
// given as their 64-bit addresses; assembly with no results.
// CHECK-LABEL: gpu.func @scalars
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "mov.u32 $0, %laneid;", "=r" : () -> i32
// CHECK: llvm.inline_asm asm_dialect = att "add.s32 $0, $2, 1; mov.b32 $1, $3;", "=r,=r,r,r" %{{.*}}, %{{.*}} : (i32, f32) -> !llvm.struct<(i32, i32)>
// CHECK: %[[ADDRESS:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr<1> to i64
// CHECK: %[[NEXT:.*]] = llvm.inline_asm asm_dialect = att "add.s64 $0, $1, 4;", "=l,l" %[[ADDRESS]] : (i64) -> i64
// CHECK: %[[P:.*]] = llvm.inttoptr %[[NEXT]] : i64 to !llvm.ptr<1>
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "st.global.b32 [$0], $1;", "l,r" %{{.*}}, %{{.*}} : (i64, i32) -> ()
func.func @scalars(%p: !tile.ptr<i32>, %a: i32, %b: f32) {
  %lane = tile.inline_asm_elementwise "mov.u32 $0, %laneid;", "=r" : () -> i32
  %s, %t = tile.inline_asm_elementwise "add.s32 $0, $2, 1; mov.b32 $1, $3;", "=r,=r,r,r" pure %a, %b : (i32, f32) -> (i32, i32)
  %u = arith.addi %s, %t : i32
  %v = arith.addi %u, %lane : i32
  %q = tile.inline_asm_elementwise "add.s64 $0, $1, 4;", "=l,l" pure %p : (!tile.ptr<i32>) -> !tile.ptr<i32>
  tile.inline_asm_elementwise "st.global.b32 [$0], $1;", "l,r" %q, %v : (!tile.ptr<i32>, i32) -> ()
  return
}

// -----

// 8-bit floats, which LLVM lacks, are given as i8.
// CHECK-LABEL: gpu.func @float8
// CHECK-COUNT-4: arith.bitcast %{{.*}} : f8E4M3FN to i8
// CHECK: %[[V:.*]] = vector.from_elements %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<4xi8>
// CHECK: llvm.inline_asm asm_dialect = att "mov.b32 $0, $1;", "=r,r" %[[V]] : (vector<4xi8>) -> vector<4xi8>
// CHECK-COUNT-4: arith.bitcast %{{.*}} : i8 to f8E4M3FN
// Two of them are 16 bits, an "h" register.
// CHECK: llvm.inline_asm asm_dialect = att "cvt.u32.u16 $0, $1;", "=r,h" %{{.*}} : (vector<2xi8>) -> vector<2xf16>
func.func @float8(%p: !tile.ptr<f8E4M3FN> {tile.divisibility = 16 : i64}, %q: !tile.ptr<f16> {tile.divisibility = 16 : i64}) {
  %r = tile.range 0 to 512 : tensor<512xi32>
  %ps = tile.splat %p : !tile.ptr<f8E4M3FN> -> tensor<512x!tile.ptr<f8E4M3FN>>
  %ptrs = tile.addptr %ps, %r : tensor<512x!tile.ptr<f8E4M3FN>>, tensor<512xi32>
  %x = tile.load %ptrs : tensor<512x!tile.ptr<f8E4M3FN>> -> tensor<512xf8E4M3FN>
  %y = tile.inline_asm_elementwise "mov.b32 $0, $1;", "=r,r" pure pack = 4 %x : (tensor<512xf8E4M3FN>) -> tensor<512xf8E4M3FN>
  %z = tile.inline_asm_elementwise "cvt.u32.u16 $0, $1;", "=r,h" pure pack = 2 %y : (tensor<512xf8E4M3FN>) -> tensor<512xf16>
  %qs = tile.splat %q : !tile.ptr<f16> -> tensor<512x!tile.ptr<f16>>
  %qptrs = tile.addptr %qs, %r : tensor<512x!tile.ptr<f16>>, tensor<512xi32>
  tile.store %qptrs, %z : tensor<512x!tile.ptr<f16>>, tensor<512xf16>
  return
}

// -----

// On a tensor-core accumulator (its stores convert it to a wider layout
// after the assembly): the assembly runs on the mma layout's registers as
// they come out of mma.sync, with no trip through shared memory between.
// CHECK-LABEL: gpu.func @on_accumulator
// CHECK: nvvm.mma.sync
// CHECK-NOT: llvm.store
// CHECK-COUNT-32: llvm.inline_asm asm_dialect = att "max.f32 $0, $1, 0f00000000;", "=f,f" %{{.*}} : (f32) -> f32
// CHECK-NOT: "max.f32
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
  %e = tile.inline_asm_elementwise "max.f32 $0, $1, 0f00000000;", "=f,f" pure %d : (tensor<64x64xf32>) -> tensor<64x64xf32>
  %os = tile.splat %o : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %optrs = tile.addptr %os, %off : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %optrs, %e : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}
