//===- TileAttrs.td - Enum attributes of the tile dialect -*- tablegen -*-===//

#ifndef KILN_DIALECT_TILE_IR_TILEATTRS_TD
#define KILN_DIALECT_TILE_IR_TILEATTRS_TD

include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/EnumAttr.td"

/// An i32 attribute read as a signed value, so that a negative axis or range
/// bound is seen (and rejected or used) as written.
def Tile_I32Attr : TypedSignlessIntegerAttrBase<
    I32, "int32_t", "32-bit signless integer attribute">;

def Tile_ProgramAxisAttr : I32EnumAttr<"ProgramAxis", "axis of the launch grid", [
    I32EnumAttrCase<"X", 0, "x">,
    I32EnumAttrCase<"Y", 1, "y">,
    I32EnumAttrCase<"Z", 2, "z">]> {
  let cppNamespace = "::kiln::tile";
}

def Tile_InputPrecisionAttr : I32EnumAttr<"InputPrecision",
    "precision at which tile.dot multiplies f32 inputs", [
    I32EnumAttrCase<"IEEE", 0, "ieee">,
    I32EnumAttrCase<"TF32", 1, "tf32">,
    I32EnumAttrCase<"TF32x3", 2, "tf32x3">]> {
  let cppNamespace = "::kiln::tile";
}

def Tile_AtomicRMWKindAttr : I32EnumAttr<"AtomicRMWKind",
    "read-modify-write operation of tile.atomic_rmw", [
    I32EnumAttrCase<"Add", 0, "add">,
    I32EnumAttrCase<"Max", 1, "max">,
    I32EnumAttrCase<"Min", 2, "min">,
    I32EnumAttrCase<"UMax", 3, "umax">,
    I32EnumAttrCase<"UMin", 4, "umin">,
    I32EnumAttrCase<"And", 5, "and">,
    I32EnumAttrCase<"Or", 6, "or">,
    I32EnumAttrCase<"Xor", 7, "xor">,
    I32EnumAttrCase<"Xchg", 8, "xchg">]> {
  let cppNamespace = "::kiln::tile";
}

def Tile_MemSemanticAttr : I32EnumAttr<"MemSemantic",
    "memory ordering of an atomic operation", [
    I32EnumAttrCase<"Relaxed", 0, "relaxed">,
    I32EnumAttrCase<"Acquire", 1, "acquire">,
    I32EnumAttrCase<"Release", 2, "release">,
    I32EnumAttrCase<"AcqRel", 3, "acq_rel">]> {
  let cppNamespace = "::kiln::tile";
}

def Tile_MemScopeAttr : I32EnumAttr<"MemScope",
    "set of threads an atomic operation is ordered with", [
    I32EnumAttrCase<"CTA", 0, "cta">,
    I32EnumAttrCase<"GPU", 1, "gpu">,
    I32EnumAttrCase<"System", 2, "sys">]> {
  let cppNamespace = "::kiln::tile";
}

def Tile_PaddingOptionAttr : I32EnumAttr<"PaddingOption",
    "value a block load gives for elements outside the tensor", [
    I32EnumAttrCase<"Zero", 0, "zero">,
    I32EnumAttrCase<"NaN", 1, "nan">]> {
  let cppNamespace = "::kiln::tile";
}

#endif // KILN_DIALECT_TILE_IR_TILEATTRS_TD
