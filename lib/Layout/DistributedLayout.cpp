//===- DistributedLayout.cpp - Tiles spread over threads ------------------===//

#include "kiln/Layout/DistributedLayout.h"

#include <algorithm>
#include <cassert>
#include <map>
#include <numeric>

using namespace kiln::layout;

static int64_t product(const Shape &shape) {
  return std::accumulate(shape.begin(), shape.end(), int64_t(1),
                         std::multiplies<int64_t>());
}

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Splits `index` into digits along `order` (fastest first) with the radix
/// of each dimension in `sizes`; returns the digit of every dimension.
static Shape delinearize(int64_t index, const Shape &sizes,
                         const Shape &order) {
  Shape digits(sizes.size());
  for (int64_t dim : order) {
    digits[dim] = index % sizes[dim];
    index /= sizes[dim];
  }
  return digits;
}

std::vector<Location>
DistributedLayout::getLocations(const Shape &shape,
                                const Shape &coordinates) const {
  std::vector<Location> found;
  for (int64_t warp = 0; warp < getNumWarps(); ++warp)
    for (int64_t lane = 0; lane < getThreadsPerWarp(); ++lane)
      for (int64_t reg = 0; reg < getNumRegisters(shape); ++reg)
        if (getCoordinates(shape, {reg, lane, warp}) == coordinates)
          found.push_back({reg, lane, warp});
  return found;
}

BlockedLayout::BlockedLayout(Shape sizePerThread, Shape threadsPerWarp,
                             Shape warpsPerCTA, Shape order)
    : sizePerThread(std::move(sizePerThread)),
      threadsPerWarp(std::move(threadsPerWarp)),
      warpsPerCTA(std::move(warpsPerCTA)), order(std::move(order)) {
  assert(verify(this->sizePerThread, this->threadsPerWarp, this->warpsPerCTA,
                this->order)
             .empty() &&
         "invalid blocked layout");
}

std::string BlockedLayout::verify(const Shape &sizePerThread,
                                  const Shape &threadsPerWarp,
                                  const Shape &warpsPerCTA,
                                  const Shape &order) {
  size_t rank = sizePerThread.size();
  if (rank == 0)
    return "a blocked layout needs at least one dimension";
  if (threadsPerWarp.size() != rank || warpsPerCTA.size() != rank ||
      order.size() != rank)
    return "sizePerThread, threadsPerWarp, warpsPerCTA and order must have "
           "one rank";
  for (const Shape *sizes : {&sizePerThread, &threadsPerWarp, &warpsPerCTA})
    for (int64_t size : *sizes)
      if (size <= 0)
        return "sizes must be positive";
  Shape sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < rank; ++i)
    if (sorted[i] != static_cast<int64_t>(i))
      return "order must be a permutation of the dimensions";
  return {};
}

BlockedLayout BlockedLayout::forCoalescedAccess(const Shape &shape,
                                                const Shape &order,
                                                int64_t elementsPerThread,
                                                int64_t numWarps,
                                                int64_t threadsPerWarp) {
  size_t rank = shape.size();
  Shape sizePerThread(rank, 1), lanes(rank, 1), warps(rank, 1);
  int64_t fastest = order[0];
  sizePerThread[fastest] = std::min(elementsPerThread, shape[fastest]);
  // Lanes, then warps, fill the dimensions fastest first, as far as the
  // tile reaches; what is left goes to the slowest dimension (replication).
  Shape remaining(rank);
  for (size_t d = 0; d < rank; ++d)
    remaining[d] = ceilDiv(shape[d], sizePerThread[d]);
  auto distribute = [&](int64_t count, Shape &into) {
    for (int64_t dim : order) {
      int64_t take = 1;
      while (take * 2 <= count && take * 2 <= remaining[dim])
        take *= 2;
      into[dim] = take;
      remaining[dim] = ceilDiv(remaining[dim], take);
      count /= take;
    }
    into[order.back()] *= count;
  };
  distribute(threadsPerWarp, lanes);
  distribute(numWarps, warps);
  return BlockedLayout(sizePerThread, lanes, warps, order);
}

int64_t BlockedLayout::getThreadsPerWarp() const {
  return product(threadsPerWarp);
}

int64_t BlockedLayout::getNumWarps() const { return product(warpsPerCTA); }

Shape BlockedLayout::getFootprint() const {
  Shape footprint(getRank());
  for (int64_t d = 0; d < getRank(); ++d)
    footprint[d] = sizePerThread[d] * threadsPerWarp[d] * warpsPerCTA[d];
  return footprint;
}

