// RUN: kiln-translate %s --chip=sm_90a --num-warps=4 | FileCheck %s
// RUN: %if ptxas %{ kiln-translate %s --chip=sm_90a --num-warps=4 | %ptxas -arch=sm_90a -v 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: kiln-translate %s --chip=sm_80 --num-warps=4 | FileCheck %s

// A persistent kernel's loop over rows given num_stages = 2 (Triton's
// `tl.range(..., num_stages=2)`): each thread copies its 16-byte runs of
// the next row into a 1-D slot with cp.async while it reduces this one,
// which it reads back 16 bytes at a time.
// CHECK: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16
// CHECK: cp.async.commit_group
// CHECK: cp.async.wait_group 0
// CHECK: bar.sync 0
// CHECK: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16
// CHECK: ld.shared.v4.b32
// CHECK-NOT: ld.global
// CHECK: st.global.v4.b32
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
func.func @rows(%out: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                %in: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                %stride: i32 {tile.divisibility = 16 : i64},
                %n: i32 {tile.divisibility = 16 : i64}, %rows: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %ninf = arith.constant dense<0xFF800000> : tensor<1024xf32>
  scf.for %row = %c0 to %rows step %c1 : i32 {
    %offset = arith.muli %row, %stride : i32
    %base = tile.addptr %in, %offset : !tile.ptr<f32>, i32
    %cols = tile.range 0 to 1024 : tensor<1024xi32>
    %bases = tile.splat %base : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
    %ptrs = tile.addptr %bases, %cols : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
    %ns = tile.splat %n : i32 -> tensor<1024xi32>
    %mask = arith.cmpi slt, %cols, %ns : tensor<1024xi32>
    %x = tile.load %ptrs, %mask, other %ninf : tensor<1024x!tile.ptr<f32>> -> tensor<1024xf32>
    %max = tile.reduce %x axis 0 : tensor<1024xf32> -> f32 {
    ^bb0(%a: f32, %b: f32):
      %m = arith.maxnumf %a, %b : f32
      tile.yield %m : f32
    }
    %maxs = tile.splat %max : f32 -> tensor<1024xf32>
    %y = arith.subf %x, %maxs : tensor<1024xf32>
    %obase = tile.addptr %out, %offset : !tile.ptr<f32>, i32
    %obases = tile.splat %obase : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
    %optrs = tile.addptr %obases, %cols : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
    tile.store %optrs, %y, %mask : tensor<1024x!tile.ptr<f32>>, tensor<1024xf32>
  } {tile.num_stages = 2 : i64}
  return
}
