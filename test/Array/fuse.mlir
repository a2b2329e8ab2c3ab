// RUN: kiln-opt %s -split-input-file -convert-elementwise-to-linalg -kiln-fuse -verify-diagnostics | FileCheck %s

// An elementwise chain is one kernel: cos(cos(x)) reads x once.
// CHECK-LABEL: func.func private @coscos_kernel0
// CHECK-SAME: (%[[X:.*]]: tensor<1024xf32>) -> tensor<1024xf32> attributes {kiln.kernel}
// CHECK: linalg.generic
// CHECK: math.cos
// CHECK: math.cos
// CHECK-NOT: linalg.generic
// CHECK-LABEL: func.func @coscos
// CHECK-NEXT: %[[R:.*]] = call @coscos_kernel0(%{{.*}})
// CHECK-NEXT: return %[[R]]
func.func @coscos(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %a = math.cos %x : tensor<1024xf32>
  %b = math.cos %a : tensor<1024xf32>
  return %b : tensor<1024xf32>
}

// -----

// A broadcast of a bias inside the chain fuses too: relu(a * x + b[col]).
// CHECK-LABEL: func.func private @affine_relu_kernel0
// CHECK-SAME: (%{{.*}}: tensor<8x16xf32>, %{{.*}}: tensor<16xf32>) -> tensor<8x16xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]}
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK-LABEL: func.func @affine_relu
// CHECK: call @affine_relu_kernel0
// CHECK-NOT: call
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @affine_relu(%x: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<8x16xf32> {
  %two = arith.constant dense<2.0> : tensor<8x16xf32>
  %zero = arith.constant dense<0.0> : tensor<8x16xf32>
  %e = tensor.empty() : tensor<8x16xf32>
  %bb = linalg.generic {indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<8x16xf32>
  %ax = arith.mulf %x, %two : tensor<8x16xf32>
  %s = arith.addf %ax, %bb : tensor<8x16xf32>
  %r = arith.maximumf %s, %zero : tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

// A softmax is one kernel: the row maximum, the exponentials, their sum and
// the division all work on one row, and the fills start the reductions.
// CHECK-LABEL: func.func private @softmax_kernel0
// CHECK-SAME: (%{{.*}}: tensor<64x1000xf32>) -> tensor<64x1000xf32>
// CHECK-COUNT-2: linalg.fill
// CHECK-LABEL: func.func @softmax
// CHECK-NEXT: call @softmax_kernel0
// CHECK-NEXT: return
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @softmax(%x: tensor<64x1000xf32>) -> tensor<64x1000xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<64xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<64xf32>) -> tensor<64xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<64x1000xf32>) outs(%minit : tensor<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maximumf %in, %acc : f32
    linalg.yield %m : f32
  } -> tensor<64xf32>
  %e2 = tensor.empty() : tensor<64x1000xf32>
  %exp = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<64x1000xf32>, tensor<64xf32>) outs(%e2 : tensor<64x1000xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %s = arith.subf %in, %m : f32
    %e = math.exp %s : f32
    linalg.yield %e : f32
  } -> tensor<64x1000xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<64x1000xf32>) outs(%sinit : tensor<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<64xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum : tensor<64x1000xf32>, tensor<64xf32>) outs(%e2 : tensor<64x1000xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %d = arith.divf %in, %s : f32
    linalg.yield %d : f32
  } -> tensor<64x1000xf32>
  return %y : tensor<64x1000xf32>
}

// -----

// A matmul takes in the cast of its operand and its epilogue: bias, GELU
// (tanh form) and the cast to f16.
// CHECK-LABEL: func.func private @mm_epilogue_kernel0
// CHECK-SAME: (%{{.*}}: tensor<64x32xf32>, %{{.*}}: tensor<32x128xf16>, %{{.*}}: tensor<128xf32>) -> tensor<64x128xf16>
// CHECK: arith.truncf
// CHECK: linalg.fill
// CHECK: linalg.matmul
// CHECK: math.tanh
// CHECK: arith.truncf
// CHECK-LABEL: func.func @mm_epilogue
// CHECK-NEXT: call @mm_epilogue_kernel0
// CHECK-NEXT: return
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>
func.func @mm_epilogue(%a32: tensor<64x32xf32>, %b: tensor<32x128xf16>, %bias: tensor<128xf32>) -> tensor<64x128xf16> {
  %a = arith.truncf %a32 : tensor<64x32xf32> to tensor<64x32xf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x128xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<64x32xf16>, tensor<32x128xf16>) outs(%init : tensor<64x128xf32>) -> tensor<64x128xf32>
  %e16 = tensor.empty() : tensor<64x128xf16>
  %y = linalg.generic {indexing_maps = [#id2, #bias, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<64x128xf32>, tensor<128xf32>) outs(%e16 : tensor<64x128xf16>) {
  ^bb0(%v: f32, %c: f32, %out: f16):
    %s = arith.addf %v, %c : f32
    %k = arith.constant 0.797884583 : f32
    %h = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %u = arith.mulf %s, %k : f32
    %t = math.tanh %u : f32
    %p = arith.addf %t, %one : f32
    %q = arith.mulf %s, %h : f32
    %g = arith.mulf %q, %p : f32
    %r = arith.truncf %g : f32 to f16
    linalg.yield %r : f16
  } -> tensor<64x128xf16>
  return %y : tensor<64x128xf16>
}

