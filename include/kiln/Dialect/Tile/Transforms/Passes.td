//===- Passes.td - Target-independent passes over tile IR --*- tablegen -*-===//

#ifndef KILN_DIALECT_TILE_TRANSFORMS_PASSES_TD
#define KILN_DIALECT_TILE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileTotalDivisionPass : Pass<"tile-total-division", "mlir::ModuleOp"> {
  let summary = "Give integer division and remainder a result for every divisor";
  let description = [{
    `arith.divsi`, `arith.divui`, `arith.remsi` and `arith.remui` are
    undefined for a zero divisor (and a signed division of the lowest value
    by -1); a CPU traps on them, killing the process that runs a host
    kernel. Kiln defines them: `x / 0` and `x % 0` are 0, and the lowest
    value divided by -1 is itself (its remainder 0). This pass rewrites
    each such op, on scalars, tiles or vectors, to divide by 1 where the
    divisor is one of those cases and select the defined result; divisors
    that are non-zero constants (other than -1, for signed ops) are left
    as they are.

    Front ends emit the plain ops, as Triton does, so that the analyses of
    the GPU target (contiguity and divisibility of `(offsets) % n`) see
    them; the targets run this pass after those analyses: the host before
    its lowering, the GPU after the tile-to-GPU conversion.

    ```mlir
    %q = arith.divsi %a, %b : i32
    // becomes
    %zero = arith.cmpi eq, %b, %c0 : i32
    %lowest = arith.cmpi eq, %a, %cmin : i32
    %minus1 = arith.cmpi eq, %b, %cm1 : i32
    %wraps = arith.andi %lowest, %minus1 : i1
    %bad = arith.ori %zero, %wraps : i1
    %safe = arith.select %bad, %c1, %b : i32
    %raw = arith.divsi %a, %safe : i32
    %q = arith.select %zero, %c0, %raw : i32
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

#endif // KILN_DIALECT_TILE_TRANSFORMS_PASSES_TD
