// Inputs from .npy files and results checked against .npy files.
// RUN: rm -rf %t && mkdir -p %t
// RUN: python3 -c "import numpy as np; x = np.arange(8, dtype=np.float32) - 3; np.save('%t/x.npy', x); np.save('%t/twice.npy', 2 * x.astype(np.float64)); np.save('%t/wrong.npy', x); np.save('%t/short.npy', x[:4]); np.save('%t/fortran.npy', np.asfortranarray(np.ones((2, 4), np.float32))); np.save('%t/complex.npy', np.ones(8, np.complex64)); open('%t/junk.npy', 'wb').write(b'junk')"
// RUN: kiln-run %s --kernel=twice --grid=1 --arg=@%t/x.npy --expect=0=%t/twice.npy --target=host | FileCheck %s
// RUN: kiln-run %s --kernel=twice --grid=1 --arg=@%t/x.npy --save=0=%t/saved.npy --target=host
// RUN: kiln-run %s --kernel=twice --grid=1 --arg=@%t/saved.npy --expect=0=%t/saved.npy --tolerance=1 --target=host | FileCheck %s --check-prefix=SAVED
// RUN: python3 -c "import numpy as np; assert (np.load('%t/saved.npy') == 2 * np.load('%t/x.npy')).all()"
// RUN: not kiln-run %s --kernel=twice --grid=1 --arg=@%t/x.npy --save=0=%t/no/such/dir.npy --target=host 2>&1 | FileCheck %s --check-prefix=UNWRITABLE
// RUN: not kiln-run %s --kernel=twice --grid=1 --arg=@%t/x.npy --expect=0=%t/wrong.npy --target=host | FileCheck %s --check-prefix=WRONG
// RUN: not kiln-run %s --kernel=twice --grid=1 --arg=@%t/x.npy --expect=0=%t/short.npy --target=host 2>&1 | FileCheck %s --check-prefix=SHORT
// RUN: not kiln-run %s --kernel=twice --grid=1 --arg=@%t/x.npy --expect=3=%t/x.npy --target=host 2>&1 | FileCheck %s --check-prefix=INDEX
// RUN: not kiln-run %s --kernel=twice --grid=1 --arg=@%t/missing.npy --target=host 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not kiln-run %s --kernel=twice --grid=1 --arg=@%t/junk.npy --target=host 2>&1 | FileCheck %s --check-prefix=JUNK
// RUN: not kiln-run %s --kernel=twice --grid=1 --arg=@%t/fortran.npy --target=host 2>&1 | FileCheck %s --check-prefix=FORTRAN
// RUN: not kiln-run %s --kernel=twice --grid=1 --arg=@%t/complex.npy --target=host 2>&1 | FileCheck %s --check-prefix=COMPLEX

// CHECK: arg0 against {{.*}}twice.npy: max error 0 ok
// CHECK: arg0 f32[8]: sum=8 min=-6 max=8
// SAVED: arg0 against {{.*}}saved.npy: max error 1 ok
// UNWRITABLE: --save=0={{.*}}dir.npy: cannot write {{.*}}dir.npy
// WRONG: arg0 against {{.*}}wrong.npy: max error 1 WRONG
// SHORT: the file holds 4 elements, argument 0 8
// INDEX: --expect={{.*}}: no array argument 3
// MISSING: cannot read {{.*}}missing.npy
// JUNK: junk.npy is not a .npy file
// FORTRAN: fortran.npy is in Fortran order; save a C-ordered array
// COMPLEX: element type '<c8' is not one of int8/16/32/64, float16/32/64 (little-endian)
func.func @twice(%x: !tile.ptr<f32>) {
  %r = tile.range 0 to 8 : tensor<8xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<8x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<8x!tile.ptr<f32>>, tensor<8xi32>
  %v = tile.load %xp : tensor<8x!tile.ptr<f32>> -> tensor<8xf32>
  %w = arith.addf %v, %v : tensor<8xf32>
  tile.store %xp, %w : tensor<8x!tile.ptr<f32>>, tensor<8xf32>
  return
}
