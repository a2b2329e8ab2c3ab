//===- RegisterMap.cpp - Moving elements within one thread ----------------===//

#include "kiln/Layout/RegisterMap.h"

#include <algorithm>
#include <map>

using namespace kiln::layout;

/// Each thread's registers, by the coordinates of the element they hold
/// (the first register where several hold the same element).
static std::map<Shape, int64_t> registersByElement(
    const DistributedLayout &layout, const Shape &shape, int64_t lane,
    int64_t warp) {
  std::map<Shape, int64_t> registers;
  for (int64_t reg = 0, e = layout.getNumRegisters(shape); reg < e; ++reg)
    registers.emplace(layout.getCoordinates(shape, {reg, lane, warp}), reg);
  return registers;
}

std::optional<std::vector<int64_t>> kiln::layout::getThreadLocalRegisterMap(
    const DistributedLayout &src, const Shape &srcShape,
    const DistributedLayout &dst, const Shape &dstShape,
    const std::function<Shape(const Shape &)> &dstToSrc) {
  if (src.getThreadsPerWarp() != dst.getThreadsPerWarp() ||
      src.getNumWarps() != dst.getNumWarps())
    return std::nullopt;
  std::vector<int64_t> map(dst.getNumRegisters(dstShape), -1);
  for (int64_t warp = 0; warp < dst.getNumWarps(); ++warp) {
    for (int64_t lane = 0; lane < dst.getThreadsPerWarp(); ++lane) {
      std::map<Shape, int64_t> held =
          registersByElement(src, srcShape, lane, warp);
      for (int64_t reg = 0, e = map.size(); reg < e; ++reg) {
        Shape wanted = dstToSrc(dst.getCoordinates(dstShape, {reg, lane, warp}));
        auto it = held.find(wanted);
        if (it == held.end())
          return std::nullopt;
        // Registers are named at compile time, so every thread must find
        // the element in the same one.
        if (map[reg] < 0)
          map[reg] = it->second;
        else if (src.getCoordinates(srcShape, {map[reg], lane, warp}) != wanted)
          return std::nullopt;
      }
    }
  }
  return map;
}

std::optional<std::vector<std::vector<int64_t>>>
kiln::layout::getReductionRegisterGroups(
    const std::shared_ptr<const DistributedLayout> &layout, const Shape &shape,
    int64_t axis) {
  std::vector<std::vector<int64_t>> groups;
  for (int64_t warp = 0; warp < layout->getNumWarps(); ++warp) {
    for (int64_t lane = 0; lane < layout->getThreadsPerWarp(); ++lane) {
      // Distinct elements of this thread, grouped by the row they reduce
      // into (their coordinates without `axis`).
      std::map<Shape, std::vector<int64_t>> rows;
      for (const auto &[coordinates, reg] :
           registersByElement(*layout, shape, lane, warp)) {
        Shape row = coordinates;
        row.erase(row.begin() + axis);
        rows[row].push_back(reg);
      }
      // The result's register r holds the row its parent register r held.
      Shape resultShape = shape;
      resultShape.erase(resultShape.begin() + axis);
      SliceLayout result(axis, layout);
      int64_t results = result.getNumRegisters(resultShape);
      std::vector<std::vector<int64_t>> here;
      for (int64_t reg = 0; reg < results; ++reg) {
        auto it = rows.find(result.getCoordinates(resultShape,
                                                  {reg, lane, warp}));
        if (it == rows.end())
          return std::nullopt;
        std::vector<int64_t> group = it->second;
        std::sort(group.begin(), group.end());
        here.push_back(std::move(group));
      }
      if (groups.empty())
        groups = std::move(here);
      else if (groups != here)
        return std::nullopt;
    }
  }
  return groups;
}

/// Whether each of the thread's runs of `width` registers holds `width`
/// consecutive, aligned elements along the last dimension.
static bool holdsRuns(const DistributedLayout &layout, const Shape &shape,
                      int64_t lane, int64_t warp, int64_t width) {
  int64_t registers = layout.getNumRegisters(shape);
  if (registers % width != 0)
    return false;
  for (int64_t first = 0; first < registers; first += width) {
    Shape start = layout.getCoordinates(shape, {first, lane, warp});
    if (start.back() % width != 0)
      return false;
    for (int64_t i = 1; i < width; ++i) {
      Shape expected = start;
      expected.back() += i;
      if (layout.getCoordinates(shape, {first + i, lane, warp}) != expected)
        return false;
    }
  }
  return true;
}

int64_t kiln::layout::getContiguousRegisterRun(const DistributedLayout &layout,
                                               const Shape &shape,
                                               int64_t maxElements) {
  for (int64_t width = maxElements; width > 1; width /= 2) {
    if (width > shape.back())
      continue;
    bool everyThread = true;
    for (int64_t warp = 0; everyThread && warp < layout.getNumWarps(); ++warp)
      for (int64_t lane = 0;
           everyThread && lane < layout.getThreadsPerWarp(); ++lane)
        everyThread = holdsRuns(layout, shape, lane, warp, width);
    if (everyThread)
      return width;
  }
  return 1;
}
