// RUN: kiln-translate %s --chip=sm_90a | FileCheck %s
// RUN: %if ptxas %{ kiln-translate %s --chip=sm_90a | %ptxas -arch=sm_90a %}
// RUN: %if ptxas %{ kiln-translate %s --chip=sm_80 | %ptxas -arch=sm_80 %}

// tile.map_elementwise through the whole GPU pipeline: the region's scf.if
// and scf.for become branches and a loop of their own for each element a
// thread holds (four here), so an element runs its branch alone: x ** n
// by n multiplications where x > 0, else alpha * expm1(x), which comes
// from libdevice. ptxas assembles it.
// CHECK-LABEL: .entry piecewise(
// CHECK: ld.global.v4.b32 {%r[[X0:[0-9]+]], %r[[X1:[0-9]+]], %r[[X2:[0-9]+]], %r[[X3:[0-9]+]]}
// CHECK: setp.leu.f32 %p[[P0:[0-9]+]], %r[[X0]], 0f00000000;
// CHECK-NEXT: @%p[[P0]] bra
// CHECK: mul.f32 %r{{[0-9]+}}, %r[[X0]], %r{{[0-9]+}};
// CHECK: ex2.approx.f32
// CHECK: setp.leu.f32 %p[[P1:[0-9]+]], %r[[X1]], 0f00000000;
// CHECK-NEXT: @%p[[P1]] bra
// CHECK: setp.leu.f32 %p[[P2:[0-9]+]], %r[[X2]], 0f00000000;
// CHECK-NEXT: @%p[[P2]] bra
// CHECK: setp.leu.f32 %p[[P3:[0-9]+]], %r[[X3]], 0f00000000;
// CHECK-NEXT: @%p[[P3]] bra
// CHECK-NOT: setp.leu.f32 %p{{[0-9]+}}, %r{{[0-9]+}}, 0f00000000;
// CHECK: ret;
func.func @piecewise(%px: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                     %pn: !tile.ptr<i32> {tile.divisibility = 16 : i64},
                     %py: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                     %alpha: f32) {
  %r = tile.range 0 to 512 : tensor<512xi32>
  %xs = tile.splat %px : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %x = tile.load %xp : tensor<512x!tile.ptr<f32>> -> tensor<512xf32>
  %ns = tile.splat %pn : !tile.ptr<i32> -> tensor<512x!tile.ptr<i32>>
  %np = tile.addptr %ns, %r : tensor<512x!tile.ptr<i32>>, tensor<512xi32>
  %n = tile.load %np : tensor<512x!tile.ptr<i32>> -> tensor<512xi32>
  %y = tile.map_elementwise %x, %n : (tensor<512xf32>, tensor<512xi32>) -> tensor<512xf32> {
  ^bb0(%xi: f32, %ni: i32):
    %zero = arith.constant 0.0 : f32
    %positive = arith.cmpf ogt, %xi, %zero : f32
    %yi = scf.if %positive -> f32 {
      %one = arith.constant 1.0 : f32
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %power = scf.for %i = %c0 to %ni step %c1 iter_args(%acc = %one) -> (f32) : i32 {
        %next = arith.mulf %acc, %xi : f32
        scf.yield %next : f32
      }
      scf.yield %power : f32
    } else {
      %e = math.expm1 %xi : f32
      %s = arith.mulf %alpha, %e : f32
      scf.yield %s : f32
    }
    tile.yield %yi : f32
  }
  %ys = tile.splat %py : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %yp = tile.addptr %ys, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  tile.store %yp, %y : tensor<512x!tile.ptr<f32>>, tensor<512xf32>
  return
}
