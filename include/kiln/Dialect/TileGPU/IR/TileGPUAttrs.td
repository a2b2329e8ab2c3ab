//===- TileGPUAttrs.td - Layout encodings ------------------*- tablegen -*-===//

#ifndef KILN_DIALECT_TILEGPU_IR_TILEGPUATTRS_TD
#define KILN_DIALECT_TILEGPU_IR_TILEGPUATTRS_TD

include "kiln/Dialect/TileGPU/IR/TileGPUDialect.td"
include "mlir/IR/AttrTypeBase.td"

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
    [DeclareAttrInterfaceMethods<TileGPU_DistributedEncoding>]> {
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
    [DeclareAttrInterfaceMethods<TileGPU_DistributedEncoding>]> {
  let summary = "A layout with one dimension reduced away";
  let description = [{
    What a reduction along `dim` of a `parent`-laid-out tile leaves: each
    thread keeps the elements its parent registers held, without `dim`.

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

#endif // KILN_DIALECT_TILEGPU_IR_TILEGPUATTRS_TD