// -----

// A value with two users: a cheap producer (one op) is recomputed in each
// consumer, so nothing is materialised; the two consumers then read x
// over one space and join one kernel, which reads x once.
// CHECK-LABEL: func.func private @two_users_kernel0
// CHECK-SAME: -> (tensor<256xf32>, tensor<256xf32>)
// CHECK: math.exp
// CHECK: math.sin
// CHECK: math.exp
// CHECK: math.cos
// CHECK-LABEL: func.func @two_users
// CHECK-COUNT-1: call @two_users_kernel
// CHECK-NOT: call
func.func @two_users(%x: tensor<256xf32>) -> (tensor<256xf32>, tensor<256xf32>) {
  %e = math.exp %x : tensor<256xf32>
  %s = math.sin %e : tensor<256xf32>
  %c = math.cos %e : tensor<256xf32>
  return %s, %c : tensor<256xf32>, tensor<256xf32>
}

// -----

// An expensive producer with two users is not recomputed: over the same
// rows, it and its users join one kernel that computes it once, reads x
// once and writes both results.
// CHECK-LABEL: func.func private @expensive_kernel0
// CHECK-SAME: -> (tensor<256xf32>, tensor<256xf32>)
// CHECK-COUNT-1: math.exp
// CHECK-COUNT-1: math.tanh
// CHECK: math.sin
// CHECK: math.cos
// CHECK-LABEL: func.func @expensive
// CHECK-NEXT: %[[R:.*]]:2 = call @expensive_kernel0(%{{.*}})
// CHECK-NEXT: return %[[R]]#0, %[[R]]#1
func.func @expensive(%x: tensor<256xf32>) -> (tensor<256xf32>, tensor<256xf32>) {
  %e = math.exp %x : tensor<256xf32>
  %l = math.log %e : tensor<256xf32>
  %t = math.tanh %l : tensor<256xf32>
  %s = math.sin %t : tensor<256xf32>
  %c = math.cos %t : tensor<256xf32>
  return %s, %c : tensor<256xf32>, tensor<256xf32>
}

// -----

// GELU written on whole tensors is one kernel.
// CHECK-LABEL: func.func private @gelu_kernel0
// CHECK-COUNT-1: linalg.generic
// CHECK: math.erf
// CHECK-NOT: linalg.generic
// CHECK-LABEL: func.func @gelu
// CHECK-NEXT: call @gelu_kernel0
// CHECK-NEXT: return
func.func @gelu(%x: tensor<4096xf32>) -> tensor<4096xf32> {
  %half = arith.constant dense<0.5> : tensor<4096xf32>
  %one = arith.constant dense<1.0> : tensor<4096xf32>
  %inv_sqrt2 = arith.constant dense<0.707106781> : tensor<4096xf32>
  %s = arith.mulf %x, %inv_sqrt2 : tensor<4096xf32>
  %e = math.erf %s : tensor<4096xf32>
  %p = arith.addf %e, %one : tensor<4096xf32>
  %h = arith.mulf %x, %half : tensor<4096xf32>
  %y = arith.mulf %h, %p : tensor<4096xf32>
  return %y : tensor<4096xf32>
}

// -----

// A diamond: x feeds two branches that join. One kernel, reading x once.
// CHECK-LABEL: func.func private @diamond_kernel0
// CHECK-SAME: (%{{.*}}: tensor<512xf32>) -> tensor<512xf32>
// CHECK: math.sin
// CHECK: math.cos
// CHECK: arith.addf
// CHECK-LABEL: func.func @diamond
// CHECK-NEXT: call @diamond_kernel0
// CHECK-NEXT: return
func.func @diamond(%x: tensor<512xf32>) -> tensor<512xf32> {
  %a = math.sin %x : tensor<512xf32>
  %b = math.cos %x : tensor<512xf32>
  %c = arith.addf %a, %b : tensor<512xf32>
  return %c : tensor<512xf32>
}

// -----

// A named op that is a generic with fixed maps (here linalg.transpose) is
// generalized first and fuses like any elementwise op: one kernel.
// CHECK-LABEL: func.func @named_transpose
// CHECK-NEXT: %[[Y:.*]] = call @named_transpose_kernel0(%arg0)
// CHECK-NEXT: return %[[Y]]
func.func @named_transpose(%x: tensor<16x32xf32>) -> tensor<32x16xf32> {
  %a = math.exp %x : tensor<16x32xf32>
  %e = tensor.empty() : tensor<32x16xf32>
  %t = linalg.transpose ins(%a : tensor<16x32xf32>) outs(%e : tensor<32x16xf32>) permutation = [1, 0]
  %s = math.sin %t : tensor<32x16xf32>
  return %s : tensor<32x16xf32>
}

