//===- AxisInfo.cpp - Contiguity and divisibility of integer tiles --------===//

#include "kiln/Dialect/TileGPU/Transforms/AxisInfo.h"

#include "kiln/Dialect/Tile/IR/TileDialect.h"
#include "kiln/Dialect/TileGPU/IR/TileGPUDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

#include <numeric>

using namespace mlir;
using namespace kiln;
using namespace kiln::tilegpu;

/// Divisibility is tracked up to this power; more says nothing new.
static constexpr int64_t kMaxDivisibility = int64_t(1) << 30;

int64_t kiln::tilegpu::largestPowerOfTwoDividing(int64_t value) {
  if (value == 0)
    return kMaxDivisibility;
  int64_t power = 1;
  while (value % (power * 2) == 0 && power < kMaxDivisibility)
    power *= 2;
  return power;
}

AxisInfo AxisInfo::unknown(int64_t rank) {
  AxisInfo info;
  info.contiguity.assign(rank, 1);
  info.divisibility.assign(rank, 1);
  info.constancy.assign(rank, 1);
  return info;
}

/// What divides every element of `info` along `dim`: a run's
/// divisibility is only its first element's (as in Triton).
static int64_t elementDivisibility(const AxisInfo &info, size_t dim) {
  return info.contiguity[dim] > 1 ? 1 : info.divisibility[dim];
}

AxisInfo AxisInfo::splat(ArrayRef<int64_t> shape, int64_t divisibility,
                         std::optional<int64_t> constant) {
  int64_t rank = std::max<int64_t>(1, shape.size());
  AxisInfo info = unknown(rank);
  info.divisibility.assign(rank, divisibility);
  if (!shape.empty())
    info.constancy.assign(shape.begin(), shape.end());
  info.constant = constant;
  return info;
}

static ArrayRef<int64_t> shapeOf(Value value) {
  if (auto tensor = dyn_cast<RankedTensorType>(value.getType()))
    return tensor.getShape();
  return {};
}

static int64_t rankOf(Value value) {
  return std::max<int64_t>(1, shapeOf(value).size());
}

/// Bytes of one element pointed to by `type` (a pointer or a tile of them).
static int64_t pointeeBytes(Type type) {
  auto ptr = cast<tile::PointerType>(getElementTypeOrSelf(type));
  Type pointee = ptr.getPointeeType();
  if (isa<tile::PointerType, IndexType>(pointee))
    return 8;
  return (pointee.getIntOrFloatBitWidth() + 7) / 8;
}

AxisInfo AxisInfoAnalysis::get(Value value) {
  auto it = cache.find(value);
  if (it != cache.end())
    return it->second;
  AxisInfo info = compute(value);
  cache[value] = info;
  return info;
}

/// a + b, elementwise (also addptr with `scale` bytes per offset unit).
static AxisInfo add(const AxisInfo &a, const AxisInfo &b, int64_t scale) {
  AxisInfo info = AxisInfo::unknown(a.contiguity.size());
  for (size_t d = 0; d < info.contiguity.size(); ++d) {
    // Contiguous plus constant stays contiguous, over the shorter run.
    info.contiguity[d] =
        std::max(std::min(a.contiguity[d], b.constancy[d]),
                 std::min(a.constancy[d], b.contiguity[d]));
    info.divisibility[d] =
        std::gcd(a.divisibility[d], b.divisibility[d] * scale);
    info.constancy[d] = std::min(a.constancy[d], b.constancy[d]);
  }
  if (a.constant && b.constant)
    info.constant = *a.constant + *b.constant * scale;
  return info;
}

/// What divides the first element of each run of `runs` along `dim`
/// (runs no longer than `info`'s own): where `info`'s runs are longer,
/// the shorter ones start inside them.
static int64_t divisibilityAtRuns(const AxisInfo &info, size_t dim,
                                  int64_t runs) {
  if (info.contiguity[dim] == runs)
    return info.divisibility[dim];
  return std::gcd(info.divisibility[dim], runs);
}

