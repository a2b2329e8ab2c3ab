//===- TileGPUOps.td - Operations of the tilegpu dialect ---*- tablegen -*-===//

#ifndef KILN_DIALECT_TILEGPU_IR_TILEGPUOPS_TD
#define KILN_DIALECT_TILEGPU_IR_TILEGPUOPS_TD

include "kiln/Dialect/Tile/IR/TileTypes.td"
include "kiln/Dialect/TileGPU/IR/TileGPUAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def TileGPU_ConvertLayoutOp : TileGPU_Op<"convert_layout", [Pure]> {
  let summary = "Move a tile from one layout to another";
  let description = [{
    The same tile (shape, element type, values) in another layout; on the
    GPU it moves elements between threads, through shared memory where
    needed.

    ```mlir
    %b = tilegpu.convert_layout %a : tensor<128xf32, #blocked> -> tensor<128xf32, #blocked1>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$src);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Shared-memory buffers filled asynchronously (software pipelining)
//===----------------------------------------------------------------------===//

def TileGPU_SharedBuffer : MemRefRankOf<[AnyType], [3]>;
// Slots of 2-D tiles, or of 1-D ones (the loads a loop given num_stages
// copies ahead).
def TileGPU_SlotBuffer : MemRefRankOf<[AnyType], [2, 3]>;
def TileGPU_Barriers : MemRefRankOf<[I64], [1]>;

def TileGPU_LocalAllocOp : TileGPU_Op<"local_alloc"> {
  let summary = "Shared memory for several stages of one tile";
  let description = [{
    A buffer in shared memory of `stages x rows x columns` elements
    (`stages x columns` for a 1-D tile; a `memref` in address space 3)
    that lives for the whole kernel: one slot per pipeline stage of a
    tile. Each slot is laid out as
    `kiln/Layout/SharedLayout.h` says for its rows (swizzled slabs), or,
    with the strides `[rows * columns, 1, rows]`, for its columns: the
    tile's transpose, as a K-major B operand (loaded down its columns) is
    staged for wgmma. A 1-D buffer of i64 holds mbarriers, one per stage.

    ```mlir
    %buf = tilegpu.local_alloc : memref<3x64x32xf16, 3>
    %kmajor = tilegpu.local_alloc : memref<3x32x64xf16, strided<[2048, 1, 32]>, 3>
    %bars = tilegpu.local_alloc : memref<3xi64, 3>
    ```
  }];
  let results = (outs AnyTypeOf<[TileGPU_SlotBuffer, TileGPU_Barriers]>:$buffer);
  let assemblyFormat = "attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

def TileGPU_AsyncCopyOp : TileGPU_Op<"async_copy"> {
  let summary = "Start copying a tile from global memory into a slot";
  let description = [{
    Starts copying the elements `ptrs` point to into slot `slot` of
    `buffer` (cp.async), each thread its own elements, as wide as their
    alignment allows (4, 8 or 16 bytes); where `mask` is false the slot
    gets zeros and memory is not read. The copy is complete after a
    `tilegpu.async_wait` that leaves fewer groups pending than were
    committed since, and visible to the other threads after a barrier.

    ```mlir
    tilegpu.async_copy %ptrs mask %mask into %buf[%slot]
        : memref<3x64x32xf16, 3>, tensor<64x32x!tile.ptr<f16>, #blocked>,
          tensor<64x32xi1, #blocked>
    ```
  }];
  let arguments = (ins Tile_PtrTensor:$ptrs, Optional<Tile_TileOf<[I1]>>:$mask,
                       TileGPU_SlotBuffer:$buffer, I32:$slot);
  let assemblyFormat = [{
    $ptrs (`mask` $mask^)? `into` $buffer `[` $slot `]` attr-dict `:`
    type($buffer) `,` type($ptrs) (`,` type($mask)^)?
  }];
  let hasVerifier = 1;
}

def TileGPU_AsyncCommitGroupOp : TileGPU_Op<"async_commit_group"> {
  let summary = "Close the group of the copies started since the last one";
  let assemblyFormat = "attr-dict";
}

def TileGPU_AsyncWaitOp : TileGPU_Op<"async_wait"> {
  let summary = "Wait until at most `pending` groups of copies are running";
  let arguments = (ins ConfinedAttr<I32Attr, [IntNonNegative]>:$pending);
  let assemblyFormat = "$pending attr-dict";
}

def TileGPU_LocalLoadOp : TileGPU_Op<"local_load"> {
  let summary = "Read a tile from a slot of a shared buffer";
  let description = [{
    The tile in slot `slot` of `buffer`, in the layout of the result
    (dot operands are read with `ldmatrix` where the element type allows).
    The caller makes sure the slot's copies are complete and visible.

    ```mlir
    %a = tilegpu.local_load %buf[%slot] : memref<3x64x32xf16, 3>
        -> tensor<64x32xf16, #dot_op>
    ```
  }];
  let arguments = (ins TileGPU_SlotBuffer:$buffer, I32:$slot);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $buffer `[` $slot `]` attr-dict `:` type($buffer) `->` type($result)
  }];
  let hasVerifier = 1;
}

def TileGPU_TransposeSlotsOp : TileGPU_Op<"transpose_slots", [Pure]> {
  let summary = "The same shared buffer, each slot read as its transpose";
  let description = [{
    A view of `buffer` whose slot `i` holds the transpose of `buffer`'s
    slot `i`: a slot of `rows x columns` tiles laid out for its rows is
    one of `columns x rows` tiles laid out for its columns (a transposed
    slot), and the other way round. No data moves; it is how one staged
    load feeds both `tl.dot(a, x)` and `tl.dot(b, tl.trans(x))` from its
    one slot, as an attention's backward pass reads its loads.

    ```mlir
    %t = tilegpu.transpose_slots %buf
        : memref<3x32x64xf16, 3> -> memref<3x64x32xf16, strided<[2048, 1, 64]>, 3>
    ```
  }];
  let arguments = (ins TileGPU_SharedBuffer:$buffer);
  let results = (outs TileGPU_SharedBuffer:$result);
  let assemblyFormat = "$buffer attr-dict `:` type($buffer) `->` type($result)";
  let hasVerifier = 1;
}

def TileGPU_LocalStoreOp : TileGPU_Op<"local_store"> {
  let summary = "Write a tile into a slot of a shared buffer";
  let description = [{
    Writes `value` into slot `slot` of `buffer`, laid out as the slots of
    tile-pipeline-loops' buffers are (each thread's runs of a row as
    vectors). The caller makes the writes visible to their readers (a
    barrier; for wgmma, `tilegpu.fence_async_shared` before it).

    ```mlir
    tilegpu.local_store %q, %buf[%c0] : tensor<128x64xf16, #blocked>,
        memref<1x128x64xf16, 3>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$value, TileGPU_SlotBuffer:$buffer,
                       I32:$slot);
  let assemblyFormat = [{
    $value `,` $buffer `[` $slot `]` attr-dict `:` type($value) `,`
    type($buffer)
  }];
  let hasVerifier = 1;
}

