// RUN: kiln-opt %s -split-input-file -pass-pipeline='builtin.module(gpu.module(kiln-float8-to-nvvm))' | FileCheck %s

// Widening e4m3 takes the codes (as bytes) two by two into
// cvt.rn.f16x2.e4m3x2; an odd count's last code is converted in a pair
// with itself. A wider result converts each pair of f16 (exactly), and the
// pairs' elements make the result.
// CHECK-LABEL: func.func @widen
// CHECK: %[[BYTES:.*]] = arith.bitcast %{{.*}} : vector<3xf8E4M3FN> to vector<3xi8>
// CHECK: %[[P0:.*]] = vector.shuffle %[[BYTES]], %[[BYTES]] [0, 1] : vector<3xi8>, vector<3xi8>
// CHECK: %[[P1:.*]] = vector.shuffle %[[BYTES]], %[[BYTES]] [2, 2] : vector<3xi8>, vector<3xi8>
// CHECK: %[[H0:.*]] = nvvm.convert.f8x2.to.f16x2 %[[P0]] : vector<2xi8>(f8E4M3FN) -> vector<2xf16>
// CHECK: %[[W0:.*]] = arith.extf %[[H0]] : vector<2xf16> to vector<2xf32>
// CHECK: %[[H1:.*]] = nvvm.convert.f8x2.to.f16x2 %[[P1]] : vector<2xi8>(f8E4M3FN) -> vector<2xf16>
// CHECK: %[[W1:.*]] = arith.extf %[[H1]] : vector<2xf16> to vector<2xf32>
// CHECK: %[[E0:.*]] = vector.extract %[[W0]][0]
// CHECK: %[[E1:.*]] = vector.extract %[[W0]][1]
// CHECK: %[[E2:.*]] = vector.extract %[[W1]][0]
// CHECK: vector.from_elements %[[E0]], %[[E1]], %[[E2]] : vector<3xf32>
gpu.module @kernels {
func.func @widen(%x: vector<3xf8E4M3FN>) -> vector<3xf32> {
  %w = arith.extf %x : vector<3xf8E4M3FN> to vector<3xf32>
  return %w : vector<3xf32>
}
}

// -----

// Narrowing to e5m2 from f16 goes through f32 (exact), then
// cvt.rn.satfinite.e5m2x2.f32 on each pair, whose first operand is the
// pair's high byte: element 1. An even count is made of the pairs as
// 16-bit words.
// CHECK-LABEL: func.func @narrow
// CHECK: %[[X:.*]] = arith.extf %{{.*}} : vector<2xf16> to vector<2xf32>
// CHECK: %[[X0:.*]] = vector.extract %[[X]][0]
// CHECK: %[[X1:.*]] = vector.extract %[[X]][1]
// CHECK: %[[PAIR:.*]] = nvvm.convert.f32x2.to.f8x2 %[[X1]], %[[X0]] {rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>} : i16(f8E5M2)
// CHECK: %[[WORDS:.*]] = vector.from_elements %[[PAIR]] : vector<1xi16>
// CHECK: %[[BYTES:.*]] = vector.bitcast %[[WORDS]] : vector<1xi16> to vector<2xi8>
// CHECK: %[[CODES:.*]] = arith.bitcast %[[BYTES]] : vector<2xi8> to vector<2xf8E5M2>
// CHECK: return %[[CODES]]
gpu.module @kernels {
func.func @narrow(%x: vector<2xf16>) -> vector<2xf8E5M2> {
  %n = arith.truncf %x : vector<2xf16> to vector<2xf8E5M2>
  return %n : vector<2xf8E5M2>
}
}

// -----

// A scalar is a pair with itself; bf16 results come from the f16 through
// f32 (exactly: 8-bit values fit bf16).
// CHECK-LABEL: func.func @scalars
// CHECK: nvvm.convert.f8x2.to.f16x2 %{{.*}} : vector<2xi8>(f8E5M2) -> vector<2xf16>
// CHECK: %[[F32:.*]] = arith.extf %{{.*}} : vector<2xf16> to vector<2xf32>
// CHECK: %[[BF16:.*]] = arith.truncf %[[F32]] : vector<2xf32> to vector<2xbf16>
// CHECK: vector.extract %[[BF16]][0] : bf16 from vector<2xbf16>
// CHECK: %[[D:.*]] = vector.from_elements %{{.*}}, %{{.*}} : vector<2xf64>
// CHECK: arith.truncf %[[D]] : vector<2xf64> to vector<2xf32>
// CHECK: %[[CODE:.*]] = nvvm.convert.f32x2.to.f8x2 %{{.*}}, %{{.*}} {{.*}} : vector<2xi8>(f8E4M3FN)
// CHECK: %[[BYTE:.*]] = vector.extract %[[CODE]][0] : i8 from vector<2xi8>
// CHECK: arith.bitcast %[[BYTE]] : i8 to f8E4M3FN
gpu.module @kernels {
func.func @scalars(%x: f8E5M2, %y: f64) -> (bf16, f8E4M3FN) {
  %w = arith.extf %x : f8E5M2 to bf16
  %n = arith.truncf %y : f64 to f8E4M3FN
  return %w, %n : bf16, f8E4M3FN
}
}

// -----

// The FNUZ formats have no cvt: they stay for tile-expand-float8, as do
// tensors (which the pass never sees on the GPU: tiles are vectors by
// then).
// CHECK-LABEL: func.func @others
// CHECK: arith.extf %{{.*}} : vector<4xf8E4M3FNUZ> to vector<4xf32>
// CHECK: arith.truncf %{{.*}} : vector<4xf32> to vector<4xf8E5M2FNUZ>
// CHECK: arith.extf %{{.*}} : tensor<4xf8E4M3FN> to tensor<4xf32>
// CHECK-NOT: nvvm.convert
gpu.module @kernels {
func.func @others(%x: vector<4xf8E4M3FNUZ>, %t: tensor<4xf8E4M3FN>) -> (vector<4xf8E5M2FNUZ>, tensor<4xf32>) {
  %w = arith.extf %x : vector<4xf8E4M3FNUZ> to vector<4xf32>
  %n = arith.truncf %w : vector<4xf32> to vector<4xf8E5M2FNUZ>
  %v = arith.extf %t : tensor<4xf8E4M3FN> to tensor<4xf32>
  return %n, %v : vector<4xf8E5M2FNUZ>, tensor<4xf32>
}
}
