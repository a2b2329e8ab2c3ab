//===- ReductionThreads.cpp - How a layout's threads share an axis --------===//

#include "kiln/Dialect/TileGPU/IR/ReductionThreads.h"

#include "kiln/Dialect/TileGPU/IR/TileGPUDialect.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tilegpu;

std::optional<AxisThreads>
kiln::tilegpu::getAxisThreads(Attribute encoding, ArrayRef<int64_t> shape,
                              int64_t axis, std::string &whyNot) {
  llvm::raw_string_ostream why(whyNot);
  if (auto slice = dyn_cast<SliceEncodingAttr>(encoding)) {
    SmallVector<int64_t> parentShape(shape);
    parentShape.insert(parentShape.begin() + slice.getDim(), 1);
    return getAxisThreads(slice.getParent(), parentShape,
                          axis >= slice.getDim() ? axis + 1 : axis, whyNot);
  }
  if (auto mma = dyn_cast<MmaEncodingAttr>(encoding)) {
    // In a warp's 16x8 block the four lanes 4g..4g+3 hold row g's (and row
    // g + 8's) columns two each; warp w holds column block (w / warps[0]) %
    // warps[1]. Rows only, over whole blocks (tile-assign-layouts asks for
    // no other).
    ArrayRef<int64_t> warps = mma.getWarpsPerCTA();
    if (shape.size() != 2 || axis != 1 || shape[0] % (16 * warps[0]) != 0 ||
        shape[1] % (8 * warps[1]) != 0) {
      why << "a reduction over " << encoding
          << " runs along the rows of whole 16x8 blocks of every warp";
      return std::nullopt;
    }
    return AxisThreads{/*laneStride=*/1, /*lanes=*/4,
                       /*warpStride=*/warps[0], /*warps=*/warps[1],
                       /*warpsAlong=*/warps[1]};
  }
  auto blocked = dyn_cast<BlockedEncodingAttr>(encoding);
  if (!blocked) {
    why << "no reduction over tiles laid out as " << encoding;
    return std::nullopt;
  }
  auto layout = std::static_pointer_cast<const layout::BlockedLayout>(
      blocked.getLayout());
  int64_t perThread = layout->getSizePerThread()[axis];
  int64_t lanesAlong = layout->getThreadsPerWarpShape()[axis];
  int64_t warpsAlong = layout->getWarpsPerCTA()[axis];
  if (!llvm::isPowerOf2_64(lanesAlong) || !llvm::isPowerOf2_64(perThread) ||
      !llvm::isPowerOf2_64(shape[axis])) {
    why << "a reduction needs powers of two along its axis (size "
        << shape[axis] << ", " << perThread << " per thread, " << lanesAlong
        << " lanes)";
    return std::nullopt;
  }
  int64_t lanes =
      std::min<int64_t>(lanesAlong, llvm::divideCeil(shape[axis], perThread));
  int64_t warps = std::min<int64_t>(
      warpsAlong, llvm::divideCeil(shape[axis], perThread * lanesAlong));
  return AxisThreads{layout->getLaneStride(axis), lanes,
                     layout->getWarpStride(axis), warps, warpsAlong};
}