// -----

// A reduction between two elementwise ops: exp fuses into the row sums,
// but the transposed consumer of the sums runs over other rows, so no rule
// joins it (it is a kernel of its own, with a remark) and the cheap exp is
// recomputed there rather than written out.
// CHECK-LABEL: func.func @unfusable_between
// CHECK: %[[S:.*]] = call @unfusable_between_kernel0(%arg0)
// CHECK: call @unfusable_between_kernel1(%arg0, %[[S]])
func.func @unfusable_between(%x: tensor<16x32xf32>) -> tensor<32x16xf32> {
  %zero = arith.constant 0.0 : f32
  %a = math.exp %x : tensor<16x32xf32>
  %e = tensor.empty() : tensor<16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<16x32xf32>) outs(%init : tensor<16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %et = tensor.empty() : tensor<32x16xf32>
  // expected-remark @+1 {{not fused with its neighbours: no rule joins a linalg.generic here}}
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%a, %s : tensor<16x32xf32>, tensor<16xf32>) outs(%et : tensor<32x16xf32>) {
  ^bb0(%in: f32, %sum: f32, %out: f32):
    %d = arith.divf %in, %sum : f32
    %l = math.sin %d : f32
    linalg.yield %l : f32
  } -> tensor<32x16xf32>
  return %y : tensor<32x16xf32>
}

// -----

// A layer norm is one kernel too: the generics over the rows alone (mean,
// reciprocal deviation) join the reductions around them, and the per-column
// weight and bias, which every row shares, do not split the group.
// CHECK-LABEL: func.func private @layer_norm_kernel0
// CHECK-SAME: (%{{.*}}: tensor<29x777xf32>, %{{.*}}: tensor<777xf32>, %{{.*}}: tensor<777xf32>) -> tensor<29x777xf32>
// CHECK-LABEL: func.func @layer_norm
// CHECK-NEXT: call @layer_norm_kernel0
// CHECK-NEXT: return
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#rows = affine_map<(d0) -> (d0)>
func.func @layer_norm(%x: tensor<29x777xf32>, %w: tensor<777xf32>, %b: tensor<777xf32>) -> tensor<29x777xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 777.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %er = tensor.empty() : tensor<29xf32>
  %et = tensor.empty() : tensor<29x777xf32>
  %init = linalg.fill ins(%zero : f32) outs(%er : tensor<29xf32>) -> tensor<29xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<29x777xf32>) outs(%init : tensor<29xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<29xf32>
  %mean = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel"]}
      ins(%sum : tensor<29xf32>) outs(%er : tensor<29xf32>) {
  ^bb0(%s: f32, %out: f32):
    %m = arith.divf %s, %n : f32
    linalg.yield %m : f32
  } -> tensor<29xf32>
  %init2 = linalg.fill ins(%zero : f32) outs(%er : tensor<29xf32>) -> tensor<29xf32>
  %sq = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %mean : tensor<29x777xf32>, tensor<29xf32>) outs(%init2 : tensor<29xf32>) {
  ^bb0(%in: f32, %m: f32, %acc: f32):
    %d = arith.subf %in, %m : f32
    %d2 = arith.mulf %d, %d : f32
    %a = arith.addf %d2, %acc : f32
    linalg.yield %a : f32
  } -> tensor<29xf32>
  %rstd = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel"]}
      ins(%sq : tensor<29xf32>) outs(%er : tensor<29xf32>) {
  ^bb0(%s: f32, %out: f32):
    %v = arith.divf %s, %n : f32
    %ve = arith.addf %v, %eps : f32
    %r = math.rsqrt %ve : f32
    linalg.yield %r : f32
  } -> tensor<29xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #row, #col, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mean, %rstd, %w, %b : tensor<29x777xf32>, tensor<29xf32>, tensor<29xf32>, tensor<777xf32>, tensor<777xf32>) outs(%et : tensor<29x777xf32>) {
  ^bb0(%in: f32, %m: f32, %r: f32, %wi: f32, %bi: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %nrm = arith.mulf %d, %r : f32
    %sc = arith.mulf %nrm, %wi : f32
    %o = arith.addf %sc, %bi : f32
    linalg.yield %o : f32
  } -> tensor<29x777xf32>
  return %y : tensor<29x777xf32>
}

// -----

