//===- Passes.td - Kiln's array-level passes ---------------*- tablegen -*-===//

#ifndef KILN_ARRAY_PASSES_TD
#define KILN_ARRAY_PASSES_TD

include "mlir/Pass/PassBase.td"

def KilnFusePass : Pass<"kiln-fuse", "mlir::ModuleOp"> {
  let summary = "Group whole-tensor ops into the fewest kernels";
  let description = [{
    Works on functions over ranked tensors in `linalg`, `arith`, `math` and
    `tensor` (arith and math ops on tensors should first become
    `linalg.generic`, as `convert-elementwise-to-linalg` does). Each group
    of ops becomes one private kernel function, attributed `kiln.kernel`,
    called from the original function. The policy, in order:

    1. Elementwise chains and broadcasts merge into one `linalg.generic`
       (upstream elementwise fusion), and a reduction absorbs its
       elementwise producers. A value with several users is recomputed in
       each when its producer is cheap (at most `recompute-max-ops` body
       ops and one input), else materialised once. A splat of one element
       at constant indices becomes a broadcast of that element (a constant
       indexing map) and fuses like one.
    2. Row-wise ops (every result indexed by the same first, parallel
       dimension, and every input too or through another projection, such
       as a per-column weight or x^T) that feed each other join one kernel
       when their loops are
       provably of the same sizes, whatever the rows' length and number
       of dimensions: a softmax or a layer norm is one kernel, and
       so is an expensive value with its users, which then share it rather
       than recompute it or pass it through memory. Row reductions that
       read one value by row (or one input through the same map) join
       too, though neither feeds the other (a
       row's sum and sum of squares), so that the value is read once.
    3. A matmul takes in the elementwise ops that only produce its operands
       (casts) and those that only consume its result (bias, activation,
       residual, cast), and the fill of its accumulator (a fill with
       several users is first one fill per user).
    4. Elementwise ops over one iteration space that read one value (or
       slices of it) join when neither uses what the other computes, so
       that the value is read once.

    Reshapes are first moved out to the function's inputs and results
    (through generics, fills and empty tensors), so that none stands
    between ops that would fuse. `linalg.reduce` becomes its generic, and
    every generic's reduced loops go last.

    Slices (`tensor.extract_slice` of constant offsets and strides, each
    dynamic dimension taken whole) are views: each kernel that reads one
    keeps it and takes its source as an input, so `x[1:] - x[:-1]` is one
    kernel reading x. A slice that something other than a generic reads
    (a return, a matmul, a reshape) gets a copy. A slice of an
    elementwise result is computed from slices of its inputs, when the
    producer has no other user or is cheap to recompute; a kernel reads
    slices of its inputs only. Other slices are refused by name.

    Ops that join no group are kernels of their own, with a remark. With
    `report`, the cost report (see kiln-cost-report) is printed before and
    after fusion.
  }];
  let options = [
    Option<"recomputeMaxOps", "recompute-max-ops", "int64_t", "2",
           "Most body ops of a producer recomputed in each of its users">,
    Option<"report", "report", "bool", "false",
           "Print the cost report before and after fusion">,
    Option<"target", "target", "std::string", "\"h100\"",
           "Target of the report: a100, h100 or h200">,
    Option<"dynamicSize", "dynamic-size", "int64_t", "1024",
           "Size the report takes for each dynamic dimension">,
  ];
  let dependentDialects = ["mlir::func::FuncDialect",
                           "mlir::linalg::LinalgDialect"];
}

def KilnTilePass : Pass<"kiln-tile", "mlir::ModuleOp"> {
  let summary = "Turn fused kernels into tile kernels and a launch plan";
  let description = [{
    Runs after kiln-fuse. Each `kiln.kernel` function becomes a tile kernel
    `<kernel>_tile` taking a pointer per input tensor, then one per result;
    each function that calls kernels becomes a launch plan (the plan
    dialect): it takes the address of each input tensor and then of each
    result (row-major, contiguous), allocates the temporaries
    (`plan.alloc`), launches each kernel over its grid (`plan.launch`) and
    frees them (`plan.free`); a plan holds nothing else but reshapes of
    static shape, which are the same buffer: an element read between
    launches is refused. `plan.inputs` and `plan.outputs` record the tensor
    types (and `plan.sizes` the size argument of each dynamic dimension),
    so a runtime can allocate the results and check the arguments.

    Kernels whose ops are all elementwise over one iteration space are
    flattened: each program handles `block` consecutive elements (default:
    1024, or fewer for small tensors), with index arithmetic for broadcasts
    and a mask for the last block.

    Kernels that reduce (a softmax, a layer norm, a row sum) are row
    kernels: generics over a [rows, columns] space, elementwise or
    reducing the columns, and generics over the rows (which may span
    several dimensions, numbered row-major). Each program takes
    one row, or a block of `row-block` consecutive rows (by default 32
    where an input's consecutive rows lie next to each other in memory, as
    when x's columns are reduced, so that a warp reads whole lines, and
    enough short static rows to fill a tile of `row-chunk` elements;
    values per row are then tiles over the block, the last block masked):
    a row
    of at most `max-row` (static) elements, or a block of rows of at most
    `row-chunk`, whole, in one
    tile of the next power of two of its length; a longer row, or one of
    dynamic length (an i32 argument after the pointers), in chunks of
    `row-chunk` elements, reductions loops over the chunks carrying a value
    per lane of the chunk's tile, merged across lanes after the loop, and
    the row's results stored by one last loop, recomputing in each loop
    what it needs over the row. Reductions share a loop unless one needs
    another's result; a sum of exp(a - k) is carried as an online softmax
    and a sum of (a - k)^2 (f32, f64) as a running mean and sum of squared
    deviations, so neither waits for k: a softmax or layer norm reads its
    row twice. Inputs are read as rows, as a row's scalar, as
    a column vector, or through any other projection (at an offset from
    the row's coordinates, columns a stride apart), masked at the end of
    the row; a reduction
    whose body is `combine(f(inputs), acc)` becomes `f` on the tile, masked
    elements set to `combine`'s neutral element, a `tile.reduce` with
    `combine` (and across chunks), and the initial value combined in.

    Kernels around one `linalg.matmul` (elementwise prologues of its
    operands such as casts, a constant fill, elementwise epilogues such as
    bias, activation, residual and cast) are matmul kernels: each program
    computes one `block-m` x `block-n` block of the result, looping over K
    in steps of `block-k` with `tile.dot` on operand blocks loaded with
    masks (zeros outside) and passed through the prologues, then applies
    the epilogues to the accumulator (row and column vectors broadcast)
    and stores the block. Programs are numbered row of blocks by row.
  }];
  let options = [
    Option<"block", "block", "int64_t", "1024",
           "Elements per program of an elementwise kernel (a power of two)">,
    Option<"maxRow", "max-row", "int64_t", "16384",
           "Longest row a row kernel holds in one tile">,
    Option<"rowChunk", "row-chunk", "int64_t", "1024",
           "Elements per step over a longer or dynamic row (a power of "
           "two)">,
    Option<"rowBlock", "row-block", "int64_t", "0",
           "Rows per program of a row kernel (a power of two, at most "
           "row-chunk); 0 picks 32 where an input's rows lie next to each "
           "other in memory (a reduction over a leading axis), enough "
           "short static rows to fill a tile of row-chunk elements, else "
           "1">,
    Option<"blockM", "block-m", "int64_t", "64",
           "Rows of the result block of a matmul program">,
    Option<"blockN", "block-n", "int64_t", "64",
           "Columns of the result block of a matmul program">,
    Option<"blockK", "block-k", "int64_t", "32",
           "K step of a matmul program's loop">,
  ];
  let dependentDialects = ["kiln::plan::PlanDialect",
                           "kiln::tile::TileDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect"];
}

def KilnCostReportPass : Pass<"kiln-cost-report", "mlir::ModuleOp"> {
  let summary = "Print each kernel's FLOPs, DRAM bytes and regime";
  let description = [{
    For every function, lists its kernels (calls of `kiln.kernel`
    functions; before fusion, every linalg op) with FLOPs (one per
    arithmetic op of a body per iteration; 2*M*N*K for a matmul), minimum
    DRAM bytes (each input read once, each output written once), arithmetic
    intensity and regime against the target's ridge point; then the
    function's totals, its kernel count and which of arithmetic, memory and
    launch overhead bounds it. Targets: a100, h100, h200, with peaks
    overridable by the options. A dynamic dimension is counted as
    `dynamic-size`, and the report says so.
  }];
  let options = [
    Option<"target", "target", "std::string", "\"h100\"",
           "a100, h100 or h200">,
    Option<"peakTflops", "peak-tflops", "double", "0",
           "FP32 peak in TFLOP/s, overriding the target's">,
    Option<"bandwidthTbps", "bandwidth-tbps", "double", "0",
           "DRAM bandwidth in TB/s, overriding the target's">,
    Option<"dynamicSize", "dynamic-size", "int64_t", "1024",
           "Size taken for each dynamic dimension">,
  ];
}

#endif // KILN_ARRAY_PASSES_TD
