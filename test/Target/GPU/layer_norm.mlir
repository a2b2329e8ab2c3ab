// REQUIRES: libdevice
// RUN: kiln-opt %kiln_examples/layer_norm.mlir -tile-specialize-arguments="divisible=0,1,2,3,4,5" | kiln-translate --chip=sm_80 | FileCheck %s
// RUN: kiln-opt %kiln_examples/layer_norm.mlir -tile-specialize-arguments="divisible=0,1,2,3,4,5" | kiln-translate --chip=sm_90a | FileCheck %s
// RUN: kiln-translate %kiln_examples/layer_norm.mlir | FileCheck %s --check-prefix=RAGGED
// RUN: %if ptxas %{ kiln-opt %kiln_examples/layer_norm.mlir -tile-specialize-arguments="divisible=0,1,2,3,4,5" | kiln-translate --chip=sm_80 | %ptxas -arch=sm_80 %}
// RUN: %if ptxas %{ kiln-opt %kiln_examples/layer_norm.mlir -tile-specialize-arguments="divisible=0,1,2,3,4,5" | kiln-translate --chip=sm_90a | %ptxas -arch=sm_90a %}
// RUN: %if ptxas %{ kiln-translate %kiln_examples/layer_norm.mlir --chip=sm_90a | %ptxas -arch=sm_90a %}

// docs/examples/layer_norm.mlir on the GPU: a row mean and variance.
// Specialized as a launch with 16-byte-aligned arrays and sizes that are
// multiples of 16 would be, each thread moves 16 bytes per access, and a
// mask predicates the access rather than branching around it.
// CHECK-LABEL: .entry layer_norm(
// CHECK: .maxntid 128, 1, 1
// CHECK-COUNT-2: @%p{{[0-9]+}} ld.global.v4.b32
// CHECK-COUNT-5: shfl.sync.bfly.b32
// CHECK: bar.sync
// CHECK-COUNT-5: shfl.sync.bfly.b32
// CHECK: rsqrt.approx
// CHECK-COUNT-2: @%p{{[0-9]+}} st.global.v4.b32

// Without those facts, every element is its own predicated access.
// RAGGED-LABEL: .entry layer_norm(
// RAGGED-NOT: ld.global.v
// RAGGED: @%p{{[0-9]+}} ld.global.b32
// RAGGED-NOT: ld.global.v
// RAGGED: @%p{{[0-9]+}} st.global.b32
