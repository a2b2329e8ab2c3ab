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

def TileExpandFloat8Pass : Pass<"tile-expand-float8", "mlir::ModuleOp"> {
  let summary = "Write conversions to and from 8-bit floats as integer operations";
  let description = [{
    Neither LLVM nor the CPU has 8-bit float types: the LLVM type converter
    stores them as `i8`, but `arith.extf` and `arith.truncf` from or to them
    have no lowering. This pass rewrites each, on scalars, tiles or vectors,
    into integer and `f32` operations on the 8 bits (read with
    `arith.bitcast`), for every 8-bit float type MLIR has whose codes are a
    sign, exponent and mantissa (`f8E4M3FN`, `f8E5M2`, `f8E4M3FNUZ`,
    `f8E5M2FNUZ`, ...), reading the format from its `APFloat` semantics:

    - widening places the code's bits in an `f16`'s where that gives every
      code but the NaNs its exact value (checked code by code: `f8E4M3FN`,
      `f8E5M2`, `f8E4M3FNUZ`): the magnitude shifted into the exponent and
      mantissa fields, the sign into f16's, and a product by a power of two
      that rebiases the exponent (none for `f8E5M2`, whose fields are
      f16's), with a select for NaN codes that do not land on an f16 NaN.
      Other formats are decoded (subnormals too) into an exact `f32`. The
      f16 or f32 is then converted to the result type (exactly for `f16`,
      `f32`, `bf16` and `f64`); the format's NaN codes give NaN and its
      infinities infinity;
    - narrowing takes `f16` and `bf16` to `f32` exactly (`f64` is rounded
      to `f32` first), rounds to nearest even, and saturates: a magnitude
      past the largest finite value, infinity included, becomes that value,
      as PTX's `cvt.rn.satfinite` (what Triton emits) does; NaN becomes the
      format's NaN, and a format without a negative zero (`FNUZ`) gives +0.

    Front ends compute on 8-bit floats in `f32` (Kiln's converts the
    operands and rounds the result), so these two ops are the only
    arithmetic on them; an integer conversion to or from one (which the
    canonicalizer makes of one through `f32`) is split through `f32`
    first; loads and stores move them as bytes. A `tile.dot`
    of 8-bit floats still here (the host's) is first widened to f16
    operands (exact), whose conversions the pass then expands; the GPU
    lowering has turned its dots into instructions by then (wgmma on
    sm_90a multiplies 8-bit floats as they are). Both targets run the pass
    before their lowering.

    ```mlir
    %w = arith.extf %x : tensor<128xf8E4M3FN> to tensor<128xf32>
    // becomes
    %bits = arith.bitcast %x : tensor<128xf8E4M3FN> to tensor<128xi8>
    %code = arith.extui %bits : tensor<128xi8> to tensor<128xi16>
    ... // sign << 8 | magnitude << 7, as f16, times 256; NaN selected
    %w = arith.extf %half : tensor<128xf16> to tensor<128xf32>
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect"];
}

def TileCarryBlockPointersPass
    : Pass<"tile-carry-block-pointers", "mlir::ModuleOp"> {
  let summary = "Carry block pointers made in a loop from its induction variable";
  let description = [{
    Triton's tensor descriptors read a block at coordinates computed in the
    loop (`desc.load([m, k * BLOCK_K])`), which Kiln's front end makes a
    `tile.make_block_ptr` in the loop body. The pipeliner and the TMA path
    take a block pointer made before the loop and advanced by it. This
    pass rewrites the first form into the second where it can: a
    `tile.make_block_ptr` in the body of an `scf.for` whose base, shape and
    strides are defined outside the loop and whose offsets are each a
    loop-invariant value plus the induction variable times a constant
    (sums, differences and products by constants of such terms) becomes
    an iteration argument made before the loop at the lower bound and
    advanced by the step times each constant. Other block pointers stay
    as they are (and are accessed without TMA).

    ```mlir
    scf.for %k = %lb to %ub step %s iter_args(%acc = %zero) -> ... : i32 {
      %off = arith.muli %k, %c64 : i32
      %bp = tile.make_block_ptr %base, [%m, %n], [%n64, %c1], [%row, %off]
          {order = array<i32: 1, 0>} : !tile.ptr<f16> -> !tile.block_ptr<...>
      ...
    }
    // becomes
    %off0 = arith.muli %lb, %c64 : i32
    %bp0 = tile.make_block_ptr %base, [...], [...], [%row, %off0] ...
    %delta = arith.muli %s, %c64 : i32
    scf.for %k = %lb to %ub step %s iter_args(%acc = %zero, %bp = %bp0) ... {
      ...
      %next = tile.advance %bp, [%c0, %delta] : !tile.block_ptr<...>
      scf.yield ..., %next
    }
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def TileBlockPointersToPointersPass
    : Pass<"tile-block-pointers-to-pointers", "mlir::ModuleOp"> {
  let summary = "Access block pointers' blocks through tiles of pointers";
  let description = [{
    On a target without the tensor memory accelerator (before sm_90), a
    block pointer (Triton's tensor descriptor, or `tl.make_block_ptr`) is
    only a way of writing addresses, as Triton lowers it there. This pass
    writes each `tile.block_load` and `tile.block_store` as the
    `tile.load` / `tile.store` a Triton user would write by hand, so that
    the alignment analysis sees the rows' contiguity and the loads become
    vector loads and `cp.async` copies the pipeliner stages:

    - the pointers are the base plus, for each dimension, `(offset +
      range) * stride` in 64 bits, broadcast to the block;
    - each checked dimension masks the indices outside `[0, size)`, and
      the load reads `padding` (zero or NaN) there.

    A block pointer is split into its fields (base, sizes, strides,
    offsets); `tile.advance` adds to the offsets, and the `scf` ops that
    carry block pointers (loop arguments, yields, branches) carry the
    fields instead. A function where a block pointer reaches any other op
    is left as it is, with a remark naming that op.

    ```mlir
    %bp = tile.make_block_ptr %base, [%m, %k], [%k, %c1], [%row, %col]
        {order = array<i32: 1, 0>} : !tile.ptr<f16> -> !tile.block_ptr<64x32xf16>
    %t = tile.block_load %bp boundary_check = [0, 1]
        : !tile.block_ptr<64x32xf16> -> tensor<64x32xf16>
    // becomes (the offsets' arithmetic elided)
    %t = tile.load %ptrs, %inside, other %zeros
        : tensor<64x32x!tile.ptr<f16>> -> tensor<64x32xf16>
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def TileFlattenLoopsPass : Pass<"tile-flatten-loops", "mlir::ModuleOp"> {
  let summary = "Make a loop marked tile.flatten and the loop in its body one loop";
  let description = [{
    Triton's `tl.range(..., flatten=True)` on a persistent kernel's loop
    over tiles asks for it and the K loop in its body to be one loop, so
    that the software pipeline of the K loop's loads runs across tiles
    (the next tile's first loads issued while this tile's last steps and
    epilogue run) instead of draining and filling again for every tile.

    An `scf.for` with the unit attribute `tile.flatten` whose body is pure
    ops (the tile's prologue: its coordinates and offsets), one `scf.for`
    whose bounds the outer loop does not change and that carries integer
    or float values, and then any ops (the epilogue) becomes one loop over
    `outer trips x inner trips` steps. Step `f` is inner step `f mod
    inner` of outer step `f / inner`: it computes the prologue anew (pure,
    so only for the steps that run), starts the carried values from the
    inner loop's initial values where the inner step is 0 (`arith.select`),
    runs the inner body, and runs the epilogue under an `scf.if` at the
    last inner step. What the outer loop carries (Triton's persistent
    matmul counts its epilogue's tiles) the new loop carries after the
    inner loop's values, changed by each epilogue. Where the inner loop
    has no steps at run time the outer loop runs instead, as written but
    for its inner loop, whose results are its initial values there (the
    epilogue still runs once per tile). The new loop takes the inner
    loop's attributes (its `num_stages`) and the outer loop's
    `tile.warp_specialize`.
    A loop the pass cannot flatten keeps its form, with a remark that says
    why.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def TileCheckSizesPass : Pass<"tile-check-sizes", "mlir::ModuleOp"> {
  let summary = "Refuse tiles too large to compile";
  let description = [{
    A tile of 2^30 elements made LLVM abort (out of memory), and one of
    2^20 elements did not finish compiling for the GPU: code generation
    unrolls the elements a thread holds. Each target runs this pass first,
    so that such a kernel ends in an error naming the tile and the limit:

    - a tile (a ranked tensor operand or result of an op in a kernel) has
      at most 2^20 (1,048,576) elements, Triton's limit
      (`TRITON_MAX_TENSOR_NUMEL`);
    - with `threads` (the GPU's threads per program), a tile has at most
      1,024 elements per thread: its elements over the threads. The GPU's
      compile time grows faster than linearly with it (about 1 s at 512,
      3 s at 1,024, 13 s at 2,048 on two cores); Triton's tutorials stay
      at or below 256.

    ```mlir
    // error: 'tile.range' op tile of 2097152 elements is more than the
    // 1048576 a tile may have
    %r = tile.range 0 to 2097152 : tensor<2097152xi32>
    ```
  }];
  let options = [
    Option<"threads", "threads", "int64_t", /*default=*/"0",
           "Threads per program on the GPU (0: no per-thread limit)">
  ];
}

def TileSpeculateIfsPass : Pass<"tile-speculate-ifs", "mlir::func::FuncOp"> {
  let summary = "Turn run-time ifs whose tile results pure ops compute into selects";
  let description = [{
    One-shot bufferization puts every tensor an `scf.if` yields in one alias
    set with both branches' values, and checks each read of the set against
    each in-place write to it, walking the regions around both: a nest of n
    run-time ifs that update a tile (`if n > 0: v = v + 1` nested 80 deep)
    cost about n^4 to bufferize (6.6 s at 80 levels). The host target runs
    this pass before bufferization.

    An `scf.if` with results and an else branch whose yielded values are
    computed, in the branches, only by pure ops without regions (no loads,
    loops, linalg ops or element accesses; no integer division that may
    trap) becomes those ops, moved before the if, and an `arith.select` per
    result; what else the branches did (stores, checks) stays in an
    `scf.if` without results. Inner ifs go first, so a nest becomes
    straight-line code (80 levels: 0.12 s). The branch not taken computes
    its pure ops too, which changes no result.

    ```mlir
    %r = scf.if %c -> (tensor<16xf32>) {
      %w = arith.addf %v, %one : tensor<16xf32>
      scf.yield %w : tensor<16xf32>
    } else {
      scf.yield %v : tensor<16xf32>
    }
    // becomes
    %w = arith.addf %v, %one : tensor<16xf32>
    %r = arith.select %c, %w, %v : tensor<16xf32>
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

#endif // KILN_DIALECT_TILE_TRANSFORMS_PASSES_TD