// An op that stays outside the kernels and reads the first one's result
// keeps the two apart: one call cannot both feed it and follow it (found by
// kiln-fuzz-opt, where kiln-fuse left IR that did not verify). The element
// read here is chosen at run time, so the read stays between the kernels.
// CHECK-LABEL: func.func @negative_use_between
// CHECK: %[[E:.*]] = call @negative_use_between_kernel0
// CHECK: tensor.extract %[[E]]
// CHECK: call @negative_use_between_kernel1(%[[E]],
func.func @negative_use_between(%x: tensor<16xf32>, %k: tensor<1xi32>) -> tensor<16xf32> {
  %c0 = arith.constant 0 : index
  %a = math.exp %x : tensor<16xf32>
  %b = arith.mulf %a, %a : tensor<16xf32>
  // expected-remark @+1 {{not fused with its neighbours}}
  %e = arith.addf %b, %x : tensor<16xf32>
  %ki = tensor.extract %k[%c0] : tensor<1xi32>
  %i = arith.index_cast %ki : i32 to index
  %first = tensor.extract %e[%i] : tensor<16xf32>
  %s = tensor.splat %first : tensor<16xf32>
  // expected-remark @+1 {{not fused with its neighbours}}
  %y = arith.divf %e, %s : tensor<16xf32>
  return %y : tensor<16xf32>
}

// -----

// A splat of an element at constant indices is a broadcast of that element
// (a constant indexing map), so it fuses like any broadcast: one kernel.
// CHECK: = affine_map<(d0, d1) -> (2, 1)>
// CHECK-LABEL: func.func private @broadcast_element_kernel0
// CHECK: linalg.generic {{.*}} ins(%arg0, %arg0 :
// CHECK-NOT: tensor.extract
// CHECK-LABEL: func.func @broadcast_element
// CHECK-NEXT: %[[R:.*]] = call @broadcast_element_kernel0(%arg0)
// CHECK-NEXT: return %[[R]]
func.func @broadcast_element(%x: tensor<5x7xf32>) -> tensor<5x7xf32> {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %a = math.exp %x : tensor<5x7xf32>
  %pivot = tensor.extract %a[%c2, %c1] : tensor<5x7xf32>
  %s = tensor.splat %pivot : tensor<5x7xf32>
  %y = arith.divf %a, %s : tensor<5x7xf32>
  return %y : tensor<5x7xf32>
}

// -----

// An element outside the tensor stays a tensor.extract; it is not turned
// into a broadcast that reads out of bounds.
// CHECK-LABEL: func.func @broadcast_element_out_of_bounds
// CHECK: tensor.extract %{{.*}}[%{{.*}}] : tensor<4xf32>
func.func @broadcast_element_out_of_bounds(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c9 = arith.constant 9 : index
  %a = math.exp %x : tensor<4xf32>
  %e = tensor.extract %a[%c9] : tensor<4xf32>
  %s = tensor.splat %e : tensor<4xf32>
  %y = arith.addf %x, %s : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// Named elementwise ops are the generics they are, and fuse as such:
// add(x, broadcast(b)) then exp is one kernel.
// CHECK-LABEL: func.func private @named_kernel0
// CHECK-SAME: (%{{.*}}: tensor<16x8xf32>, %{{.*}}: tensor<8xf32>) -> tensor<16x8xf32>
// CHECK: linalg.generic
// CHECK: arith.addf
// CHECK-NEXT: math.exp
// CHECK-NOT: linalg.generic
// CHECK-LABEL: func.func @named(
// CHECK-NEXT: call @named_kernel0
// CHECK-NEXT: return
func.func @named(%x: tensor<16x8xf32>, %b: tensor<8xf32>) -> tensor<16x8xf32> {
  %e = tensor.empty() : tensor<16x8xf32>
  %bb = linalg.broadcast ins(%b : tensor<8xf32>) outs(%e : tensor<16x8xf32>) dimensions = [0]
  %s = linalg.add ins(%x, %bb : tensor<16x8xf32>, tensor<16x8xf32>) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
  %y = linalg.exp ins(%s : tensor<16x8xf32>) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %y : tensor<16x8xf32>
}

// -----

// A dynamic tensor.empty goes into the kernel with the tensor.dim that
// sizes it, read from the kernel's own input.
// CHECK-LABEL: func.func private @dynamic_kernel0
// CHECK-SAME: (%[[X:.*]]: tensor<?x8xf32>) -> tensor<?x8xf32>
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x8xf32>
// CHECK: tensor.empty(%[[N]]) : tensor<?x8xf32>
// CHECK: math.exp
// CHECK-LABEL: func.func @dynamic(
// CHECK-NEXT: call @dynamic_kernel0
// CHECK-NEXT: return
func.func @dynamic(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x8xf32>
  %e = tensor.empty(%n) : tensor<?x8xf32>
  %y = linalg.exp ins(%x : tensor<?x8xf32>) outs(%e : tensor<?x8xf32>) -> tensor<?x8xf32>
  %z = linalg.negf ins(%y : tensor<?x8xf32>) outs(%e : tensor<?x8xf32>) -> tensor<?x8xf32>
  return %z : tensor<?x8xf32>
}

// -----

// Rows of dynamic length join like any rows: the max, the exponentials and
// their sum are one kernel, as kiln-fuse proves that the loops after the
// rows have one size (each reads %x's dimension 1, or a tensor it sizes).
// CHECK-LABEL: func.func private @softmax_dynamic_kernel0
// CHECK-SAME: (%{{.*}}: tensor<?x?xf32>) -> tensor<?x?xf32>
// CHECK-COUNT-3: linalg.generic
// CHECK-LABEL: func.func @softmax_dynamic(
// CHECK-NEXT: call @softmax_dynamic_kernel0
// CHECK-NEXT: return
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @softmax_dynamic(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %m = tensor.dim %x, %c1 : tensor<?x?xf32>
  %rows = tensor.empty(%n) : tensor<?xf32>
  %full = tensor.empty(%n, %m) : tensor<?x?xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%rows : tensor<?xf32>) -> tensor<?xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%minit : tensor<?xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %v = arith.maximumf %in, %acc : f32
    linalg.yield %v : f32
  } -> tensor<?xf32>
  %exp = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<?x?xf32>, tensor<?xf32>) outs(%full : tensor<?x?xf32>) {
  ^bb0(%in: f32, %mx: f32, %out: f32):
    %d = arith.subf %in, %mx : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<?x?xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%rows : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<?x?xf32>) outs(%sinit : tensor<?xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<?xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum : tensor<?x?xf32>, tensor<?xf32>) outs(%full : tensor<?x?xf32>) {
  ^bb0(%in: f32, %t: f32, %out: f32):
    %q = arith.divf %in, %t : f32
    linalg.yield %q : f32
  } -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// -----