/// What holds of both `a` and `b`.
static AxisInfo meet(const AxisInfo &a, const AxisInfo &b) {
  AxisInfo info = AxisInfo::unknown(a.contiguity.size());
  for (size_t d = 0; d < info.contiguity.size(); ++d) {
    int64_t runs = std::min(a.contiguity[d], b.contiguity[d]);
    info.contiguity[d] = runs;
    info.divisibility[d] = std::gcd(divisibilityAtRuns(a, d, runs),
                                    divisibilityAtRuns(b, d, runs));
    info.constancy[d] = std::min(a.constancy[d], b.constancy[d]);
  }
  if (a.constant == b.constant)
    info.constant = a.constant;
  return info;
}

/// Whether `info` is one run along `dim` of a tile of `shape`.
static bool isContiguousDim(const AxisInfo &info, ArrayRef<int64_t> shape,
                            size_t dim) {
  return !shape.empty() && info.contiguity[dim] == shape[dim];
}

/// Whether `info` is the same along all of `dim` of a tile of `shape`.
static bool isConstantDim(const AxisInfo &info, ArrayRef<int64_t> shape,
                          size_t dim) {
  return shape.empty() || info.constancy[dim] >= shape[dim];
}

/// a / b and a % b (signed or not), elementwise. As in Triton, the
/// dividend of a run is taken to be non-negative: a run from a multiple
/// of d divided by a constant multiple of d' stays, in pieces of
/// gcd(d, d'), constant (the quotient) or contiguous (the remainder).
static AxisInfo divideOrRemainder(const AxisInfo &a, const AxisInfo &b,
                                  ArrayRef<int64_t> shape, bool remainder) {
  int64_t rank = a.contiguity.size();
  AxisInfo info = AxisInfo::unknown(rank);
  for (int64_t d = 0; d < rank; ++d) {
    info.constancy[d] = std::min(a.constancy[d], b.constancy[d]);
    if (b.constant == 1) {
      // x / 1 is x; x % 1 is 0 everywhere.
      if (remainder) {
        info.constancy[d] = shape.empty() ? 1 : shape[d];
        info.divisibility[d] = kMaxDivisibility;
      } else {
        info = a;
      }
      continue;
    }
    int64_t pieces = 1;
    if (isContiguousDim(a, shape, d) && isConstantDim(b, shape, d))
      pieces = std::gcd(a.contiguity[d],
                        std::gcd(a.divisibility[d], b.divisibility[d]));
    if (!remainder) {
      info.constancy[d] = std::max(info.constancy[d], pieces);
      continue;
    }
    info.contiguity[d] = pieces;
    // x = g*k and m = g*p leave remainders that are multiples of g; a
    // piece starts where x's run does or g past such a start.
    info.divisibility[d] =
        std::gcd(pieces > 1 ? a.divisibility[d] : elementDivisibility(a, d),
                 elementDivisibility(b, d));
  }
  // (The lowest value / -1 would overflow here; it is left unknown.)
  if (a.constant && b.constant && *b.constant != 0 && *b.constant != -1) {
    info.constant = remainder ? *a.constant % *b.constant
                              : *a.constant / *b.constant;
    info.divisibility.assign(rank, largestPowerOfTwoDividing(*info.constant));
  }
  return info;
}

/// min or max of a and b: a run only where both are runs; what divides
/// both divides the result.
static AxisInfo minOrMax(const AxisInfo &a, const AxisInfo &b) {
  AxisInfo info = meet(a, b);
  // Equal constants are their own min and max; otherwise the order
  // (signed or not) would be needed.
  if (!(a.constant && b.constant && *a.constant == *b.constant))
    info.constant.reset();
  return info;
}

/// select(cond, a, b): each piece on which `cond` is constant comes
/// whole from one side.
static AxisInfo select(const AxisInfo &cond, const AxisInfo &a,
                       const AxisInfo &b) {
  if (cond.constant)
    return *cond.constant ? a : b;
  AxisInfo info = AxisInfo::unknown(a.contiguity.size());
  for (size_t d = 0; d < info.contiguity.size(); ++d) {
    int64_t pieces = cond.constancy[d];
    int64_t runs = std::min(std::gcd(a.contiguity[d], pieces),
                            std::gcd(b.contiguity[d], pieces));
    info.contiguity[d] = runs;
    info.divisibility[d] = std::gcd(divisibilityAtRuns(a, d, runs),
                                    divisibilityAtRuns(b, d, runs));
    info.constancy[d] = std::min(std::gcd(a.constancy[d], pieces),
                                 std::gcd(b.constancy[d], pieces));
  }
  if (a.constant == b.constant)
    info.constant = a.constant;
  return info;
}

