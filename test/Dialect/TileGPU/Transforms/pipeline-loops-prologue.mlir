// RUN: kiln-opt %s -tile-assign-layouts="compute-capability=90 arch-specific=1" -tile-pipeline-loops | FileCheck %s
// RUN: kiln-opt %s -tile-assign-layouts -tile-pipeline-loops | FileCheck %s --check-prefix=SM80

// A computation before the product that is not elementwise (a prologue,
// here each row of A scaled by its maximum, cast to f16): A's load feeds a
// reduction, not only dots through elementwise ops, so only B is staged. The K indices of a step feed both
// loads: the copies two steps ahead compute them from the induction
// variable shifted, and the rest of the body computes them again for its
// own step (they depend on nothing the loop carries). On sm_90a the dot
// becomes a warpgroup_dot with A in registers and B in its slot; on sm_80
// it reads B's slot as a dot operand where the body converted B, just
// before the dot, so that B's registers are not live through A's prologue.
// CHECK-LABEL: func.func @cast_a
// CHECK: %[[B:.*]] = tilegpu.local_alloc : memref<3x32x64xf16, 3>
// CHECK: scf.for %[[K:[^ ]*]] = {{.*}} iter_args(%[[ACC:[^ ]*]] = %{{.*}})
// CHECK:   %[[SLOT:.*]] = arith.remui
// CHECK:   tilegpu.async_wait 1
// CHECK-NEXT: tilegpu.fence_async_shared
// CHECK-NEXT: gpu.barrier
// CHECK:   %[[AHEAD:.*]] = arith.addi %[[K]], %{{.*}} : i32
// CHECK:   tile.splat %[[AHEAD]] : i32 -> tensor<32xi32
// CHECK:   tilegpu.async_copy {{.*}} into %[[B]]
// CHECK:   tilegpu.async_commit_group
// CHECK:   tile.splat %[[K]] : i32 -> tensor<32xi32
// CHECK:   %[[AF:.*]] = tile.load
// CHECK:   tile.reduce %[[AF]] axis 1
// CHECK:   %[[AS:.*]] = arith.mulf %[[AF]],
// CHECK:   %[[AH:.*]] = arith.truncf %[[AS]]
// CHECK:   %[[A:.*]] = tilegpu.convert_layout %[[AH]]
// CHECK:   tilegpu.warpgroup_dot %[[A]], %[[B]][%[[SLOT]]], %[[ACC]] : tensor<64x32xf16, #{{.*}}>, memref<3x32x64xf16, 3>
// SM80-LABEL: func.func @cast_a
// SM80: scf.for %[[K:[^ ]*]] =
// SM80-NOT: tilegpu.local_load
// SM80:   tile.splat %[[K]] : i32 -> tensor<32xi32
// SM80:   %[[AD:.*]] = tilegpu.convert_layout
// SM80-NEXT: %[[BD:.*]] = tilegpu.local_load
// SM80-NEXT: tile.dot %[[AD]], %[[BD]],
func.func @cast_a(%a: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %b: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %c: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %K: i32 {tile.divisibility = 16 : i64}) {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %r64 = tile.range 0 to 64 : tensor<64xi32>
  %r32 = tile.range 0 to 32 : tensor<32xi32>
  %rows = tile.expand_dims %r64 axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %cols = tile.expand_dims %r64 axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %Ks = tile.splat %K : i32 -> tensor<64x1xi32>
  %arow = arith.muli %rows, %Ks : tensor<64x1xi32>
  %arowb = tile.broadcast %arow : tensor<64x1xi32> -> tensor<64x32xi32>
  %c64s = arith.constant dense<64> : tensor<32x1xi32>
  %colsb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<32x64xi32>
  %abase = tile.splat %a : !tile.ptr<f32> -> tensor<64x32x!tile.ptr<f32>>
  %bbase = tile.splat %b : !tile.ptr<f16> -> tensor<32x64x!tile.ptr<f16>>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%acc_i = %zero) -> (tensor<64x64xf32>) : i32 {
    // The K indices of this step feed both loads.
    %ks0 = tile.splat %k : i32 -> tensor<32xi32>
    %ks = arith.addi %ks0, %r32 : tensor<32xi32>
    %kr = tile.expand_dims %ks axis 0 : tensor<32xi32> -> tensor<1x32xi32>
    %krb = tile.broadcast %kr : tensor<1x32xi32> -> tensor<64x32xi32>
    %aoff = arith.addi %arowb, %krb : tensor<64x32xi32>
    %ap = tile.addptr %abase, %aoff : tensor<64x32x!tile.ptr<f32>>, tensor<64x32xi32>
    %af = tile.load %ap : tensor<64x32x!tile.ptr<f32>> -> tensor<64x32xf32>
    %max = tile.reduce %af axis 1 : tensor<64x32xf32> -> tensor<64xf32> {
    ^bb0(%x: f32, %y: f32):
      %m = arith.maximumf %x, %y : f32
      tile.yield %m : f32
    }
    %mx = tile.expand_dims %max axis 1 : tensor<64xf32> -> tensor<64x1xf32>
    %mb = tile.broadcast %mx : tensor<64x1xf32> -> tensor<64x32xf32>
    %as = arith.mulf %af, %mb : tensor<64x32xf32>
    %ah = arith.truncf %as : tensor<64x32xf32> to tensor<64x32xf16>
    %kc = tile.expand_dims %ks axis 1 : tensor<32xi32> -> tensor<32x1xi32>
    %brow = arith.muli %kc, %c64s : tensor<32x1xi32>
    %browb = tile.broadcast %brow : tensor<32x1xi32> -> tensor<32x64xi32>
    %boff = arith.addi %browb, %colsb : tensor<32x64xi32>
    %bp = tile.addptr %bbase, %boff : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
    %bh = tile.load %bp : tensor<32x64x!tile.ptr<f16>> -> tensor<32x64xf16>
    %d = tile.dot %ah, %bh, %acc_i : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  %cbase = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %c64r = arith.constant dense<64> : tensor<64x1xi32>
  %crow = arith.muli %rows, %c64r : tensor<64x1xi32>
  %crowb = tile.broadcast %crow : tensor<64x1xi32> -> tensor<64x64xi32>
  %ccolb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<64x64xi32>
  %coff = arith.addi %crowb, %ccolb : tensor<64x64xi32>
  %cp = tile.addptr %cbase, %coff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %cp, %acc : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}

