//===- SharedTile.cpp - A tile staged in swizzled shared memory -----------===//

#include "SharedTile.h"
#include "ThreadValues.h"

#include "kiln/Dialect/TileGPU/IR/TileGPUDialect.h"
#include "kiln/Layout/MmaLayout.h"
#include "kiln/Layout/RegisterMap.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

#include <utility>

using namespace mlir;
using namespace kiln;
using namespace kiln::tiletogpu;

Value SharedTile::byteOffset(OpBuilder &b, Location loc, Value row,
                             Value column) const {
  if (transposed)
    std::swap(row, column);
  Type type = row.getType();
  auto c = [&](int64_t v) { return constantInt(b, loc, type, v); };
  int64_t rowBytes = layout.getColumns() * layout.getElementBytes();
  int64_t slabBytes =
      layout.getSwizzleBytes() == 0 ? rowBytes : layout.getSwizzleBytes();
  Value byte = arith::MulIOp::create(b, loc, column,
                                     c(layout.getElementBytes()));
  Value offset = arith::MulIOp::create(b, loc, row, c(slabBytes));
  if (slabBytes == rowBytes) {
    offset = arith::AddIOp::create(b, loc, offset, byte);
  } else {
    Value slab = arith::DivUIOp::create(b, loc, byte, c(slabBytes));
    Value inSlab = arith::RemUIOp::create(b, loc, byte, c(slabBytes));
    offset = arith::AddIOp::create(
        b, loc,
        arith::AddIOp::create(
            b, loc,
            arith::MulIOp::create(b, loc, slab,
                                  c(layout.getRows() * slabBytes)),
            offset),
        inSlab);
  }
  if (layout.getSwizzleBytes() == 0)
    return offset;
  // offset ^ (((offset >> 7) & (swizzle / 16 - 1)) << 4)
  Value bits = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, offset, c(7)),
      c(layout.getSwizzleBytes() / 16 - 1));
  return arith::XOrIOp::create(
      b, loc, offset, arith::ShLIOp::create(b, loc, bits, c(4)));
}

Value SharedTile::byteOffset(OpBuilder &b, Location loc,
                             ArrayRef<Value> coordinates) const {
  if (coordinates.size() == 1)
    return byteOffset(
        b, loc, constantInt(b, loc, coordinates.front().getType(), 0),
        coordinates.front());
  return byteOffset(b, loc, coordinates[0], coordinates[1]);
}

int64_t SharedTile::byteOffset(int64_t row, int64_t column) const {
  return transposed ? layout.getByteOffset(column, row)
                    : layout.getByteOffset(row, column);
}

Value SharedTile::address(OpBuilder &b, Location loc, Value offset) const {
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                             ValueRange{offset});
}

/// A `rows` x `columns` tile of `element`s, swizzled for its rows.
static layout::SharedLayout getStagingLayout(int64_t rows, int64_t columns,
                                             Type element) {
  int64_t elementBytes = getStorageBytes(element);
  return layout::SharedLayout(
      rows, columns, elementBytes,
      layout::SharedLayout::chooseSwizzle(columns * elementBytes));
}

layout::SharedLayout kiln::tiletogpu::getStagingLayout(RankedTensorType type) {
  return ::getStagingLayout(type.getDimSize(0), type.getDimSize(1),
                            type.getElementType());
}

int64_t kiln::tiletogpu::getSlotBytes(MemRefType buffer) {
  return buffer.getNumElements() / buffer.getDimSize(0) *
         getStorageBytes(buffer.getElementType());
}

SharedTile kiln::tiletogpu::getBufferSlot(OpBuilder &b, Location loc,
                                          Value base, MemRefType buffer,
                                          Value slot) {
  Value offset = arith::MulIOp::create(
      b, loc, slot, constantInt(b, loc, b.getI32Type(), getSlotBytes(buffer)));
  Value address = LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(),
                                      base, ValueRange{offset});
  bool transposed = tilegpu::hasTransposedSlots(buffer);
  // A 1-D tile is a slot's one row.
  int64_t rows = buffer.getRank() == 2 ? 1 : buffer.getDimSize(1),
          columns = buffer.getShape().back();
  if (transposed)
    std::swap(rows, columns);
  return SharedTile{
      address, ::getStagingLayout(rows, columns, buffer.getElementType()),
      transposed};
}

