//===- HostExactMath.cpp - Exact division and libm math on the host ------===//

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
