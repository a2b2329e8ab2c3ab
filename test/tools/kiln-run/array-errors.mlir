// RUN: not kiln-run %s --kernel=copy 2>&1 | FileCheck %s --check-prefix=NODIMS
// RUN: not kiln-run %s --kernel=copy --dims=0 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not kiln-run %s --kernel=copy --dims=4 2>&1 | FileCheck %s --check-prefix=COPY

// The dynamic sizes of an array function's inputs come from --dims, one per
// `?`, positive.
// NODIMS: kiln-run: array function 'copy' has 1 dynamic input dimension(s), but --dims gives 0
// ZERO: kiln-run: --dims: kiln-run generates inputs of at least one element, so sizes are positive, not 0
// COPY: error: kiln-tile: result 0 is an input or another result; copies are not planned yet
func.func @copy(%x: tensor<?xf32>) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}
