// RUN: not kiln-opt %s -split-input-file 2>&1 | FileCheck %s

// CHECK: bad-types.mlir:[[@LINE+1]]:31: error: unbalanced '<' character in pretty dialect name
func.func private @f(!tile.ptr<f32)

// -----

// CHECK: bad-types.mlir:[[@LINE+1]]:{{[0-9]+}}: error: expected non-function type
func.func private @g(!tile.ptr<>)

// -----

// CHECK: bad-types.mlir:[[@LINE+1]]:{{[0-9]+}}: error: unknown  type `pointer` in dialect `tile`
func.func private @h(!tile.pointer<f32>)

// -----

// CHECK: bad-types.mlir:[[@LINE+1]]:{{[0-9]+}}: error: expected integer value
func.func private @i(!tile.ptr<f32, global>)
