// RUN: kiln-opt %s -kiln-fuse -kiln-tile -canonicalize "-symbol-privatize=exclude=scale_kernel0_tile,mm_bias_kernel0_tile,rms_kernel0_tile,centered_kernel0_tile,norm_kernel0_tile,argmax_kernel0_tile" -symbol-dce -o %t.mlir
// RUN: kiln-translate %t.mlir --chip=sm_80 | FileCheck %s
// RUN: kiln-translate %t.mlir --chip=sm_90a | FileCheck %s --check-prefix=LOOP
// RUN: %if ptxas %{ kiln-translate %t.mlir --chip=sm_80 | %ptxas -arch=sm_80 %}
// RUN: %if ptxas %{ kiln-translate %t.mlir --chip=sm_90a | %ptxas -arch=sm_90a %}

// The row kernels' reductions over rows of dynamic length carry a value
// per lane through their loop over the row's chunks and merge the lanes
// after it: no shuffle and no barrier in the loop.
// LOOP-LABEL: .entry rms_kernel0_tile(
// LOOP: [[RMS:\$L__BB[0-9]+_[0-9]+]]:
// LOOP-NOT: {{bar.sync|shfl.sync}}
// LOOP: bra{{[[:space:]]+}}[[RMS]];
// LOOP: shfl.sync
// LOOP-LABEL: .entry norm_kernel0_tile(
// LOOP: [[NORM:\$L__BB[0-9]+_[0-9]+]]:
// LOOP-NOT: {{bar.sync|shfl.sync}}
// LOOP: bra{{[[:space:]]+}}[[NORM]];
// LOOP: shfl.sync
// LOOP-LABEL: .entry argmax_kernel0_tile(
// LOOP: [[ARGMAX:\$L__BB[0-9]+_[0-9]+]]:
// LOOP-NOT: {{bar.sync|shfl.sync}}
// LOOP: bra{{[[:space:]]+}}[[ARGMAX]];
// LOOP: shfl.sync

// Tile kernels over dynamic sizes take them as 32-bit parameters after
// their pointers, and compile for the GPU like any other: an elementwise
// kernel masked by n * 4, and a matmul whose K loop is bounded by a
// parameter.
// CHECK-LABEL: .entry scale_kernel0_tile(
// CHECK: .param .u64 {{.*}}scale_kernel0_tile_param_0,
// CHECK: .param .u64 {{.*}}scale_kernel0_tile_param_2,
// CHECK-NEXT: .param .u32 {{.*}}scale_kernel0_tile_param_3
func.func @scale(%x: tensor<?x4xf32>, %c: tensor<4xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x4xf32>
  %e = tensor.empty(%n) : tensor<?x4xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %c : tensor<?x4xf32>, tensor<4xf32>) outs(%e : tensor<?x4xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

// CHECK-LABEL: .entry mm_bias_kernel0_tile(
// CHECK: .param .u32 {{.*}}mm_bias_kernel0_tile_param_4,
// CHECK-NEXT: .param .u32 {{.*}}mm_bias_kernel0_tile_param_5,
// CHECK-NEXT: .param .u32 {{.*}}mm_bias_kernel0_tile_param_6
// CHECK: mma.sync.aligned.m16n8k16
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @mm_bias(%a: tensor<?x?xf16>, %b: tensor<?x?xf16>, %bias: tensor<?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %a, %c0 : tensor<?x?xf16>
  %n = tensor.dim %b, %c1 : tensor<?x?xf16>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<?x?xf16>, tensor<?x?xf16>) outs(%init : tensor<?x?xf32>) -> tensor<?x?xf32>
  %y = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<?x?xf32>, tensor<?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%v: f32, %c: f32, %out: f32):
    %s = arith.addf %v, %c : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// A row kernel over rows of dynamic length takes the length last and walks