/// Registers of `type` a thread moves as one shared-memory vector: its
/// runs of consecutive elements along a row of `tile`, at most 16 bytes
/// (a swizzle permutes whole 16-byte chunks, so runs stay contiguous).
static int64_t getVectorWidth(const SharedTile &tile, RankedTensorType type) {
  if (tile.transposed)
    return 1;
  return layout::getContiguousRegisterRun(
      *getLayout(type), getShape(type),
      16 / getStorageBytes(type.getElementType()));
}

namespace {
/// The addresses of accesses to one tile whose byte offsets are known in
/// every thread at compile time. An access whose offset is an earlier
/// one's plus one constant in every thread is addressed as that access's
/// address plus the constant, which folds into the instruction: only the
/// distinct addresses take registers. Otherwise LLVM hoists every
/// access's address out of a loop and keeps them all live through it.
class SharedAddresses {
public:
  /// The address of an access at `offsets` (one per thread) from an
  /// earlier one's, or null.
  Value reuse(OpBuilder &b, Location loc, ArrayRef<int64_t> offsets) const {
    for (const auto &[earlier, address] : distinct) {
      int64_t delta = offsets.front() - earlier.front();
      if (llvm::all_of(llvm::zip(offsets, earlier), [&](auto pair) {
            return std::get<0>(pair) - std::get<1>(pair) == delta;
          }))
        return LLVM::GEPOp::create(
            b, loc, address.getType(), b.getI8Type(), address,
            ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(delta)});
    }
    return nullptr;
  }
  /// Records `address`, computed for an access at `offsets`.
  void add(SmallVector<int64_t> offsets, Value address) {
    distinct.emplace_back(std::move(offsets), address);
  }

private:
  SmallVector<std::pair<SmallVector<int64_t>, Value>> distinct;
};
} // namespace

SmallVector<Value> kiln::tiletogpu::getRunAddresses(OpBuilder &b, Location loc,
                                                    const SharedTile &tile,
                                                    RankedTensorType type,
                                                    Value offsets,
                                                    int64_t width) {
  std::shared_ptr<const layout::DistributedLayout> layout = getLayout(type);
  layout::Shape shape = getShape(type);
  int64_t lanes = layout->getThreadsPerWarp();
  int64_t threads = lanes * layout->getNumWarps();
  auto offsetsOf = [&](int64_t reg) {
    SmallVector<int64_t> result;
    for (int64_t thread = 0; thread < threads; ++thread) {
      layout::Shape at = layout->getCoordinates(
          shape, layout::Location{reg, thread % lanes, thread / lanes});
      // As byteOffset reads coordinates: (column) or (row, column, ...).
      result.push_back(at.size() == 1 ? tile.byteOffset(0, at[0])
                                      : tile.byteOffset(at[0], at[1]));
    }
    return result;
  };
  SmallVector<Value> addresses;
  SharedAddresses shared;
  for (int64_t reg = 0, e = getNumRegisters(type); reg < e; reg += width) {
    SmallVector<int64_t> run = offsetsOf(reg);
    Value address = shared.reuse(b, loc, run);
    if (!address) {
      address = tile.address(b, loc, extractRegister(b, loc, offsets, reg));
      shared.add(std::move(run), address);
    }
    addresses.push_back(address);
  }
  return addresses;
}

/// The tile's registers in `type`'s layout, a run of them per load (from
/// the run addresses getRunAddresses shares).
static FailureOr<Value> loadElements(OpBuilder &b, Location loc,
                                     const SharedTile &tile,
                                     RankedTensorType type) {
  FailureOr<TileCoordinates> to = emitTileCoordinates(b, loc, type);
  if (failed(to))
    return failure();
  Value offsets =
      tile.byteOffset(b, loc, to->coordinates);
  // A pointer tile's registers are i64s.
  Type element = getRegisterType(type.getElementType());
  Type storage = getStorageType(element);
  int64_t width = getVectorWidth(tile, type);
  Type vector = width == 1 ? storage : VectorType::get({width}, storage);
  SmallVector<Value> addresses =
      getRunAddresses(b, loc, tile, type, offsets, width);
  SmallVector<Value> registers;
  for (int64_t reg = 0, e = getNumRegisters(type); reg < e; reg += width) {
    Value loaded =
        LLVM::LoadOp::create(b, loc, vector, addresses[reg / width],
                             /*alignment=*/width * getStorageBytes(element));
    for (int64_t i = 0; i < width; ++i)
      registers.push_back(fromStorage(
          b, loc, width == 1 ? loaded : extractRegister(b, loc, loaded, i),
          element));
  }
  return fromRegisters(b, loc,
                       VectorType::get({getNumRegisters(type)}, element),
                       registers);
}

