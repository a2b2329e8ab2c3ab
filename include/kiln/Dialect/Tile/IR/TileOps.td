//===- TileOps.td - Operations of the tile dialect ---------*- tablegen -*-===//

#ifndef KILN_DIALECT_TILE_IR_TILEOPS_TD
#define KILN_DIALECT_TILE_IR_TILEOPS_TD

include "kiln/Dialect/Tile/IR/TileAttrs.td"
include "kiln/Dialect/Tile/IR/TileDialect.td"
include "kiln/Dialect/Tile/IR/TileTypes.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Program instances
//===----------------------------------------------------------------------===//

def Tile_ProgramIdOp : Tile_Op<"program_id", [Pure]> {
  let summary = "Index of this program instance along a grid axis";
  let description = [{
    ```mlir
    %pid = tile.program_id x
    ```
  }];
  let arguments = (ins Tile_ProgramAxisAttr:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict";
}

def Tile_NumProgramsOp : Tile_Op<"num_programs", [Pure]> {
  let summary = "Number of program instances along a grid axis";
  let description = [{
    ```mlir
    %n = tile.num_programs y
    ```
  }];
  let arguments = (ins Tile_ProgramAxisAttr:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict";
}

//===----------------------------------------------------------------------===//
// Making and reshaping tiles
//===----------------------------------------------------------------------===//

def Tile_RangeOp : Tile_Op<"range", [Pure]> {
  let summary = "Tile of consecutive integers";
  let description = [{
    The 1-D tile `[start, start + 1, ..., end - 1]` of `i32`.

    ```mlir
    %offs = tile.range 0 to 128 : tensor<128xi32>
    ```
  }];
  let arguments = (ins Tile_I32Attr:$start, Tile_I32Attr:$end);
  let results = (outs Tile_TileOf<[I32]>:$result);
  let assemblyFormat = "$start `to` $end attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_SplatOp : Tile_Op<"splat", [Pure]> {
  let summary = "Tile whose every element is one scalar";
  let description = [{
    ```mlir
    %t = tile.splat %x : f32 -> tensor<64x64xf32>
    ```
  }];
  let arguments = (ins Tile_Element:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_BroadcastOp : Tile_Op<"broadcast", [Pure]> {
  let summary = "Repeat a tile along its size-1 dimensions";
  let description = [{
    Every dimension of the result equals the source's, or the source's is 1.
    The ranks are equal: use `tile.expand_dims` first to add a dimension.

    ```mlir
    %b = tile.broadcast %row : tensor<1x128xf32> -> tensor<64x128xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tile_ExpandDimsOp : Tile_Op<"expand_dims", [Pure]> {
  let summary = "Insert a size-1 dimension";
  let description = [{
    ```mlir
    %col = tile.expand_dims %v axis 1 : tensor<128xf32> -> tensor<128x1xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, Tile_I32Attr:$axis);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat =
      "$src `axis` $axis attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tile_ReshapeOp : Tile_Op<"reshape", [Pure]> {
  let summary = "Reinterpret a tile with another shape of the same size";
  let description = [{
    Elements keep their row-major order.

    ```mlir
    %r = tile.reshape %t : tensor<16x8xf32> -> tensor<128xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tile_TransOp : Tile_Op<"trans", [Pure]> {
  let summary = "Permute the dimensions of a tile";
  let description = [{
    Dimension `i` of the result is dimension `order[i]` of the source.

    ```mlir
    %t = tile.trans %m [1, 0] : tensor<64x32xf16> -> tensor<32x64xf16>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, DenseI32ArrayAttr:$order);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat =
      "$src $order attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tile_GatherOp : Tile_Op<"gather", [Pure]> {
  let summary = "Elements of a tile picked along an axis by an index tile";
  let description = [{
    Triton's `tl.gather`: the result has the index's shape and the
    source's element type, and each element is the source's element at the
    same coordinates but along `axis`, where it is the index's element:
    `result[i][j] = src[index[i][j]][j]` for axis 0. Along every other
    axis the index and the source have the same size. An index outside
    `[0, src.shape[axis])` reads the element at the nearest end (Triton
    leaves such a read undefined).

    ```mlir
    %g = tile.gather %table[%idx] axis 0
        : tensor<64x16xf32>, tensor<128x16xi32> -> tensor<128x16xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src,
                       Tile_TileOf<[AnySignlessInteger]>:$index,
                       I32Attr:$axis);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $src `[` $index `]` `axis` $axis attr-dict `:` type($src) `,`
    type($index) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Pointers and memory
//===----------------------------------------------------------------------===//

def Tile_AddPtrOp : Tile_Op<"addptr", [Pure,
    AllTypesMatch<["ptr", "result"]>]> {
  let summary = "Advance pointers by a number of elements";
  let description = [{
    `offset` counts elements of the pointee type, not bytes. A tensor of
    pointers takes a tensor of offsets of the same shape.

    ```mlir
    %p = tile.addptr %base, %offs : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
    ```
  }];
  let arguments = (ins Tile_PtrLike:$ptr, Tile_IntLike:$offset);
  let results = (outs Tile_PtrLike:$result);
  let assemblyFormat = [{
    $ptr `,` $offset attr-dict `:` type($ptr) `,` type($offset)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tile_LoadOp : Tile_Op<"load", [AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Load through pointers, with an optional mask";
  let description = [{
    Loads the element behind each pointer. Where `mask` is false nothing is
    read and the result holds `other` (undefined when `other` is absent).
    The mask has the pointers' shape; `other` has the result's type.

    An `isVolatile` load (Triton's `volatile=True`, which a spin-wait on a
    flag another program writes needs) is read from memory each time it
    runs: it is never merged with another load, moved out of a loop,
    dropped when unused or staged through shared memory, and is PTX's
    `ld.volatile`.

    ```mlir
    %v = tile.load %ptrs, %mask, other %zero
        : tensor<128x!tile.ptr<f32>> -> tensor<128xf32>
    %flag = tile.load %lock {isVolatile} : !tile.ptr<i32> -> i32
    ```
  }];
  let arguments = (ins Tile_PtrLike:$ptr,
                       Optional<Tile_BoolLike>:$mask,
                       Optional<Tile_ScalarOrTensor>:$other,
                       UnitAttr:$isVolatile);
  let results = (outs Tile_ScalarOrTensor:$result);
  let assemblyFormat = [{
    $ptr `` custom<MaskAndOther>($mask, $other) attr-dict
    `:` custom<PtrAndMaskTypes>(type($ptr), ref($mask), type($mask))
    `->` custom<TypeAndOptionalOperandType>(type($result), ref($other),
                                            type($other))
  }];
  let hasVerifier = 1;
}

def Tile_StoreOp : Tile_Op<"store", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Store through pointers, with an optional mask";
  let description = [{
    Stores each element of `value` behind the matching pointer, except where
    `mask` is false.

    ```mlir
    tile.store %ptrs, %v, %mask : tensor<128x!tile.ptr<f32>>, tensor<128xf32>
    ```
  }];
  let arguments = (ins Tile_PtrLike:$ptr, Tile_ScalarOrTensor:$value,
                       Optional<Tile_BoolLike>:$mask);
  let assemblyFormat = [{
    $ptr `,` $value `` custom<MaskAndOther>($mask) attr-dict
    `:` custom<PtrAndMaskTypes>(type($ptr), ref($mask), type($mask))
    `,` type($value)
  }];
  let hasVerifier = 1;
}

def Tile_AtomicRMWOp : Tile_Op<"atomic_rmw", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    AllTypesMatch<["value", "result"]>]> {
  let summary = "Atomic read-modify-write through pointers";
  let description = [{
    For each pointer where `mask` is true, atomically replaces the element
    `old` behind it with `kind(old, value)` and returns `old`. `max`/`min`
    compare integers as signed and `umax`/`umin` as unsigned; on floats only
    `add`, `max`, `min` and `xchg` are defined.

    ```mlir
    %old = tile.atomic_rmw add acq_rel gpu %ptrs, %v, %mask
        : tensor<128x!tile.ptr<f32>>, tensor<128xf32>
    ```
  }];
  let arguments = (ins Tile_AtomicRMWKindAttr:$kind,
                       Tile_MemSemanticAttr:$sem,
                       Tile_MemScopeAttr:$scope,
                       Tile_PtrLike:$ptr, Tile_ScalarOrTensor:$value,
                       Optional<Tile_BoolLike>:$mask);
  let results = (outs Tile_ScalarOrTensor:$result);
  let assemblyFormat = [{
    $kind $sem $scope $ptr `,` $value `` custom<MaskAndOther>($mask) attr-dict
    `:` custom<PtrAndMaskTypes>(type($ptr), ref($mask), type($mask))
    `,` type($value)
  }];
  let hasVerifier = 1;
}

def Tile_AtomicCASOp : Tile_Op<"atomic_cas", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    AllTypesMatch<["cmp", "value", "result"]>]> {
  let summary = "Atomic compare-and-swap through pointers";
  let description = [{
    For each pointer, atomically replaces the element `old` behind it with
    `value` where `old` equals `cmp` bit for bit, and returns `old`
    (Triton's `tl.atomic_cas`). Elements are integers or floats of 16, 32
    or 64 bits.

    ```mlir
    %old = tile.atomic_cas acq_rel gpu %lock, %zero, %one
        : !tile.ptr<i32>, i32
    ```
  }];
  let arguments = (ins Tile_MemSemanticAttr:$sem,
                       Tile_MemScopeAttr:$scope,
                       Tile_PtrLike:$ptr, Tile_ScalarOrTensor:$cmp,
                       Tile_ScalarOrTensor:$value);
  let results = (outs Tile_ScalarOrTensor:$result);
  let assemblyFormat = [{
    $sem $scope $ptr `,` $cmp `,` $value attr-dict `:` type($ptr) `,`
    type($value)
  }];
  let hasVerifier = 1;
}

def Tile_PtrToIntOp : Tile_Op<"ptr_to_int", [Pure]> {
  let summary = "Address held by pointers, as integers";
  let description = [{
    ```mlir
    %a = tile.ptr_to_int %p : !tile.ptr<f32> -> i64
    ```
  }];
  let arguments = (ins Tile_PtrLike:$src);
  let results = (outs Tile_IntLike:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_IntToPtrOp : Tile_Op<"int_to_ptr", [Pure]> {
  let summary = "Pointers to the addresses held by integers";
  let description = [{
    ```mlir
    %p = tile.int_to_ptr %a : i64 -> !tile.ptr<f32>
    ```
  }];
  let arguments = (ins Tile_IntLike:$src);
  let results = (outs Tile_PtrLike:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_PtrCastOp : Tile_Op<"ptr_cast", [Pure]> {
  let summary = "Reinterpret pointers as pointers to another element type";
  let description = [{
    The address and address space are kept; only the pointee type changes.

    ```mlir
    %q = tile.ptr_cast %p : !tile.ptr<f32> -> !tile.ptr<i32>
    ```
  }];
  let arguments = (ins Tile_PtrLike:$src);
  let results = (outs Tile_PtrLike:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_AssumeOp : Tile_Op<"assume", [Pure,
    AllTypesMatch<["src", "result"]>]> {
  let summary = "Declares what is known of an integer or pointer tile's elements";
  let description = [{
    The result is `src`; the attributes state, per dimension, facts the
    compiler may rely on but cannot always prove: the first element of
    every run is a multiple of `divisibility` (bytes for pointers), runs of
    `contiguity` elements increase by one, runs of `constancy` elements are
    equal. They are what Triton's `multiple_of`, `max_contiguous` and
    `max_constancy` hints say, and the axis analysis takes them over what
    it derives. A scalar has one dimension here.

    ```mlir
    %hinted = tile.assume %offsets {contiguity = array<i64: 128>,
                                    divisibility = array<i64: 128>}
        : tensor<128xi32>
    ```
  }];
  let arguments = (ins AnyTypeOf<[Tile_IntLike, Tile_PtrLike]>:$src,
                       OptionalAttr<DenseI64ArrayAttr>:$divisibility,
                       OptionalAttr<DenseI64ArrayAttr>:$contiguity,
                       OptionalAttr<DenseI64ArrayAttr>:$constancy);
  let results = (outs AnyTypeOf<[Tile_IntLike, Tile_PtrLike]>:$result);
  let assemblyFormat = "$src attr-dict `:` type($src)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Block pointers
//===----------------------------------------------------------------------===//

def Tile_MakeBlockPtrOp : Tile_Op<"make_block_ptr", [Pure,
    AttrSizedOperandSegments]> {
  let summary = "Describe a block of a strided tensor";
  let description = [{
    `base` points at element (0, ..., 0) of a tensor with the given `shape`
    and `strides` (in elements); the block starts at `offsets`. `order`
    lists the dimensions from fastest- to slowest-varying in memory.

    ```mlir
    %bp = tile.make_block_ptr %a, [%m, %k], [%k64, %c1], [%off, %c0]
        {order = array<i32: 1, 0>} : !tile.ptr<f16> -> !tile.block_ptr<64x32xf16>
    ```
  }];
  let arguments = (ins Tile_PointerType:$base, Variadic<I64>:$shape,
                       Variadic<I64>:$strides, Variadic<I32>:$offsets,
                       DenseI32ArrayAttr:$order);
  let results = (outs Tile_BlockPointerType:$result);
  let assemblyFormat = [{
    $base `,` `[` $shape `]` `,` `[` $strides `]` `,` `[` $offsets `]`
    attr-dict `:` qualified(type($base)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Tile_AdvanceOp : Tile_Op<"advance", [Pure,
    AllTypesMatch<["blockPtr", "result"]>]> {
  let summary = "Move a block pointer by a number of elements per dimension";
  let description = [{
    ```mlir
    %next = tile.advance %bp, [%c0, %c32] : !tile.block_ptr<64x32xf16>
    ```
  }];
  let arguments = (ins Tile_BlockPointerType:$blockPtr, Variadic<I32>:$offsets);
  let results = (outs Tile_BlockPointerType:$result);
  let assemblyFormat =
      [{
    $blockPtr `,` `[` $offsets `]` attr-dict `:` qualified(type($blockPtr))
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_BlockLoadOp : Tile_Op<"block_load", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Load the block a block pointer describes";
  let description = [{
    Dimensions listed in `boundary_check` are checked against the tensor's
    shape; out-of-bounds elements read as `padding` (zero by default).
    Unchecked dimensions must be in bounds.

    ```mlir
    %t = tile.block_load %bp boundary_check = [0, 1] padding = nan
        : !tile.block_ptr<64x32xf16> -> tensor<64x32xf16>
    ```
  }];
  let arguments = (ins Tile_BlockPointerType:$blockPtr,
                       DefaultValuedAttr<DenseI32ArrayAttr, "{}">:$boundary_check,
                       DefaultValuedAttr<Tile_PaddingOptionAttr,
                                         "PaddingOption::Zero">:$padding);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat =
[{
    $blockPtr (`boundary_check` `=` $boundary_check^)?
    (`padding` `=` $padding^)? attr-dict
    `:` qualified(type($blockPtr)) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_BlockStoreOp : Tile_Op<"block_store", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Store a tile into the block a block pointer describes";
  let description = [{
    Elements outside the tensor along a dimension in `boundary_check` are
    not written.

    ```mlir
    tile.block_store %bp, %t : !tile.block_ptr<64x32xf16>, tensor<64x32xf16>
    ```
  }];
  let arguments = (ins Tile_BlockPointerType:$blockPtr, Tile_Tensor:$value,
                       DefaultValuedAttr<DenseI32ArrayAttr, "{}">:$boundary_check);
  let assemblyFormat = [{
    $blockPtr `,` $value (`boundary_check` `=` $boundary_check^)? attr-dict
    `:` qualified(type($blockPtr)) `,`
    type($value)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Matrix multiplication, reductions and scans
//===----------------------------------------------------------------------===//

def Tile_DotOp : Tile_Op<"dot", [Pure, AllTypesMatch<["acc", "result"]>]> {
  let summary = "Matrix product of two tiles, added to an accumulator";
  let description = [{
    `result = a * b + acc` for `a` of shape MxK, `b` of KxN and `acc` of MxN.
    `a` and `b` have one element type (f16, bf16, f32, f8E4M3FN, f8E5M2 or
    i8; or the two 8-bit floats mixed); the accumulator is f32 for float
    inputs (or f16 for f16 inputs) and i32 for i8 inputs. 8-bit floats
    multiply exactly as their f16 widenings do: the host and GPUs without
    8-bit float tensor cores widen them (`widenFloat8Operands`), sm_90a's
    wgmma multiplies them as they are. `input_precision` says how f32 inputs are multiplied:
    `ieee` exactly, `tf32` on tensor cores with 10-bit mantissas, `tf32x3`
    with the error-compensated three-pass tf32 scheme.

    `x + dot(a, b, zeros)` (what `acc += dot(a, b)` is written as)
    canonicalizes to `dot(a, b, x)`: the products accumulate straight into
    `x`, as tensor cores do, instead of into a second accumulator.

    ```mlir
    %c = tile.dot %a, %b, %acc input_precision = tf32
        : tensor<64x32xf32>, tensor<32x128xf32> -> tensor<64x128xf32>
    ```
  }];
  let arguments = (ins Tile_NumericTensor:$a, Tile_NumericTensor:$b,
                       Tile_NumericTensor:$acc,
                       DefaultValuedAttr<Tile_InputPrecisionAttr,
                                         "InputPrecision::IEEE">:$input_precision);
  let results = (outs Tile_NumericTensor:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $acc (`input_precision` `=` $input_precision^)? attr-dict
    `:` type($a) `,` type($b) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    /// Whether `a` or `b` has 8-bit float elements.
    bool hasFloat8Operands();
    /// Replaces 8-bit float operands by their f16 widenings (exact),
    /// `arith.extf` ops before the dot, in the operands' layouts.
    void widenFloat8Operands();
  }];
}

def Tile_ReduceOp : Tile_Op<"reduce", [RecursiveMemoryEffects,
    RecursivelySpeculatable, SingleBlock]> {
  let summary = "Reduce tiles along one axis with a combining region";
  let description = [{
    Combines the elements of each operand along `axis` with the region, which
    takes two sets of scalars (the running values of every operand, then the
    next elements) and yields one set. The combination must be associative
    and commutative: the order is unspecified. Several operands are reduced
    together, as an argmax reduces values and indices. Each result has the
    operand's shape without `axis`, or is a scalar for a 1-D operand.

    ```mlir
    %s = tile.reduce %t axis 1 : tensor<64x128xf32> -> tensor<64xf32> {
    ^bb0(%a: f32, %b: f32):
      %sum = arith.addf %a, %b : f32
      tile.yield %sum : f32
    }
    ```
  }];
  let arguments = (ins Variadic<Tile_Tensor>:$srcs, Tile_I32Attr:$axis);
  let results = (outs Variadic<Tile_ScalarOrTensor>:$results);
  let regions = (region SizedRegion<1>:$combiner);
  let assemblyFormat = [{
    $srcs `axis` $axis attr-dict `:` type($srcs) `->` type($results)
    $combiner
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def Tile_ScanOp : Tile_Op<"scan", [RecursiveMemoryEffects,
    RecursivelySpeculatable, SingleBlock]> {
  let summary = "Inclusive scan of tiles along one axis";
  let description = [{
    Element `i` of each result combines elements `0..i` of the operands along
    `axis` (or `i..n-1` when `reverse` is set) with the region, which has the
    signature of `tile.reduce`'s and must be associative. Results have the
    operands' types.

    ```mlir
    %c = tile.scan %t axis 0 : tensor<128xi32> -> tensor<128xi32> {
    ^bb0(%a: i32, %b: i32):
      %s = arith.addi %a, %b : i32
      tile.yield %s : i32
    }
    ```
  }];
  let arguments = (ins Variadic<Tile_Tensor>:$srcs, Tile_I32Attr:$axis,
                       UnitAttr:$reverse);
  let results = (outs Variadic<Tile_Tensor>:$results);
  let regions = (region SizedRegion<1>:$combiner);
  let assemblyFormat = [{
    $srcs `axis` $axis (`reverse` $reverse^)? attr-dict
    `:` type($srcs) `->` type($results) $combiner
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Scalar functions mapped over tiles
//===----------------------------------------------------------------------===//

def Tile_MapElementwiseOp : Tile_Op<"map_elementwise", [Elementwise,
    RecursiveMemoryEffects, RecursivelySpeculatable, SingleBlock]> {
  let summary = "Apply a scalar region to each element of tiles";
  let description = [{
    Triton's `tl.map_elementwise(scalar_fn, *args, pack=)`: the region, a
    function of scalars with control flow of its own (`scf.if`, `scf.for`,
    `scf.while`, `arith`, `math`, scalar tile ops such as a masked
    `tile.load`), runs on the elements of the operands, `pack` at a time,
    and yields the elements of the results. Unlike elementwise ops on
    tiles, each element takes only its own branch.

    The operands and results are all tiles of one shape (and layout), or
    all scalars; their element types may differ. The block takes, per
    operand, `pack` scalars of its element type: element `j` of the group
    from operand `i` is argument `i * pack + j`. `tile.yield` returns, per
    result, `pack` scalars of its element type in the same order. The
    region computes on scalars only (it may use scalars defined outside
    it) and writes no memory; the op has the effects of its region.

    Which elements make a group is the target's: `pack` consecutive
    registers of a GPU thread, in whatever layout the tiles have;
    consecutive elements in row-major order on the host, which is the same
    grouping for a blocked layout whose threads hold runs of at least
    `pack` elements along the last dimension. A group that runs out of
    elements (a thread holding fewer than `pack`, a scalar) is filled with
    copies of its last element, so the region only ever sees values the
    operands hold, and what it yields for them is dropped.

    ```mlir
    %y = tile.map_elementwise %x, %a : (tensor<128xf32>, tensor<128xf32>)
        -> tensor<128xf32> {
    ^bb0(%xi: f32, %ai: f32):
      %zero = arith.constant 0.0 : f32
      %positive = arith.cmpf ogt, %xi, %zero : f32
      %r = scf.if %positive -> f32 {
        scf.yield %xi : f32
      } else {
        %e = math.expm1 %xi : f32
        %s = arith.mulf %ai, %e : f32
        scf.yield %s : f32
      }
      tile.yield %r : f32
    }
    %q, %r = tile.map_elementwise %n, %d pack = 2
        : (tensor<256xi32>, tensor<256xi32>)
        -> (tensor<256xi32>, tensor<256xi32>) {
    ^bb0(%n0: i32, %n1: i32, %d0: i32, %d1: i32):
      %q0 = arith.divsi %n0, %d0 : i32
      %q1 = arith.divsi %n1, %d1 : i32
      %r0 = arith.remsi %n0, %d0 : i32
      %r1 = arith.remsi %n1, %d1 : i32
      tile.yield %q0, %q1, %r0, %r1 : i32, i32, i32, i32
    }
    ```
  }];
  let arguments = (ins Variadic<Tile_ScalarOrTensor>:$srcs,
                       DefaultValuedAttr<I32Attr, "1">:$pack);
  let results = (outs Variadic<Tile_ScalarOrTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $srcs (`pack` `=` $pack^)? attr-dict `:` functional-type($srcs, $results)
    $body
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def Tile_ExternElementwiseOp : Tile_Op<"extern_elementwise", [
    Elementwise, DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DeclareOpInterfaceMethods<ConditionallySpeculatable>]> {
  let summary = "Call a math library function on each element of tiles";
  let description = [{
    Triton's `tt.extern_elementwise` (behind `tl.extra.cuda.libdevice`):
    calls a scalar function of the math library once per element, with the
    elements at that index of the operands as its arguments, and gives its
    return value as the result's element. It reaches the functions MLIR's
    `math` dialect has no op for (`lgamma`, the Bessel functions, `hypot`,
    `ldexp`, `erfinv`, ...).

    `symbol` is the function the GPU target calls, from libdevice
    (`__nv_hypotf`); `host` names the C math library function the host
    target calls instead (`hypotf`), and is absent where libm has none (the
    host then refuses the op). The function's parameter and return types
    are the operands' and the result's element types, integers and floats
    (`__nv_jnf` takes an `i32` and an `f32`). The operands and the result
    are tiles of one shape (and layout), or all scalars.

    Without `pure` the call has side effects: it is neither removed when
    unused nor merged with another, nor moved.

    ```mlir
    %h = tile.extern_elementwise "__nv_hypotf" host "hypotf" pure %x, %y
        : (tensor<128xf32>, tensor<128xf32>) -> tensor<128xf32>
    %j = tile.extern_elementwise "__nv_jnf" host "jnf" pure %n, %x
        : (tensor<128xi32>, tensor<128xf32>) -> tensor<128xf32>
    %e = tile.extern_elementwise "__nv_erfinvf" pure %x
        : (tensor<128xf32>) -> tensor<128xf32>
    ```
  }];
  let arguments = (ins Variadic<Tile_NumericLike>:$srcs, StrAttr:$symbol,
                       OptionalAttr<StrAttr>:$host_symbol, UnitAttr:$pure);
  let results = (outs Tile_NumericLike:$result);
  let assemblyFormat = [{
    $symbol (`host` $host_symbol^)? (`pure` $pure^)? $srcs attr-dict `:`
    functional-type($srcs, $result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Inline assembly
//===----------------------------------------------------------------------===//

/// What inline assembly takes and gives: a value that fits registers.
def Tile_AsmElement : AnyTypeOf<[AnySignlessInteger, AnyFloat, Tile_PointerType],
                                "signless integer, float or pointer">;
def Tile_AsmValue : AnyTypeOf<[Tile_AsmElement, Tile_TileOf<[Tile_AsmElement]>],
                              "signless integer, float or pointer, or a tile "
                              "of them">;

def Tile_InlineAsmElementwiseOp : Tile_Op<"inline_asm_elementwise", [
    Elementwise, DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DeclareOpInterfaceMethods<ConditionallySpeculatable>]> {
  let summary = "Inline PTX assembly applied to each element of tiles";
  let description = [{
    Triton's `tl.inline_asm_elementwise`: runs `asm_string`, PTX in the
    syntax of LLVM's inline assembly (`$0`, `$1`, ... name the operands:
    the results' first, then the arguments'), on the elements of the
    arguments, giving one element of each result. `constraints` is LLVM's
    constraint string, outputs first (`"=r,=r,r,h"`). The arguments and
    results are all scalars or all tiles of one shape (and layout); their
    element types may differ.

    Each invocation takes `pack` consecutive elements that one GPU thread
    holds. An argument or result of elements narrower than 32 bits passes
    them in 32-bit registers as vectors (at most `32 / width` elements
    each, fewer when `pack` is smaller: `pack = 4` passes four `i8` as one
    `vector<4xi8>`, an `r` register; `pack = 2` two `f16` as one
    `vector<2xf16>`); one of 32 bits or more (pointers as 64-bit
    addresses) passes each element as an operand of its own. The operands
    of one invocation are every register of result 0, of result 1, ...,
    then every register of argument 0, of argument 1, ...; so the
    constraints list that many outputs and inputs (clobbers such as
    `~{memory}` may follow). Where a thread holds a number of elements
    that is not a multiple of `pack`, its last invocation is given zeros
    for the missing elements and what it returns for them is dropped.

    Without `pure` the assembly has side effects: it is neither removed
    when unused nor merged with another, nor moved. Only the GPU target
    runs it.

    ```mlir
    %y = tile.inline_asm_elementwise "shl.b32 $0, $1, 3;", "=r,r" pure
        %x : (tensor<128xi32>) -> tensor<128xi32>
    %w = tile.inline_asm_elementwise
        "prmt.b32 $0, $1, 0, 0x0123;", "=r,r" pure pack = 4
        %b : (tensor<256xi8>) -> tensor<256xi8>
    ```
  }];
  let arguments = (ins Variadic<Tile_AsmValue>:$args, StrAttr:$asm_string,
                       StrAttr:$constraints, UnitAttr:$pure,
                       DefaultValuedAttr<I32Attr, "1">:$packed_element);
  let results = (outs Variadic<Tile_AsmValue>:$results);
  let assemblyFormat = [{
    $asm_string `,` $constraints (`pure` $pure^)?
    (`pack` `=` $packed_element^)? ($args^)? attr-dict `:`
    functional-type($args, $results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Elements of `type` (an argument's or result's type) that one
    /// operand of the assembly holds: as many as fit 32 bits, at most
    /// `packed_element`, for elements narrower than 32 bits; else one.
    int64_t getElementsPerOperand(::mlir::Type type);
  }];
}

//===----------------------------------------------------------------------===//
// Debugging
//===----------------------------------------------------------------------===//

def Tile_PrintOp : Tile_Op<"print", [MemoryEffects<[MemWrite]>]> {
  let summary = "Print values from every program instance";
  let description = [{
    Prints, for each element of the operands, one line: the program
    instance, the element's index, `prefix` and the value. Operands are
    integer or float scalars, or tiles of them of one shape; with several,
    each line names the operand. Scalars print once per program instance.
    Lines of different program instances come in no set order.

    ```mlir
    tile.print "x", %x : tensor<128xf32>
    ```
    prints `pid (0, 0, 0) idx (5) x: 1.5` and so on.
  }];
  let arguments = (ins StrAttr:$prefix,
                       Variadic<Tile_NumericLike>:$values);
  let assemblyFormat = [{
    $prefix (`,` $values^ `:` type($values))? attr-dict
  }];
  let hasVerifier = 1;
}

def Tile_AssertOp : Tile_Op<"assert", [MemoryEffects<[MemWrite]>]> {
  let summary = "Stop the launch where a condition is false";
  let description = [{
    Checks that every element of `condition` is true. Where one is not, the
    launch fails, naming the op's location, `message`, the program instance
    and the element: on the host target the launch returns that error, on
    the GPU the kernel traps (`__assertfail`) and the launch's context is
    lost, as with a CUDA `assert`.

    ```mlir
    tile.assert %inside, "index out of range" : tensor<128xi1>
    ```
  }];
  let arguments = (ins Tile_BoolLike:$condition, StrAttr:$message);
  let assemblyFormat = [{
    $condition `,` $message attr-dict `:` type($condition)
  }];
}

def Tile_BarrierOp : Tile_Op<"barrier", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Wait for every thread of the program instance";
  let description = [{
    Triton's `tl.debug_barrier`: the program's threads wait here for one
    another, and what each wrote to memory before it is seen by the others
    after it (`bar.sync` on the GPU). A program instance of the host target
    runs on one thread, so there it does nothing.

    ```mlir
    tile.barrier
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_YieldOp : Tile_Op<"yield", [Pure, Terminator, ReturnLike,
    ParentOneOf<["ReduceOp", "ScanOp", "MapElementwiseOp"]>]> {
  let summary = "Yield the values of a reduce, scan or map_elementwise region";
  let arguments = (ins Variadic<Tile_Element>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

#endif // KILN_DIALECT_TILE_IR_TILEOPS_TD
