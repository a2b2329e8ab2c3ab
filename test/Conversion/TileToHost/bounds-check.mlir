// RUN: kiln-opt %s -kiln-convert-tile-to-host=bounds-check | FileCheck %s
// RUN: kiln-opt %s -kiln-convert-tile-to-host | FileCheck %s --check-prefix=UNCHECKED

// With bounds-check every access asks the runtime first, passing its
// address, size, site id, whether the mask enables it, and the program id;
// the module names each site.
// CHECK: module attributes {kiln.host.access_sites = ["{{.*}}bounds-check.mlir:[[@LINE+18]]:8: tile.load", "{{.*}}bounds-check.mlir:[[@LINE+24]]:3: tile.store"]}
// CHECK: func.func private @__kiln_host_check_access(i64, i64, i32, i32, i32, i32, i32) -> i32
// CHECK-LABEL: func.func @copy
// CHECK-SAME: %[[PX:[a-z0-9]+]]: i32, %[[PY:[a-z0-9]+]]: i32, %[[PZ:[a-z0-9]+]]: i32, %{{[a-z0-9]+}}: i32, %{{[a-z0-9]+}}: i32, %{{[a-z0-9]+}}: i32)
// CHECK: %[[EN:.*]] = arith.extui %{{.*}} : i1 to i32
// CHECK: %[[SIZE:.*]] = arith.constant 2 : i64
// CHECK: %[[SITE:.*]] = arith.constant 0 : i32
// CHECK: %[[OK:.*]] = {{(func\.)?}}call @__kiln_host_check_access(%{{.*}}, %[[SIZE]], %[[SITE]], %[[EN]], %[[PX]], %[[PY]], %[[PZ]])
// CHECK: %[[GO:.*]] = arith.cmpi ne, %[[OK]], %{{.*}} : i32
// CHECK: scf.if %[[GO]] -> (f16)
// CHECK:   llvm.load
// CHECK: arith.constant 1 : i32
// CHECK: call @__kiln_host_check_access
// CHECK: llvm.store

// UNCHECKED-NOT: __kiln_host_check_access
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
