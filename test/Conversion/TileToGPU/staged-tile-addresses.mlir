// RUN: kiln-opt %s -tile-assign-layouts -kiln-convert-tile-to-gpu | FileCheck %s
// RUN: kiln-translate %s --chip=sm_80 | FileCheck %s --check-prefix=PTX
// RUN: %if ptxas %{ kiln-translate %s --chip=sm_80 --emit=cubin -o /dev/null %}

// A 64x64 mma accumulator staged in swizzled shared memory for its store:
// its 16 runs of two registers take two addresses, the others being one
// of them plus the same constant in every thread, which folds into the
// access (a loop's epilogue would otherwise keep every run's address
// live through the loop); the blocked read-back's 8 runs take one.
// CHECK-LABEL: gpu.func @staged
// CHECK: arith.xori {{.*}} : vector<32xi32>
// CHECK-NEXT: vector.extract
// CHECK-NEXT: %[[A:.*]] = llvm.getelementptr %[[SCRATCH:.*]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK-NEXT: llvm.getelementptr %[[A]][1024] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: %[[B:.*]] = llvm.getelementptr %[[SCRATCH]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK-NEXT: llvm.getelementptr %[[B]][1024] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-COUNT-12: llvm.getelementptr %{{[0-9]+}}[{{[0-9]+}}] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-NOT: llvm.getelementptr %[[SCRATCH]]
// CHECK: llvm.store %{{.*}}, %[[A]] {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK: arith.xori {{.*}} : vector<32xi32>
// CHECK-NEXT: vector.extract
// CHECK-NEXT: %[[R:.*]] = llvm.getelementptr %[[SCRATCH]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK-COUNT-7: llvm.getelementptr %[[R]][{{[0-9]+}}] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-NOT: llvm.getelementptr %[[SCRATCH]]
// CHECK: llvm.load %[[R]] {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// PTX: st.shared.v2.b32 {{\[}}%[[S:r[0-9]+]]{{\]}}
// PTX-NEXT: st.shared.v2.b32 {{\[}}%[[S]]+1024{{\]}}
// PTX: ld.shared.v4.b32 {{.*}}, {{\[}}%[[L:r[0-9]+]]{{\]}}
// PTX-NEXT: ld.shared.v4.b32 {{.*}}, {{\[}}%[[L]]+1024{{\]}}
// PTX-NEXT: ld.shared.v4.b32 {{.*}}, {{\[}}%[[L]]+2048{{\]}}
func.func @staged(%a: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                  %b: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                  %c: !tile.ptr<f32> {tile.divisibility = 16 : i64}) {
  %r64 = tile.range 0 to 64 : tensor<64xi32>
  %r32 = tile.range 0 to 32 : tensor<32xi32>
  %am = tile.expand_dims %r64 axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %ak = tile.expand_dims %r32 axis 0 : tensor<32xi32> -> tensor<1x32xi32>
  %c32a = arith.constant dense<32> : tensor<64x1xi32>
  %amo = arith.muli %am, %c32a : tensor<64x1xi32>
  %amb = tile.broadcast %amo : tensor<64x1xi32> -> tensor<64x32xi32>
  %akb = tile.broadcast %ak : tensor<1x32xi32> -> tensor<64x32xi32>
  %aoff = arith.addi %amb, %akb : tensor<64x32xi32>
  %as = tile.splat %a : !tile.ptr<f16> -> tensor<64x32x!tile.ptr<f16>>
  %ap = tile.addptr %as, %aoff : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
  %bk = tile.expand_dims %r32 axis 1 : tensor<32xi32> -> tensor<32x1xi32>
  %bn = tile.expand_dims %r64 axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %c64b = arith.constant dense<64> : tensor<32x1xi32>
  %bko = arith.muli %bk, %c64b : tensor<32x1xi32>
  %bkb = tile.broadcast %bko : tensor<32x1xi32> -> tensor<32x64xi32>
  %bnb = tile.broadcast %bn : tensor<1x64xi32> -> tensor<32x64xi32>
  %boff = arith.addi %bkb, %bnb : tensor<32x64xi32>
  %bs = tile.splat %b : !tile.ptr<f16> -> tensor<32x64x!tile.ptr<f16>>
  %bp = tile.addptr %bs, %boff : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %va = tile.load %ap : tensor<64x32x!tile.ptr<f16>> -> tensor<64x32xf16>
  %vb = tile.load %bp : tensor<32x64x!tile.ptr<f16>> -> tensor<32x64xf16>
  %d = tile.dot %va, %vb, %zero : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  %cm = tile.expand_dims %r64 axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %cn = tile.expand_dims %r64 axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %c64 = arith.constant dense<64> : tensor<64x1xi32>
  %cmo = arith.muli %cm, %c64 : tensor<64x1xi32>
  %cmb = tile.broadcast %cmo : tensor<64x1xi32> -> tensor<64x64xi32>
  %cnb = tile.broadcast %cn : tensor<1x64xi32> -> tensor<64x64xi32>
  %coff = arith.addi %cmb, %cnb : tensor<64x64xi32>
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %cp = tile.addptr %cs, %coff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %cp, %d : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}
