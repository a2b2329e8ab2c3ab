// Arrays smaller than the kernel reads: every access is checked, by default
// as with --check-bounds, against the array its pointer came from.
// RUN: not kiln-run %kiln_examples/vector_add.mlir --kernel=vector_add --grid=2 \
// RUN:   --check-bounds --arg='f32[1000]=iota' --arg='f32[1000]=iota' \
// RUN:   --arg='f32[1000]=zeros' --arg=i32=1100 2>&1 | FileCheck %s --check-prefix=BOUNDS
// RUN: not kiln-run %kiln_examples/vector_add.mlir --kernel=vector_add --grid=2 \
// RUN:   --arg='f32[1000]=iota' --arg='f32[1000]=iota' \
// RUN:   --arg='f32[1000]=zeros' --arg=i32=1100 2>&1 | FileCheck %s --check-prefix=BOUNDS
// BOUNDS: kiln-run: out-of-bounds access at {{.*}}vector_add.mlir:16:9: tile.load in program (0, 0, 0): bytes [0x{{[0-9a-f]+}}, +4) are outside argument 0 (bytes [0x{{[0-9a-f]+}}, 0x{{[0-9a-f]+}})), the array its pointer was derived from; the access was skipped
// RUN: kiln-run %kiln_examples/vector_add.mlir --kernel=vector_add --grid=1 \
// RUN:   --check-bounds=false --arg='f32[1024]=iota' --arg='f32[1024]=iota' \
// RUN:   --arg='f32[1024]=zeros' --arg=i32=1024 | FileCheck %s --check-prefix=UNCHECKED
// UNCHECKED: arg2 f32[1024]: sum=1.04755e+06 min=0 max=2046

// Scalars out of their type's range are refused, not wrapped.
// RUN: not kiln-run %kiln_examples/vector_add.mlir --kernel=vector_add --arg=i32=99999999999 2>&1 | FileCheck %s --check-prefix=RANGE
// RANGE: kiln-run: --arg=i32=99999999999: '99999999999' is not an integer that fits in i32
// RUN: not kiln-run %kiln_examples/vector_add.mlir --kernel=vector_add --arg=i8=128 2>&1 | FileCheck %s --check-prefix=RANGE8
// RANGE8: kiln-run: --arg=i8=128: '128' is not an integer that fits in i8
// RUN: not kiln-run %kiln_examples/vector_add.mlir --kernel=vector_add --arg=i32=1.5 2>&1 | FileCheck %s --check-prefix=FRACTION
// FRACTION: kiln-run: --arg=i32=1.5: '1.5' is not an integer that fits in i32
// RUN: not kiln-run %kiln_examples/vector_add.mlir --kernel=vector_add --arg=f16=70000 2>&1 | FileCheck %s --check-prefix=HALF
// HALF: kiln-run: --arg=f16=70000: '70000' does not fit in f16

// RUN: not kiln-run %kiln_examples/vector_add.mlir --kernel=nope 2>&1 | FileCheck %s --check-prefix=KERNEL
// KERNEL: kiln-run: no kernel named 'nope'

// RUN: not kiln-run %kiln_examples/vector_add.mlir --kernel=vector_add --arg=i32=1 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: kiln-run: 'vector_add' takes 4 arguments, but 1 --arg were given

// RUN: not kiln-run %kiln_examples/vector_add.mlir --kernel=vector_add --arg='f32[0]=iota' 2>&1 | FileCheck %s --check-prefix=SPEC
// SPEC: kiln-run: --arg=f32[0]=iota: expected a positive element count in brackets

// RUN: not kiln-run %kiln_examples/vector_add.mlir --kernel=vector_add --arg='f32[4]=ones' 2>&1 | FileCheck %s --check-prefix=INIT
// INIT: kiln-run: --arg=f32[4]=ones: unknown initializer 'ones' (zeros, iota or rand)


// RUN: not kiln-run %kiln_examples/vector_add.mlir --kernel=vector_add --grid=1,2,3,4 2>&1 | FileCheck %s --check-prefix=GRID
// GRID: kiln-run: --grid takes at most three sizes

// RUN: not kiln-run %kiln_examples/vector_add.mlir --kernel=vector_add \
// RUN:   --arg='i32[4]=zeros' --arg='f32[4]=zeros' --arg='f32[4]=zeros' --arg=i32=4 \
// RUN:   2>&1 | FileCheck %s --check-prefix=TYPE
// TYPE: kiln-run: --arg=i32[4]=zeros does not match argument 0 of type !tile.ptr<f32>

// RUN: not kiln-run %s --kernel=k 2>&1 | FileCheck %s --check-prefix=PARSE
// PARSE: errors.mlir:[[@LINE+1]]:1: error: custom op 'garbage' is unknown
garbage

