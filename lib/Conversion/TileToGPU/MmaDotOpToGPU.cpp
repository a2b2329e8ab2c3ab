//===- MmaDotOpToGPU.cpp - tile.dot on tensor cores with mma.sync ---------===//
//
// A dot whose accumulator has the mma layout and whose operands are dot
// operands of it: every thread already holds exactly the fragments the PTX
// ISA asks of it, so the product is one mma.sync.aligned.m16n8kK per
// (K step, row block, column block) of the warp's share, on registers
// packed into 32-bit words (two per K step for 16-bit operands widened
// from 8 bits, whose fragments are twice as deep).
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "ThreadValues.h"

#include "kiln/Dialect/Tile/IR/TileDialect.h"
#include "kiln/Dialect/TileGPU/IR/TileGPUDialect.h"
#include "kiln/Layout/MmaLayout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tiletogpu;

namespace {

/// The PTX type of the multiplicands of `element`s.
NVVM::MMATypes getMultiplicandType(Type element) {
  if (element.isF16())
    return NVVM::MMATypes::f16;
  if (element.isBF16())
    return NVVM::MMATypes::bf16;
  if (element.isF32())
    return NVVM::MMATypes::tf32;
  return NVVM::MMATypes::s8;
}

struct MmaDotLowering : OpConversionPattern<tile::DotOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto accType = cast<RankedTensorType>(op.getAcc().getType());
    auto aType = cast<RankedTensorType>(op.getA().getType());
    auto bType = cast<RankedTensorType>(op.getB().getType());
    auto mma = dyn_cast<tilegpu::MmaEncodingAttr>(accType.getEncoding());
    if (!mma)
      return failure();
    auto aEncoding =
        dyn_cast<tilegpu::DotOperandEncodingAttr>(aType.getEncoding());
    auto bEncoding =
        dyn_cast<tilegpu::DotOperandEncodingAttr>(bType.getEncoding());
    if (!aEncoding || !bEncoding || aEncoding.getParent() != mma ||
        bEncoding.getParent() != mma || aEncoding.getOpIdx() != 0 ||
        bEncoding.getOpIdx() != 1)
      return rewriter.notifyMatchFailure(
          op, "operands are not dot operands of the accumulator's layout");

    Location loc = op.getLoc();
    Type element = aType.getElementType();
    Type accElement = accType.getElementType();
    layout::MmaLayout accLayout(layout::Shape(mma.getWarpsPerCTA()));
    layout::DotOperandLayout aLayout(0, accLayout, aEncoding.getKWidth());
    layout::DotOperandLayout bLayout(1, accLayout, bEncoding.getKWidth());
    // One 32-bit register holds perRegister elements; a fragment of
    // kWidth twice that (16-bit elements widened from 8 bits) is two
    // instructions.
    int64_t perRegister = 32 / element.getIntOrFloatBitWidth();
    int64_t kWidth = aLayout.getKWidth();
    if (bLayout.getKWidth() != kWidth ||
        (kWidth != perRegister && kWidth != 2 * perRegister))
      return rewriter.notifyMatchFailure(
          op, "the operands' kWidth is not one or two instructions' K");
    layout::Shape accRepeats = accLayout.getRepeats(getShape(accType));
    int64_t kSteps = aLayout.getRepeats(getShape(aType))[1];
    int64_t instrs = aLayout.getInstrsPerFragment(perRegister);

    // Instruction `instr` of fragment `fragment` of an operand, as 32-bit
    // words: f16 as f16x2, the others as i32.
    Type i32 = rewriter.getI32Type();
    auto packed = [&](Value registers, const layout::DotOperandLayout &layout,
                      int64_t fragment, int64_t instr) {
      SmallVector<int64_t> indices;
      for (int64_t offset : layout.getInstrRegisters(perRegister, instr))
        indices.push_back(fragment * layout.getFragmentRegisters() + offset);
      SmallVector<Value> result =
          packFragmentWords(rewriter, loc, registers, indices, perRegister);
      if (!element.isF16())
        for (Value &word : result)
          word = LLVM::BitcastOp::create(rewriter, loc, i32, word);
      return result;
    };

    NVVM::MMATypes ptxType = getMultiplicandType(element);
    Type accStruct = LLVM::LLVMStructType::getLiteral(
        rewriter.getContext(),
        SmallVector<Type>(layout::MmaLayout::kAccRegisters, accElement));
    SmallVector<Value> acc;
    for (int64_t reg = 0, e = getNumRegisters(accType); reg < e; ++reg)
      acc.push_back(extractRegister(rewriter, loc, adaptor.getAcc(), reg));
    // K steps outermost, as Triton orders them: consecutive instructions
    // accumulate into different registers, so none waits for the one
    // before, and each K step's A fragment is dead after its row of
    // products.
    for (int64_t k = 0; k < kSteps; ++k) {
      for (int64_t instr = 0; instr < instrs; ++instr) {
        for (int64_t m = 0; m < accRepeats[0]; ++m) {
          for (int64_t n = 0; n < accRepeats[1]; ++n) {
            int64_t first =
                (m * accRepeats[1] + n) * layout::MmaLayout::kAccRegisters;
            SmallVector<Value> a =
                packed(adaptor.getA(), aLayout, m * kSteps + k, instr);
            SmallVector<Value> b =
                packed(adaptor.getB(), bLayout, n * kSteps + k, instr);
            ArrayRef<Value> c(acc.begin() + first,
                              layout::MmaLayout::kAccRegisters);
            std::optional<NVVM::MMAIntOverflow> overflow;
            if (ptxType == NVVM::MMATypes::s8)
              overflow = NVVM::MMAIntOverflow::wrapped;
            Value d = NVVM::MmaOp::create(
                rewriter, loc, accStruct, a, b, c,
                {layout::MmaLayout::kInstrM, layout::MmaLayout::kInstrN,
                 8 * perRegister},
                std::nullopt, overflow,
                std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
                std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                               NVVM::MMALayout::col});
            for (int64_t i = 0; i < layout::MmaLayout::kAccRegisters; ++i)
              acc[first + i] =
                  LLVM::ExtractValueOp::create(rewriter, loc, d, i);
          }
        }
      }
    }
    rewriter.replaceOp(
        op, fromRegisters(rewriter, loc,
                          cast<VectorType>(adaptor.getAcc().getType()), acc));
    return success();
  }
};

} // namespace

void kiln::tiletogpu::populateMmaDotOpToGPUPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<MmaDotLowering>(converter, patterns.getContext());
}
