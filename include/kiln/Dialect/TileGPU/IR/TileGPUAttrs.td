//===- TileGPUAttrs.td - Layout encodings ------------------*- tablegen -*-===//

#ifndef KILN_DIALECT_TILEGPU_IR_TILEGPUATTRS_TD
#define KILN_DIALECT_TILEGPU_IR_TILEGPUATTRS_TD

include "kiln/Dialect/TileGPU/IR/TileGPUDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/TensorEncoding.td"

def TileGPU_DistributedEncoding : AttrInterface<"DistributedEncodingAttr"> {
  let cppNamespace = "::kiln::tilegpu";
  let description = [{
    An encoding that spreads a tile over threads; the layout function says
    which (register, lane, warp) holds which element.
  }];
  let methods = [
    InterfaceMethod<"The layout function of this encoding.",
      "std::shared_ptr<const ::kiln::layout::DistributedLayout>",
      "getLayout">,
    InterfaceMethod<"Rank of the tiles this encoding applies to.",
      "int64_t", "getRank">,
  ];
}

class TileGPU_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<TileGPU_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def TileGPU_BlockedEncodingAttr : TileGPU_Attr<"BlockedEncoding", "blocked",
    [DeclareAttrInterfaceMethods<TileGPU_DistributedEncoding>,
     DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let summary = "Blocks of contiguous elements per thread";
  let description = [{
    Each thread holds a `sizePerThread` block of contiguous elements,
    `threadsPerWarp` threads tile a warp's block and `warpsPerCTA` warps tile
    the program's footprint; `order` lists the dimensions fastest first. A
    tile larger than the footprint repeats it in more registers; a smaller
    one is replicated.

    ```mlir
    tensor<64x32xf16, #tilegpu.blocked<{sizePerThread = [1, 8],
        threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$sizePerThread,
                        ArrayRefParameter<"int64_t">:$threadsPerWarp,
                        ArrayRefParameter<"int64_t">:$warpsPerCTA,
                        ArrayRefParameter<"int64_t">:$order);
  let assemblyFormat = [{
    `<` `{` `sizePerThread` `=` `[` $sizePerThread `]` `,`
        `threadsPerWarp` `=` `[` $threadsPerWarp `]` `,`
        `warpsPerCTA` `=` `[` $warpsPerCTA `]` `,`
        `order` `=` `[` $order `]` `}` `>`
  }];
  let genVerifyDecl = 1;
}

def TileGPU_SliceEncodingAttr : TileGPU_Attr<"SliceEncoding", "slice",
    [DeclareAttrInterfaceMethods<TileGPU_DistributedEncoding>,
     DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let summary = "A layout with one dimension reduced away";
  let description = [{
    What a reduction along `dim` of a `parent`-laid-out tile leaves: each
    thread keeps the elements its parent registers held, without `dim`,
    one register each (parent registers that differed only along `dim`
    are one register of the slice, as in Triton: a row of an mma.sync
    accumulator is two registers a thread, not four).

    ```mlir
    tensor<64xf32, #tilegpu.slice<{dim = 1, parent = #tilegpu.blocked<...>}>>
    ```
  }];
  let parameters = (ins "int64_t":$dim,
                        "::kiln::tilegpu::DistributedEncodingAttr":$parent);
  let assemblyFormat = [{
    `<` `{` `dim` `=` $dim `,` `parent` `=` $parent `}` `>`
  }];
  let genVerifyDecl = 1;
}

def TileGPU_MmaEncodingAttr : TileGPU_Attr<"MmaEncoding", "mma",
    [DeclareAttrInterfaceMethods<TileGPU_DistributedEncoding>,
     DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let summary = "The accumulator of mma.sync (sm_80 tensor cores)";
  let description = [{
    A 2-D tile as the accumulators of `mma.sync.aligned.m16n8kK` hold it:
    `warpsPerCTA` warps tile a footprint of 16·warpsPerCTA[0] by
    8·warpsPerCTA[1], and each warp's 16x8 block is spread over its lanes as
    the PTX ISA's fragment table says (lane l: rows l/4 and l/4 + 8, columns
    2·(l%4) and 2·(l%4) + 1). See `kiln/Layout/MmaLayout.h`.

    ```mlir
    tensor<128x64xf32, #tilegpu.mma<{warpsPerCTA = [4, 1]}>>
    ```

    With `warpgroup = true` (sm_90a) the warps lie along M only, in
    warpgroups of four: a 64xN block per warpgroup is then exactly the
    accumulator of `wgmma.mma_async` m64nNk16 (register d_i is the i/4-th
    8-column block's c(i%4)), so `tilegpu.warpgroup_dot` multiplies into
    it; a dot whose operands are in registers still runs on mma.sync with
    the same registers.
    ```mlir
    tensor<128x128xf32, #tilegpu.mma<{warpsPerCTA = [8, 1], warpgroup = true}>>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$warpsPerCTA,
                        DefaultValuedParameter<"bool", "false">:$warpgroup);
  let assemblyFormat = [{
    `<` `{` `warpsPerCTA` `=` `[` $warpsPerCTA `]`
        (`,` `warpgroup` `=` $warpgroup^)? `}` `>`
  }];
  let genVerifyDecl = 1;
}

def TileGPU_DotOperandEncodingAttr
    : TileGPU_Attr<"DotOperandEncoding", "dot_operand",
                   [DeclareAttrInterfaceMethods<TileGPU_DistributedEncoding>,
     DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let summary = "A multiplicand of mma.sync, in registers";
  let description = [{
    Operand `opIdx` (0: A, M x K; 1: B, K x N) of the mma.sync whose
    accumulator layout is `parent`, each lane holding `kWidth` adjacent K
    elements per group: with `kWidth` elements per 32-bit register (2 for
    f16 and bf16, 1 for tf32, 4 for 8-bit integers) one instruction's
    operand as the PTX ISA's fragment tables lay it out; f16 and bf16 with
    kWidth 4 (operands widened from 8 bits, and their 8-bit sources) make
    two m16n8k16 per K step of 32. `tilegpu.convert_layout` into it stages
    the tile in swizzled shared memory and reads it with `ldmatrix` where
    it can.

    ```mlir
    tensor<128x32xf16, #tilegpu.dot_operand<{opIdx = 0, parent = #mma, kWidth = 2}>>
    ```
  }];
  let parameters = (ins "unsigned":$opIdx,
                        "::kiln::tilegpu::MmaEncodingAttr":$parent,
                        "unsigned":$kWidth);
  let assemblyFormat = [{
    `<` `{` `opIdx` `=` $opIdx `,` `parent` `=` $parent `,`
        `kWidth` `=` $kWidth `}` `>`
  }];
  let genVerifyDecl = 1;
}

def TileGPU_TensorMapAttr : TileGPU_Attr<"TensorMap", "tensor_map"> {
  let summary = "A TMA tensor map that each launch builds from its arguments";
  let description = [{
    Kernel parameter `argument` is a 128-byte tensor map
    (`cuTensorMapEncodeTiled`, passed as a `__grid_constant__` parameter)
    of a row-major 2-D tensor of `elementType`, read in boxes of `box` =
    [rows, columns] elements with the `swizzle` (0, 32, 64 or 128 bytes)
    that `kiln/Layout/SharedLayout.h` gives a slot of that many columns.
    The launch builds it from four values, in `sources` and `values`
    order: the base address, the rows, the columns and the row stride (in
    elements). Source -1 is the constant in `values`; a source k >= 0 is
    kernel argument k, whose size in bytes (4 or 8) is in `values`.

    ```mlir
    func.func @k(%a: !tile.ptr<f16>, %m: i32, %k: i32,
                 %map: !tile.ptr<i8, 0>) attributes {tilegpu.tensor_maps = [
        #tilegpu.tensor_map<argument = 3, elementType = f16, box = [64, 64],
                            swizzle = 128, sources = [0, 1, 2, 2],
                            values = [8, 4, 4, 4]>]}
    ```
  }];
  let parameters = (ins "int64_t":$argument, "::mlir::Type":$elementType,
                        ArrayRefParameter<"int64_t">:$box, "int64_t":$swizzle,
                        ArrayRefParameter<"int64_t">:$sources,
                        ArrayRefParameter<"int64_t">:$values);
  let assemblyFormat = [{
    `<` `argument` `=` $argument `,` `elementType` `=` $elementType `,`
        `box` `=` `[` $box `]` `,` `swizzle` `=` $swizzle `,`
        `sources` `=` `[` $sources `]` `,` `values` `=` `[` $values `]` `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The function attribute that lists a kernel's tensor maps.
    static constexpr ::llvm::StringLiteral kAttrName = "tilegpu.tensor_maps";
    /// Positions in `sources` and `values`.
    enum Field : unsigned { Base, Rows, Columns, RowStride, NumFields };
  }];
}

#endif // KILN_DIALECT_TILEGPU_IR_TILEGPUATTRS_TD
