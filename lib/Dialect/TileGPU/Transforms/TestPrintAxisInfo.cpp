//===- TestPrintAxisInfo.cpp - Remarks with the axis analysis -------------===//
//
// Lets lit tests check the contiguity, divisibility and constancy that
// AxisInfo derives, one remark per integer or pointer value, rather than
// only the layouts and vector widths that follow from them.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/TileGPU/Transforms/Passes.h"

#include "kiln/Dialect/Tile/IR/TileDialect.h"
#include "kiln/Dialect/TileGPU/Transforms/AxisInfo.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"

#define DEBUG_TYPE "tile-test-print-axis-info"

namespace kiln::tilegpu {
#define GEN_PASS_DEF_TILETESTPRINTAXISINFOPASS
#include "kiln/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace kiln::tilegpu

using namespace mlir;
using namespace kiln;
using namespace kiln::tilegpu;

/// Whether AxisInfo describes `value`: integers and pointers, or tiles of
/// them.
static bool isAnalyzed(Value value) {
  Type element = getElementTypeOrSelf(value.getType());
  return isa<IntegerType, IndexType, tile::PointerType>(element);
}

namespace {
struct TileTestPrintAxisInfoPass
    : tilegpu::impl::TileTestPrintAxisInfoPassBase<TileTestPrintAxisInfoPass> {
  void runOnOperation() override {
    AxisInfoAnalysis axisInfo;
    getOperation().walk([&](Operation *op) {
      for (Value result : op->getResults()) {
        if (!isAnalyzed(result))
          continue;
        AxisInfo info = axisInfo.get(result);
        InFlightDiagnostic remark = op->emitRemark();
        remark << "contiguity = [" << info.contiguity
               << "], divisibility = [" << info.divisibility
               << "], constancy = [" << info.constancy << "]";
        if (info.constant)
          remark << ", constant = " << *info.constant;
      }
    });
  }
};
} // namespace