// A load that reaches the dot only through a cast (`a.to(tl.float16)`,
// int8 or 8-bit float weights widened) is staged too, as Triton stages
// it: read back from its slot in its own layout, then cast and converted.
// Nothing of stage 0 is computed again.
// CHECK-LABEL: func.func @cast_only_a
// CHECK: %[[A2:.*]] = tilegpu.local_alloc : memref<3x64x32xf32, 3>
// CHECK: %[[B2:.*]] = tilegpu.local_alloc : memref<3x32x64xf16, 3>
// CHECK: scf.for
// CHECK:   %[[SLOT2:.*]] = arith.remui
// CHECK:   tilegpu.async_copy {{.*}} into %[[A2]]
// CHECK:   tilegpu.async_copy {{.*}} into %[[B2]]
// CHECK:   tilegpu.async_commit_group
// CHECK-NEXT: %[[AF2:.*]] = tilegpu.local_load %[[A2]][%[[SLOT2]]] : memref<3x64x32xf32, 3> -> tensor<64x32xf32, #{{.*}}>
// CHECK-NEXT: %[[AH2:.*]] = arith.truncf %[[AF2]]
// CHECK-NEXT: %[[AD2:.*]] = tilegpu.convert_layout %[[AH2]]
// CHECK-NEXT: tilegpu.warpgroup_dot %[[AD2]], %[[B2]][%[[SLOT2]]]
// CHECK-NOT: tile.load
// SM80-LABEL: func.func @cast_only_a
// SM80: tilegpu.async_copy
// SM80: tilegpu.async_copy
// SM80: tilegpu.local_load
// SM80: arith.truncf
// SM80: tile.dot
func.func @cast_only_a(%a: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %b: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %c: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %K: i32 {tile.divisibility = 16 : i64}) {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %r64 = tile.range 0 to 64 : tensor<64xi32>
  %r32 = tile.range 0 to 32 : tensor<32xi32>
  %rows = tile.expand_dims %r64 axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %cols = tile.expand_dims %r64 axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %Ks = tile.splat %K : i32 -> tensor<64x1xi32>
  %arow = arith.muli %rows, %Ks : tensor<64x1xi32>
  %arowb = tile.broadcast %arow : tensor<64x1xi32> -> tensor<64x32xi32>
  %c64s = arith.constant dense<64> : tensor<32x1xi32>
  %colsb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<32x64xi32>
  %abase = tile.splat %a : !tile.ptr<f32> -> tensor<64x32x!tile.ptr<f32>>
  %bbase = tile.splat %b : !tile.ptr<f16> -> tensor<32x64x!tile.ptr<f16>>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%acc_i = %zero) -> (tensor<64x64xf32>) : i32 {
    %ks0 = tile.splat %k : i32 -> tensor<32xi32>
    %ks = arith.addi %ks0, %r32 : tensor<32xi32>
    %kr = tile.expand_dims %ks axis 0 : tensor<32xi32> -> tensor<1x32xi32>
    %krb = tile.broadcast %kr : tensor<1x32xi32> -> tensor<64x32xi32>
    %aoff = arith.addi %arowb, %krb : tensor<64x32xi32>
    %ap = tile.addptr %abase, %aoff : tensor<64x32x!tile.ptr<f32>>, tensor<64x32xi32>
    %af = tile.load %ap : tensor<64x32x!tile.ptr<f32>> -> tensor<64x32xf32>
    %ah = arith.truncf %af : tensor<64x32xf32> to tensor<64x32xf16>
    %kc = tile.expand_dims %ks axis 1 : tensor<32xi32> -> tensor<32x1xi32>
    %brow = arith.muli %kc, %c64s : tensor<32x1xi32>
    %browb = tile.broadcast %brow : tensor<32x1xi32> -> tensor<32x64xi32>
    %boff = arith.addi %browb, %colsb : tensor<32x64xi32>
    %bp = tile.addptr %bbase, %boff : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
    %bh = tile.load %bp : tensor<32x64x!tile.ptr<f16>> -> tensor<32x64xf16>
    %d = tile.dot %ah, %bh, %acc_i : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  %cbase = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %c64r = arith.constant dense<64> : tensor<64x1xi32>
  %crow = arith.muli %rows, %c64r : tensor<64x1xi32>
  %crowb = tile.broadcast %crow : tensor<64x1xi32> -> tensor<64x64xi32>
  %ccolb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<64x64xi32>
  %coff = arith.addi %crowb, %ccolb : tensor<64x64xi32>
  %cp = tile.addptr %cbase, %coff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %cp, %acc : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}

