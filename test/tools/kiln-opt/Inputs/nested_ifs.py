"""Prints a tile kernel whose store sits under N nested run-time ifs, each
on its own condition (ifs on one condition fold into one)."""

import sys

depth = int(sys.argv[1])
print("func.func @k(%p: !tile.ptr<i32>, %n: i32) {")
for level in range(depth):
    print(f"%k{level} = arith.constant {level} : i32")
    print(f"%c{level} = arith.cmpi sgt, %n, %k{level} : i32")
    print(f"scf.if %c{level} {{")
    print(f"tile.store %p, %k{level} : !tile.ptr<i32>, i32")
print("}\n" * depth + "return\n}")
