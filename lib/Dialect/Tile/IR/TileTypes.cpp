//===- TileTypes.cpp - Types of the tile dialect --------------------------===//

#include "kiln/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace kiln::tile;

/// Parses the `64x32xf16` body of a block pointer type.
static ParseResult parseBlockShape(AsmParser &parser,
                                   SmallVectorImpl<int64_t> &shape,
                                   Type &elementType) {
  if (parser.parseDimensionList(shape, /*allowDynamic=*/false,
                                /*withTrailingX=*/true))
    return failure();
  return parser.parseType(elementType);
}

static void printBlockShape(AsmPrinter &printer, ArrayRef<int64_t> shape,
                            Type elementType) {
  printer.printDimensionList(shape);
  printer << 'x' << elementType;
}

#define GET_TYPEDEF_CLASSES
#include "kiln/Dialect/Tile/IR/TileTypes.cpp.inc"

void TileDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "kiln/Dialect/Tile/IR/TileTypes.cpp.inc"
      >();
}

/// Whether `type` may be stored in memory and pointed to.
static bool isPointeeType(Type type) {
  return isa<IntegerType, FloatType, IndexType, PointerType>(type);
}

LogicalResult
PointerType::verify(function_ref<InFlightDiagnostic()> emitError,
                    Type pointeeType, unsigned addressSpace) {
  if (!isPointeeType(pointeeType))
    return emitError() << "pointee type must be an integer, float, index or "
                          "pointer type, but got "
                       << pointeeType;
  return success();
}

LogicalResult
BlockPointerType::verify(function_ref<InFlightDiagnostic()> emitError,
                         ArrayRef<int64_t> shape, Type elementType) {
  if (shape.empty())
    return emitError() << "block pointer must have at least one dimension";
  for (int64_t dim : shape)
    if (dim <= 0)
      return emitError() << "block pointer dimensions must be positive, but "
                            "got "
                         << dim;
  if (!isa<IntegerType, FloatType>(elementType))
    return emitError() << "block element type must be an integer or float "
                          "type, but got "
                       << elementType;
  return success();
}