namespace {
/// An i32 value being emitted, with the arithmetic an address formula
/// uses, so that one formula both emits IR and runs at compile time (on
/// int64_t) for every thread.
struct EmittedInt {
  OpBuilder *b;
  Location loc;
  Value value;

  EmittedInt constant(int64_t v) const {
    return {b, loc, constantInt(*b, loc, value.getType(), v)};
  }
  EmittedInt operator+(EmittedInt other) const {
    return {b, loc, arith::AddIOp::create(*b, loc, value, other.value)};
  }
  EmittedInt operator+(int64_t v) const { return *this + constant(v); }
  EmittedInt operator*(int64_t v) const {
    return {b, loc, arith::MulIOp::create(*b, loc, value, constant(v).value)};
  }
  EmittedInt operator/(int64_t v) const {
    return {b, loc, arith::DivUIOp::create(*b, loc, value, constant(v).value)};
  }
  EmittedInt operator%(int64_t v) const {
    return {b, loc, arith::RemUIOp::create(*b, loc, value, constant(v).value)};
  }
};

} // namespace

LdmatrixLoads LdmatrixLoads::get(int64_t opIndex, int64_t kWidth,
                                 ArrayRef<int64_t> warps,
                                 ArrayRef<int64_t> shape, bool transposed) {
  layout::DotOperandLayout fragment(
      opIndex, layout::MmaLayout(layout::Shape(warps)), kWidth);
  layout::Shape repeats = fragment.getRepeats(layout::Shape(shape));
  bool isA = opIndex == 0;
  return {isA,
          transposed,
          kWidth / 2,
          warps[0],
          warps[1],
          isA ? repeats[0] : repeats[1],
          isA ? repeats[1] : repeats[0],
          isA || repeats[0] % 2 != 0 ? 1 : 2,
          isA ? 16 * warps[0] : 8 * warps[1],
          isA ? shape[0] : shape[1],
          fragment.getFragmentRegisters()};
}

int64_t LdmatrixLoads::getRegister(int64_t block, int64_t k, int64_t word,
                                   int64_t element) const {
  int64_t step = isA ? k : k + word / 2;
  int64_t inStep = isA ? word : word % 2;
  return (block * kSteps + step) * fragmentRegisters + 2 * perWord * inStep +
         element;
}

