//===- TileTypes.td - Types of the tile dialect ------------*- tablegen -*-===//

#ifndef KILN_DIALECT_TILE_IR_TILETYPES_TD
#define KILN_DIALECT_TILE_IR_TILETYPES_TD

include "kiln/Dialect/Tile/IR/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"
include "mlir/IR/CommonTypeConstraints.td"

class Tile_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Tile_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Tile_PointerType : Tile_Type<"Pointer", "ptr"> {
  let summary = "Pointer to an element in an address space";
  let description = [{
    A pointer to one scalar element. The address space follows NVPTX
    numbering: 1 is global memory (the default and the only one kernel
    arguments use), 3 is shared memory.

    ```mlir
    !tile.ptr<f32>        // global memory
    !tile.ptr<f16, 3>     // shared memory
    ```
  }];
  let parameters = (ins "::mlir::Type":$pointeeType,
                        DefaultValuedParameter<"unsigned", "1">:$addressSpace);
  let assemblyFormat = "`<` $pointeeType (`,` $addressSpace^)? `>`";
  let builders = [
    TypeBuilderWithInferredContext<(ins "::mlir::Type":$pointeeType,
                                        CArg<"unsigned", "1">:$addressSpace), [{
      return $_get(pointeeType.getContext(), pointeeType, addressSpace);
    }]>
  ];
  let genVerifyDecl = 1;
}

def Tile_BlockPointerType : Tile_Type<"BlockPointer", "block_ptr"> {
  let summary = "Block of a strided tensor in global memory";
  let description = [{
    Describes a `shape`-sized block of a strided tensor in global memory: the
    tensor's base, sizes and strides plus the block's offsets, held together
    so that the whole block can be loaded or stored at once (and, on sm_90,
    by the tensor memory accelerator). Made by `tile.make_block_ptr`, moved by
    `tile.advance`, read and written by `tile.block_load` and
    `tile.block_store`.

    ```mlir
    !tile.block_ptr<64x32xf16>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType);
  let assemblyFormat = "`<` custom<BlockShape>($shape, $elementType) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The block as a ranked tensor type (what `tile.block_load` returns).
    ::mlir::RankedTensorType getBlockTensorType() const {
      return ::mlir::RankedTensorType::get(getShape(), getElementType());
    }
  }];
}

/// A scalar that can live behind a pointer.
def Tile_Element : AnyTypeOf<[AnyInteger, AnyFloat, Index, Tile_PointerType],
                             "integer, float, index or pointer">;
/// A tile: a tensor of static shape and at least one dimension (a 0-D
/// value is a scalar, written as one).
class Tile_TileOf<list<Type> allowedTypes>
    : ConfinedType<StaticShapeTensorOf<allowedTypes>,
                   [CPred<"::llvm::cast<::mlir::RankedTensorType>($_self)"
                          ".getRank() > 0">],
                   "tile (statically shaped, rank >= 1) of " #
                   AnyTypeOf<allowedTypes>.summary # " values",
                   "::mlir::RankedTensorType">;

def Tile_PtrTensor : Tile_TileOf<[Tile_PointerType]>;
def Tile_PtrLike : AnyTypeOf<[Tile_PointerType, Tile_PtrTensor],
                             "pointer or tile of pointers">;
def Tile_IntLike : AnyTypeOf<[AnySignlessInteger, Tile_TileOf<[AnySignlessInteger]>],
                             "integer or tile of integers">;
def Tile_BoolLike : AnyTypeOf<[I1, Tile_TileOf<[I1]>],
                              "i1 or tile of i1">;
def Tile_ScalarOrTensor : AnyTypeOf<[Tile_Element, Tile_TileOf<[Tile_Element]>],
                                    "scalar or tile">;
def Tile_Tensor : Tile_TileOf<[Tile_Element]>;
def Tile_NumericTensor : Tile_TileOf<[AnyFloat, AnySignlessInteger]>;
def Tile_NumericLike : AnyTypeOf<[AnyFloat, AnySignlessInteger,
                                  Tile_NumericTensor],
                                 "integer, float or tile of them">;

#endif // KILN_DIALECT_TILE_IR_TILETYPES_TD
