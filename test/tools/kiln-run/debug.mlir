// RUN: not env KILN_TARGET=host kiln-run %s --kernel=show --grid=2 --arg='f32[4]=iota' --arg=i32=3 > %t.out 2> %t.err
// RUN: FileCheck %s < %t.out
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// A kernel with assertions is bounds-checked: the store a failed assertion
// guards (far outside the array) is skipped, not run, with or without
// --check-bounds, on one thread or several, and the assertion is what the
// launch reports.
// RUN: not env KILN_TARGET=host kiln-run %s --kernel=guard --grid=4 --arg='f32[4]=zeros' --arg=i32=4 2>&1 | FileCheck %s --check-prefix=GUARD
// RUN: not env KILN_TARGET=host kiln-run %s --kernel=guard --grid=4 --launch-threads=2 --check-bounds --arg='f32[4]=zeros' --arg=i32=4 2>&1 | FileCheck %s --check-prefix=GUARD

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

// GUARD: kiln-run: assertion failed at {{.*}}debug.mlir:[[@LINE+7]]:3: idx < n in program (0, 0, 0), element (1)
func.func @guard(%x: !tile.ptr<f32>, %n: i32) {
  %r = tile.range 0 to 4 : tensor<4xi32>
  %big = arith.constant dense<100000000> : tensor<4xi32>
  %idx = arith.muli %r, %big : tensor<4xi32>
  %nn = tile.splat %n : i32 -> tensor<4xi32>
  %ok = arith.cmpi slt, %idx, %nn : tensor<4xi32>
  tile.assert %ok, "idx < n" : tensor<4xi1>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<4x!tile.ptr<f32>>
  %q = tile.addptr %p, %idx : tensor<4x!tile.ptr<f32>>, tensor<4xi32>
  %one = arith.constant dense<1.0> : tensor<4xf32>
  tile.store %q, %one : tensor<4x!tile.ptr<f32>>, tensor<4xf32>
  return
}
