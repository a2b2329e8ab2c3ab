//===- DebugOpsToGPU.cpp - tile.print and tile.assert on the GPU ----------===//
//
// A print becomes one gpu.printf (vprintf) per element a thread holds, only
// for the canonical copy of a replicated element, so each element prints
// once; scalars print from thread 0. An assert becomes a cf.assert of the
// thread's elements, which convert-gpu-to-nvvm turns into __assertfail.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "ThreadValues.h"

#include "kiln/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tiletogpu;

/// The printf conversion and value (an i64 or an f64) of one element.
static std::pair<StringRef, Value> printable(OpBuilder &b, Location loc,
                                             Value element) {
  Type type = element.getType();
  if (auto floatType = dyn_cast<FloatType>(type)) {
    if (floatType.getWidth() == 64)
      return {"%.17g", element};
    return {"%.9g", arith::ExtFOp::create(b, loc, b.getF64Type(), element)};
  }
  unsigned width = type.getIntOrFloatBitWidth();
  if (width == 1)
    element = arith::ExtUIOp::create(b, loc, b.getI64Type(), element);
  else if (width < 64)
    element = arith::ExtSIOp::create(b, loc, b.getI64Type(), element);
  return {"%lld", element};
}

/// Runs `body` only in thread 0 of the program.
static void inThreadZero(OpBuilder &b, Location loc,
                         function_ref<void(OpBuilder &)> body) {
  auto ifOp = scf::IfOp::create(b, loc, isThreadZero(b, loc),
                                /*withElseRegion=*/false);
  OpBuilder thenBuilder = ifOp.getThenBodyBuilder();
  body(thenBuilder);
}

namespace {

/// One printf per element a thread holds (its canonical copy), with the
/// program id and the element's coordinates; scalars from thread 0.
struct PrintLowering : OpConversionPattern<tile::PrintOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::PrintOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> programIds;
    for (gpu::Dimension dim :
         {gpu::Dimension::x, gpu::Dimension::y, gpu::Dimension::z})
      programIds.push_back(arith::IndexCastOp::create(
          rewriter, loc, rewriter.getI32Type(),
          gpu::BlockIdOp::create(rewriter, loc, dim)));
    std::string programFormat = "pid (%d, %d, %d)";
    std::string prefix = op.getPrefix().str();
    // printf takes `%` as a conversion: the prefix is text.
    for (size_t at = prefix.find('%'); at != std::string::npos;
         at = prefix.find('%', at + 2))
      prefix.insert(at, "%");
    if (op.getValues().empty()) {
      inThreadZero(rewriter, loc, [&](OpBuilder &b) {
        gpu::PrintfOp::create(b, loc, programFormat + " " + prefix + "\n",
                              programIds);
      });
      rewriter.eraseOp(op);
      return success();
    }
    for (auto [i, original, converted] :
         llvm::enumerate(op.getValues(), adaptor.getValues())) {
      // A named copy: a lambda cannot capture a structured binding in C++17.
      Value value = converted;
      std::string label = prefix;
      if (op.getValues().size() > 1)
        label += " (operand " + std::to_string(i) + ")";
      auto tensor = dyn_cast<RankedTensorType>(original.getType());
      if (!tensor) {
        inThreadZero(rewriter, loc, [&](OpBuilder &b) {
          auto [conversion, printed] = printable(b, loc, value);
          SmallVector<Value> args(programIds);
          args.push_back(printed);
          gpu::PrintfOp::create(
              b, loc, programFormat + " " + label + ": " + conversion.str() +
                          "\n",
              args);
        });
        continue;
      }
      FailureOr<TileCoordinates> coordinates =
          emitTileCoordinates(rewriter, loc, tensor);
      if (failed(coordinates))
        return failure();
      std::string indexFormat = " idx (";
      for (int64_t d = 0; d < tensor.getRank(); ++d)
        indexFormat += d ? ", %d" : "%d";
      indexFormat += ")";
      for (int64_t reg = 0; reg < getNumRegisters(tensor); ++reg) {
        auto print = [&](OpBuilder &b) {
          auto [conversion, printed] =
              printable(b, loc, extractRegister(b, loc, value, reg));
          SmallVector<Value> args(programIds);
          for (Value coordinate : coordinates->coordinates)
            args.push_back(extractRegister(b, loc, coordinate, reg));
          args.push_back(printed);
          gpu::PrintfOp::create(b, loc,
                                programFormat + indexFormat + " " + label +
                                    ": " + conversion.str() + "\n",
                                args);
        };
        if (!coordinates->canonical) {
          print(rewriter);
          continue;
        }
        auto ifOp = scf::IfOp::create(
            rewriter, loc,
            extractRegister(rewriter, loc, coordinates->canonical, reg),
            /*withElseRegion=*/false);
        OpBuilder thenBuilder = ifOp.getThenBodyBuilder();
        print(thenBuilder);
      }
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// One cf.assert of all the elements a thread holds.
struct AssertLowering : OpConversionPattern<tile::AssertOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::AssertOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value holds = adaptor.getCondition();
    if (auto tensor = dyn_cast<RankedTensorType>(op.getCondition().getType())) {
      Value all = extractRegister(rewriter, loc, holds, 0);
      for (int64_t reg = 1; reg < getNumRegisters(tensor); ++reg)
        all = arith::AndIOp::create(rewriter, loc, all,
                                    extractRegister(rewriter, loc, holds, reg));
      holds = all;
    }
    rewriter.replaceOpWithNewOp<cf::AssertOp>(op, holds, op.getMessage());
    return success();
  }
};

struct BarrierLowering : OpConversionPattern<tile::BarrierOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::BarrierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<gpu::BarrierOp>(op);
    return success();
  }
};

} // namespace

void kiln::tiletogpu::populateDebugOpsToGPUPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<PrintLowering, AssertLowering, BarrierLowering>(
      converter, patterns.getContext());
}
