//===- HostExactMath.cpp - Exact division, math and conversions on host --===//

#include "kiln/Conversion/Passes.h"

#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/DialectConversion.h"

namespace kiln {
#define GEN_PASS_DEF_HOSTEXACTMATHPASS
#include "kiln/Conversion/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

/// The function that rounds an f64 to bf16 once (compiler-rt's name).
constexpr llvm::StringLiteral kTruncateToBF16 = "__truncdfbf2";

struct HostExactMathPass
    : kiln::impl::HostExactMathPassBase<HostExactMathPass> {
  void runOnOperation() override {
    // The GPU's approximations of Triton's `/`, `%`, `exp` and `sqrt`; the
    // host rounds these correctly, as Triton's interpreter does.
    auto approximations =
        arith::FastMathFlags::arcp | arith::FastMathFlags::afn;
    getOperation().walk([&](Operation *op) {
      if (!isa<arith::DivFOp, arith::RemFOp, math::ExpOp, math::SqrtOp>(op))
        return;
      auto fastmath = cast<arith::ArithFastMathInterface>(op);
      arith::FastMathFlags flags = fastmath.getFastMathFlagsAttr().getValue();
      op->setAttr(fastmath.getFastMathAttrName(),
                  arith::FastMathFlagsAttr::get(&getContext(),
                                                flags & ~approximations));
    });
    // An integer to bf16 through f64, exact for 32-bit integers, then one
    // rounding by __truncdfbf2 (HostExecutable's), as the GPU's
    // cvt.rn.bf16.s32: LLVM would fold the two into one conversion, which
    // its x86 back end makes through f32, rounding twice.
    SmallVector<Operation *> conversions;
    getOperation().walk([&](Operation *op) {
      if (isa<arith::SIToFPOp, arith::UIToFPOp>(op) &&
          op->getResult(0).getType().isBF16())
        conversions.push_back(op);
    });
    if (!conversions.empty()) {
      ModuleOp module = getOperation();
      OpBuilder builder(module.getBodyRegion());
      auto f64 = builder.getF64Type(), bf16 = builder.getBF16Type();
      auto truncate = module.lookupSymbol<func::FuncOp>(kTruncateToBF16);
      if (!truncate) {
        truncate = func::FuncOp::create(
            builder, module.getLoc(), kTruncateToBF16,
            builder.getFunctionType({f64}, {bf16}));
        truncate.setPrivate();
      }
      for (Operation *op : conversions) {
        builder.setInsertionPoint(op);
        OperationState wide(op->getLoc(), op->getName(), op->getOperands(),
                            TypeRange(f64));
        Value exact = builder.create(wide)->getResult(0);
        op->getResult(0).replaceAllUsesWith(
            func::CallOp::create(builder, op->getLoc(), truncate, exact)
                .getResult(0));
        op->erase();
      }
    }
    RewritePatternSet patterns(&getContext());
    populateMathToLibmConversionPatterns(patterns);
    // Only the two ops are illegal: a partial conversion leaves the legal
    // ones, which the libm patterns would otherwise also rewrite.
    ConversionTarget target(getContext());
    target.addIllegalOp<math::ExpM1Op, math::Log1pOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
