//===- MmaLayout.cpp - Tiles as the tensor cores hold them ----------------===//

#include "kiln/Layout/MmaLayout.h"

#include <cassert>

using namespace kiln::layout;

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// A register's part plus a thread's part, wrapped into `shape` (the
/// copies past the end are replicas).
static Shape wrapSum(Shape registerPart, const Shape &threadPart,
                     const Shape &shape) {
  for (size_t d = 0; d < shape.size(); ++d)
    registerPart[d] = (registerPart[d] + threadPart[d]) % shape[d];
  return registerPart;
}

MmaLayout::MmaLayout(Shape warpsPerCTA) : warpsPerCTA(std::move(warpsPerCTA)) {
  assert(this->warpsPerCTA.size() == 2 && this->warpsPerCTA[0] > 0 &&
         this->warpsPerCTA[1] > 0 && "invalid mma layout");
}

int64_t MmaLayout::getNumWarps() const {
  return warpsPerCTA[0] * warpsPerCTA[1];
}

Shape MmaLayout::getRepeats(const Shape &shape) const {
  return {ceilDiv(shape[0], kInstrM * warpsPerCTA[0]),
          ceilDiv(shape[1], kInstrN * warpsPerCTA[1])};
}

Shape MmaLayout::getWarpIndex(int64_t warp) const {
  return {warp % warpsPerCTA[0], warp / warpsPerCTA[0] % warpsPerCTA[1]};
}

int64_t MmaLayout::getNumRegisters(const Shape &shape) const {
  Shape repeats = getRepeats(shape);
  return repeats[0] * repeats[1] * kAccRegisters;
}

Shape MmaLayout::getRegisterOffsets(const Shape &shape, int64_t reg) const {
  Shape repeats = getRepeats(shape);
  int64_t c = reg % kAccRegisters, block = reg / kAccRegisters;
  int64_t row = block / repeats[1], column = block % repeats[1];
  return {row * kInstrM * warpsPerCTA[0] + 8 * (c / 2),
          column * kInstrN * warpsPerCTA[1] + c % 2};
}

Shape MmaLayout::getThreadOffsets(int64_t lane, int64_t warp) const {
  Shape index = getWarpIndex(warp);
  return {index[0] * kInstrM + lane / 4, index[1] * kInstrN + 2 * (lane % 4)};
}

Shape MmaLayout::getCoordinates(const Shape &shape,
                                const Location &location) const {
  return wrapSum(getRegisterOffsets(shape, location.reg),
                 getThreadOffsets(location.lane, location.warp), shape);
}

DotOperandLayout::DotOperandLayout(int64_t opIndex, MmaLayout parent,
                                   int64_t kWidth)
    : opIndex(opIndex), parent(std::move(parent)), kWidth(kWidth) {
  assert((opIndex == 0 || opIndex == 1) &&
         (kWidth == 1 || kWidth == 2 || kWidth == 4) &&
         "invalid dot operand layout");
}

int64_t DotOperandLayout::getFragmentRegisters() const {
  // A is 16 x K, B is K x 8, spread over 32 lanes.
  return (opIndex == 0 ? 16 : 8) * getFragmentK() / 32;
}

int64_t DotOperandLayout::getInstrsPerFragment(int64_t perRegister) const {
  assert((kWidth == perRegister || kWidth == 2 * perRegister) &&
         "a fragment is one or two instructions' operands");
  return kWidth / perRegister;
}

Shape DotOperandLayout::getInstrRegisters(int64_t perRegister,
                                          int64_t instr) const {
  int64_t instrs = getInstrsPerFragment(perRegister);
  assert(instr >= 0 && instr < instrs && "no such instruction");
  // The instruction's halves in its order (A: K half outer, M half inner;
  // B: K half), each `perRegister` elements.
  int64_t halves = opIndex == 0 ? 4 : 2;
  Shape registers;
  for (int64_t half = 0; half < halves; ++half) {
    int64_t kHalf = opIndex == 0 ? half / 2 : half;
    int64_t mHalf = opIndex == 0 ? half % 2 : 0;
    // Two instructions: instruction s is the fragment's K half s, and the
    // instruction's K half h is chunk h of each lane's kWidth elements.
    int64_t fragmentHalf = instrs == 1    ? half
                           : opIndex == 0 ? 2 * instr + mHalf
                                          : instr;
    int64_t chunk = instrs == 1 ? 0 : kHalf;
    for (int64_t e = 0; e < perRegister; ++e)
      registers.push_back(fragmentHalf * kWidth + chunk * perRegister + e);
  }
  return registers;
}

Shape DotOperandLayout::getRepeats(const Shape &shape) const {
  const Shape &warps = parent.getWarpsPerCTA();
  if (opIndex == 0)
    return {ceilDiv(shape[0], MmaLayout::kInstrM * warps[0]),
            ceilDiv(shape[1], getFragmentK())};
  return {ceilDiv(shape[0], getFragmentK()),
          ceilDiv(shape[1], MmaLayout::kInstrN * warps[1])};
}

int64_t DotOperandLayout::getNumRegisters(const Shape &shape) const {
  Shape repeats = getRepeats(shape);
  return repeats[0] * repeats[1] * getFragmentRegisters();
}

Shape DotOperandLayout::getRegisterOffsets(const Shape &shape,
                                           int64_t reg) const {
  Shape repeats = getRepeats(shape);
  const Shape &warps = parent.getWarpsPerCTA();
  int64_t i = reg % getFragmentRegisters(),
          block = reg / getFragmentRegisters();
  int64_t e = i % kWidth, half = i / kWidth;
  int64_t kHalfOffset = 4 * kWidth;
  if (opIndex == 0) {
    // Blocks: M outer, K inner; within one, (K half, M half, e).
    int64_t mBlock = block / repeats[1], kStep = block % repeats[1];
    return {mBlock * MmaLayout::kInstrM * warps[0] + 8 * (half % 2),
            kStep * getFragmentK() + kHalfOffset * (half / 2) + e};
  }
  // Blocks: N outer, K inner; within one, (K half, e).
  int64_t nBlock = block / repeats[0], kStep = block % repeats[0];
  return {kStep * getFragmentK() + kHalfOffset * half + e,
          nBlock * MmaLayout::kInstrN * warps[1]};
}

Shape DotOperandLayout::getThreadOffsets(int64_t lane, int64_t warp) const {
  Shape index = parent.getWarpIndex(warp);
  if (opIndex == 0)
    return {index[0] * MmaLayout::kInstrM + lane / 4, kWidth * (lane % 4)};
  return {kWidth * (lane % 4), index[1] * MmaLayout::kInstrN + lane / 4};
}

Shape DotOperandLayout::getCoordinates(const Shape &shape,
                                       const Location &location) const {
  return wrapSum(getRegisterOffsets(shape, location.reg),
                 getThreadOffsets(location.lane, location.warp), shape);
}
