// RUN: not kiln-opt %s -kiln-tile=block=100 2>&1 | FileCheck %s --check-prefix=BLOCK
// RUN: not kiln-opt %s -kiln-tile=max-row=0 2>&1 | FileCheck %s --check-prefix=MAXROW
// RUN: not kiln-opt %s -kiln-tile=row-chunk=96 2>&1 | FileCheck %s --check-prefix=CHUNK
// RUN: not kiln-opt %s -kiln-tile=row-chunk=0 2>&1 | FileCheck %s --check-prefix=CHUNK0
// RUN: not kiln-opt %s -kiln-tile=row-block=3 2>&1 | FileCheck %s --check-prefix=ROWBLOCK
// RUN: not kiln-opt %s -kiln-tile="row-block=64 row-chunk=32" 2>&1 | FileCheck %s --check-prefix=ROWBLOCK64
// RUN: not kiln-opt %s -kiln-tile=row-block=-2 2>&1 | FileCheck %s --check-prefix=ROWBLOCKNEG
// RUN: not kiln-opt %s -kiln-tile=block-m=8 2>&1 | FileCheck %s --check-prefix=MATMUL
// RUN: not kiln-opt %s -kiln-tile=block-k=48 2>&1 | FileCheck %s --check-prefix=MATMULK

// kiln-tile's options are checked before any kernel is tiled: widths of
// tiles must be powers of two.
// BLOCK: error: kiln-tile: block must be a power of two, not 100
// MAXROW: error: kiln-tile: max-row must be positive, not 0
// CHUNK: error: kiln-tile: row-chunk must be a power of two, not 96
// CHUNK0: error: kiln-tile: row-chunk must be a power of two, not 0
// ROWBLOCK: error: kiln-tile: row-block must be 0 or a power of two of at most row-chunk, not 3
// ROWBLOCK64: error: kiln-tile: row-block must be 0 or a power of two of at most row-chunk, not 64
// ROWBLOCKNEG: error: kiln-tile: row-block must be 0 or a power of two of at most row-chunk, not -2
// MATMUL: error: kiln-tile: matmul blocks must be powers of two of at least 16, not 8
// MATMULK: error: kiln-tile: matmul blocks must be powers of two of at least 16, not 48
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
