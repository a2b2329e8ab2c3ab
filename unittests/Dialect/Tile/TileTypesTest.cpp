//===- TileTypesTest.cpp - Tests of the tile dialect's types --------------===//

#include "kiln/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace kiln::tile;

namespace {
class TileTypesTest : public ::testing::Test {
protected:
  TileTypesTest() { context.loadDialect<TileDialect>(); }

  /// Messages of the diagnostics emitted while running `fn`.
  template <typename Fn>
  std::vector<std::string> diagnosticsOf(Fn fn) {
    std::vector<std::string> messages;
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      messages.push_back(diag.str());
      return success();
    });
    fn();
    return messages;
  }

  MLIRContext context;
};
} // namespace

TEST_F(TileTypesTest, PointerDefaultsToGlobalMemory) {
  auto f32 = Float32Type::get(&context);
  PointerType ptr = PointerType::get(f32);
  EXPECT_EQ(ptr.getPointeeType(), f32);
  EXPECT_EQ(ptr.getAddressSpace(), 1u);
  EXPECT_EQ(PointerType::get(f32, 3).getAddressSpace(), 3u);
  // Types are uniqued: the same parameters give the same type.
  EXPECT_EQ(PointerType::get(f32), PointerType::get(&context, f32, 1u));
  EXPECT_NE(PointerType::get(f32), PointerType::get(f32, 3));
}

TEST_F(TileTypesTest, PointerToPointer) {
  auto inner = PointerType::get(IntegerType::get(&context, 8));
  EXPECT_EQ(PointerType::get(inner).getPointeeType(), inner);
}

TEST_F(TileTypesTest, PointerRejectsNonScalarPointee) {
  auto tensor = RankedTensorType::get({4}, Float32Type::get(&context));
  PointerType ptr;
  auto messages = diagnosticsOf([&] {
    ptr = PointerType::getChecked(UnknownLoc::get(&context), &context,
                                  Type(tensor), 1u);
  });
  EXPECT_FALSE(ptr);
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0], "pointee type must be an integer, float, index or "
                         "pointer type, but got 'tensor<4xf32>'");
}

TEST_F(TileTypesTest, BlockPointerDescribesItsTile) {
  auto f16 = Float16Type::get(&context);
  auto block = BlockPointerType::get(&context, {64, 32}, f16);
  EXPECT_EQ(block.getBlockTensorType(), RankedTensorType::get({64, 32}, f16));
}

TEST_F(TileTypesTest, BlockPointerRejectsBadShapes) {
  auto f16 = Float16Type::get(&context);
  auto loc = UnknownLoc::get(&context);
  for (auto shape : {SmallVector<int64_t>{}, SmallVector<int64_t>{4, 0},
                     SmallVector<int64_t>{-1}}) {
    BlockPointerType block;
    auto messages = diagnosticsOf([&] {
      block = BlockPointerType::getChecked(loc, &context,
                                           ArrayRef<int64_t>(shape), Type(f16));
    });
    EXPECT_FALSE(block);
    EXPECT_EQ(messages.size(), 1u);
  }
}

TEST_F(TileTypesTest, EnumsRoundTripThroughTheirSpelling) {
  for (uint32_t i = 0; i <= getMaxEnumValForAtomicRMWKind(); ++i) {
    auto kind = static_cast<AtomicRMWKind>(i);
    EXPECT_EQ(symbolizeAtomicRMWKind(stringifyAtomicRMWKind(kind)), kind);
  }
  for (uint32_t i = 0; i <= getMaxEnumValForMemSemantic(); ++i) {
    auto sem = static_cast<MemSemantic>(i);
    EXPECT_EQ(symbolizeMemSemantic(stringifyMemSemantic(sem)), sem);
  }
  for (uint32_t i = 0; i <= getMaxEnumValForMemScope(); ++i) {
    auto scope = static_cast<MemScope>(i);
    EXPECT_EQ(symbolizeMemScope(stringifyMemScope(scope)), scope);
  }
  EXPECT_EQ(symbolizeProgramAxis("z"), ProgramAxis::Z);
  EXPECT_EQ(symbolizeInputPrecision("tf32x3"), InputPrecision::TF32x3);
  EXPECT_EQ(symbolizePaddingOption("nan"), PaddingOption::NaN);
  EXPECT_FALSE(symbolizeProgramAxis("w").has_value());
}
