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

/// What holds of both `a` and `b`.
static AxisInfo meet(const AxisInfo &a, const AxisInfo &b) {
  AxisInfo info = AxisInfo::unknown(a.contiguity.size());
  for (size_t d = 0; d < info.contiguity.size(); ++d) {
    info.contiguity[d] = std::min(a.contiguity[d], b.contiguity[d]);
    info.divisibility[d] = std::gcd(a.divisibility[d], b.divisibility[d]);
    info.constancy[d] = std::min(a.constancy[d], b.constancy[d]);
  }
  if (a.constant == b.constant)
    info.constant = a.constant;
  return info;
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
      advance->getOperand(0) != arg ||
      !loop.isDefinedOutsideOfLoop(advance->getOperand(1)))
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
      .Case([&](arith::AndIOp andi) {
        AxisInfo a = get(andi.getLhs()), b = get(andi.getRhs());
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
