// RUN: kiln-opt %kiln_examples/vector_add.mlir -kiln-host-lowering | FileCheck %s
// RUN: kiln-opt %kiln_examples/softmax.mlir -kiln-host-lowering | FileCheck %s --check-prefix=MATH
// RUN: kiln-opt %kiln_examples/matmul.mlir -kiln-host-lowering | FileCheck %s --check-prefix=ALLOC

// The whole pipeline ends in the LLVM dialect: no tile, tensor, memref,
// linalg or scf op is left, and every kernel has its launcher.
// CHECK-NOT: tile.
// CHECK-NOT: tensor.
// CHECK-NOT: linalg.
// CHECK-NOT: scf.
// CHECK-NOT: memref.
// CHECK: llvm.func @vector_add(%{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32)
// CHECK: llvm.func @vector_add_launch(%{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i64, %{{.*}}: i64)
// CHECK-NOT: tile.

// exp comes from the C library.
// MATH: llvm.func @softmax
// MATH: llvm.intr.exp

// Tiles live in heap buffers, and the buffers are freed (that no launch
// leaks is checked by python/test/test_host_target.py).
// ALLOC-DAG: llvm.func @malloc(i64) -> !llvm.ptr
// ALLOC-DAG: llvm.func @free(!llvm.ptr)
// ALLOC: llvm.func @matmul
// ALLOC: llvm.call @malloc
// ALLOC: llvm.call @free
