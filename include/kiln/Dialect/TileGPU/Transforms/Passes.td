//===- Passes.td - GPU passes over tile IR -----------------*- tablegen -*-===//

#ifndef KILN_DIALECT_TILEGPU_TRANSFORMS_PASSES_TD
#define KILN_DIALECT_TILEGPU_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileAssignLayoutsPass : Pass<"tile-assign-layouts", "mlir::ModuleOp"> {
  let summary = "Give every tile a layout, coalescing memory accesses";
  let description = [{
    Spreads every tile of every kernel over the threads of a program of
    `num-warps` warps, writing the layout into the tile types as a
    `#tilegpu` encoding, and records `tilegpu.num_warps` on the module.

    Tiles that must share a layout (the operands and results of elementwise
    ops, of memory accesses, of `scf` loop and branch values, a broadcast
    and its source) form one group. A group with memory accesses takes the
    blocked layout that coalesces its widest one: from the contiguity and
    divisibility of the pointers (AxisInfo) it picks the fastest dimension
    and how many elements (up to 16 bytes) one thread accesses at once; a
    mask limits that to the runs over which it is constant. `tile.divisibility`
    on a kernel argument says how aligned it is (bytes, for pointers).
    A reduction's result takes the slice of its operand's layout, and an
    expand_dims source the slice of its result's. Groups with no access
    get a row-major layout. Where two of these choices meet and differ, a
    `tilegpu.convert_layout` joins them.
  }];
  let options = [
    Option<"numWarps", "num-warps", "int64_t", /*default=*/"4",
           "Warps per program">,
    Option<"threadsPerWarp", "threads-per-warp", "int64_t", /*default=*/"32",
           "Threads per warp">,
  ];
  let dependentDialects = ["::kiln::tilegpu::TileGPUDialect"];
}

#endif // KILN_DIALECT_TILEGPU_TRANSFORMS_PASSES_TD
