//===- TileDialect.td - The tile dialect -------------------*- tablegen -*-===//
//
// The `tile` dialect: SPMD programs over statically shaped tiles.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_TILE_IR_TILEDIALECT_TD
#define KILN_DIALECT_TILE_IR_TILEDIALECT_TD

include "mlir/IR/OpBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::kiln::tile";
  let summary = "SPMD programs over statically shaped tiles";
  let description = [{
    A tile program is run by many program instances at once; each picks its
    tiles with `tile.program_id`. Values are scalars or ranked tensors of
    static shape (tiles). The dialect holds what is tile-specific: pointers
    and pointer arithmetic, masked memory access, shape manipulation,
    `dot`, reductions and scans, atomics and block pointers. Elementwise
    arithmetic uses `arith` and `math` on tensors, control flow uses `scf`,
    and kernels are `func.func` operations.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let useDefaultTypePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let extraClassDeclaration = [{
    void registerTypes();

    /// The kernel argument attribute saying a power of two divides the
    /// argument (a pointer's address, an integer's value), as a launch
    /// specialized it.
    static constexpr ::llvm::StringLiteral getDivisibilityAttrName() {
      return "tile.divisibility";
    }
  }];
}

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

#endif // KILN_DIALECT_TILE_IR_TILEDIALECT_TD
