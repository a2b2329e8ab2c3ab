//===- MapElementwiseToGPU.cpp - tile.map_elementwise on the GPU ----------===//
//
// Each thread runs the region on the registers it holds, `pack`
// consecutive ones at a time, as Triton's MapElementwiseOpConversion
// does: the region's ops are cloned once per group, its arguments given
// the group's registers of every operand, and what its tile.yield returns
// becomes the group's registers of every result. The layout does not
// matter: the operands and results share it, so register r of each holds
// the same element. The clones are ordinary scalar ops (scf, arith, math,
// scalar tile ops), which this conversion and the passes after it lower
// as they lower any other. A thread whose count of registers is not a
// multiple of `pack` gives its last group copies of its last register,
// so that the region never runs on a value the tiles do not hold (from a
// zero, a loop the function runs until its input reaches some value may
// never end), and drops what comes back for them.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "ThreadValues.h"

#include "kiln/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tiletogpu;

/// `element`, a converted scalar (an operand, or a register of one: an
/// i64 address for a pointer), as the region's argument `arg` takes it:
/// the region's clones are made in the tile dialect's types, which the
/// conversion then lowers as any other op's.
static Value toArgument(OpBuilder &b, Location loc,
                        const TypeConverter &converter, Value element,
                        BlockArgument arg) {
  Type scalarType = converter.convertType(arg.getType());
  if (element.getType() != scalarType)
    element = LLVM::IntToPtrOp::create(b, loc, scalarType, element);
  if (scalarType == arg.getType())
    return element;
  return converter.materializeSourceConversion(b, loc, arg.getType(), element);
}

namespace {

/// The region cloned once per `pack` registers of a thread.
struct MapElementwiseLowering : OpConversionPattern<tile::MapElementwiseOp> {
  MapElementwiseLowering(const TypeConverter &converter, MLIRContext *context)
      : OpConversionPattern(converter, context) {
    // A map nested in the region is cloned with it, then lowered by this
    // pattern again: as deep as the nest.
    setHasBoundedRewriteRecursion();
  }

  LogicalResult
  matchAndRewrite(tile::MapElementwiseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    const TypeConverter &converter = *getTypeConverter();
    int64_t pack = op.getPack();
    // Every operand and result has this shape and layout (the verifier).
    auto tile = dyn_cast<RankedTensorType>(op.getSrcs().front().getType());
    int64_t count = tile ? getNumRegisters(tile) : 1;

    SmallVector<Type> resultTypes, registerTypes;
    for (Type type : op.getResultTypes()) {
      Type converted = converter.convertType(type);
      if (!converted)
        return failure();
      resultTypes.push_back(converted);
      registerTypes.push_back(getElementTypeOrSelf(converted));
    }

    // One clone per group: argument i * pack + j is register first + j of
    // operand i (past the thread's last register, that one again); yielded
    // value r * pack + j is register first + j of result r, converted.
    Block &body = op.getBody().front();
    SmallVector<SmallVector<Value>> results(op.getNumResults());
    for (int64_t first = 0; first < count; first += pack) {
      SmallVector<Value> arguments;
      for (auto [i, src] : llvm::enumerate(adaptor.getSrcs()))
        for (int64_t j = 0; j < pack; ++j) {
          int64_t reg = std::min(first + j, count - 1);
          arguments.push_back(
              toArgument(rewriter, loc, converter,
                         tile ? extractRegister(rewriter, loc, src, reg) : src,
                         body.getArgument(i * pack + j)));
        }
      SmallVector<Value> yielded = inlineBlock(rewriter, body, arguments);
      for (auto [r, registers] : llvm::enumerate(results))
        for (int64_t j = 0; j < pack && first + j < count; ++j) {
          Value value = rewriter.getRemappedValue(yielded[r * pack + j]);
          if (value.getType() != registerTypes[r])
            value = LLVM::PtrToIntOp::create(rewriter, loc, registerTypes[r],
                                             value);
          registers.push_back(value);
        }
    }

    SmallVector<Value> replacements;
    for (auto [registers, type] : llvm::zip(results, resultTypes))
      replacements.push_back(
          tile ? fromRegisters(rewriter, loc, cast<VectorType>(type), registers)
               : registers.front());
    rewriter.replaceOp(op, replacements);
    return success();
  }
};

} // namespace

void kiln::tiletogpu::populateMapElementwiseToGPUPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<MapElementwiseLowering>(converter, patterns.getContext());
}
