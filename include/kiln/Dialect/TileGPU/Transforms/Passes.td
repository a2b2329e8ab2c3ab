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

    On sm_90a (`compute-capability=90 arch-specific=1`) a dot of f16, bf16,
    tf32, i8 or 8-bit floats whose M is a multiple of 16 * num-warps and
    whose N and K are multiples of 16, with num-warps a multiple of four,
    gets the warpgroup
    accumulator (`warpgroup = true`, warps along M), which
    tile-pipeline-loops hands to wgmma; other dots get a remark saying why
    they stay on mma.sync.
  }];
  let options = [
    Option<"numWarps", "num-warps", "int64_t", /*default=*/"4",
           "Warps per program">,
    Option<"computeCapability", "compute-capability", "int64_t",
           /*default=*/"80",
           "Compute capability of the target (major * 10 + minor)">,
    Option<"archSpecific", "arch-specific", "bool", /*default=*/"false",
           "The target has its architecture-specific features (sm_90a: "
           "wgmma)">,
    Option<"threadsPerWarp", "threads-per-warp", "int64_t", /*default=*/"32",
           "Threads per warp">,
  ];
  let dependentDialects = ["::kiln::tilegpu::TileGPUDialect"];
}

def TileTestPrintAxisInfoPass
    : Pass<"tile-test-print-axis-info", "mlir::func::FuncOp"> {
  let summary = "Report the axis analysis of every integer and pointer value";
  let description = [{
    A test pass: a remark at every op with an integer or pointer result
    gives, per dimension, what AxisInfo knows of it: `contiguity`,
    `divisibility` (bytes for pointers) and `constancy`, and its value when
    it is one known integer. Layouts, vector widths and pipelining all
    follow from these facts, so lit tests check them here directly.
  }];
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

def TilePipelineLoopsPass : Pass<"tile-pipeline-loops", "mlir::ModuleOp"> {
  let summary = "Load the operands of later loop iterations while this one computes";
  let description = [{
    Software pipelining of the loads that feed tensor-core dots (sm_80+):
    in an `scf.for` whose loads are only converted to dot operands, each
    such load (or one that reaches them only through elementwise ops, such
    as a cast, read back from its slot in its own layout) becomes a `tilegpu.async_copy` (cp.async) into one of
    `num-stages` slots of a shared buffer, issued `num-stages - 1`
    iterations ahead, and the conversion a `tilegpu.local_load` from the
    slot of the current iteration, where the body converted it (its
    registers are live from there to the dot only). A prologue starts the
    first `num-stages - 1` copies; each iteration waits for its own, meets at a
    barrier (which also frees the slot the next copy overwrites), starts
    the next and computes; copies past the end are masked off.

    What the loads' pointers and masks are computed from (the induction
    variable, loop-invariant values, and values carried by the loop that
    only that computation uses, such as pointers advanced each iteration)
    is computed ahead too; what of it the rest of the body uses as well
    (the K indices of a step that also feed an unstaged load) is computed
    again there for the current step, when it depends on nothing the loop
    carries. A loop is left as it is, with a remark naming the reason, when
    a load's `other` is not zero, its rows are not contiguous in 4-, 8- or
    16-byte pieces, the rest of the body uses what was computed from a
    carried value, or the slots would not fit in shared memory
    (`shared-memory-limit` less a bound on the scratch of the ops that run
    while they hold data: the loop's, and those of loops around it; and
    less the slots of operands written before an earlier loop that this
    one reads too).
    `tile.num_stages` on a loop overrides the option; 1 or less turns
    pipelining off. A loop that has it (Triton's `tl.range(...,
    num_stages=)`) has its other loads copied ahead too, as Triton's
    pipeliner does, where cp.async can copy them: their slots are read
    back in the loads' own layouts, with a non-zero `other` put back where
    the mask is false.

    A dot whose accumulator has a warpgroup mma layout (sm_90a) and whose
    B comes from a slot (or is a 16-bit tile the loop does not change,
    written into a slot of its own as an invariant A is) becomes a
    `tilegpu.warpgroup_dot`, which wgmma runs on the slots in place (A from its slot too; an A the loop does not
    change, such as an attention's queries, from a slot of its own written
    once before the loop by `tilegpu.local_store`, where the shared memory
    the slots leave holds it; else from registers, where a prologue such
    as a cast computed it); a 16-bit B the loop computes from what it
    loads (a cast, a dequantization) is written into a one-slot buffer of
    its own each iteration. tf32 and 8-bit operands, which wgmma reads
    K-major only, need A in a slot and B K-major: a tf32 B loaded N-major
    is staged K-major by its copies, an element each; an 8-bit one is
    transposed into a buffer of its own each iteration. The loop then
    fences the completed copies into
    the async proxy (`tilegpu.fence_async_shared`) before its barrier. Any
    other warpgroup dot stays on mma.sync with a remark. A dot on mma.sync
    reads its 16-bit operands that the loop does not change, converted
    from registers before it (an attention's queries, its backward's keys
    and values), from a slot of their own written the same way, where the
    shared memory the slots leave holds it: `ldmatrix` just before each
    dot, as Triton does, instead of registers held through the loop. In a
    K loop (its only dot accumulates into a value the loop carries and
    nothing else, reads its operands from slots or A from registers the
    loop does not change, and is not 8-bit, nor tf32 unless its B's slot
    is K-major) the dot is `async`: its wgmma runs on while
    the next iteration waits for its slot, the copies into the slot the
    previous wgmma read start after the dot and a barrier, and a
    `tilegpu.warpgroup_wait` after the loop gives the result.

    With `tensor-maps` (sm_90), a `tile.block_load` (2-D, zero padding)
    whose block pointer the loop carries from a `tile.make_block_ptr` of
    kernel arguments and constants (row-major, unit column stride, base
    and row stride aligned to 16 bytes by their `tile.divisibility`) and
    advances is staged too, by the tensor memory accelerator: the kernel
    gets a parameter for a tensor map (listed in its
    `tilegpu.tensor_maps`, built by each launch from those arguments), one
    thread starts `tilegpu.tensor_map_copy` into the slot and arrives on
    the slot's mbarrier expecting its bytes, and the iteration that reads
    the slot waits for that mbarrier's phase. A block load that cannot go
    through a tensor map is left as it is, with a remark naming why.

    With `warp-specialize` (sm_90a), a loop marked `tile.warp_specialize =
    true` (Triton's `tl.range(..., warp_specialize=True)`) whose staged
    loads are all TMA copies is pipelined by warp specialization instead:
    a `tilegpu.warp_specialize` at the top of the kernel gives a producer
    warpgroup of its own the loop's copies, which wait on a slot's "empty"
    mbarrier (`init_barriers` for the consumers' arrivals) and complete on
    its "full" one; the loop itself stays with the kernel's warps, the
    consumers, which wait for each slot's copies, compute, and arrive on
    its empty mbarrier (`tilegpu.barrier_arrive`), with no block barrier
    in the loop. The producer computes the loop's bounds and the blocks'
    origins again itself, so the loop may be nested in `scf.if`s only
    (the fallback of a flattened loop) and those values must be free of
    memory effects; the kernel must be its module's only function, with
    this loop its only pipelined one. A marked loop that cannot be
    specialized is software-pipelined, with a remark naming why.
  }];
  let options = [
    Option<"numStages", "num-stages", "int64_t", /*default=*/"3",
           "Slots per pipelined load (loads in flight + 1)">,
    Option<"sharedMemoryLimit", "shared-memory-limit", "int64_t",
           /*default=*/"49152",
           "Shared memory a block of the target may have, in bytes: a "
           "loop's slots may take what the scratch of the ops beside them "
           "leaves">,
    Option<"tensorMaps", "tensor-maps", "bool", /*default=*/"false",
           "Stage block loads with TMA copies through tensor maps (sm_90)">,
    Option<"warpSpecialize", "warp-specialize", "bool", /*default=*/"false",
           "Pipeline the loops marked tile.warp_specialize by warp "
           "specialization (sm_90a: setmaxnreg)">,
  ];
  let dependentDialects = ["::kiln::tilegpu::TileGPUDialect",
                           "::mlir::gpu::GPUDialect"];
}

def TileTMAStoresPass : Pass<"tile-tma-stores", "mlir::ModuleOp"> {
  let summary = "Store blocks through tensor maps (sm_90)";
  let description = [{
    A 2-D `tile.block_store` whose block pointer comes from a
    `tile.make_block_ptr` of kernel arguments and constants (row-major,
    unit column stride, base and row stride aligned to 16 bytes by their
    `tile.divisibility`), maybe advanced and carried by loops, becomes a
    `tilegpu.tensor_map_store`: the kernel gets a tensor map parameter
    (listed in its `tilegpu.tensor_maps`, built by each launch) and the
    tile is written by the tensor memory accelerator from swizzled shared
    memory, as Triton stores a tensor descriptor's blocks. TMA does not
    write outside the tensor, which is what the store's boundary check
    asks for: a store that does not check both dimensions writes past the
    shape, so it is not taken. A block store that cannot go through a
    tensor map stays as it is, with a remark naming why. Runs after `tile-assign-layouts`.
  }];
  let dependentDialects = ["::kiln::tilegpu::TileGPUDialect"];
}

def TileSplitTF32x3Pass : Pass<"tile-split-tf32x3", "mlir::ModuleOp"> {
  let summary = "Compute tf32x3 dots as three tf32 dots";
  let description = [{
    Rewrites each `tile.dot` with `input_precision = tf32x3` into three
    `tf32` dots, so that tensor cores (sm_80+) compute it: each f32 operand
    is split into the part tf32 holds exactly (its top 19 bits) and the
    remainder, and `a * b` becomes `a_small * b_big + a_big * b_small +
    a_big * b_big`, the two small terms summed apart and added to the
    accumulator before the big product. The error is close to an f32
    product's. As Triton's, a NaN among the small terms counts as 0 (an
    infinite operand's remainder is inf - inf), so infinities in the
    operands give what an f32 product gives.
  }];
}

def TileWidenHalfAccumulatorsPass
    : Pass<"tile-widen-half-accumulators", "mlir::ModuleOp"> {
  let summary = "Accumulate 16-bit float dots in f32, rounded once";
  let description = [{
    Rewrites each `tile.dot` whose accumulator is f16 or bf16 into a dot
    accumulating in f32 (the accumulator extended) whose result is rounded
    to the accumulator's type once: tensor cores take it (their f16
    accumulation is not used), and the products' sum is rounded once per
    dot, as the host target and the interpreter compute it, not after every
    product as CUDA cores would.
  }];
}

#endif // KILN_DIALECT_TILEGPU_TRANSFORMS_PASSES_TD