// the row in loops: the sum of squares, then the scaled row.
// CHECK-LABEL: .entry rms_kernel0_tile(
// CHECK: .param .u64 {{.*}}rms_kernel0_tile_param_1,
// CHECK-NEXT: .param .u32 {{.*}}rms_kernel0_tile_param_2
// CHECK: rsqrt.approx
// CHECK: st.global
#row = affine_map<(d0, d1) -> (d0)>
func.func @rms(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %m = tensor.dim %x, %c1 : tensor<?x?xf32>
  %rows = tensor.empty(%n) : tensor<?xf32>
  %full = tensor.empty(%n, %m) : tensor<?x?xf32>
  %init = linalg.fill ins(%zero : f32) outs(%rows : tensor<?xf32>) -> tensor<?xf32>
  %ss = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %q = arith.mulf %in, %in : f32
    %a = arith.addf %q, %acc : f32
    linalg.yield %a : f32
  } -> tensor<?xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %ss : tensor<?x?xf32>, tensor<?xf32>) outs(%full : tensor<?x?xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = math.rsqrt %s : f32
    %v = arith.mulf %in, %r : f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// Rows over two dynamic dimensions: the kernel takes the sequence's
// length (to find a row's position in the positional table) and divides
// the program id by it.
// CHECK-LABEL: .entry centered_kernel0_tile(
// CHECK: .param .u64 {{.*}}centered_kernel0_tile_param_2,
// CHECK-NEXT: .param .u32 {{.*}}centered_kernel0_tile_param_3
// CHECK: rem.u32
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#pos3 = affine_map<(d0, d1, d2) -> (d1, d2)>
#rows3 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @centered(%x: tensor<?x?x8xf32>, %p: tensor<?x8xf32>) -> tensor<?x?x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %eight = arith.constant 8.0 : f32
  %b = tensor.dim %x, %c0 : tensor<?x?x8xf32>
  %s = tensor.dim %x, %c1 : tensor<?x?x8xf32>
  %er = tensor.empty(%b, %s) : tensor<?x?xf32>
  %e = tensor.empty(%b, %s) : tensor<?x?x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%er : tensor<?x?xf32>) -> tensor<?x?xf32>
  %sum = linalg.generic {indexing_maps = [#id3, #pos3, #rows3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %p : tensor<?x?x8xf32>, tensor<?x8xf32>) outs(%init : tensor<?x?xf32>) {
  ^bb0(%in: f32, %q: f32, %acc: f32):
    %v = arith.addf %in, %q : f32
    %a = arith.addf %v, %acc : f32
    linalg.yield %a : f32
  } -> tensor<?x?xf32>
  %y = linalg.generic {indexing_maps = [#id3, #pos3, #rows3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %p, %sum : tensor<?x?x8xf32>, tensor<?x8xf32>, tensor<?x?xf32>) outs(%e : tensor<?x?x8xf32>) {
  ^bb0(%in: f32, %q: f32, %t: f32, %out: f32):
    %v = arith.addf %in, %q : f32
    %m = arith.divf %t, %eight : f32
    %c = arith.subf %v, %m : f32
    linalg.yield %c : f32
  } -> tensor<?x?x8xf32>
  return %y : tensor<?x?x8xf32>
}

// A layer norm over rows of dynamic length divides by the length (an i32
// argument converted to a float in the kernel) and walks each row twice:
// the mean and the variance in one loop (chunks merged as they come), then
// the row written.
// CHECK-LABEL: .entry norm_kernel0_tile(
// CHECK: .param .u32 {{.*}}norm_kernel0_tile_param_2
// CHECK: cvt.rn.f32.{{[us]}}{{32|64}}
// CHECK: rsqrt.approx
// CHECK: st.global
#nid = affine_map<(d0, d1) -> (d0, d1)>
#nrow = affine_map<(d0, d1) -> (d0)>
func.func @norm(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %m = tensor.dim %x, %c1 : tensor<?x?xf32>
  %mi = arith.index_cast %m : index to i64
  %mf = arith.uitofp %mi : i64 to f32
  %rows = tensor.empty(%n) : tensor<?xf32>
  %full = tensor.empty(%n, %m) : tensor<?x?xf32>
  %init = linalg.fill ins(%zero : f32) outs(%rows : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [#nid, #nrow], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<?xf32>
  %centred = linalg.generic {indexing_maps = [#nid, #nrow, #nid], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<?x?xf32>, tensor<?xf32>) outs(%full : tensor<?x?xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %mean = arith.divf %s, %mf : f32
    %d = arith.subf %in, %mean : f32
    linalg.yield %d : f32
  } -> tensor<?x?xf32>
  %sq = linalg.generic {indexing_maps = [#nid, #nrow], iterator_types = ["parallel", "reduction"]}
      ins(%centred : tensor<?x?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %q = arith.mulf %in, %in : f32
    %a = arith.addf %q, %acc : f32
    linalg.yield %a : f32
  } -> tensor<?xf32>
  %y = linalg.generic {indexing_maps = [#nid, #nrow, #nid], iterator_types = ["parallel", "parallel"]}
      ins(%centred, %sq : tensor<?x?xf32>, tensor<?xf32>) outs(%full : tensor<?x?xf32>) {
  ^bb0(%d: f32, %s: f32, %out: f32):
    %var = arith.divf %s, %mf : f32
    %ve = arith.addf %var, %eps : f32
    %r = math.rsqrt %ve : f32
    %v = arith.mulf %d, %r : f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// An argmax over rows of dynamic length (the value and its column, one
// tile.reduce of both per chunk) stores an f32 and an i64 per row.
// CHECK-LABEL: .entry argmax_kernel0_tile(
// CHECK: .param .u32 {{.*}}argmax_kernel0_tile_param_3
// CHECK: st.global.b32
// CHECK: st.global.b64
#aid = affine_map<(d0, d1) -> (d0, d1)>
#arow = affine_map<(d0, d1) -> (d0)>
func.func @argmax(%x: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?xi64>) {
  %c0 = arith.constant 0 : index
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0 : i64
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %rows = tensor.empty(%n) : tensor<?xf32>
  %irows = tensor.empty(%n) : tensor<?xi64>
  %vinit = linalg.fill ins(%ninf : f32) outs(%rows : tensor<?xf32>) -> tensor<?xf32>
  %iinit = linalg.fill ins(%zero : i64) outs(%irows : tensor<?xi64>) -> tensor<?xi64>
  %r:2 = linalg.generic {indexing_maps = [#aid, #arow, #arow], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%vinit, %iinit : tensor<?xf32>, tensor<?xi64>) {
  ^bb0(%in: f32, %v: f32, %i: i64):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i64
    %gt = arith.cmpf ogt, %in, %v : f32
    %nan = arith.cmpf uno, %in, %in : f32
    %vnan = arith.cmpf uno, %v, %v : f32
    %true = arith.constant true
    %vok = arith.xori %vnan, %true : i1
    %either = arith.ori %gt, %nan : i1
    %take = arith.andi %either, %vok : i1
    %nv = arith.select %take, %in, %v : f32
    %ni = arith.select %take, %ji, %i : i64
    linalg.yield %nv, %ni : f32, i64
  } -> (tensor<?xf32>, tensor<?xi64>)
  return %r#0, %r#1 : tensor<?xf32>, tensor<?xi64>
}