// A load that reaches the dot through other elementwise ops (here A * A,
// then the cast) is staged as well, and the ops follow its slot's read.
// CHECK-LABEL: func.func @squared_a
// CHECK: %[[A3:.*]] = tilegpu.local_alloc : memref<3x64x32xf32, 3>
// CHECK: %[[B3:.*]] = tilegpu.local_alloc : memref<3x32x64xf16, 3>
// CHECK: scf.for
// CHECK:   %[[SLOT3:.*]] = arith.remui
// CHECK:   tilegpu.async_copy {{.*}} into %[[A3]]
// CHECK:   tilegpu.async_copy {{.*}} into %[[B3]]
// CHECK:   tilegpu.async_commit_group
// CHECK-NEXT: %[[AF3:.*]] = tilegpu.local_load %[[A3]][%[[SLOT3]]] : memref<3x64x32xf32, 3> -> tensor<64x32xf32, #{{.*}}>
// CHECK-NEXT: %[[AS3:.*]] = arith.mulf %[[AF3]], %[[AF3]]
// CHECK-NEXT: %[[AH3:.*]] = arith.truncf %[[AS3]]
// CHECK-NEXT: %[[AD3:.*]] = tilegpu.convert_layout %[[AH3]]
// CHECK-NEXT: tilegpu.warpgroup_dot %[[AD3]], %[[B3]][%[[SLOT3]]]
// SM80-LABEL: func.func @squared_a
// SM80: tilegpu.async_copy
// SM80: tilegpu.async_copy
// SM80: tilegpu.local_load
// SM80: arith.mulf
// SM80: tile.dot
func.func @squared_a(%a: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %b: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %c: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %K: i32 {tile.divisibility = 16 : i64}) {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %r64 = tile.range 0 to 64 : tensor<64xi32>
  %r32 = tile.range 0 to 32 : tensor<32xi32>
  %rows = tile.expand_dims %r64 axis 1 : tensor<64xi32> -> tensor<64x1xi32>
  %cols = tile.expand_dims %r64 axis 0 : tensor<64xi32> -> tensor<1x64xi32>
  %Ks = tile.splat %K : i32 -> tensor<64x1xi32>
  %arow = arith.muli %rows, %Ks : tensor<64x1xi32>
  %arowb = tile.broadcast %arow : tensor<64x1xi32> -> tensor<64x32xi32>
  %c64s = arith.constant dense<64> : tensor<32x1xi32>
  %colsb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<32x64xi32>
  %abase = tile.splat %a : !tile.ptr<f32> -> tensor<64x32x!tile.ptr<f32>>
  %bbase = tile.splat %b : !tile.ptr<f16> -> tensor<32x64x!tile.ptr<f16>>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%acc_i = %zero) -> (tensor<64x64xf32>) : i32 {
    // The K indices of this step feed both loads.
    %ks0 = tile.splat %k : i32 -> tensor<32xi32>
    %ks = arith.addi %ks0, %r32 : tensor<32xi32>
    %kr = tile.expand_dims %ks axis 0 : tensor<32xi32> -> tensor<1x32xi32>
    %krb = tile.broadcast %kr : tensor<1x32xi32> -> tensor<64x32xi32>
    %aoff = arith.addi %arowb, %krb : tensor<64x32xi32>
    %ap = tile.addptr %abase, %aoff : tensor<64x32x!tile.ptr<f32>>, tensor<64x32xi32>
    %af = tile.load %ap : tensor<64x32x!tile.ptr<f32>> -> tensor<64x32xf32>
    %as = arith.mulf %af, %af : tensor<64x32xf32>
    %ah = arith.truncf %as : tensor<64x32xf32> to tensor<64x32xf16>
    %kc = tile.expand_dims %ks axis 1 : tensor<32xi32> -> tensor<32x1xi32>
    %brow = arith.muli %kc, %c64s : tensor<32x1xi32>
    %browb = tile.broadcast %brow : tensor<32x1xi32> -> tensor<32x64xi32>
    %boff = arith.addi %browb, %colsb : tensor<32x64xi32>
    %bp = tile.addptr %bbase, %boff : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
    %bh = tile.load %bp : tensor<32x64x!tile.ptr<f16>> -> tensor<32x64xf16>
    %d = tile.dot %ah, %bh, %acc_i : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  %cbase = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %c64r = arith.constant dense<64> : tensor<64x1xi32>
  %crow = arith.muli %rows, %c64r : tensor<64x1xi32>
  %crowb = tile.broadcast %crow : tensor<64x1xi32> -> tensor<64x64xi32>
  %ccolb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<64x64xi32>
  %coff = arith.addi %crowb, %ccolb : tensor<64x64xi32>
  %cp = tile.addptr %cbase, %coff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %cp, %acc : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}