// A row kernel has one [rows, columns] space: the sums of x's rows (of
// %k columns) scale y's rows (of %m columns) in a kernel of their own,
// since nothing says %k equals %m.
// CHECK-LABEL: func.func private @scale_by_sums_kernel0
// CHECK-SAME: (%{{.*}}: tensor<4x?xf32>) -> tensor<4xf32>
// CHECK-LABEL: func.func private @scale_by_sums_kernel1
// CHECK-SAME: (%{{.*}}: tensor<4xf32>, %{{.*}}: tensor<4x?xf32>) -> tensor<4x?xf32>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @scale_by_sums(%x: tensor<4x?xf32>, %y: tensor<4x?xf32>) -> tensor<4x?xf32> {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %y, %c1 : tensor<4x?xf32>
  %rows = tensor.empty() : tensor<4xf32>
  %full = tensor.empty(%m) : tensor<4x?xf32>
  %init = linalg.fill ins(%zero : f32) outs(%rows : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x?xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<4xf32>
  // expected-remark @+1 {{not fused with its neighbours}}
  %z = linalg.generic {indexing_maps = [#row, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%sum, %y : tensor<4xf32>, tensor<4x?xf32>) outs(%full : tensor<4x?xf32>) {
  ^bb0(%s: f32, %v: f32, %out: f32):
    %p = arith.mulf %s, %v : f32
    linalg.yield %p : f32
  } -> tensor<4x?xf32>
  return %z : tensor<4x?xf32>
}

// -----

// A kernel is a matmul's or reduces rows, not both: the row sums are a
// kernel, the matmul with its epilogue (which reads the sums) another.
// CHECK-LABEL: func.func private @sums_times_product_kernel0
// CHECK-SAME: -> tensor<16xf32>
// CHECK-NOT: linalg.matmul
// CHECK-LABEL: func.func private @sums_times_product_kernel1
// CHECK: linalg.matmul
// CHECK: linalg.generic
// CHECK: arith.mulf
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @sums_times_product(%a: tensor<16x32xf32>, %b: tensor<32x16xf32>) -> tensor<16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %rows = tensor.empty() : tensor<16xf32>
  %e = tensor.empty() : tensor<16x16xf32>
  %rinit = linalg.fill ins(%zero : f32) outs(%rows : tensor<16xf32>) -> tensor<16xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<16x32xf32>) outs(%rinit : tensor<16xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %t = arith.addf %v, %acc : f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x16xf32>) outs(%init : tensor<16x16xf32>) -> tensor<16x16xf32>
  %y = linalg.generic {indexing_maps = [#row, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s, %mm : tensor<16xf32>, tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%r: f32, %v: f32, %out: f32):
    %p = arith.mulf %r, %v : f32
    linalg.yield %p : f32
  } -> tensor<16x16xf32>
  return %y : tensor<16x16xf32>
}

// -----

