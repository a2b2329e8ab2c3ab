// RUN: kiln-translate %s --chip=sm_80 | FileCheck %s --check-prefix=FTZ
// RUN: sed 's/attributes {tile.libdevice_ftz} //' %s | kiln-translate --chip=sm_80 | FileCheck %s --check-prefix=EXACT
// RUN: %if ptxas %{ kiln-translate %s --chip=sm_80 | %ptxas -arch=sm_80 %}

// A kernel with tile.libdevice_ftz (what the Python front end writes, in
// Triton's idiom) links libdevice flushing subnormals, as Triton does:
// exp2 is ex2.approx.ftz.f32 and log's polynomial runs in fma.rn.ftz.
// Without it (the array level, which computes as numpy does) libdevice
// keeps subnormals.
// FTZ-LABEL: .entry exp2_log(
// FTZ: ex2.approx.ftz.f32
// FTZ-NOT: ex2.approx.f32
// FTZ: fma.rn.ftz.f32
// FTZ-NOT: fma.rn.f32
// EXACT-LABEL: .entry exp2_log(
// EXACT: ex2.approx.f32
// EXACT-NOT: ftz
func.func @exp2_log(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i64}) attributes {tile.libdevice_ftz} {
  %r = tile.range 0 to 128 : tensor<128xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %v = tile.load %xp : tensor<128x!tile.ptr<f32>> -> tensor<128xf32>
  %e = math.exp2 %v : tensor<128xf32>
  %l = math.log %v : tensor<128xf32>
  %s = arith.addf %e, %l : tensor<128xf32>
  %ys = tile.splat %y : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %yp = tile.addptr %ys, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  tile.store %yp, %s : tensor<128x!tile.ptr<f32>>, tensor<128xf32>
  return
}
