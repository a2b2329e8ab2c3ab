//===- DistributedLayout.h - Tiles spread over threads ----------*- C++ -*-===//
//
// A distributed layout says which thread holds which element of a tile: it
// is a function from (register, lane, warp) to the element's coordinates.
// These are the pure functions every GPU lowering relies on; the
// `#tilegpu.*` encoding attributes are their IR spelling.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LAYOUT_DISTRIBUTEDLAYOUT_H
#define KILN_LAYOUT_DISTRIBUTEDLAYOUT_H

#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kiln::layout {

/// Sizes or coordinates, one per dimension: held inline, as layouts compute
/// millions of them in a large kernel's lowering.
using Shape = llvm::SmallVector<int64_t, 4>;

/// Where one copy of an element lives: a register of a thread, the lane of
/// the thread in its warp, and the warp in the program.
struct Location {
  int64_t reg = 0;
  int64_t lane = 0;
  int64_t warp = 0;

  bool operator==(const Location &other) const {
    return reg == other.reg && lane == other.lane && warp == other.warp;
  }
};

/// A layout of tiles of any shape of one rank over the threads of a
/// program. Where the tile is smaller than the layout's footprint, several
/// threads hold the same element (replication); where it is larger, each
/// thread holds several footprints' worth in more registers.
class DistributedLayout {
public:
  virtual ~DistributedLayout() = default;

  /// Rank of the tiles the layout applies to.
  virtual int64_t getRank() const = 0;
  virtual int64_t getThreadsPerWarp() const = 0;
  virtual int64_t getNumWarps() const = 0;

  /// Registers each thread uses for a tile of `shape`.
  virtual int64_t getNumRegisters(const Shape &shape) const = 0;

  /// Coordinates of the element `location` holds in a tile of `shape`.
  virtual Shape getCoordinates(const Shape &shape,
                               const Location &location) const = 0;

  /// Every location holding the element at `coordinates` (more than one
  /// where the layout replicates the tile).
  std::vector<Location> getLocations(const Shape &shape,
                                     const Shape &coordinates) const;
};

/// Triton's blocked layout: each thread holds a `sizePerThread` block of
/// contiguous elements, `threadsPerWarp` threads tile a warp's block and
/// `warpsPerCTA` warps tile the program's footprint, with dimensions
/// enumerated fastest first in `order` (order[0] varies fastest across
/// registers, lanes and warps).
class BlockedLayout : public DistributedLayout {
public:
  BlockedLayout(Shape sizePerThread, Shape threadsPerWarp, Shape warpsPerCTA,
                Shape order);

  /// Why these parameters do not form a blocked layout, or empty if they
  /// do: equal ranks, positive sizes, `order` a permutation.
  static std::string verify(const Shape &sizePerThread,
                            const Shape &threadsPerWarp,
                            const Shape &warpsPerCTA, const Shape &order);

  /// The blocked layout a memory access of `shape` coalesces best with:
  /// `elementsPerThread` contiguous elements per thread along `order[0]`
  /// (as wide as one vector access), lanes then warps filling the fastest
  /// dimensions first.
  static BlockedLayout forCoalescedAccess(const Shape &shape,
                                          const Shape &order,
                                          int64_t elementsPerThread,
                                          int64_t numWarps,
                                          int64_t threadsPerWarp = 32);

  int64_t getRank() const override { return sizePerThread.size(); }
  int64_t getThreadsPerWarp() const override;
  int64_t getNumWarps() const override;
  int64_t getNumRegisters(const Shape &shape) const override;
  Shape getCoordinates(const Shape &shape,
                       const Location &location) const override;

  /// Elements of one footprint along each dimension.
  Shape getFootprint() const;

  /// The part of an element's coordinates that depends only on the
  /// register. With getThreadOffsets, `getCoordinates` is their sum modulo
  /// `shape`; the copy whose sum is below `shape` in every dimension is the
  /// canonical one (the others are replicas), which lets generated code
  /// compute coordinates as a per-thread value plus constants.
  Shape getRegisterOffsets(const Shape &shape, int64_t reg) const;

  /// The part of an element's coordinates that depends only on the thread.
  Shape getThreadOffsets(int64_t lane, int64_t warp) const;

  /// How many lanes (and warps) apart two threads are whose index along
  /// `dim` differs by one: the lane (warp) index is the sum over dimensions
  /// of the index along it times its stride.
  int64_t getLaneStride(int64_t dim) const;
  int64_t getWarpStride(int64_t dim) const;

  const Shape &getSizePerThread() const { return sizePerThread; }
  const Shape &getThreadsPerWarpShape() const { return threadsPerWarp; }
  const Shape &getWarpsPerCTA() const { return warpsPerCTA; }
  const Shape &getOrder() const { return order; }

private:
  Shape sizePerThread, threadsPerWarp, warpsPerCTA, order;
};

/// The layout of what is left of a `parent`-laid-out tile when dimension
/// `dim` is reduced away: each thread keeps the elements its parent
/// registers held, without that dimension, once each. Parent registers that
/// differed only along `dim` hold the same element once it has size one;
/// the slice keeps one register for them, as Triton's slices do, so that
/// values carried through a loop (a row maximum) and the arithmetic on
/// them are not duplicated.
class SliceLayout : public DistributedLayout {
public:
  SliceLayout(int64_t dim, std::shared_ptr<const DistributedLayout> parent);

  int64_t getRank() const override { return parent->getRank() - 1; }
  int64_t getThreadsPerWarp() const override {
    return parent->getThreadsPerWarp();
  }
  int64_t getNumWarps() const override { return parent->getNumWarps(); }
  int64_t getNumRegisters(const Shape &shape) const override;
  Shape getCoordinates(const Shape &shape,
                       const Location &location) const override;

  /// For each register of a tile of `shape`, the parent's registers (in a
  /// tile with a size-one dimension `dim`) that hold its element in every
  /// thread, in increasing order; the register reads the first.
  const std::vector<std::vector<int64_t>> &
  getParentRegisters(const Shape &shape) const;

  int64_t getDim() const { return dim; }
  const DistributedLayout &getParent() const { return *parent; }
  /// `shape` with a size-1 dimension `dim` inserted.
  Shape getParentShape(const Shape &shape) const;

private:
  int64_t dim;
  std::shared_ptr<const DistributedLayout> parent;
  // getParentRegisters of the last shape asked for: lowering a tile asks
  // for every register of every thread of one shape.
  mutable Shape cachedShape;
  mutable std::vector<std::vector<int64_t>> cachedRegisters;
};

} // namespace kiln::layout

#endif // KILN_LAYOUT_DISTRIBUTEDLAYOUT_H
