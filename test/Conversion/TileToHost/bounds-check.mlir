// RUN: kiln-opt %s -kiln-convert-tile-to-host=bounds-check | FileCheck %s
// RUN: kiln-opt %s -kiln-convert-tile-to-host | FileCheck %s --check-prefix=UNCHECKED

// With bounds-check the module describes each checked site: its location,
// the argument its pointer was derived from (-1: not one argument) and
// whether it writes.
// CHECK: module attributes {kiln.host.access_sites = [
// CHECK-SAME: ["{{.*}}bounds-check.mlir:[[@LINE+43]]:8: tile.load", 0 : i32, false],
// CHECK-SAME: ["{{.*}}bounds-check.mlir:[[@LINE+48]]:3: tile.store", 1 : i32, true],
// CHECK-SAME: ["{{.*}}bounds-check.mlir:[[@LINE+63]]:10: tile.load", 0 : i32, false],
// CHECK-SAME: ["{{.*}}bounds-check.mlir:[[@LINE+63]]:5: tile.store", 1 : i32, true],
// CHECK-SAME: ["{{.*}}bounds-check.mlir:[[@LINE+75]]:10: tile.atomic_rmw", -1 : i32, true],
// CHECK-SAME: ["{{.*}}bounds-check.mlir:[[@LINE+88]]:14: tile.load", 0 : i32, false]]}
// CHECK: func.func private @__kiln_host_check_access(i64, i64, i32, i32, i32, i32, i32) -> i32
// CHECK: func.func private @__kiln_host_check_span(i64, i64, i64, i32) -> i32

// A tile's accesses are checked at once, between its lowest and highest
// enabled addresses; only where that fails is each access checked, passing
// its address, size, site id, whether the mask enables it, and the program
// id.
// CHECK-LABEL: func.func @copy
// CHECK-SAME: %[[PX:[a-z0-9]+]]: i32, %[[PY:[a-z0-9]+]]: i32, %[[PZ:[a-z0-9]+]]: i32, %{{[a-z0-9]+}}: i32, %{{[a-z0-9]+}}: i32, %{{[a-z0-9]+}}: i32)
// CHECK: %[[SPAN:.*]]:2 = scf.for {{.*}} iter_args
// CHECK:   arith.minui
// CHECK:   arith.maxui
// CHECK:   arith.select
// CHECK:   arith.select
// CHECK: %[[WHOLE:.*]] = {{(func\.)?}}call @__kiln_host_check_span(%[[SPAN]]#0, %[[SPAN]]#1, %{{.*}}, %{{.*}})
// CHECK: %[[FITS:.*]] = arith.cmpi ne, %[[WHOLE]], %{{.*}} : i32
// CHECK: scf.if %[[FITS]] -> (tensor<4xf16>) {
// CHECK-NOT: __kiln_host_check_access
// CHECK:   llvm.load
// CHECK: } else {
// CHECK: %[[EN:.*]] = arith.extui %{{.*}} : i1 to i32
// CHECK: %[[SIZE:.*]] = arith.constant 2 : i64
// CHECK: %[[SITE:.*]] = arith.constant 0 : i32
// CHECK: %[[OK:.*]] = {{(func\.)?}}call @__kiln_host_check_access(%{{.*}}, %[[SIZE]], %[[SITE]], %[[EN]], %[[PX]], %[[PY]], %[[PZ]])
// CHECK: %[[GO:.*]] = arith.cmpi ne, %[[OK]], %{{.*}} : i32
// CHECK: scf.if %[[GO]] -> (f16)
// CHECK:   llvm.load
// A scalar access has only its own check.
// CHECK: arith.constant 1 : i32
// CHECK-NOT: __kiln_host_check_span
// CHECK: call @__kiln_host_check_access
// CHECK: llvm.store

// UNCHECKED-NOT: __kiln_host_check_access
// UNCHECKED-NOT: __kiln_host_check_span
// UNCHECKED-NOT: kiln.host.access_sites
func.func @copy(%src: tensor<4x!tile.ptr<f16>>, %dst: !tile.ptr<f16>, %m: tensor<4xi1>) {
  %v = tile.load %src, %m : tensor<4x!tile.ptr<f16>> -> tensor<4xf16>
  %s = tile.reduce %v axis 0 : tensor<4xf16> -> f16 {
  ^bb0(%a: f16, %b: f16):
    %r = arith.addf %a, %b : f16
    tile.yield %r : f16
  }
  tile.store %dst, %s : !tile.ptr<f16>, f16
  return
}

// Pointers advanced in a loop keep the argument they came from.
func.func @walk(%src: !tile.ptr<f32>, %dst: !tile.ptr<f32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = tile.range 0 to 8 : tensor<8xi32>
  %step = arith.constant 8 : i32
  %ss = tile.splat %src : !tile.ptr<f32> -> tensor<8x!tile.ptr<f32>>
  %s0 = tile.addptr %ss, %r : tensor<8x!tile.ptr<f32>>, tensor<8xi32>
  %ds = tile.splat %dst : !tile.ptr<f32> -> tensor<8x!tile.ptr<f32>>
  %d0 = tile.addptr %ds, %r : tensor<8x!tile.ptr<f32>>, tensor<8xi32>
  %s1, %d1 = scf.for %i = %c0 to %n step %c1 iter_args(%s = %s0, %d = %d0)
      -> (tensor<8x!tile.ptr<f32>>, tensor<8x!tile.ptr<f32>>) {
    %v = tile.load %s : tensor<8x!tile.ptr<f32>> -> tensor<8xf32>
    tile.store %d, %v : tensor<8x!tile.ptr<f32>>, tensor<8xf32>
    %steps = tile.splat %step : i32 -> tensor<8xi32>
    %sn = tile.addptr %s, %steps : tensor<8x!tile.ptr<f32>>, tensor<8xi32>
    %dn = tile.addptr %d, %steps : tensor<8x!tile.ptr<f32>>, tensor<8xi32>
    scf.yield %sn, %dn : tensor<8x!tile.ptr<f32>>, tensor<8x!tile.ptr<f32>>
  }
  return
}

// A pointer that may come from either of two arguments has no one origin.
func.func @either(%a: !tile.ptr<i32>, %b: !tile.ptr<i32>, %c: i1) {
  %p = arith.select %c, %a, %b : !tile.ptr<i32>
  %one = arith.constant 1 : i32
  %old = tile.atomic_rmw add relaxed gpu %p, %one : !tile.ptr<i32>, i32
  return
}

// An address made a pointer may lie in memory the launch was not given (a
// table of pointers, as in Triton's grouped GEMM): not checked. The table
// is.
// CHECK-LABEL: func.func @raw
// CHECK: call @__kiln_host_check_access
// CHECK: llvm.load
// CHECK-NOT: __kiln_host_check
// CHECK: llvm.store
// CHECK: return
func.func @raw(%table: !tile.ptr<i64>) {
  %address = tile.load %table : !tile.ptr<i64> -> i64
  %p = tile.int_to_ptr %address : i64 -> !tile.ptr<f32>
  %zero = arith.constant 0.0 : f32
  tile.store %p, %zero : !tile.ptr<f32>, f32
  return
}
