// RUN: not env KILN_TARGET=host kiln-run %s --kernel=show --grid=2 --arg='f32[4]=iota' --arg=i32=3 > %t.out 2> %t.err
// RUN: FileCheck %s < %t.out
// RUN: FileCheck %s --check-prefix=ERR < %t.err

// Every program prints each element with its index, scalars once, and a
// print without operands its prefix alone.
// CHECK: pid (0, 0, 0) idx (0) v: 0.5
// CHECK: pid (0, 0, 0) idx (3) v: 3.5
// CHECK: pid (0, 0, 0) n (operand 0): 3
// CHECK: pid (0, 0, 0) n (operand 1): 0
// CHECK: pid (0, 0, 0) hello
// CHECK: pid (1, 0, 0) n (operand 1): 1

// The first false element fails the launch, named with the op's location.
// ERR: kiln-run: assertion failed at {{.*}}debug.mlir:[[@LINE+14]]:3: r < n in program (0, 0, 0), element (3)
func.func @show(%x: !tile.ptr<f32>, %n: i32) {
  %pid = tile.program_id x
  %r = tile.range 0 to 4 : tensor<4xi32>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<4x!tile.ptr<f32>>
  %q = tile.addptr %p, %r : tensor<4x!tile.ptr<f32>>, tensor<4xi32>
  %v = tile.load %q : tensor<4x!tile.ptr<f32>> -> tensor<4xf32>
  %half = arith.constant dense<0.5> : tensor<4xf32>
  %w = arith.addf %v, %half : tensor<4xf32>
  tile.print "v", %w : tensor<4xf32>
  tile.print "n", %n, %pid : i32, i32
  tile.print "hello"
  %nn = tile.splat %n : i32 -> tensor<4xi32>
  %ok = arith.cmpi slt, %r, %nn : tensor<4xi32>
  tile.assert %ok, "r < n" : tensor<4xi1>
  return
}