def TileGPU_FenceAsyncSharedOp : TileGPU_Op<"fence_async_shared"> {
  let summary = "Make this thread's shared-memory writes visible to wgmma";
  let description = [{
    Orders the shared-memory writes this thread made before it (stores and
    completed cp.async copies, both of the generic proxy) before the reads
    of the async proxy that follow a barrier: `wgmma.mma_async` reads its
    operands through that proxy (`fence.proxy.async.shared::cta`).
  }];
  let assemblyFormat = "attr-dict";
}

def TileGPU_WarpgroupDotOp
    : TileGPU_Op<"warpgroup_dot", [AllTypesMatch<["acc", "result"]>,
                                   AttrSizedOperandSegments]> {
  let summary = "A dot on wgmma, B in a shared slot, A in one or in registers";
  let description = [{
    `acc + a * b` where `b` (K x N) is slot `bSlot` of `b`, laid out as
    `kiln/Layout/SharedLayout.h` says (N-major, or K-major in a transposed
    slot), and `a` (M x K) either slot `aSlot` of a buffer laid out the
    same way (K-major) or a tile in registers in the dot-operand layout of
    the accumulator (what a cast or other prologue computed); `acc` has a
    warpgroup mma layout (sm_90a). f16 and bf16 operands accumulate in
    f32; the others, which wgmma reads K-major only (A in a slot, B in a
    transposed one), accumulate in i32 (i8, signed) or f32 (f32 read as
    tf32; f8E4M3FN and f8E5M2, mixed or not). Each warpgroup issues
    `wgmma.mma_async` m64nNkK (K: 32 bytes of operand) on its 64-row
    blocks, reading B (and a slotted A) from shared memory through
    matrix descriptors, and waits for them before the result is used. The
    caller makes the slots' writes visible to the async proxy
    (`tilegpu.fence_async_shared`, then a barrier).

    With `use_acc` (i1), the products are added to `acc` only where it
    holds; elsewhere the result is `a * b` and `acc` is not read (wgmma's
    scale-d). A dot whose accumulator would be selected between zero and
    a value an asynchronous dot may still be writing (a flattened loop's
    first K step of a tile) takes the value and the condition instead.

    With `async`, the wait leaves this dot's wgmma running and waits only
    for those issued before it: the result is still being written, and
    may only be the accumulator of a later dot or the operand of a
    `tilegpu.warpgroup_wait` (carried by loops to them). A pipelined K
    loop runs so, the next step's copies issued while this step's wgmma
    runs.
    ```mlir
    %d = tilegpu.warpgroup_dot %a[%slot], %b[%slot], %acc
        : memref<3x128x64xbf16, 3>, memref<3x64x128xbf16, 3>,
          tensor<128x128xf32, #tilegpu.mma<{warpsPerCTA = [4, 1], warpgroup = true}>>
    %e = tilegpu.warpgroup_dot %x, %b[%slot], %acc
        : tensor<128x64xbf16, #tilegpu.dot_operand<{opIdx = 0, parent = #wg, kWidth = 2}>>,
          memref<3x64x128xbf16, 3>, tensor<128x128xf32, #wg>
    ```
  }];
  let arguments = (ins AnyTypeOf<[TileGPU_SharedBuffer, AnyRankedTensor]>:$a,
                       Optional<I32>:$aSlot,
                       TileGPU_SharedBuffer:$b, I32:$bSlot,
                       Tile_TileOf<[F32, I32]>:$acc, Optional<I1>:$useAcc,
                       UnitAttr:$async);
  let results = (outs Tile_TileOf<[F32, I32]>:$result);
  let assemblyFormat = [{
    $a (`[` $aSlot^ `]`)? `,` $b `[` $bSlot `]` `,` $acc
    (`use_acc` $useAcc^)? attr-dict `:` type($a) `,` type($b) `,` type($acc)
  }];
  let extraClassDeclaration = [{
    /// Rows of one wgmma's accumulator.
    static constexpr int64_t kInstrM = 64;
    /// K of one wgmma of `element` operands: 32 bytes of them.
    static int64_t getInstrK(::mlir::Type element) {
      return 256 / element.getIntOrFloatBitWidth();
    }
    /// Whether wgmma reads `element` operands K-major only: it transposes
    /// (imm-trans) 16-bit ones alone, not tf32 or 8-bit ones.
    static bool readsKMajorOnly(::mlir::Type element) {
      return element.getIntOrFloatBitWidth() != 16;
    }
  }];
  let hasVerifier = 1;
}

