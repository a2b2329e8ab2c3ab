//===- RegisterMap.h - Moving elements within one thread ---------*- C++ -*-===//
//
// Which register of one layout feeds which register of another when the
// data does not leave the thread: how a broadcast, a reshape, a layout
// conversion or the first step of a reduction becomes a permutation of
// registers, decided once at compile time for every thread.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LAYOUT_REGISTERMAP_H
#define KILN_LAYOUT_REGISTERMAP_H

#include "kiln/Layout/DistributedLayout.h"

#include <functional>
#include <memory>
#include <optional>

namespace kiln::layout {

/// For each register of `dst` over `dstShape`, the register of `src` over
/// `srcShape` that holds, in the same thread and the same for every thread,
/// the element at `dstToSrc(coordinates in dst)`. None when some thread
/// does not hold it, or holds it in a register that differs between
/// threads: the data must then move between threads.
std::optional<std::vector<int64_t>>
getThreadLocalRegisterMap(const DistributedLayout &src, const Shape &srcShape,
                          const DistributedLayout &dst, const Shape &dstShape,
                          const std::function<Shape(const Shape &)> &dstToSrc);

/// For a reduction of a `layout` tile of `shape` along `axis`: for each
/// register of the result (laid out as the slice of `layout` along `axis`),
/// the registers of the same thread holding distinct elements of the row it
/// reduces. None when that grouping differs between threads.
std::optional<std::vector<std::vector<int64_t>>>
getReductionRegisterGroups(
    const std::shared_ptr<const DistributedLayout> &layout, const Shape &shape,
    int64_t axis);

/// The most registers, at most `maxElements` (a power of two), that every
/// thread of `layout` can move as one vector along the last dimension of
/// a tile of `shape`: a power of two w such that each thread's registers
/// w·i .. w·i + w - 1 hold w consecutive elements of one row, the first at
/// a column that is a multiple of w (so that the vector is aligned to its
/// size in a row-major buffer whose rows are). 1 where nothing wider is.
int64_t getContiguousRegisterRun(const DistributedLayout &layout,
                                 const Shape &shape, int64_t maxElements);

} // namespace kiln::layout

#endif // KILN_LAYOUT_REGISTERMAP_H
