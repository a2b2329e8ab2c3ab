// RUN: kiln-opt %s -kiln-host-gpu-results | FileCheck %s

// Shifts by a run-time amount clamp it, read unsigned, to the width, as
// PTX's shl and shr do: 0 past the width, or the sign for >> of signed
// integers. A constant amount below the width is left alone; one past it
// gets the same select (which canonicalization folds).
// CHECK-LABEL: func.func @shifts
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[S:.*]], %{{.*}} : tensor<8xi32>
// CHECK: %[[SHL:.*]] = arith.shli %{{.*}}, %[[S]] : tensor<8xi32>
// CHECK: %[[ZERO:.*]] = arith.constant dense<0> : tensor<8xi32>
// CHECK: %[[A:.*]] = arith.select %[[IN]], %[[SHL]], %[[ZERO]]
// CHECK: arith.shrui
// CHECK: %[[B:.*]] = arith.select
// CHECK: %[[IN3:.*]] = arith.cmpi ult, %[[S]], %{{.*}} : tensor<8xi32>
// CHECK: %[[W:.*]] = arith.constant dense<31> : tensor<8xi32>
// CHECK: %[[AMOUNT:.*]] = arith.select %[[IN3]], %[[S]], %[[W]]
// CHECK: %[[C:.*]] = arith.shrsi %{{.*}}, %[[AMOUNT]] : tensor<8xi32>
// CHECK: %[[THREE:.*]] = arith.constant 3 : i64
// CHECK-NEXT: %[[D:.*]] = arith.shli %{{.*}}, %[[THREE]] : i64
// CHECK-NEXT: arith.constant 64 : i64
// CHECK: arith.cmpi ult
// CHECK: %[[E:.*]] = arith.select
// CHECK: return %[[A]], %[[B]], %[[C]], %[[D]], %[[E]]

// A float converts to an integer as cvt.rzi does: a NaN is 0, a value past
// the range its nearest end; narrow floats compare as float32, where the
// ends are exact.
// CHECK-LABEL: func.func @conversions
// CHECK: %[[TOP:.*]] = arith.cmpf oge, %[[F:.*]], %{{.*}} : tensor<8xf32>
// CHECK: %[[BOTTOM:.*]] = arith.cmpf olt, %[[F]], %{{.*}} : tensor<8xf32>
// CHECK: %[[NAN:.*]] = arith.cmpf uno, %[[F]], %[[F]] : tensor<8xf32>
// CHECK: %[[R:.*]] = arith.fptosi %[[F]] : tensor<8xf32> to tensor<8xi32>
// CHECK: %[[MIN:.*]] = arith.constant dense<-2147483648> : tensor<8xi32>
// CHECK: %[[LOW:.*]] = arith.select %[[BOTTOM]], %[[MIN]], %[[R]]
// CHECK: %[[MAX:.*]] = arith.constant dense<2147483647> : tensor<8xi32>
// CHECK: %[[HIGH:.*]] = arith.select %[[TOP]], %[[MAX]], %[[LOW]]
// CHECK: %[[Z:.*]] = arith.constant dense<0> : tensor<8xi32>
// CHECK: %[[A:.*]] = arith.select %[[NAN]], %[[Z]], %[[HIGH]]
// CHECK: %[[WIDE:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK: arith.cmpf oge, %[[WIDE]], %{{.*}} : f32
// CHECK: arith.fptosi %{{.*}} : f16 to i64
// CHECK: %[[UTOP:.*]] = arith.constant 0x41F0000000000000 : f64
// CHECK: arith.cmpf oge, %{{.*}}, %[[UTOP]] : f64
// CHECK: arith.constant 0.000000e+00 : f64
// CHECK: arith.fptoui %{{.*}} : f64 to i32
// CHECK: arith.constant -1 : i32
// CHECK: return %[[A]],
func.func @shifts(%x: tensor<8xi32>, %s: tensor<8xi32>, %y: i64) -> (tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, i64, i64) {
  %a = arith.shli %x, %s : tensor<8xi32>
  %b = arith.shrui %x, %s : tensor<8xi32>
  %c = arith.shrsi %x, %s : tensor<8xi32>
  %c3 = arith.constant 3 : i64
  %d = arith.shli %y, %c3 : i64
  %c64 = arith.constant 64 : i64
  %e = arith.shli %y, %c64 : i64
  return %a, %b, %c, %d, %e : tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, i64, i64
}
func.func @conversions(%f: tensor<8xf32>, %h: f16, %d: f64) -> (tensor<8xi32>, i64, i32) {
  %a = arith.fptosi %f : tensor<8xf32> to tensor<8xi32>
  %b = arith.fptosi %h : f16 to i64
  %c = arith.fptoui %d : f64 to i32
  return %a, %b, %c : tensor<8xi32>, i64, i32
}