def TileGPU_WarpgroupWaitOp
    : TileGPU_Op<"warpgroup_wait", [AllTypesMatch<["value", "result"]>]> {
  let summary = "Wait for every wgmma in flight; the result may then be read";
  let description = [{
    The accumulator of `async` warpgroup dots, once all of them have
    completed (`wgmma.wait_group 0`).

    ```mlir
    %done = tilegpu.warpgroup_wait %acc : tensor<128x128xf32, #wg>
    ```
  }];
  let arguments = (ins Tile_TileOf<[F32, I32]>:$value);
  let results = (outs Tile_TileOf<[F32, I32]>:$result);
  let assemblyFormat = "$value attr-dict `:` type($value)";
}

//===----------------------------------------------------------------------===//
// Copies by the tensor memory accelerator (TMA, sm_90), completed on
// mbarriers
//===----------------------------------------------------------------------===//

def TileGPU_InitBarriersOp : TileGPU_Op<"init_barriers"> {
  let summary = "Initialize the mbarriers of a buffer for `count` arrivals each";
  let description = [{
    One thread initializes every mbarrier of `barriers` (a local_alloc of
    i64 in shared memory) to expect `count` arrivals per phase (one
    unless given), fences the initialization and synchronizes the block,
    so that any thread may use them after.

    ```mlir
    tilegpu.init_barriers %bars : memref<3xi64, 3>
    tilegpu.init_barriers %empty {count = 256 : i32} : memref<3xi64, 3>
    ```
  }];
  let arguments = (ins TileGPU_Barriers:$barriers,
                       DefaultValuedAttr<ConfinedAttr<I32Attr, [IntPositive]>,
                                         "1">:$count);
  let assemblyFormat = "$barriers attr-dict `:` type($barriers)";
}

