// RUN: kiln-opt %s -split-input-file -tile-assign-layouts -kiln-convert-tile-to-gpu | FileCheck %s

// tile.extern_elementwise: one llvm.call of the libdevice function per
// register of a thread, declared once in the gpu.module with the
// registers' types. Here each thread holds two elements of each tile:
// two calls of __nv_hypotf, two of __nv_jnf (an i32 and an f32), and one
// declaration of each however many calls.
// CHECK-LABEL: gpu.module @kiln
// CHECK-DAG: llvm.func @__nv_hypotf(f32, f32) -> f32
// CHECK-DAG: llvm.func @__nv_jnf(i32, f32) -> f32
// CHECK-LABEL: gpu.func @bessel
// CHECK: %[[X:.*]] = vector.from_elements %{{.*}}, %{{.*}} : vector<2xf32>
// CHECK: %[[N:.*]] = vector.from_elements %{{.*}}, %{{.*}} : vector<2xi32>
// CHECK: %[[X0:.*]] = vector.extract %[[X]][0] : f32 from vector<2xf32>
// CHECK: %[[X0B:.*]] = vector.extract %[[X]][0] : f32 from vector<2xf32>
// CHECK: %[[H0:.*]] = llvm.call @__nv_hypotf(%[[X0]], %[[X0B]]) : (f32, f32) -> f32
// CHECK: %[[X1:.*]] = vector.extract %[[X]][1] : f32 from vector<2xf32>
// CHECK: %[[X1B:.*]] = vector.extract %[[X]][1] : f32 from vector<2xf32>
// CHECK: %[[H1:.*]] = llvm.call @__nv_hypotf(%[[X1]], %[[X1B]]) : (f32, f32) -> f32
// CHECK: %[[H:.*]] = vector.from_elements %[[H0]], %[[H1]] : vector<2xf32>
// CHECK: %[[N0:.*]] = vector.extract %[[N]][0] : i32 from vector<2xi32>
// CHECK: %[[H0B:.*]] = vector.extract %[[H]][0] : f32 from vector<2xf32>
// CHECK: %[[J0:.*]] = llvm.call @__nv_jnf(%[[N0]], %[[H0B]]) : (i32, f32) -> f32
// CHECK: %[[N1:.*]] = vector.extract %[[N]][1] : i32 from vector<2xi32>
// CHECK: %[[H1B:.*]] = vector.extract %[[H]][1] : f32 from vector<2xf32>
// CHECK: %[[J1:.*]] = llvm.call @__nv_jnf(%[[N1]], %[[H1B]]) : (i32, f32) -> f32
// CHECK: vector.from_elements %[[J0]], %[[J1]] : vector<2xf32>
// CHECK: %{{.*}} = llvm.call @__nv_hypotf(
// CHECK-NOT: llvm.func @__nv
func.func @bessel(%px: !tile.ptr<f32>, %pn: !tile.ptr<i32>) {
  %r = tile.range 0 to 256 : tensor<256xi32>
  %xs = tile.splat %px : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  %x = tile.load %xp : tensor<256x!tile.ptr<f32>> -> tensor<256xf32>
  %ns = tile.splat %pn : !tile.ptr<i32> -> tensor<256x!tile.ptr<i32>>
  %np = tile.addptr %ns, %r : tensor<256x!tile.ptr<i32>>, tensor<256xi32>
  %n = tile.load %np : tensor<256x!tile.ptr<i32>> -> tensor<256xi32>
  %h = tile.extern_elementwise "__nv_hypotf" host "hypotf" pure %x, %x : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
  %j = tile.extern_elementwise "__nv_jnf" host "jnf" pure %n, %h : (tensor<256xi32>, tensor<256xf32>) -> tensor<256xf32>
  %k = tile.extern_elementwise "__nv_hypotf" host "hypotf" pure %j, %x : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
  tile.store %xp, %k : tensor<256x!tile.ptr<f32>>, tensor<256xf32>
  return
}

// -----

// Scalars: one call, of f64 and i32 here (__nv_ilogb), with side effects.
// CHECK-LABEL: gpu.module @kiln
// CHECK: llvm.func @__nv_ilogb(f64) -> i32
// CHECK-LABEL: gpu.func @scalar
// CHECK-SAME: (%{{.*}}: !llvm.ptr<1>, %[[D:.*]]: f64)
// CHECK: llvm.call @__nv_ilogb(%[[D]]) : (f64) -> i32
func.func @scalar(%p: !tile.ptr<i32>, %d: f64) {
  %e = tile.extern_elementwise "__nv_ilogb" host "ilogb" %d : (f64) -> i32
  tile.store %p, %e : !tile.ptr<i32>, i32
  return
}
