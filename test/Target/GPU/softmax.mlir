// REQUIRES: libdevice
// RUN: kiln-opt %kiln_examples/softmax.mlir -tile-specialize-arguments="divisible=0,1,2,3" | kiln-translate --chip=sm_80 | FileCheck %s
// RUN: kiln-opt %kiln_examples/softmax.mlir -tile-specialize-arguments="divisible=0,1,2,3" | kiln-translate --chip=sm_90a | FileCheck %s
// RUN: kiln-translate %kiln_examples/softmax.mlir | FileCheck %s --check-prefix=RAGGED
// RUN: %if ptxas %{ kiln-opt %kiln_examples/softmax.mlir -tile-specialize-arguments="divisible=0,1,2,3" | kiln-translate --chip=sm_80 | %ptxas -arch=sm_80 %}
// RUN: %if ptxas %{ kiln-opt %kiln_examples/softmax.mlir -tile-specialize-arguments="divisible=0,1,2,3" | kiln-translate --chip=sm_90a | %ptxas -arch=sm_90a %}
// RUN: %if ptxas %{ kiln-translate %kiln_examples/softmax.mlir --chip=sm_90a | %ptxas -arch=sm_90a %}

// docs/examples/softmax.mlir on the GPU: a row max and a row sum: shuffles across lanes, shared memory across warps.
// Specialized as a launch with 16-byte-aligned arrays and sizes that are
// multiples of 16 would be, each thread moves 16 bytes per access, and a
// mask predicates the access rather than branching around it.
// CHECK-LABEL: .entry softmax(
// CHECK: .maxntid 128, 1, 1
// CHECK-COUNT-2: @%p{{[0-9]+}} ld.global.v4.b32
// CHECK-COUNT-5: shfl.sync.bfly.b32
// CHECK: bar.sync
// CHECK-COUNT-5: shfl.sync.bfly.b32
// CHECK-COUNT-2: @%p{{[0-9]+}} st.global.v4.b32

// Without those facts, every element is its own predicated access.
// RAGGED-LABEL: .entry softmax(
// RAGGED-NOT: ld.global.v
// RAGGED: @%p{{[0-9]+}} ld.global.b32
// RAGGED-NOT: ld.global.v
// RAGGED: @%p{{[0-9]+}} st.global.b32
