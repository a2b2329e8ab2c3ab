// RUN: kiln-translate %s --chip=sm_90a | FileCheck %s
// RUN: %if ptxas %{ kiln-translate %s --chip=sm_90a | %ptxas -arch=sm_90a %}
// RUN: %if ptxas %{ kiln-translate %s --chip=sm_80 | %ptxas -arch=sm_80 %}

// tile.inline_asm_elementwise through the whole GPU pipeline: the PTX has
// the assembly's text with LLVM's registers put in for $0, $1, ..., and
// ptxas assembles it. The kernels are Triton's inline-assembly tests.

// Three i32 tiles, one invocation per element (8 a thread).
// CHECK-LABEL: .entry funnel_shift(
// CHECK-COUNT-8: shf.l.wrap.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}};
// CHECK-NOT: shf.l.wrap
// CHECK: ret;
func.func @funnel_shift(%px: !tile.ptr<i32> {tile.divisibility = 16 : i64},
                        %py: !tile.ptr<i32> {tile.divisibility = 16 : i64},
                        %s: i32, %pz: !tile.ptr<i32> {tile.divisibility = 16 : i64}) {
  %r = tile.range 0 to 1024 : tensor<1024xi32>
  %xs = tile.splat %px : !tile.ptr<i32> -> tensor<1024x!tile.ptr<i32>>
  %xp = tile.addptr %xs, %r : tensor<1024x!tile.ptr<i32>>, tensor<1024xi32>
  %x = tile.load %xp : tensor<1024x!tile.ptr<i32>> -> tensor<1024xi32>
  %ys = tile.splat %py : !tile.ptr<i32> -> tensor<1024x!tile.ptr<i32>>
  %yp = tile.addptr %ys, %r : tensor<1024x!tile.ptr<i32>>, tensor<1024xi32>
  %y = tile.load %yp : tensor<1024x!tile.ptr<i32>> -> tensor<1024xi32>
  %shift = tile.splat %s : i32 -> tensor<1024xi32>
  %z = tile.inline_asm_elementwise "shf.l.wrap.b32 $0, $1, $2, $3;", "=r,r,r,r" pure %x, %y, %shift : (tensor<1024xi32>, tensor<1024xi32>, tensor<1024xi32>) -> tensor<1024xi32>
  %zs = tile.splat %pz : !tile.ptr<i32> -> tensor<1024x!tile.ptr<i32>>
  %zp = tile.addptr %zs, %r : tensor<1024x!tile.ptr<i32>>, tensor<1024xi32>
  tile.store %zp, %z : tensor<1024x!tile.ptr<i32>>, tensor<1024xi32>
  return
}

// Bytes (Triton's uint8, i8 here) four to a register: 16 a thread, in
// four invocations on 32-bit registers.
// CHECK-LABEL: .entry packed_bytes(
// CHECK-COUNT-4: and.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 0x1F1F1F1F; shl.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 3;
// CHECK-NOT: 0x1F1F1F1F
// CHECK: ret;
func.func @packed_bytes(%px: !tile.ptr<i8> {tile.divisibility = 16 : i64},
                        %pz: !tile.ptr<i8> {tile.divisibility = 16 : i64}) {
  %r = tile.range 0 to 2048 : tensor<2048xi32>
  %xs = tile.splat %px : !tile.ptr<i8> -> tensor<2048x!tile.ptr<i8>>
  %xp = tile.addptr %xs, %r : tensor<2048x!tile.ptr<i8>>, tensor<2048xi32>
  %x = tile.load %xp : tensor<2048x!tile.ptr<i8>> -> tensor<2048xi8>
  %z = tile.inline_asm_elementwise "and.b32 $0, $1, 0x1F1F1F1F; shl.b32 $0, $0, 3;", "=r,r" pure pack = 4 %x : (tensor<2048xi8>) -> tensor<2048xi8>
  %zs = tile.splat %pz : !tile.ptr<i8> -> tensor<2048x!tile.ptr<i8>>
  %zp = tile.addptr %zs, %r : tensor<2048x!tile.ptr<i8>>, tensor<2048xi32>
  tile.store %zp, %z : tensor<2048x!tile.ptr<i8>>, tensor<2048xi8>
  return
}

// Two results, whose outputs are tied to the first two inputs ("0", "1"):
// d = a - c, e = b + c.
// CHECK-LABEL: .entry two_results(
// CHECK: sub.u32 %r[[A:[0-9]+]], %r[[A]], %r[[C:[0-9]+]]; add.u32 %r[[B:[0-9]+]], %r[[B]], %r[[C]];
// CHECK: ret;
func.func @two_results(%pa: !tile.ptr<i32>, %pb: !tile.ptr<i32>, %c: i32) {
  %r = tile.range 0 to 128 : tensor<128xi32>
  %as = tile.splat %pa : !tile.ptr<i32> -> tensor<128x!tile.ptr<i32>>
  %ap = tile.addptr %as, %r : tensor<128x!tile.ptr<i32>>, tensor<128xi32>
  %a = tile.load %ap : tensor<128x!tile.ptr<i32>> -> tensor<128xi32>
  %bs = tile.splat %pb : !tile.ptr<i32> -> tensor<128x!tile.ptr<i32>>
  %bp = tile.addptr %bs, %r : tensor<128x!tile.ptr<i32>>, tensor<128xi32>
  %b = tile.load %bp : tensor<128x!tile.ptr<i32>> -> tensor<128xi32>
  %cs = tile.splat %c : i32 -> tensor<128xi32>
  %d, %e = tile.inline_asm_elementwise "sub.u32 $0, $0, $4; add.u32 $1, $1, $5;", "=r,=r,0,1,r,r" pure %a, %b, %cs, %cs : (tensor<128xi32>, tensor<128xi32>, tensor<128xi32>, tensor<128xi32>) -> (tensor<128xi32>, tensor<128xi32>)
  tile.store %ap, %d : tensor<128x!tile.ptr<i32>>, tensor<128xi32>
  tile.store %bp, %e : tensor<128x!tile.ptr<i32>>, tensor<128xi32>
  return
}
