// RUN: not kiln-run %kiln_examples/vector_add.mlir --kernel=vector_add --grid=2 \
// RUN:   --check-bounds --arg='f32[1000]=iota' --arg='f32[1000]=iota' \
// RUN:   --arg='f32[1000]=zeros' --arg=i32=1100 2>&1 | FileCheck %s --check-prefix=BOUNDS
// BOUNDS: kiln-run: out-of-bounds access at {{.*}}vector_add.mlir:16:9: tile.load in program (0, 0, 0)

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
