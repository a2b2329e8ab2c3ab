//===- TileDialect.cpp - The tile dialect ---------------------------------===//

#include "kiln/Dialect/Tile/IR/TileDialect.h"


using namespace mlir;
using namespace kiln::tile;

#include "kiln/Dialect/Tile/IR/TileDialect.cpp.inc"
#include "kiln/Dialect/Tile/IR/TileEnums.cpp.inc"

void TileDialect::initialize() {
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "kiln/Dialect/Tile/IR/TileOps.cpp.inc"
      >();
}

Operation *TileDialect::materializeConstant(OpBuilder &builder,
                                            Attribute value, Type type,
                                            Location loc) {
  return arith::ConstantOp::materialize(builder, value, type, loc);
}