/// `derived` with what a tile.assume states put in its place.
static AxisInfo assumed(AxisInfo derived, tile::AssumeOp assume) {
  auto take = [](SmallVector<int64_t> &into,
                 std::optional<ArrayRef<int64_t>> facts) {
    if (!facts)
      return;
    for (auto [known, fact] : llvm::zip_equal(into, *facts))
      known = largestPowerOfTwoDividing(fact);
  };
  take(derived.divisibility, assume.getDivisibility());
  take(derived.contiguity, assume.getContiguity());
  take(derived.constancy, assume.getConstancy());
  return derived;
}

/// A block argument of a loop: the induction variable, or a value carried
/// from one iteration to the next.
std::optional<AxisInfo> AxisInfoAnalysis::computeLoopArgument(
    BlockArgument arg) {
  auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
  if (!loop)
    return std::nullopt;
  if (arg == loop.getInductionVar()) {
    AxisInfo lower = get(loop.getLowerBound()), step = get(loop.getStep());
    return AxisInfo::splat(
        {}, std::gcd(lower.divisibility[0], step.divisibility[0]),
        std::nullopt);
  }
  // p_i = init + i * step: each p_i has what init and init + step share.
  OpOperand *init = loop.getTiedLoopInit(arg);
  Value yielded = loop.getTiedLoopYieldedValue(arg)->get();
  Operation *advance = yielded.getDefiningOp();
  if (!init || !advance || advance->getNumOperands() != 2 ||
      !loop.isDefinedOutsideOfLoop(advance->getOperand(1)))
    return std::nullopt;
  // The argument, or what a hint in the body says of it (tutorial 08's
  // `tl.multiple_of(a_ptrs, [16, 16])` before `a_ptrs += BLOCK_K`).
  Value advanced = advance->getOperand(0);
  while (auto assume = advanced.getDefiningOp<tile::AssumeOp>())
    advanced = assume.getSrc();
  if (advanced != arg)
    return std::nullopt;
  AxisInfo start = get(init->get());
  AxisInfo step = get(advance->getOperand(1));
  if (isa<tile::AddPtrOp>(advance))
    return meet(start, add(start, step, pointeeBytes(arg.getType())));
  if (isa<arith::AddIOp>(advance))
    return meet(start, add(start, step, 1));
  return std::nullopt;
}