def TileGPU_BarrierArriveOp : TileGPU_Op<"barrier_arrive"> {
  let summary = "Every thread arrives on an mbarrier";
  let description = [{
    Each thread arrives once on mbarrier `index` of `barriers`, releasing
    its earlier reads and writes of shared memory to the threads that
    wait for the phase (`mbarrier.arrive`). A warp-specialized loop's
    consumers arrive so on a slot's "empty" mbarrier, initialized for as
    many arrivals as they are threads, once they have read the slot.

    ```mlir
    tilegpu.barrier_arrive %empty[%slot] : memref<3xi64, 3>
    ```
  }];
  let arguments = (ins TileGPU_Barriers:$barriers, I32:$index);
  let assemblyFormat = [{
    $barriers `[` $index `]` attr-dict `:` type($barriers)
  }];
}

def TileGPU_WarpSpecializeOp
    : TileGPU_Op<"warp_specialize", [NoTerminator, SingleBlock]> {
  let summary = "Run a region on a producer warpgroup of its own";
  let description = [{
    The kernel runs `producerWarps` more warps than its layouts are for
    (the module's `tilegpu.num_warps`, the consumers). Those extra warps,
    a warpgroup, run the region alone (a warp-specialized loop's TMA
    copies) with `producerRegisters` registers a thread, and then exit;
    the consumers skip it, take `consumerRegisters` registers a thread
    (`setmaxnreg`, sm_90a) and run the rest of the kernel, whose block
    barriers count only them. The region uses the function's arguments,
    the shared buffers allocated in its body (slots and mbarriers) and
    constants, and computes everything else it needs itself, so that the
    consumers' code runs on the consumers alone.

    ```mlir
    tilegpu.warp_specialize {producerWarps = 4 : i32,
                             producerRegisters = 40 : i32,
                             consumerRegisters = 232 : i32} {
      ...
    }
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntPositive]>:$producerWarps,
                       I32Attr:$producerRegisters,
                       I32Attr:$consumerRegisters);
  let regions = (region SizedRegion<1>:$producer);
  let assemblyFormat = "attr-dict-with-keyword $producer";
  let extraClassDeclaration = [{
    /// Registers of a streaming multiprocessor: all that a block's
    /// threads share.
    static constexpr int64_t kBlockRegisters = 64 * 1024;
  }];
  let hasVerifier = 1;
}

def TileGPU_BarrierExpectOp : TileGPU_Op<"barrier_expect"> {
  let summary = "Arrive on an mbarrier, expecting that many bytes of copies";
  let description = [{
    Where `pred` holds, one thread arrives on mbarrier `index` of
    `barriers`, and the phase also waits for `bytes` bytes of TMA copies
    to land (`mbarrier.arrive.expect_tx`).

    ```mlir
    tilegpu.barrier_expect %bars[%slot], 16384 if %valid : memref<3xi64, 3>
    ```
  }];
  let arguments = (ins TileGPU_Barriers:$barriers, I32:$index,
                       ConfinedAttr<I32Attr, [IntPositive]>:$bytes, I1:$pred);
  let assemblyFormat = [{
    $barriers `[` $index `]` `,` $bytes `if` $pred attr-dict `:`
    type($barriers)
  }];
}

def TileGPU_TensorMapCopyOp : TileGPU_Op<"tensor_map_copy"> {
  let summary = "Start a TMA copy of a block pointer's block into a slot";
  let description = [{
    Where `pred` holds, one thread starts copying the block `block_ptr`
    points at (its offsets; base, shape and strides are the tensor map's)
    from global memory into slot `slot` of `buffer` through the tensor map
    at `tensor_map` (`cp.async.bulk.tensor.2d`, one per slab of the slot's
    layout); elements outside the tensor read as zero. The copy completes
    on mbarrier `slot` of `barriers`.

    ```mlir
    tilegpu.tensor_map_copy %map, %bp into %buf[%slot], %bars if %valid
        : !tile.ptr<i8, 0>, !tile.block_ptr<64x64xf16>,
          memref<3x64x64xf16, 3>, memref<3xi64, 3>
    ```
  }];
  let arguments = (ins Tile_PointerType:$tensorMap,
                       Tile_BlockPointerType:$blockPtr,
                       TileGPU_SharedBuffer:$buffer, I32:$slot,
                       TileGPU_Barriers:$barriers, I1:$pred);
  let assemblyFormat = [{
    $tensorMap `,` $blockPtr `into` $buffer `[` $slot `]` `,` $barriers
    `if` $pred attr-dict `:` qualified(type($tensorMap)) `,`
    qualified(type($blockPtr)) `,` type($buffer) `,` type($barriers)
  }];
  let hasVerifier = 1;
}

def TileGPU_TensorMapStoreOp : TileGPU_Op<"tensor_map_store"> {
  let summary = "Store a tile into a block pointer's block by TMA";
  let description = [{
    Writes `value` into the block `block_ptr` points at (its offsets; base,
    shape and strides are the tensor map's) through the tensor map at
    `tensor_map`: the tile is staged in swizzled shared memory, then one
    thread copies it to global memory (`cp.async.bulk.tensor.2d`
    shared::cta to global, one per slab of the staging layout) and waits
    until the copies have read it. Elements outside the tensor are not
    written.

    ```mlir
    tilegpu.tensor_map_store %v, %map, %bp
        : tensor<128x128xf16, #blocked>, !tile.ptr<i8, 0>,
          !tile.block_ptr<128x128xf16>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$value, Tile_PointerType:$tensorMap,
                       Tile_BlockPointerType:$blockPtr);
  let assemblyFormat = [{
    $value `,` $tensorMap `,` $blockPtr attr-dict `:` type($value) `,`
    qualified(type($tensorMap)) `,` qualified(type($blockPtr))
  }];
  let hasVerifier = 1;
}

def TileGPU_BarrierWaitOp : TileGPU_Op<"barrier_wait"> {
  let summary = "Wait for a phase of an mbarrier to complete";
  let description = [{
    Every thread waits until the phase of mbarrier `index` whose parity is
    `phase` (0 or 1) has completed: its arrivals and expected bytes are in,
    and the copies it tracked are visible.

    ```mlir
    tilegpu.barrier_wait %bars[%slot], %phase : memref<3xi64, 3>
    ```
  }];
  let arguments = (ins TileGPU_Barriers:$barriers, I32:$index, I32:$phase);
  let assemblyFormat = [{
    $barriers `[` $index `]` `,` $phase attr-dict `:` type($barriers)
  }];
}

#endif // KILN_DIALECT_TILEGPU_IR_TILEGPUOPS_TD
