//===- PointerOrigins.cpp - Which kernel argument a pointer points into ---===//

#include "kiln/Conversion/TileToHost/PointerOrigins.h"

#include "kiln/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace kiln::host;
using namespace kiln::tile;

namespace {
/// Follows a pointer's definitions back to the function's arguments. A
/// value met again while it is being followed (a loop-carried pointer)
/// adds no origin of its own.
class OriginSearch {
public:
  /// Adds the origins of `value` to the search; false where it stops
  /// (at what it does not follow, or at an address).
  bool follow(Value value) {
    if (!visiting.insert(value).second)
      return true;
    if (auto arg = dyn_cast<BlockArgument>(value))
      return followArgument(arg);
    if (auto result = dyn_cast<OpResult>(value))
      return followResult(result);
    return false;
  }

  PointerOrigin origin() const {
    if (fromAddress)
      return {PointerOrigin::Address};
    if (!found || !single)
      return {PointerOrigin::Unknown};
    return {PointerOrigin::Argument, *found};
  }

private:
  /// Records an argument origin; the search goes on past a second one, as
  /// an address met later still decides the kind.
  bool add(unsigned argument) {
    if (found && *found != argument)
      single = false;
    found = argument;
    return true;
  }

  bool followArgument(BlockArgument arg) {
    Operation *owner = arg.getOwner()->getParentOp();
    if (isa<func::FuncOp>(owner) && arg.getOwner()->isEntryBlock())
      return add(arg.getArgNumber());
    if (auto loop = dyn_cast<scf::ForOp>(owner)) {
      OpOperand *init = loop.getTiedLoopInit(arg);
      return init && follow(init->get()) &&
             follow(loop.getTiedLoopYieldedValue(arg)->get());
    }
    return false;
  }

  bool followResult(OpResult result) {
    Operation *op = result.getOwner();
    return llvm::TypeSwitch<Operation *, bool>(op)
        .Case<AddPtrOp, SplatOp, BroadcastOp, ExpandDimsOp, ReshapeOp,
              TransOp, PtrCastOp, AssumeOp>(
            [&](Operation *view) { return follow(view->getOperand(0)); })
        .Case([&](MakeBlockPtrOp make) { return follow(make.getBase()); })
        .Case([&](AdvanceOp advance) { return follow(advance.getBlockPtr()); })
        .Case([&](arith::SelectOp select) {
          return follow(select.getTrueValue()) &&
                 follow(select.getFalseValue());
        })
        .Case([&](scf::ForOp loop) {
          return follow(loop.getInitArgs()[result.getResultNumber()]) &&
                 follow(loop.getYieldedValues()[result.getResultNumber()]);
        })
        .Case([&](IntToPtrOp) {
          fromAddress = true;
          return false;
        })
        .Case([&](scf::IfOp branch) {
          unsigned i = result.getResultNumber();
          return follow(branch.thenYield().getOperand(i)) &&
                 (branch.getElseRegion().empty() ||
                  follow(branch.elseYield().getOperand(i)));
        })
        .Default([](Operation *) { return false; });
  }

  llvm::DenseSet<Value> visiting;
  std::optional<unsigned> found;
  bool single = true;
  bool fromAddress = false;
};
} // namespace

PointerOrigin kiln::host::findPointerOrigin(Value ptr) {
  OriginSearch search;
  search.follow(ptr);
  return search.origin();
}
