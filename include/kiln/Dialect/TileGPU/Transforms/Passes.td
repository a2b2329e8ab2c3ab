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

    On a target of compute capability 80 or more, a `tile.dot` whose
    element types and shape suit `mma.sync` (f16 or bf16 into f32, f32 with
    `input_precision = tf32`, i8 into i32; M, N, K multiples of 16, 8 and
    the instruction's K) runs on tensor cores: its accumulator takes a
    `#tilegpu.mma` layout, which its whole group (a loop's carried
    accumulator, the epilogue, the store) shares unless the group holds a
    reduction or scan, and its operands are converted to
    `#tilegpu.dot_operand`. Any other dot gets a remark saying why it is
    not on tensor cores.
  }];
  let options = [
    Option<"numWarps", "num-warps", "int64_t", /*default=*/"4",
           "Warps per program">,
    Option<"computeCapability", "compute-capability", "int64_t",
           /*default=*/"80",
           "Compute capability of the target (major * 10 + minor)">,
    Option<"threadsPerWarp", "threads-per-warp", "int64_t", /*default=*/"32",
           "Threads per warp">,
  ];
  let dependentDialects = ["::kiln::tilegpu::TileGPUDialect"];
}

def TileSpecializeArgumentsPass
    : Pass<"tile-specialize-arguments", "mlir::ModuleOp"> {
  let summary = "Record what a launch guarantees about kernel arguments";
  let description = [{
    Marks the arguments listed in `divisible` of every kernel (or of
    `kernel` alone) with `tile.divisibility = by`: a pointer aligned to
    `by` bytes, an integer that is a multiple of `by`. This is the
    specialization `@kiln.jit` and `kiln-run` make from the values of a
    launch; layout assignment reads it to pick vector accesses. An argument
    that is neither a pointer nor an integer is an error.

    ```
    kiln-opt k.mlir -tile-specialize-arguments="divisible=0,1,3"
    ```
  }];
  let options = [
    Option<"kernel", "kernel", "std::string", /*default=*/"",
           "Kernel to specialize (default: every kernel)">,
    ListOption<"divisible", "divisible", "int64_t",
               "Indices of the arguments to mark">,
    Option<"by", "by", "int64_t", /*default=*/"16",
           "The divisibility to record (a power of two)">,
  ];
}

#endif // KILN_DIALECT_TILEGPU_TRANSFORMS_PASSES_TD