/// A dot operand's registers read with ldmatrix.x4 (see LdmatrixLoads),
/// the loads' addresses shared where they differ by constants.
static FailureOr<Value> loadWithLdmatrix(OpBuilder &b, Location loc,
                                         const SharedTile &tile,
                                         RankedTensorType type,
                                         tilegpu::DotOperandEncodingAttr
                                             operand) {
  Type i32 = b.getI32Type();
  ArrayRef<int64_t> warps = operand.getParent().getWarpsPerCTA();
  int64_t kWidth = operand.getKWidth();
  LdmatrixLoads loads = LdmatrixLoads::get(operand.getOpIdx(), kWidth, warps,
                                           getShape(type), tile.transposed);
  auto [lane, warp] = getLaneAndWarp(b, loc);
  EmittedInt laneValue{&b, loc, lane}, warpValue{&b, loc, warp};
  int64_t threads = kWarpSize * warps[0] * warps[1];
  int64_t words = loads.getWords();
  Type wordsType = LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(words, i32));
  Type element = type.getElementType();
  auto word = VectorType::get({kWidth}, getStorageType(element));
  SmallVector<Value> registers(getNumRegisters(type));
  SharedAddresses shared;
  for (int64_t block = 0; block < loads.blocks; ++block) {
    for (int64_t k = 0; k < loads.kSteps; k += loads.kPerLoad) {
      SmallVector<int64_t> offsets;
      for (int64_t thread = 0; thread < threads; ++thread) {
        auto [row, column] = loads.getCoordinates<int64_t>(
            thread % kWarpSize, thread / kWarpSize, block, k);
        offsets.push_back(tile.byteOffset(row, column));
      }
      Value address = shared.reuse(b, loc, offsets);
      if (!address) {
        auto [row, column] =
            loads.getCoordinates(laneValue, warpValue, block, k);
        address = tile.address(
            b, loc, tile.byteOffset(b, loc, row.value, column.value));
        shared.add(std::move(offsets), address);
      }
      Value loaded = NVVM::LdMatrixOp::create(
          b, loc, wordsType, address, words,
          loads.isA || tile.transposed ? NVVM::MMALayout::row
                                       : NVVM::MMALayout::col,
          NVVM::LdStMatrixShapeAttr::get(b.getContext(), 8, 8),
          NVVM::LdStMatrixEltType::B16);
      for (int64_t w = 0; w < words; ++w) {
        Value elements = LLVM::BitcastOp::create(
            b, loc, word, LLVM::ExtractValueOp::create(b, loc, loaded, w));
        for (int64_t e = 0; e < kWidth; ++e)
          registers[loads.getRegister(block, k, w, e)] = fromStorage(
              b, loc, extractRegister(b, loc, elements, e), element);
      }
    }
  }
  return fromRegisters(b, loc,
                       VectorType::get({getNumRegisters(type)},
                                       type.getElementType()),
                       registers);
}

FailureOr<Value> kiln::tiletogpu::loadSharedTile(OpBuilder &b, Location loc,
                                                 const SharedTile &tile,
                                                 RankedTensorType type) {
  auto operand =
      dyn_cast<tilegpu::DotOperandEncodingAttr>(type.getEncoding());
  // ldmatrix reads A as staged and B transposed, or as staged from a
  // transposed slot (a K-major B); 8-bit fragments only where K runs along
  // the slot's rows.
  if (operand && !(operand.getOpIdx() == 0 && tile.transposed)) {
    int64_t bytes = getStorageBytes(type.getElementType());
    bool kAlongRows = operand.getOpIdx() == 0 || tile.transposed;
    if ((bytes == 2 && operand.getKWidth() == 2) ||
        (bytes == 1 && operand.getKWidth() == 4 && kAlongRows))
      return loadWithLdmatrix(b, loc, tile, type, operand);
  }
  return loadElements(b, loc, tile, type);
}

LogicalResult kiln::tiletogpu::storeSharedTile(OpBuilder &b, Location loc,
                                               const SharedTile &tile,
                                               Value registers,
                                               RankedTensorType type) {
  FailureOr<TileCoordinates> from = emitTileCoordinates(b, loc, type);
  if (failed(from))
    return failure();
  Value offsets =
      tile.byteOffset(b, loc, from->coordinates);
  Type storage = getStorageType(type.getElementType());
  int64_t width = getVectorWidth(tile, type);
  SmallVector<Value> addresses =
      getRunAddresses(b, loc, tile, type, offsets, width);
  for (int64_t reg = 0, e = getNumRegisters(type); reg < e; reg += width) {
    SmallVector<Value> values;
    for (int64_t i = 0; i < width; ++i)
      values.push_back(
          toStorage(b, loc, extractRegister(b, loc, registers, reg + i)));
    Value value = width == 1 ? values.front()
                             : fromRegisters(b, loc,
                                             VectorType::get({width}, storage),
                                             values);
    LLVM::StoreOp::create(b, loc, value, addresses[reg / width],
                          /*alignment=*/width *
                              getStorageBytes(type.getElementType()));
  }
  return success();
}

FailureOr<SharedTile> kiln::tiletogpu::stageTile(OpBuilder &b, Operation *op,
                                                 Value registers,
                                                 RankedTensorType type,
                                                 int64_t alignment) {
  layout::SharedLayout layout = getStagingLayout(type);
  SharedTile tile{
      allocateSharedMemory(b, op, {layout.getSizeInBytes()}, alignment)
          .front(),
      layout};
  gpu::BarrierOp::create(b, op->getLoc());
  if (failed(storeSharedTile(b, op->getLoc(), tile, registers, type)))
    return failure();
  return tile;
}
