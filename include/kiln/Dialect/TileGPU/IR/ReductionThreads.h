//===- ReductionThreads.h - How a layout's threads share an axis -*- C++
//-*-===//
//
// Which lanes and warps hold the elements a reduction along one axis of a
// laid-out tile combines: what its lowering shuffles between lanes and
// exchanges between warps through shared memory, and what the pipeliner
// counts as that exchange's shared-memory scratch.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_TILEGPU_IR_REDUCTIONTHREADS_H
#define KILN_DIALECT_TILEGPU_IR_REDUCTIONTHREADS_H

#include "mlir/IR/Attributes.h"
#include "llvm/ADT/ArrayRef.h"

#include <optional>
#include <string>

namespace kiln::tilegpu {

/// How the threads of a program spread along the reduced axis: lanes
/// `laneStride` apart, `lanes` of them holding distinct elements, and
/// likewise for warps, of which `warpsAlong` share the axis.
struct AxisThreads {
  int64_t laneStride, lanes, warpStride, warps, warpsAlong;
};

/// The threads along `axis` of a tile of `shape` laid out as `encoding`;
/// none, with the reason in `whyNot`, for layouts no reduction runs over.
std::optional<AxisThreads> getAxisThreads(mlir::Attribute encoding,
                                          llvm::ArrayRef<int64_t> shape,
                                          int64_t axis, std::string &whyNot);

} // namespace kiln::tilegpu

#endif // KILN_DIALECT_TILEGPU_IR_REDUCTIONTHREADS_H