// Rows over two dimensions: the sums over the hidden axis and the
// centring join one kernel; the positional table, broadcast over the batch,
// is an input read through (d1, d2).
// CHECK-LABEL: func.func private @centered_kernel0
// CHECK-SAME: (%{{.*}}: tensor<2x3x8xf32>, %{{.*}}: tensor<3x8xf32>) -> tensor<2x3x8xf32>
// CHECK-LABEL: func.func @centered(
// CHECK-NEXT: call @centered_kernel0
// CHECK-NEXT: return
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#pos = affine_map<(d0, d1, d2) -> (d1, d2)>
#rows = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @centered(%x: tensor<2x3x8xf32>, %p: tensor<3x8xf32>) -> tensor<2x3x8xf32> {
  %zero = arith.constant 0.0 : f32
  %eight = arith.constant 8.0 : f32
  %er = tensor.empty() : tensor<2x3xf32>
  %e = tensor.empty() : tensor<2x3x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%er : tensor<2x3xf32>) -> tensor<2x3xf32>
  %sum = linalg.generic {indexing_maps = [#id, #pos, #rows], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %p : tensor<2x3x8xf32>, tensor<3x8xf32>) outs(%init : tensor<2x3xf32>) {
  ^bb0(%in: f32, %q: f32, %acc: f32):
    %v = arith.addf %in, %q : f32
    %a = arith.addf %v, %acc : f32
    linalg.yield %a : f32
  } -> tensor<2x3xf32>
  %y = linalg.generic {indexing_maps = [#id, #pos, #rows, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %p, %sum : tensor<2x3x8xf32>, tensor<3x8xf32>, tensor<2x3xf32>) outs(%e : tensor<2x3x8xf32>) {
  ^bb0(%in: f32, %q: f32, %t: f32, %out: f32):
    %v = arith.addf %in, %q : f32
    %m = arith.divf %t, %eight : f32
    %c = arith.subf %v, %m : f32
    linalg.yield %c : f32
  } -> tensor<2x3x8xf32>
  return %y : tensor<2x3x8xf32>
}

// -----

// A matmul over the rows of a [2, 3, 4] array: the reshapes move out to
// the function's input and result (the bias and relu's generic collapsed
// to the matmul's [6, 5]), so the epilogue joins the matmul's kernel.
// CHECK-LABEL: func.func private @linear_kernel0
// CHECK-SAME: (%{{.*}}: tensor<6x4xf32>, %{{.*}}: tensor<4x5xf32>, %{{.*}}: tensor<5xf32>) -> tensor<6x5xf32>
// CHECK: linalg.matmul
// CHECK: arith.maximumf
// CHECK-LABEL: func.func @linear(
// CHECK-NEXT: %[[X:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK-NEXT: %[[Y:.*]] = call @linear_kernel0(%[[X]], %{{.*}}, %{{.*}})
// CHECK-NEXT: %[[R:.*]] = tensor.expand_shape %[[Y]] {{\[\[}}0, 1], [2]] output_shape [2, 3, 5]
// CHECK-NEXT: return %[[R]]
func.func @linear(%x: tensor<2x3x4xf32>, %w: tensor<4x5xf32>, %b: tensor<5xf32>) -> tensor<2x3x5xf32> {
  %zero = arith.constant 0.0 : f32
  %xc = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
  %e = tensor.empty() : tensor<6x5xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<6x5xf32>) -> tensor<6x5xf32>
  %mm = linalg.matmul ins(%xc, %w : tensor<6x4xf32>, tensor<4x5xf32>) outs(%init : tensor<6x5xf32>) -> tensor<6x5xf32>
  %y = tensor.expand_shape %mm [[0, 1], [2]] output_shape [2, 3, 5] : tensor<6x5xf32> into tensor<2x3x5xf32>
  %e3 = tensor.empty() : tensor<2x3x5xf32>
  %z = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%y, %b : tensor<2x3x5xf32>, tensor<5xf32>) outs(%e3 : tensor<2x3x5xf32>) {
  ^bb0(%v: f32, %c: f32, %o: f32):
    %s = arith.addf %v, %c : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<2x3x5xf32>
  return %z : tensor<2x3x5xf32>
}

// -----

// One zero starts two row reductions: each gets a fill of its own, which
// joins it, and the two, reading x by row, join each other: the sum and
// the sum of squares are one kernel, which reads x once, and no fill
// writes memory.
// CHECK-LABEL: func.func private @shared_zero_kernel0
// CHECK-COUNT-2: linalg.fill
// CHECK-COUNT-2: linalg.generic
// CHECK-LABEL: func.func @shared_zero(
// CHECK-NEXT: call @shared_zero_kernel0
// CHECK-NEXT: return
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @shared_zero(%x: tensor<8x32xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %rows = tensor.empty() : tensor<8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%rows : tensor<8xf32>) -> tensor<8xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x32xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<8xf32>
  %squares = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x32xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %q = arith.mulf %in, %in : f32
    %a = arith.addf %q, %acc : f32
    linalg.yield %a : f32
  } -> tensor<8xf32>
  return %sum, %squares : tensor<8xf32>, tensor<8xf32>
}

// -----

