// RUN: kiln-run %kiln_examples/vector_add.mlir --kernel=vector_add --grid=2 \
// RUN:   --arg='f32[1500]=iota' --arg='f32[1500]=iota' --arg='f32[1500]=zeros' \
// RUN:   --arg=i32=1500 --repeat=3 | FileCheck %s
// Without --kernel, the module's only public function runs.
// RUN: KILN_TARGET=host kiln-run %kiln_examples/vector_add.mlir --grid=2 \
// RUN:   --arg='f32[1500]=iota' --arg='f32[1500]=iota' --arg='f32[1500]=zeros' \
// RUN:   --arg=i32=1500 | FileCheck %s
// RUN: KILN_TARGET=host kiln-run %kiln_examples/vector_add.mlir --kernel=vector_add \
// RUN:   --grid=2 --check-bounds --launch-threads=2 --arg='f32[1500]=iota' --arg='f32[1500]=iota' \
// RUN:   --arg='f32[1500]=zeros' --arg=i32=1500 | FileCheck %s

// out = x + y with x = y = 0, 1, ..., 1499: the sum is 2 * 1499 * 1500 / 2.
// CHECK: kernel vector_add on host ({{[12]}} thread{{s?}}), grid 2x1x1: {{[0-9.]+}} ms per launch
// CHECK: arg0 f32[1500]: sum=1.12425e+06 min=0 max=1499 first=[0, 1, 2, 3]
// CHECK: arg2 f32[1500]: sum=2.2485e+06 min=0 max=2998 first=[0, 2, 4, 6]