// To fewer than 16 bits, as the GPU converts (PTX has no 8-bit registers):
// cvt.rzi to 16 bits, saturated there, and the low bits kept.
// CHECK-LABEL: func.func @narrow_conversions
// CHECK: arith.fptosi %{{.*}} : tensor<8xf32> to tensor<8xi16>
// CHECK: arith.constant dense<-32768> : tensor<8xi16>
// CHECK: arith.constant dense<32767> : tensor<8xi16>
// CHECK: arith.constant dense<0> : tensor<8xi16>
// CHECK-NEXT: %[[S8:.*]] = arith.select
// CHECK-NEXT: %[[A8:.*]] = arith.trunci %[[S8]] : tensor<8xi16> to tensor<8xi8>
// CHECK: arith.fptoui %{{.*}} : f32 to i16
// CHECK: arith.constant -1 : i16
// CHECK: arith.select
// CHECK-NEXT: arith.constant 0 : i16
// CHECK-NEXT: %[[SU:.*]] = arith.select
// CHECK-NEXT: %[[U8:.*]] = arith.trunci %[[SU]] : i16 to i8
// CHECK-NEXT: return %[[A8]], %[[U8]]
func.func @narrow_conversions(%x: tensor<8xf32>, %y: f32) -> (tensor<8xi8>, i8) {
  %a = arith.fptosi %x : tensor<8xf32> to tensor<8xi8>
  %b = arith.fptoui %y : f32 to i8
  return %a, %b : tensor<8xi8>, i8
}

// Of equal operands, a maximum is the bits of both and-ed and a minimum
// or-ed, as PTX's max and min order -0 below +0; in a reduction's region
// too.
// CHECK-LABEL: func.func @signed_zeros
// CHECK: %[[EQ:.*]] = arith.cmpf oeq, %[[X:.*]], %[[Y:.*]] : tensor<8xf32>
// CHECK: %[[XB:.*]] = arith.bitcast %[[X]] : tensor<8xf32> to tensor<8xi32>
// CHECK: %[[YB:.*]] = arith.bitcast %[[Y]] : tensor<8xf32> to tensor<8xi32>
// CHECK: %[[AND:.*]] = arith.andi %[[XB]], %[[YB]] : tensor<8xi32>
// CHECK: %[[ORDERED:.*]] = arith.bitcast %[[AND]] : tensor<8xi32> to tensor<8xf32>
// CHECK: %[[MAX:.*]] = arith.maxnumf %[[X]], %[[Y]] : tensor<8xf32>
// CHECK: %[[A:.*]] = arith.select %[[EQ]], %[[ORDERED]], %[[MAX]]
// CHECK: arith.ori %{{.*}}, %{{.*}} : i16
// CHECK: arith.minimumf %{{.*}}, %{{.*}} : f16
// CHECK: tile.reduce
// CHECK: arith.andi %{{.*}}, %{{.*}} : i32
// CHECK: arith.maxnumf %{{.*}}, %{{.*}} : f32
// CHECK: arith.select
// CHECK: tile.yield
// CHECK: return %[[A]]
func.func @signed_zeros(%x: tensor<8xf32>, %y: tensor<8xf32>, %a: f16,
                        %b: f16) -> (tensor<8xf32>, f16, f32) {
  %0 = arith.maxnumf %x, %y : tensor<8xf32>
  %1 = arith.minimumf %a, %b : f16
  %2 = tile.reduce %x axis 0 : tensor<8xf32> -> f32 {
  ^bb0(%l: f32, %r: f32):
    %m = arith.maxnumf %l, %r : f32
    tile.yield %m : f32
  }
  return %0, %1, %2 : tensor<8xf32>, f16, f32
}