AxisInfo AxisInfoAnalysis::compute(Value value) {
  int64_t rank = rankOf(value);
  ArrayRef<int64_t> shape = shapeOf(value);
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    if (std::optional<AxisInfo> loopInfo = computeLoopArgument(arg))
      return *loopInfo;
    auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
    if (!func || !shape.empty())
      return AxisInfo::unknown(rank);
    auto divisibility = func.getArgAttrOfType<IntegerAttr>(
        arg.getArgNumber(), tile::TileDialect::getDivisibilityAttrName());
    return AxisInfo::splat(shape, divisibility ? divisibility.getInt() : 1,
                           std::nullopt);
  }
  Operation *op = value.getDefiningOp();
  // What a loop hands out is one of the values its argument takes.
  if (auto loop = dyn_cast<scf::ForOp>(op))
    return get(loop.getRegionIterArgs()[cast<OpResult>(value)
                                            .getResultNumber()]);
  return llvm::TypeSwitch<Operation *, AxisInfo>(op)
      .Case([&](arith::ConstantOp constant) {
        APInt integer;
        if (matchPattern(constant.getResult(), m_ConstantInt(&integer))) {
          int64_t v = integer.getSExtValue();
          return AxisInfo::splat(shape, largestPowerOfTwoDividing(v), v);
        }
        return AxisInfo::unknown(rank);
      })
      .Case([&](tile::RangeOp range) {
        AxisInfo info = AxisInfo::unknown(1);
        info.contiguity[0] = shape[0];
        info.divisibility[0] = largestPowerOfTwoDividing(range.getStart());
        return info;
      })
      .Case([&](tile::SplatOp splat) {
        AxisInfo src = get(splat.getSrc());
        return AxisInfo::splat(shape, src.divisibility[0], src.constant);
      })
      .Case([&](tile::ExpandDimsOp expand) {
        AxisInfo info = get(expand.getSrc());
        int64_t axis = expand.getAxis();
        // Along the new axis each element stands alone, so what divides
        // every element: a run's divisibility is its first element's.
        int64_t divisibility = 0;
        for (size_t d = 0; d < info.divisibility.size(); ++d)
          divisibility = std::gcd(divisibility, elementDivisibility(info, d));
        if (info.constant)
          divisibility = largestPowerOfTwoDividing(*info.constant);
        info.contiguity.insert(info.contiguity.begin() + axis, 1);
        info.divisibility.insert(info.divisibility.begin() + axis,
                                 divisibility ? divisibility : 1);
        info.constancy.insert(info.constancy.begin() + axis, 1);
        return info;
      })
      .Case([&](tile::TransOp trans) {
        // Dimension i is the source's order[i], with its facts.
        AxisInfo source = get(trans.getSrc());
        AxisInfo info = source;
        for (auto [i, from] : llvm::enumerate(trans.getOrder())) {
          info.contiguity[i] = source.contiguity[from];
          info.divisibility[i] = source.divisibility[from];
          info.constancy[i] = source.constancy[from];
        }
        return info;
      })
      .Case([&](tile::BroadcastOp broadcast) {
        AxisInfo info = get(broadcast.getSrc());
        ArrayRef<int64_t> srcShape = broadcast.getSrc().getType().getShape();
        for (int64_t d = 0; d < rank; ++d)
          if (srcShape[d] == 1 && shape[d] != 1) {
            info.contiguity[d] = 1;
            info.constancy[d] = shape[d];
          }
        return info;
      })
      .Case([&](tile::AddPtrOp addptr) {
        return add(get(addptr.getPtr()), get(addptr.getOffset()),
                   pointeeBytes(addptr.getPtr().getType()));
      })
      .Case([&](arith::AddIOp addi) {
        return add(get(addi.getLhs()), get(addi.getRhs()), 1);
      })
      .Case([&](arith::SubIOp subi) {
        // A run minus a constant is still a run; nothing more is kept.
        AxisInfo a = get(subi.getLhs()), b = get(subi.getRhs());
        AxisInfo info = AxisInfo::unknown(rank);
        for (int64_t d = 0; d < rank; ++d) {
          info.contiguity[d] = std::min(a.contiguity[d], b.constancy[d]);
          info.divisibility[d] =
              std::gcd(a.divisibility[d], b.divisibility[d]);
          info.constancy[d] = std::min(a.constancy[d], b.constancy[d]);
        }
        if (a.constant && b.constant)
          info.constant = *a.constant - *b.constant;
        return info;
      })
      .Case([&](arith::MulIOp muli) {
        AxisInfo a = get(muli.getLhs()), b = get(muli.getRhs());
        AxisInfo info = AxisInfo::unknown(rank);
        for (int64_t d = 0; d < rank; ++d) {
          // Multiplying by a constant 1 keeps runs; otherwise none remain.
          if (b.constant == 1)
            info.contiguity[d] = a.contiguity[d];
          else if (a.constant == 1)
            info.contiguity[d] = b.contiguity[d];
          // A run times anything but 1 is no run: its divisibility is
          // then what divides every element, not its first one's.
          int64_t left = b.constant == 1 ? a.divisibility[d]
                                         : elementDivisibility(a, d);
          int64_t right = a.constant == 1 ? b.divisibility[d]
                                          : elementDivisibility(b, d);
          info.divisibility[d] = std::min(kMaxDivisibility, left * right);
          info.constancy[d] = std::min(a.constancy[d], b.constancy[d]);
        }
        if (a.constant && b.constant)
          info.constant = *a.constant * *b.constant;
        return info;
      })
      .Case([&](arith::ExtSIOp ext) { return get(ext.getIn()); })
      .Case([&](tile::AssumeOp assume) {
        return assumed(get(assume.getSrc()), assume);
      })
      .Case<arith::RemSIOp, arith::RemUIOp>([&](Operation *rem) {
        return divideOrRemainder(get(rem->getOperand(0)),
                                 get(rem->getOperand(1)), shape, true);
      })
      .Case<arith::DivSIOp, arith::DivUIOp>([&](Operation *div) {
        return divideOrRemainder(get(div->getOperand(0)),
                                 get(div->getOperand(1)), shape, false);
      })
      .Case<arith::MaxSIOp, arith::MaxUIOp, arith::MinSIOp, arith::MinUIOp>(
          [&](Operation *minmax) {
            return minOrMax(get(minmax->getOperand(0)),
                            get(minmax->getOperand(1)));
          })
      .Case([&](arith::SelectOp choice) {
        AxisInfo cond = get(choice.getCondition());
        // A scalar condition is one value over the whole tile.
        if (!isa<RankedTensorType>(choice.getCondition().getType()) &&
            !shape.empty())
          cond = AxisInfo::splat(shape, 1, cond.constant);
        return select(cond, get(choice.getTrueValue()),
                      get(choice.getFalseValue()));
      })
      .Case<arith::ExtUIOp, arith::TruncIOp, arith::IndexCastOp,
            arith::IndexCastUIOp>(
          [&](Operation *cast) { return get(cast->getOperand(0)); })
      .Case([&](ConvertLayoutOp convert) { return get(convert.getSrc()); })
      .Case([&](arith::CmpIOp cmp) {
        // A comparison of a run with a constant is constant over aligned
        // pieces of the run: as long as the constant's divisibility allows.
        AxisInfo a = get(cmp.getLhs()), b = get(cmp.getRhs());
        AxisInfo info = AxisInfo::unknown(rank);
        for (int64_t d = 0; d < rank; ++d) {
          int64_t fromRun = std::gcd(std::min(a.contiguity[d], b.constancy[d]),
                                     std::gcd(a.divisibility[d],
                                              b.divisibility[d]));
          info.constancy[d] = std::max(
              std::min(a.constancy[d], b.constancy[d]), fromRun);
        }
        return info;
      })
      .Case<arith::AndIOp, arith::OrIOp, arith::XOrIOp>([&](Operation *op) {
        // Where both are constant, so is any bitwise combination.
        AxisInfo a = get(op->getOperand(0)), b = get(op->getOperand(1));
        AxisInfo info = AxisInfo::unknown(rank);
        for (int64_t d = 0; d < rank; ++d)
          info.constancy[d] = std::gcd(a.constancy[d], b.constancy[d]);
        return info;
      })
      .Default([&](Operation *) { return AxisInfo::unknown(rank); });
}

int64_t kiln::tilegpu::getAccessVectorWidth(AxisInfoAnalysis &axisInfo,
                                            Value ptr, Value mask,
                                            int64_t dim) {
  auto type = cast<RankedTensorType>(ptr.getType());
  AxisInfo info = axisInfo.get(ptr);
  Type elementType =
      cast<tile::PointerType>(type.getElementType()).getPointeeType();
  int64_t bytes = isa<tile::PointerType, IndexType>(elementType)
                      ? 8
                      : std::max<int64_t>(
                            1, elementType.getIntOrFloatBitWidth() / 8);
  int64_t vector = std::min(info.contiguity[dim], kMaxAccessBytes / bytes);
  // The address of a vector must be aligned to the vector's size.
  while (vector > 1 && info.divisibility[dim] % (vector * bytes) != 0)
    vector /= 2;
  if (mask) {
    int64_t constancy = axisInfo.get(mask).constancy[dim];
    while (vector > 1 && constancy % vector != 0)
      vector /= 2;
  }
  return std::max<int64_t>(1, std::min(vector, type.getShape()[dim]));
}
