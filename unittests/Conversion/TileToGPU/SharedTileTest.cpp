//===- SharedTileTest.cpp - Staged tiles' offsets, emitted and known ------===//
//
// A staged tile's byte offsets are emitted as IR (SharedTile::byteOffset on
// values) and computed when compiling (on numbers), where accesses share
// addresses that differ by constants in every thread: the two must agree
// for every element, or a shared address would read the wrong one. The
// emitted offsets are folded here for every element of swizzled and
// unswizzled, plain and transposed tiles.
//
//===----------------------------------------------------------------------===//

#include "../../../lib/Conversion/TileToGPU/SharedTile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

#include <optional>

using namespace mlir;
using namespace kiln;

namespace {
/// The value of `value`, built of constants and integer arithmetic, found
/// by folding each op on its operands' values.
std::optional<int64_t> evaluate(Value value) {
  Operation *op = value.getDefiningOp();
  if (!op)
    return std::nullopt;
  SmallVector<Attribute> operands;
  for (Value operand : op->getOperands()) {
    std::optional<int64_t> known = evaluate(operand);
    if (!known)
      return std::nullopt;
    operands.push_back(IntegerAttr::get(operand.getType(), *known));
  }
  SmallVector<OpFoldResult> results;
  if (failed(op->fold(operands, results)) || results.size() != 1)
    return std::nullopt;
  if (auto folded = dyn_cast<Value>(results.front()))
    return evaluate(folded);
  if (auto attr = dyn_cast<IntegerAttr>(dyn_cast<Attribute>(results.front())))
    return attr.getValue().getZExtValue();
  return std::nullopt;
}

TEST(SharedTileTest, EmittedOffsetsAreTheOnesKnownWhenCompiling) {
  MLIRContext context;
  context.loadDialect<arith::ArithDialect>();
  OpBuilder b(&context);
  Location loc = b.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  struct Case {
    int64_t rows, columns, elementBytes, swizzleBytes;
  };
  // One slab or several (rows wider than the swizzle), each swizzle, 1-,
  // 2- and 4-byte elements.
  const Case cases[] = {{16, 64, 2, 128}, {16, 128, 2, 128}, {32, 32, 4, 64},
                        {64, 128, 1, 32}, {8, 24, 2, 0},     {24, 256, 2, 128}};
  for (const Case &c : cases) {
    for (bool transposed : {false, true}) {
      tiletogpu::SharedTile tile{Value(),
                                 layout::SharedLayout(c.rows, c.columns,
                                                      c.elementBytes,
                                                      c.swizzleBytes),
                                 transposed};
      int64_t rows = transposed ? c.columns : c.rows;
      int64_t columns = transposed ? c.rows : c.columns;
      for (int64_t row = 0; row < rows; ++row) {
        for (int64_t column = 0; column < columns; ++column) {
          Value emitted = tile.byteOffset(
              b, loc, arith::ConstantIntOp::create(b, loc, row, 32),
              arith::ConstantIntOp::create(b, loc, column, 32));
          ASSERT_EQ(evaluate(emitted), tile.byteOffset(row, column))
              << c.rows << "x" << c.columns << " of " << c.elementBytes
              << " bytes, swizzle " << c.swizzleBytes
              << (transposed ? ", transposed" : "") << ": (" << row << ", "
              << column << ")";
        }
      }
      module->getBody()->clear();
    }
  }
}
} // namespace