int64_t BlockedLayout::getNumRegisters(const Shape &shape) const {
  Shape footprint = getFootprint();
  int64_t registers = product(sizePerThread);
  for (int64_t d = 0; d < getRank(); ++d)
    registers *= ceilDiv(shape[d], footprint[d]);
  return registers;
}

Shape BlockedLayout::getRegisterOffsets(const Shape &shape,
                                        int64_t reg) const {
  Shape footprint = getFootprint();
  Shape repeats(getRank());
  for (int64_t d = 0; d < getRank(); ++d)
    repeats[d] = ceilDiv(shape[d], footprint[d]);
  // A register is an element of the thread's block, then a repeat of the
  // footprint; both enumerate dimensions in `order`.
  int64_t perThread = product(sizePerThread);
  Shape element = delinearize(reg % perThread, sizePerThread, order);
  Shape repeat = delinearize(reg / perThread, repeats, order);
  Shape offsets(getRank());
  for (int64_t d = 0; d < getRank(); ++d)
    offsets[d] = repeat[d] * footprint[d] + element[d];
  return offsets;
}

Shape BlockedLayout::getThreadOffsets(int64_t lane, int64_t warp) const {
  Shape laneIndex = delinearize(lane, threadsPerWarp, order);
  Shape warpIndex = delinearize(warp, warpsPerCTA, order);
  Shape offsets(getRank());
  for (int64_t d = 0; d < getRank(); ++d)
    offsets[d] =
        (warpIndex[d] * threadsPerWarp[d] + laneIndex[d]) * sizePerThread[d];
  return offsets;
}

/// Stride of `dim` when `sizes` are enumerated along `order`, fastest first.
static int64_t strideAlong(const Shape &sizes, const Shape &order,
                           int64_t dim) {
  int64_t stride = 1;
  for (int64_t d : order) {
    if (d == dim)
      return stride;
    stride *= sizes[d];
  }
  return stride;
}

int64_t BlockedLayout::getLaneStride(int64_t dim) const {
  return strideAlong(threadsPerWarp, order, dim);
}

int64_t BlockedLayout::getWarpStride(int64_t dim) const {
  return strideAlong(warpsPerCTA, order, dim);
}

Shape BlockedLayout::getCoordinates(const Shape &shape,
                                    const Location &location) const {
  Shape coordinates = getRegisterOffsets(shape, location.reg);
  Shape thread = getThreadOffsets(location.lane, location.warp);
  // A footprint larger than the tile wraps around: replication.
  for (int64_t d = 0; d < getRank(); ++d)
    coordinates[d] = (coordinates[d] + thread[d]) % shape[d];
  return coordinates;
}

SliceLayout::SliceLayout(int64_t dim,
                         std::shared_ptr<const DistributedLayout> parent)
    : dim(dim), parent(std::move(parent)) {
  assert(this->dim >= 0 && this->dim < this->parent->getRank() &&
         "slice dimension out of range");
}

Shape SliceLayout::getParentShape(const Shape &shape) const {
  Shape full = shape;
  full.insert(full.begin() + dim, 1);
  return full;
}

const std::vector<std::vector<int64_t>> &
SliceLayout::getParentRegisters(const Shape &shape) const {
  if (!cachedRegisters.empty() && cachedShape == shape)
    return cachedRegisters;
  // Two parent registers hold the same element in one thread when their
  // register parts agree modulo the tile (the thread's part is added to
  // both), so thread 0 of warp 0 tells for every thread.
  Shape full = getParentShape(shape);
  std::map<Shape, size_t> byElement;
  cachedRegisters.clear();
  for (int64_t reg = 0, e = parent->getNumRegisters(full); reg < e; ++reg) {
    auto [it, inserted] = byElement.emplace(
        parent->getCoordinates(full, {reg, 0, 0}), cachedRegisters.size());
    if (inserted)
      cachedRegisters.emplace_back();
    cachedRegisters[it->second].push_back(reg);
  }
  cachedShape = shape;
  return cachedRegisters;
}

int64_t SliceLayout::getNumRegisters(const Shape &shape) const {
  return getParentRegisters(shape).size();
}

Shape SliceLayout::getCoordinates(const Shape &shape,
                                  const Location &location) const {
  Shape coordinates = parent->getCoordinates(
      getParentShape(shape), {getParentRegisters(shape)[location.reg].front(),
                              location.lane, location.warp});
  coordinates.erase(coordinates.begin() + dim);
  return coordinates;
}
