//===- PlanOps.td - Launch plan operations ------------------*- tablegen -*-===//

#ifndef KILN_DIALECT_PLAN_IR_PLANOPS_TD
#define KILN_DIALECT_PLAN_IR_PLANOPS_TD

include "kiln/Dialect/Plan/IR/PlanDialect.td"
include "mlir/IR/SymbolInterfaces.td"

def Plan_AllocOp : Plan_Op<"alloc"> {
  let summary = "A temporary buffer";
  let description = [{
    `bytes` bytes of the target's memory (host memory, or the device's on a
    GPU), for a tensor the plan's kernels pass between them; its address.

    ```mlir
    %buffer = plan.alloc %bytes
    ```
  }];
  let arguments = (ins I64:$bytes);
  let results = (outs I64:$buffer);
  let assemblyFormat = "$bytes attr-dict";
}

def Plan_FreeOp : Plan_Op<"free"> {
  let summary = "Frees a temporary buffer";
  let description = [{
    Frees what `plan.alloc` gave, after its last launch.

    ```mlir
    plan.free %buffer
    ```
  }];
  let arguments = (ins I64:$buffer);
  let assemblyFormat = "$buffer attr-dict";
  let hasVerifier = 1;
}

def Plan_LaunchOp : Plan_Op<"launch",
    [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Runs a tile kernel over a grid of programs";
  let description = [{
    Runs the tile kernel `kernel` once per program of a one-dimensional
    grid of `programs` programs, in order with the plan's other launches.
    Each argument gives the kernel's argument of the same position: a
    buffer's address (i64) for a `!tile.ptr`, the value itself for an
    integer.

    ```mlir
    plan.launch @softmax_kernel0_tile[%programs](%x, %y, %n) : i64, i64, i32
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$kernel, I64:$programs,
                       Variadic<AnyInteger>:$arguments);
  let assemblyFormat = [{
    $kernel `[` $programs `]` `` `(` $arguments `)` attr-dict
    (`:` type($arguments)^)?
  }];
}

#endif // KILN_DIALECT_PLAN_IR_PLANOPS_TD
