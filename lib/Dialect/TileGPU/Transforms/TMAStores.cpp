//===- TMAStores.cpp - Block stores by the tensor memory accelerator ------===//

#include "kiln/Dialect/TileGPU/Transforms/Passes.h"

#include "kiln/Dialect/Tile/IR/TileDialect.h"
#include "kiln/Dialect/TileGPU/Transforms/AxisInfo.h"
#include "kiln/Dialect/TileGPU/Transforms/TensorMaps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace kiln::tilegpu {
#define GEN_PASS_DEF_TILETMASTORESPASS
#include "kiln/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace kiln::tilegpu

using namespace mlir;
using namespace kiln;
using namespace kiln::tilegpu;

namespace {
struct TileTMAStoresPass
    : tilegpu::impl::TileTMAStoresPassBase<TileTMAStoresPass> {
  void runOnOperation() override;
};
} // namespace

/// The tensor map `store` can write its blocks through, or why there is
/// none.
static FailureOr<TensorMapFields> getStoreTensorMap(tile::BlockStoreOp store,
                                                    AxisInfoAnalysis &axisInfo,
                                                    std::string &whyNot) {
  auto type = cast<RankedTensorType>(store.getValue().getType());
  if (type.getRank() != 2) {
    whyNot = "TMA stores 2-D blocks here";
    return failure();
  }
  tile::MakeBlockPtrOp origin = getBlockPtrOrigin(store.getBlockPtr());
  if (!origin) {
    whyNot = "its block pointer does not come from a tile.make_block_ptr, "
             "maybe advanced and carried by loops";
    return failure();
  }
  return getTensorMap(origin, type, store.getBoundaryCheck(), axisInfo,
                      whyNot);
}

void TileTMAStoresPass::runOnOperation() {
  AxisInfoAnalysis axisInfo;
  SmallVector<tile::BlockStoreOp> stores;
  getOperation().walk([&](tile::BlockStoreOp store) { stores.push_back(store); });
  for (tile::BlockStoreOp store : stores) {
    std::string whyNot;
    FailureOr<TensorMapFields> map = getStoreTensorMap(store, axisInfo, whyNot);
    if (failed(map)) {
      store.emitRemark() << "not stored by TMA: " << whyNot;
      continue;
    }
    Value mapArg =
        getTensorMapArgument(store->getParentOfType<func::FuncOp>(), *map);
    OpBuilder b(store);
    TensorMapStoreOp::create(b, store.getLoc(), store.getValue(), mapArg,
                             store.getBlockPtr());
    store.erase();
  }
}
