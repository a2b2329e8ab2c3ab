// REQUIRES: libdevice
// RUN: kiln-translate %s --chip=sm_90a | FileCheck %s
// RUN: %if ptxas %{ kiln-translate %s --chip=sm_90a | %ptxas -arch=sm_90a %}
// RUN: %if ptxas %{ kiln-translate %s --chip=sm_80 | %ptxas -arch=sm_80 %}

// tile.extern_elementwise through the whole GPU pipeline: the libdevice
// functions called for each element (hypotf, lgammaf, jnf of an i32 and
// an f32, ldexpf of an f32 and an i32, ilogb of an f64) are linked from
// libdevice and inlined, so no call and no extern declaration is left for
// ptxas to resolve; ptxas assembles the result.
// CHECK-NOT: __nv_
// CHECK-LABEL: .entry libdevice_calls(
// CHECK-NOT: call.uni
// CHECK-NOT: __nv_
// CHECK: ret;
// CHECK-NOT: __nv_
func.func @libdevice_calls(%px: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                           %pn: !tile.ptr<i32> {tile.divisibility = 16 : i64},
                           %pd: !tile.ptr<f64> {tile.divisibility = 16 : i64},
                           %py: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                           %pe: !tile.ptr<i32> {tile.divisibility = 16 : i64}) {
  %r = tile.range 0 to 256 : tensor<256xi32>
  %xs = tile.splat %px : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  %x = tile.load %xp : tensor<256x!tile.ptr<f32>> -> tensor<256xf32>
  %ns = tile.splat %pn : !tile.ptr<i32> -> tensor<256x!tile.ptr<i32>>
  %np = tile.addptr %ns, %r : tensor<256x!tile.ptr<i32>>, tensor<256xi32>
  %n = tile.load %np : tensor<256x!tile.ptr<i32>> -> tensor<256xi32>
  %ds = tile.splat %pd : !tile.ptr<f64> -> tensor<256x!tile.ptr<f64>>
  %dp = tile.addptr %ds, %r : tensor<256x!tile.ptr<f64>>, tensor<256xi32>
  %d = tile.load %dp : tensor<256x!tile.ptr<f64>> -> tensor<256xf64>
  %h = tile.extern_elementwise "__nv_hypotf" host "hypotf" pure %x, %x : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
  %g = tile.extern_elementwise "__nv_lgammaf" host "lgammaf" pure %h : (tensor<256xf32>) -> tensor<256xf32>
  %j = tile.extern_elementwise "__nv_jnf" host "jnf" pure %n, %g : (tensor<256xi32>, tensor<256xf32>) -> tensor<256xf32>
  %l = tile.extern_elementwise "__nv_ldexpf" host "ldexpf" pure %j, %n : (tensor<256xf32>, tensor<256xi32>) -> tensor<256xf32>
  %e = tile.extern_elementwise "__nv_ilogb" host "ilogb" pure %d : (tensor<256xf64>) -> tensor<256xi32>
  %ys = tile.splat %py : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>>
  %yp = tile.addptr %ys, %r : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  tile.store %yp, %l : tensor<256x!tile.ptr<f32>>, tensor<256xf32>
  %es = tile.splat %pe : !tile.ptr<i32> -> tensor<256x!tile.ptr<i32>>
  %ep = tile.addptr %es, %r : tensor<256x!tile.ptr<i32>>, tensor<256xi32>
  tile.store %ep, %e : tensor<256x!tile.ptr<i32>>, tensor<256xi32>
  return
}
