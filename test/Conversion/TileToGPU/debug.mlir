// RUN: kiln-opt %s -split-input-file -tile-assign-layouts -kiln-convert-tile-to-gpu | FileCheck %s
// The PTX calls vprintf and __assertfail, which ptxas takes for both chips.
// RUN: kiln-translate %s -split-input-file --chip=sm_80 | FileCheck %s --check-prefix=PTX
// RUN: %if ptxas %{ kiln-translate %s -split-input-file --emit=cubin --chip=sm_80 -o /dev/null %}
// RUN: %if ptxas %{ kiln-translate %s -split-input-file --emit=cubin --chip=sm_90a -o /dev/null %}

// Each thread prints the elements it holds, one printf each with the
// program id, the element's coordinates and the value (floats as doubles).
// A replicated element prints only from its canonical copy: with 4 warps a
// 64-element tile has two copies of each element.
// CHECK-LABEL: gpu.func @show
// CHECK: %[[PX:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK: scf.if %{{.*}} {
// CHECK:   %[[D:.*]] = arith.extf %{{.*}} : f32 to f64
// CHECK:   gpu.printf "pid (%d, %d, %d) idx (%d) v: %.9g\0A", %[[PX]], %{{.*}}, %{{.*}}, %{{.*}}, %[[D]] : i32, i32, i32, i32, f64
// Scalars print from thread 0; a `%` in the prefix is text.
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[TID]], %{{.*}} : index
// CHECK: scf.if %[[FIRST]] {
// CHECK:   arith.extsi %{{.*}} : i32 to i64
// CHECK:   gpu.printf "pid (%d, %d, %d) 100%% n: %lld\0A"
// PTX: vprintf
func.func @show(%x: !tile.ptr<f32>, %n: i32) {
  %r = tile.range 0 to 64 : tensor<64xi32>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %q = tile.addptr %p, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %v = tile.load %q : tensor<64x!tile.ptr<f32>> -> tensor<64xf32>
  tile.print "v", %v : tensor<64xf32>
  tile.print "100% n", %n : i32
  return
}

// -----

// An assert checks every element the thread holds, as one cf.assert that
// becomes __assertfail with the op's file and line.
// CHECK-LABEL: gpu.func @check
// CHECK: %[[A:.*]] = vector.extract %{{.*}}[0]
// CHECK: %[[B:.*]] = vector.extract %{{.*}}[1]
// CHECK: %[[ALL:.*]] = arith.andi %[[A]], %[[B]] : i1
// CHECK: cf.assert %[[ALL]], "r < n"
// PTX: __assertfail
func.func @check(%n: i32) {
  %r = tile.range 0 to 256 : tensor<256xi32>
  %nn = tile.splat %n : i32 -> tensor<256xi32>
  %ok = arith.cmpi slt, %r, %nn : tensor<256xi32>
  tile.assert %ok, "r < n" : tensor<256xi1>
  return
}
