//===- TileFoldTest.cpp - Tests of the tile dialect's folds ---------------===//
//
// Folds checked over every case of small shapes, where lit tests can only
// show a few.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "gtest/gtest.h"

#include <algorithm>
#include <numeric>

using namespace mlir;
using namespace kiln::tile;

namespace {
class TileFoldTest : public ::testing::Test {
protected:
  TileFoldTest() : builder(&context) {
    context.loadDialect<TileDialect, arith::ArithDialect,
                        func::FuncDialect>();
    loc = builder.getUnknownLoc();
    module = ModuleOp::create(loc);
    builder.setInsertionPointToEnd(module->getBody());
  }

  /// A function taking one argument of `type`, with the builder inside it.
  Value makeArgument(Type type) {
    auto func = func::FuncOp::create(builder, loc, "f",
                                     builder.getFunctionType({type}, {}));
    Block *body = func.addEntryBlock();
    builder.setInsertionPointToEnd(body);
    return body->getArgument(0);
  }

  MLIRContext context;
  OpBuilder builder;
  Location loc = UnknownLoc::get(&context);
  OwningOpRef<ModuleOp> module;
};

/// `shape` permuted by `order`: result dimension i is `shape[order[i]]`.
SmallVector<int64_t> permute(ArrayRef<int64_t> shape, ArrayRef<int32_t> order) {
  SmallVector<int64_t> result;
  for (int32_t dim : order)
    result.push_back(shape[dim]);
  return result;
}
} // namespace

// For every pair of permutations of a rank-3 tile, two transposes fold into
// one whose result type is the same and whose order maps each result
// dimension to the source dimension it came from.
TEST_F(TileFoldTest, TransposeOfTransposeComposesForAllPermutations) {
  SmallVector<int64_t> shape = {2, 3, 5}; // distinct sizes catch swaps
  auto f32 = builder.getF32Type();
  Value x = makeArgument(RankedTensorType::get(shape, f32));
  SmallVector<int32_t> inner = {0, 1, 2};
  int pairs = 0;
  do {
    SmallVector<int32_t> outer = {0, 1, 2};
    do {
      auto innerType = RankedTensorType::get(permute(shape, inner), f32);
      auto outerType =
          RankedTensorType::get(permute(innerType.getShape(), outer), f32);
      Value first = builder.createOrFold<TransOp>(loc, innerType, x, inner);
      Value folded = builder.createOrFold<TransOp>(loc, outerType, first,
                                                   outer);
      ASSERT_EQ(folded.getType(), outerType);
      SmallVector<int32_t> composed;
      for (int32_t dim : outer)
        composed.push_back(inner[dim]);
      if (llvm::equal(composed, llvm::seq<int32_t>(0, 3))) {
        EXPECT_EQ(folded, x) << "an identity composition folds away";
      } else {
        auto trans = folded.getDefiningOp<TransOp>();
        ASSERT_TRUE(trans);
        EXPECT_EQ(trans.getSrc(), x);
        EXPECT_EQ(SmallVector<int32_t>(trans.getOrder()), composed);
      }
      ++pairs;
    } while (std::next_permutation(outer.begin(), outer.end()));
  } while (std::next_permutation(inner.begin(), inner.end()));
  EXPECT_EQ(pairs, 36);
  func::ReturnOp::create(builder, loc);
  EXPECT_TRUE(succeeded(verify(*module)));
}

// A splat of a constant is a dense constant, whatever the element type.
TEST_F(TileFoldTest, SplatOfConstantIsDenseConstant) {
  makeArgument(builder.getI32Type());
  for (Type type : {Type(builder.getI32Type()), Type(builder.getI8Type()),
                    Type(builder.getF32Type()), Type(builder.getF16Type()),
                    Type(builder.getBF16Type())}) {
    auto value = isa<FloatType>(type)
                     ? TypedAttr(builder.getFloatAttr(type, 1.5))
                     : TypedAttr(builder.getIntegerAttr(type, 3));
    Value scalar = arith::ConstantOp::create(builder, loc, value);
    auto tileType = RankedTensorType::get({4, 4}, type);
    Value folded = builder.createOrFold<SplatOp>(loc, tileType, scalar);
    auto constant = folded.getDefiningOp<arith::ConstantOp>();
    ASSERT_TRUE(constant);
    auto dense = dyn_cast<SplatElementsAttr>(constant.getValue());
    ASSERT_TRUE(dense);
    EXPECT_EQ(dense.getType(), tileType);
  }
}

// Reshaping a non-splat constant keeps its elements in row-major order.
TEST_F(TileFoldTest, ReshapeOfConstantKeepsRowMajorOrder) {
  makeArgument(builder.getI32Type());
  SmallVector<int32_t> values(24);
  std::iota(values.begin(), values.end(), 0);
  auto srcType = RankedTensorType::get({2, 3, 4}, builder.getI32Type());
  Value src = arith::ConstantOp::create(
      builder, loc, DenseElementsAttr::get(srcType, ArrayRef(values)));
  for (SmallVector<int64_t> shape :
       {SmallVector<int64_t>{24}, {4, 6}, {6, 4}, {2, 12}, {1, 24, 1}}) {
    auto type = RankedTensorType::get(shape, builder.getI32Type());
    Value folded = builder.createOrFold<ReshapeOp>(loc, type, src);
    auto constant = folded.getDefiningOp<arith::ConstantOp>();
    ASSERT_TRUE(constant);
    auto dense = cast<DenseElementsAttr>(constant.getValue());
    EXPECT_EQ(dense.getType(), type);
    EXPECT_TRUE(llvm::equal(dense.getValues<int32_t>(), values));
  }
}
