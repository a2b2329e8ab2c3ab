// RUN: kiln-run %s --kernel=scale --grid=1 --arg="bf16[8]=iota" --arg="bf16[8]=zeros" --arg=bf16=2.5 | FileCheck %s
// RUN: not kiln-run %s --kernel=scale --grid=1 --arg="bf16[8]=iota" --arg="bf16[8]=zeros" --arg=bf16=2.5 --save=1=%t.npy 2>&1 | FileCheck %s --check-prefix=SAVE

// bf16 arrays and scalars: made from doubles with round-to-nearest-even
// (2.5 * 7 = 17.5 is 17.5 in bf16, 8 bits of mantissa), summarised as
// doubles. numpy has no bf16, so such arrays cannot be saved as .npy.
// CHECK: arg0 bf16[8]: sum=28 min=0 max=7 first=[0, 1, 2, 3]
// CHECK: arg1 bf16[8]: sum=70 min=0 max=17.5 first=[0, 2.5, 5, 7.5]
// SAVE: cannot write elements of type bf16
func.func @scale(%x: !tile.ptr<bf16>, %y: !tile.ptr<bf16>, %s: bf16) {
  %r = tile.range 0 to 8 : tensor<8xi32>
  %xs = tile.splat %x : !tile.ptr<bf16> -> tensor<8x!tile.ptr<bf16>>
  %xp = tile.addptr %xs, %r : tensor<8x!tile.ptr<bf16>>, tensor<8xi32>
  %v = tile.load %xp : tensor<8x!tile.ptr<bf16>> -> tensor<8xbf16>
  %ss = tile.splat %s : bf16 -> tensor<8xbf16>
  %w = arith.mulf %v, %ss : tensor<8xbf16>
  %ys = tile.splat %y : !tile.ptr<bf16> -> tensor<8x!tile.ptr<bf16>>
  %yp = tile.addptr %ys, %r : tensor<8x!tile.ptr<bf16>>, tensor<8xi32>
  tile.store %yp, %w : tensor<8x!tile.ptr<bf16>>, tensor<8xbf16>
  return
}
