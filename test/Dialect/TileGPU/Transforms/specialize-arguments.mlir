// RUN: kiln-opt %s -split-input-file -tile-specialize-arguments="divisible=0,2" | FileCheck %s
// RUN: kiln-opt %s -split-input-file -tile-specialize-arguments="kernel=second divisible=1 by=8" | FileCheck %s --check-prefix=NAMED
// RUN: not kiln-opt %s -split-input-file -tile-specialize-arguments="divisible=5" 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not kiln-opt %s -split-input-file -tile-specialize-arguments="divisible=1" 2>&1 | FileCheck %s --check-prefix=TYPE
// RUN: not kiln-opt %s -split-input-file -tile-specialize-arguments="kernel=none" 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not kiln-opt %s -split-input-file -tile-specialize-arguments="divisible=0 by=12" 2>&1 | FileCheck %s --check-prefix=POW2

// A declaration is no kernel and is left alone (found by kiln-fuzz-opt: it
// was read past its missing body).
// CHECK-LABEL: func.func private @declared(i32){{$}}
// CHECK-LABEL: func.func @first(%{{.*}}: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %{{.*}}: f32, %{{.*}}: i32 {tile.divisibility = 16 : i64})
// NAMED-LABEL: func.func @first(%{{.*}}: !tile.ptr<f32>, %{{.*}}: f32, %{{.*}}: i32)
// NAMED-LABEL: func.func @second(%{{.*}}: !tile.ptr<f32>, %{{.*}}: i64 {tile.divisibility = 8 : i64}, %{{.*}}: i32)
// RANGE: tile-specialize-arguments: no argument 5 (the kernel takes 3)
// TYPE: tile-specialize-arguments: argument 1 is 'f32', neither a pointer nor an integer
// MISSING: tile-specialize-arguments: no kernel named 'none'
// POW2: tile-specialize-arguments: by=12 is not a power of two
func.func private @declared(i32)
func.func @first(%x: !tile.ptr<f32>, %a: f32, %n: i32) {
  return
}
func.func @second(%x: !tile.ptr<f32>, %m: i64, %n: i32) {
  return
}