// The same over x's columns: both reductions read x^T (x through the same
// transposed map), so they join, and the mean and the scaled sum of
// squares that follow them, over the same columns, join too: one kernel.
// CHECK-LABEL: func.func private @column_moments_kernel0
// CHECK-SAME: (%{{.*}}: tensor<32x8xf32>) -> (tensor<8xf32>, tensor<8xf32>)
// CHECK-COUNT-4: linalg.generic
// CHECK-LABEL: func.func @column_moments(
// CHECK-NEXT: call @column_moments_kernel0
// CHECK-NEXT: return
#tr = affine_map<(d0, d1) -> (d1, d0)>
#col = affine_map<(d0, d1) -> (d0)>
#c = affine_map<(d0) -> (d0)>
func.func @column_moments(%x: tensor<32x8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 32.0 : f32
  %cols = tensor.empty() : tensor<8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%cols : tensor<8xf32>) -> tensor<8xf32>
  %sum = linalg.generic {indexing_maps = [#tr, #col], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<32x8xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<8xf32>
  %squares = linalg.generic {indexing_maps = [#tr, #col], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<32x8xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %q = arith.mulf %in, %in : f32
    %a = arith.addf %q, %acc : f32
    linalg.yield %a : f32
  } -> tensor<8xf32>
  %mean = linalg.generic {indexing_maps = [#c, #c], iterator_types = ["parallel"]}
      ins(%sum : tensor<8xf32>) outs(%cols : tensor<8xf32>) {
  ^bb0(%s: f32, %out: f32):
    %d = arith.divf %s, %n : f32
    linalg.yield %d : f32
  } -> tensor<8xf32>
  %meansq = linalg.generic {indexing_maps = [#c, #c], iterator_types = ["parallel"]}
      ins(%squares : tensor<8xf32>) outs(%cols : tensor<8xf32>) {
  ^bb0(%s: f32, %out: f32):
    %d = arith.divf %s, %n : f32
    linalg.yield %d : f32
  } -> tensor<8xf32>
  return %mean, %meansq : tensor<8xf32>, tensor<8xf32>
}

// -----

// Two reductions that share only a per-column weight w, small and
// broadcast over the rows, do not join for it: x's rows and y's columns
// stay two kernels (one reads x by row, the other y^T in blocks of rows).
// CHECK-LABEL: func.func private @shared_weight_kernel0
// CHECK-LABEL: func.func private @shared_weight_kernel1
// CHECK-LABEL: func.func @shared_weight(
// CHECK-NEXT: call @shared_weight_kernel0
// CHECK-NEXT: call @shared_weight_kernel1
#id = affine_map<(d0, d1) -> (d0, d1)>
#w = affine_map<(d0, d1) -> (d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @shared_weight(%x: tensor<8x16xf32>, %y: tensor<16x8xf32>, %w: tensor<16xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %a = linalg.generic {indexing_maps = [#id, #w, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %w : tensor<8x16xf32>, tensor<16xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%xv: f32, %wv: f32, %acc: f32):
    %p = arith.mulf %xv, %wv : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %b = linalg.generic {indexing_maps = [#tr, #w, #row], iterator_types = ["parallel", "reduction"]}
      ins(%y, %w : tensor<16x8xf32>, tensor<16xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%yv: f32, %wv: f32, %acc: f32):
    %p = arith.mulf %yv, %wv : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %a, %b : tensor<8xf32>, tensor<8xf32>
}

// -----

// Sums over x's rows and over its columns read x in different orders: no
// row kernel holds both, so they stay two kernels.
// CHECK-LABEL: func.func private @rows_and_columns_kernel0
// CHECK-LABEL: func.func private @rows_and_columns_kernel1
// CHECK-LABEL: func.func @rows_and_columns(
// CHECK-NEXT: call @rows_and_columns_kernel0
// CHECK-NEXT: call @rows_and_columns_kernel1
#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @rows_and_columns(%x: tensor<8x32xf32>) -> (tensor<8xf32>, tensor<32xf32>) {
  %zero = arith.constant 0.0 : f32
  %rows = tensor.empty() : tensor<8xf32>
  %columns = tensor.empty() : tensor<32xf32>
  %init = linalg.fill ins(%zero : f32) outs(%rows : tensor<8xf32>) -> tensor<8xf32>
  %cinit = linalg.fill ins(%zero : f32) outs(%columns : tensor<32xf32>) -> tensor<32xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x32xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<8xf32>
  %csum = linalg.generic {indexing_maps = [#tr, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x32xf32>) outs(%cinit : tensor<32xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<32xf32>
  return %sum, %csum : tensor<8xf32>, tensor<32xf32>
}

// -----

// A zero returned and also starting a reduction: the returned fill stays
// (its own kernel), the reduction gets a fill of its own; no second copy
// of the returned one.
// CHECK-LABEL: func.func private @returned_zero_kernel0
// CHECK: linalg.fill
// CHECK: linalg.generic
// CHECK-LABEL: func.func private @returned_zero_kernel1
// CHECK: linalg.fill
// CHECK-NOT: linalg.generic
// CHECK-LABEL: func.func @returned_zero(
// CHECK-COUNT-2: call @returned_zero_kernel
// CHECK-NOT: call
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @returned_zero(%x: tensor<8x32xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %rows = tensor.empty() : tensor<8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%rows : tensor<8xf32>) -> tensor<8xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x32xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<8xf32>
  return %init, %sum : tensor<8xf32>, tensor<8xf32>
}

// -----

// Elementwise kernels over one iteration space that read one value join:
// exp(x) and sin(x) * y are one kernel of two results, which reads x
// once. cos(x^T) runs over the same sizes too and joins; x + 1 over a
// row of x does not (another space).
// CHECK-LABEL: func.func private @siblings_kernel0
// CHECK-SAME: -> (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>)
// CHECK-DAG: math.exp
// CHECK-DAG: math.sin
// CHECK-DAG: math.cos
// CHECK-LABEL: func.func private @siblings_kernel1
// CHECK-SAME: -> tensor<16xf32>
// CHECK-LABEL: func.func @siblings(
// CHECK-COUNT-2: call @siblings_kernel
// CHECK-NOT: call
func.func @siblings(%x: tensor<16x16xf32>, %y: tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16xf32>) {
  %e0 = tensor.empty() : tensor<16x16xf32>
  %exp = linalg.exp ins(%x : tensor<16x16xf32>) outs(%e0 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %e1 = tensor.empty() : tensor<16x16xf32>
  %sin = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<16x16xf32>, tensor<16x16xf32>) outs(%e1 : tensor<16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = math.sin %a : f32
    %p = arith.mulf %s, %b : f32
    linalg.yield %p : f32
  } -> tensor<16x16xf32>
  %e2 = tensor.empty() : tensor<16x16xf32>
  %cos = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<16x16xf32>) outs(%e2 : tensor<16x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %c = math.cos %a : f32
    linalg.yield %c : f32
  } -> tensor<16x16xf32>
  %row = tensor.extract_slice %x[3, 0] [1, 16] [1, 1] : tensor<16x16xf32> to tensor<16xf32>
  %one = arith.constant 1.0 : f32
  %e3 = tensor.empty() : tensor<16xf32>
  %plus = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%row : tensor<16xf32>) outs(%e3 : tensor<16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %p = arith.addf %a, %one : f32
    linalg.yield %p : f32
  } -> tensor<16xf32>
  return %exp, %sin, %cos, %plus : tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16xf32>
}

// -----

// A matmul given its own indexing maps (b transposed through them) is the
// contraction it is: a generic, whose loops kiln-tile runs as rows and a
// reduction, not a matmul kernel reading b as if untransposed.
// CHECK-LABEL: func.func private @matmul_with_maps_kernel0
// CHECK-NOT: linalg.batch_matmul
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @matmul_with_maps(%a: tensor<3x20x16xf32>, %b: tensor<3x24x16xf32>) -> tensor<3x20x24xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x20x24xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3x20x24xf32>) -> tensor<3x20x24xf32>
  %p = linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>]
     ins(%a, %b : tensor<3x20x16xf32>, tensor<3x24x16xf32>) outs(%f : tensor<3x20x24xf32>) -> tensor<3x20x24xf32>
  return %p : tensor<3x20x24xf32>
}

// -----

// tanh(x * y) @ w, with x * y returned too: x * y (two inputs, not
// recomputed) and the tanh join as rows, but that group is no prologue
// of the matmul, since it writes x * y for the caller; a matmul kernel's
// prologue only feeds the matmul. (Found by a random program: the
// matmul kernel held x * y, which kiln-tile refused.)
// CHECK-LABEL: func.func private @returned_before_a_prologue_kernel0
// CHECK: arith.mulf
// CHECK: math.tanh
// CHECK-NOT: linalg.matmul
// CHECK-LABEL: func.func private @returned_before_a_prologue_kernel1
// CHECK-NOT: arith.mulf
// CHECK: linalg.matmul
func.func @returned_before_a_prologue(%x: tensor<8x5xf32>, %y: tensor<8x5xf32>, %w: tensor<5x8xf32>) -> (tensor<8x8xf32>, tensor<8x5xf32>) {
  %e = tensor.empty() : tensor<8x5xf32>
  %xy = linalg.mul ins(%x, %y : tensor<8x5xf32>, tensor<8x5xf32>) outs(%e : tensor<8x5xf32>) -> tensor<8x5xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%xy : tensor<8x5xf32>) outs(%e : tensor<8x5xf32>) {
  ^bb0(%a: f32, %out: f32):
    %h = math.tanh %a : f32
    linalg.yield %h : f32
  } -> tensor<8x5xf32>
  %zero = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %m = linalg.matmul ins(%t, %w : tensor<8x5xf32>, tensor<5x8xf32>) outs(%f : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %m, %xy : tensor<8x8xf32>, tensor<8x5xf32>
}
