//===- ThreadValues.cpp - A thread's share of a tile, as values -----------===//

#include "ThreadValues.h"

#include "kiln/Conversion/Passes.h"

#include "kiln/Dialect/Tile/IR/TileDialect.h"
#include "kiln/Dialect/TileGPU/IR/TileGPUDialect.h"
#include "kiln/Layout/MmaLayout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tiletogpu;

std::shared_ptr<const layout::DistributedLayout>
kiln::tiletogpu::getLayout(RankedTensorType type) {
  return cast<tilegpu::DistributedEncodingAttr>(type.getEncoding())
      .getLayout();
}

layout::Shape kiln::tiletogpu::getShape(RankedTensorType type) {
  return layout::Shape(type.getShape().begin(), type.getShape().end());
}

int64_t kiln::tiletogpu::getNumRegisters(RankedTensorType type) {
  return getLayout(type)->getNumRegisters(getShape(type));
}

Type kiln::tiletogpu::getRegisterType(Type elementType) {
  if (isa<tile::PointerType>(elementType))
    return IntegerType::get(elementType.getContext(), 64);
  return elementType;
}

Value kiln::tiletogpu::constantInt(OpBuilder &b, Location loc, Type type,
                                   int64_t value) {
  if (auto vector = dyn_cast<VectorType>(type))
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(
                    vector, b.getIntegerAttr(vector.getElementType(), value)));
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, value));
}

Value kiln::tiletogpu::isThreadZero(OpBuilder &b, Location loc) {
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                               constantInt(b, loc, b.getIndexType(), 0));
}

int64_t kiln::tiletogpu::getLayoutThreads(Operation *op) {
  auto module = op->getParentOfType<ModuleOp>();
  return module->getAttrOfType<IntegerAttr>("tilegpu.num_warps").getInt() * 32;
}

std::pair<Value, Value> kiln::tiletogpu::getLaneAndWarp(OpBuilder &b,
                                                        Location loc) {
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  tid = arith::IndexCastUIOp::create(b, loc, b.getI32Type(), tid);
  Value warpSize = constantInt(b, loc, b.getI32Type(), kWarpSize);
  return {arith::RemUIOp::create(b, loc, tid, warpSize),
          arith::DivUIOp::create(b, loc, tid, warpSize)};
}

/// (index / stride) % size, skipping what is trivial.
static Value digit(OpBuilder &b, Location loc, Value index, int64_t stride,
                   int64_t size) {
  if (size == 1)
    return constantInt(b, loc, b.getI32Type(), 0);
  if (stride != 1)
    index = arith::DivUIOp::create(b, loc, index,
                                   constantInt(b, loc, b.getI32Type(), stride));
  return arith::RemUIOp::create(b, loc, index,
                                constantInt(b, loc, b.getI32Type(), size));
}

/// Adds to `result` the coordinate along one dimension of size `size` of
/// every register: the thread's offset `thread` (at most `largestThread`)
/// plus each register's constant offset, wrapped where the layout's
/// footprint overhangs the tile (the copies past the end are replicas).
static void addCoordinate(OpBuilder &b, Location loc, Value thread,
                          ArrayRef<int32_t> registerOffsets,
                          int64_t largestThread, int64_t size,
                          TileCoordinates &result) {
  auto vectorType = VectorType::get(
      {static_cast<int64_t>(registerOffsets.size())}, b.getI32Type());
  Value coordinate = arith::AddIOp::create(
      b, loc, vector::BroadcastOp::create(b, loc, vectorType, thread),
      arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(vectorType, registerOffsets)));
  int64_t largest = *llvm::max_element(registerOffsets);
  if (largest + largestThread >= size) {
    Value bound = constantInt(b, loc, vectorType, size);
    Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                         coordinate, bound);
    result.canonical =
        result.canonical
            ? arith::AndIOp::create(b, loc, result.canonical, inside)
            : inside;
    coordinate = arith::RemUIOp::create(b, loc, coordinate, bound);
  }
  result.coordinates.push_back(coordinate);
}

/// Register `reg`'s constant offsets along dimension `d`, for every
/// register.
static SmallVector<int32_t>
getRegisterOffsets(int64_t registers,
                   llvm::function_ref<layout::Shape(int64_t)> offsets,
                   int64_t d) {
  SmallVector<int32_t> result;
  for (int64_t reg = 0; reg < registers; ++reg)
    result.push_back(offsets(reg)[d]);
  return result;
}

static TileCoordinates
emitBlockedCoordinates(OpBuilder &b, Location loc,
                       const layout::BlockedLayout &layout,
                       const layout::Shape &shape) {
  auto [lane, warp] = getLaneAndWarp(b, loc);
  int64_t registers = layout.getNumRegisters(shape);
  TileCoordinates result;
  for (int64_t d = 0; d < layout.getRank(); ++d) {
    int64_t lanes = layout.getThreadsPerWarpShape()[d];
    int64_t warps = layout.getWarpsPerCTA()[d];
    int64_t perThread = layout.getSizePerThread()[d];
    // The thread's offset: (warp index * lanes + lane index) * perThread.
    Value laneIndex = digit(b, loc, lane, layout.getLaneStride(d), lanes);
    Value warpIndex = digit(b, loc, warp, layout.getWarpStride(d), warps);
    Value thread = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, warpIndex,
                              constantInt(b, loc, b.getI32Type(), lanes)),
        laneIndex);
    thread = arith::MulIOp::create(
        b, loc, thread, constantInt(b, loc, b.getI32Type(), perThread));
    addCoordinate(
        b, loc, thread,
        getRegisterOffsets(
            registers,
            [&](int64_t reg) { return layout.getRegisterOffsets(shape, reg); },
            d),
        (warps * lanes - 1) * perThread, shape[d], result);
  }
  return result;
}

/// `scale` * ((value / stride) % size) + `plus`, as i32.
static Value scaledDigit(OpBuilder &b, Location loc, Value value,
                         int64_t stride, int64_t size, int64_t scale) {
  return arith::MulIOp::create(b, loc, digit(b, loc, value, stride, size),
                               constantInt(b, loc, b.getI32Type(), scale));
}

/// The mma accumulator and its operands: within a warp, one coordinate is
/// lane / 4 (the lane's group) and the other kWidth * (lane % 4) (its
/// place in the group); warps add whole instruction blocks.
static TileCoordinates emitMmaCoordinates(OpBuilder &b, Location loc,
                                          Attribute encoding,
                                          const layout::Shape &shape) {
  auto [lane, warp] = getLaneAndWarp(b, loc);
  auto dotOperand = dyn_cast<tilegpu::DotOperandEncodingAttr>(encoding);
  auto mma = dotOperand ? dotOperand.getParent()
                        : cast<tilegpu::MmaEncodingAttr>(encoding);
  ArrayRef<int64_t> warps = mma.getWarpsPerCTA();
  std::shared_ptr<const layout::DistributedLayout> layout =
      cast<tilegpu::DistributedEncodingAttr>(encoding).getLayout();
  int64_t registers = layout->getNumRegisters(shape);
  std::function<layout::Shape(int64_t)> offsets;
  if (dotOperand)
    offsets = [&](int64_t reg) {
      return static_cast<const layout::DotOperandLayout &>(*layout)
          .getRegisterOffsets(shape, reg);
    };
  else
    offsets = [&](int64_t reg) {
      return static_cast<const layout::MmaLayout &>(*layout)
          .getRegisterOffsets(shape, reg);
    };
  // Which dimension takes the lane's group, and what each warp adds to
  // which dimension (A and B ignore the warps they are replicated over).
  int64_t groupDim = dotOperand && dotOperand.getOpIdx() == 1 ? 1 : 0;
  int64_t kWidth = dotOperand ? dotOperand.getKWidth() : 2;
  Value group = scaledDigit(b, loc, lane, 4, 8, 1);
  Value inGroup = scaledDigit(b, loc, lane, 1, 4, kWidth);
  Value warpRow = scaledDigit(b, loc, warp, 1, warps[0], 16);
  Value warpColumn = scaledDigit(b, loc, warp, warps[0], warps[1], 8);
  bool rowWarps = !dotOperand || dotOperand.getOpIdx() == 0;
  bool columnWarps = !dotOperand || dotOperand.getOpIdx() == 1;
  TileCoordinates result;
  for (int64_t d = 0; d < 2; ++d) {
    Value thread = d == groupDim ? group : inGroup;
    int64_t largest = d == groupDim ? 7 : 3 * kWidth;
    if (d == 0 && rowWarps) {
      thread = arith::AddIOp::create(b, loc, thread, warpRow);
      largest += 16 * (warps[0] - 1);
    }
    if (d == 1 && columnWarps) {
      thread = arith::AddIOp::create(b, loc, thread, warpColumn);
      largest += 8 * (warps[1] - 1);
    }
    addCoordinate(b, loc, thread, getRegisterOffsets(registers, offsets, d),
                  largest, shape[d], result);
  }
  return result;
}

/// The parent's coordinates in the tile with the sliced dimension of size
/// one, without that dimension, at the registers the slice keeps. A kept
/// register is canonical where any of the parent registers it stands for
/// was.
static FailureOr<TileCoordinates>
emitSliceCoordinates(OpBuilder &b, Location loc,
                     tilegpu::SliceEncodingAttr slice, RankedTensorType type) {
  auto layout =
      std::static_pointer_cast<const layout::SliceLayout>(slice.getLayout());
  layout::Shape shape = getShape(type);
  auto parentType = RankedTensorType::get(
      layout->getParentShape(shape), type.getElementType(), slice.getParent());
  FailureOr<TileCoordinates> parent = emitTileCoordinates(b, loc, parentType);
  if (failed(parent))
    return failure();
  const std::vector<std::vector<int64_t>> &groups =
      layout->getParentRegisters(shape);
  auto select = [&](Value registers, size_t member) {
    SmallVector<int64_t> picked;
    for (const std::vector<int64_t> &group : groups)
      picked.push_back(group[std::min(member, group.size() - 1)]);
    return permuteRegisters(b, loc, registers, picked);
  };
  TileCoordinates result;
  for (auto [d, coordinate] : llvm::enumerate(parent->coordinates))
    if (static_cast<int64_t>(d) != slice.getDim())
      result.coordinates.push_back(select(coordinate, 0));
  if (parent->canonical) {
    size_t members = 0;
    for (const std::vector<int64_t> &group : groups)
      members = std::max(members, group.size());
    for (size_t member = 0; member < members; ++member) {
      Value canonical = select(parent->canonical, member);
      result.canonical =
          result.canonical
              ? arith::OrIOp::create(b, loc, result.canonical, canonical)
              : canonical;
    }
  }
  return result;
}

FailureOr<TileCoordinates>
kiln::tiletogpu::emitTileCoordinates(OpBuilder &b, Location loc,
                                     RankedTensorType type) {
  Attribute encoding = type.getEncoding();
  if (auto slice = dyn_cast<tilegpu::SliceEncodingAttr>(encoding))
    return emitSliceCoordinates(b, loc, slice, type);
  if (auto blocked = dyn_cast<tilegpu::BlockedEncodingAttr>(encoding))
    return emitBlockedCoordinates(
        b, loc,
        static_cast<const layout::BlockedLayout &>(*blocked.getLayout()),
        getShape(type));
  if (isa<tilegpu::MmaEncodingAttr, tilegpu::DotOperandEncodingAttr>(encoding))
    return emitMmaCoordinates(b, loc, encoding, getShape(type));
  return emitError(loc) << "target nvptx: no lowering for tiles laid out as "
                        << encoding;
}

Value kiln::tiletogpu::extractRegister(OpBuilder &b, Location loc,
                                       Value registers, int64_t index) {
  return vector::ExtractOp::create(b, loc, registers, ArrayRef<int64_t>{index});
}

Value kiln::tiletogpu::fromRegisters(OpBuilder &b, Location loc,
                                     VectorType type, ValueRange registers) {
  return vector::FromElementsOp::create(b, loc, type, registers);
}

Value kiln::tiletogpu::permuteRegisters(OpBuilder &b, Location loc,
                                        Value source, ArrayRef<int64_t> map) {
  auto type = cast<VectorType>(source.getType());
  bool identity = static_cast<int64_t>(map.size()) == type.getNumElements();
  for (int64_t i = 0, e = map.size(); identity && i < e; ++i)
    identity = map[i] == i;
  if (identity)
    return source;
  return vector::ShuffleOp::create(b, loc, source, source, map);
}

Value kiln::tiletogpu::shuffleXor(OpBuilder &b, Location loc, Value value,
                                  int64_t mask) {
  Type type = value.getType();
  unsigned bits = type.getIntOrFloatBitWidth();
  Type i32 = b.getI32Type();
  auto shuffle = [&](Value word) -> Value {
    return gpu::ShuffleOp::create(b, loc, word, mask, kWarpSize,
                                  gpu::ShuffleMode::XOR)
        .getShuffleResult();
  };
  if (bits == 32 && (type.isF32() || type.isInteger(32)))
    return shuffle(value);
  // Other widths travel as one or two 32-bit words.
  Type asInt = b.getIntegerType(bits);
  Value word = type == asInt
                   ? value
                   : arith::BitcastOp::create(b, loc, asInt, value).getResult();
  Value result;
  if (bits <= 32) {
    Value wide = arith::ExtUIOp::create(b, loc, i32, word);
    result = arith::TruncIOp::create(b, loc, asInt, shuffle(wide));
  } else {
    Type i64 = b.getI64Type();
    Value low = arith::TruncIOp::create(b, loc, i32, word);
    Value high = arith::TruncIOp::create(
        b, loc, i32,
        arith::ShRUIOp::create(b, loc, word, constantInt(b, loc, i64, 32)));
    Value lowBack = arith::ExtUIOp::create(b, loc, i64, shuffle(low));
    Value highBack = arith::ShLIOp::create(
        b, loc, arith::ExtUIOp::create(b, loc, i64, shuffle(high)),
        constantInt(b, loc, i64, 32));
    result = arith::OrIOp::create(b, loc, lowBack, highBack);
  }
  if (type == asInt)
    return result;
  return arith::BitcastOp::create(b, loc, type, result);
}

SmallVector<Value> kiln::tiletogpu::inlineBlock(OpBuilder &b, Block &block,
                                                ValueRange arguments) {
  IRMapping mapping;
  mapping.map(block.getArguments(), arguments);
  for (Operation &inner : block.without_terminator())
    b.clone(inner, mapping);
  SmallVector<Value> results;
  for (Value yielded : block.getTerminator()->getOperands())
    results.push_back(mapping.lookupOrDefault(yielded));
  return results;
}

SmallVector<Value> kiln::tiletogpu::combineValues(OpBuilder &b,
                                                  Region &combiner,
                                                  ValueRange acc,
                                                  ValueRange next) {
  SmallVector<Value> arguments(acc);
  llvm::append_range(arguments, next);
  return inlineBlock(b, combiner.front(), arguments);
}

/// Name of the shared array of every kernel in a gpu.module.
static constexpr llvm::StringLiteral kSharedArrayName = "__kiln_shared";

/// Name of the gpu.module attribute where kernel-long buffers end.
static constexpr llvm::StringLiteral kScratchOffsetName =
    "kiln.shared_scratch_offset";
/// Name of the attribute listing the buffers in use while an op runs.
static constexpr llvm::StringLiteral kBuffersInUseName =
    "kiln.shared_buffers_in_use";

int64_t kiln::tiletogpu::getScratchOffset(gpu::GPUModuleOp module) {
  auto offset = module->getAttrOfType<IntegerAttr>(kScratchOffsetName);
  return offset ? offset.getInt() : 0;
}

void kiln::tiletogpu::setScratchOffset(gpu::GPUModuleOp module,
                                       int64_t offset) {
  module->setAttr(kScratchOffsetName,
                  IntegerAttr::get(IntegerType::get(module.getContext(), 64),
                                   offset));
}

void kiln::tiletogpu::setBuffersInUse(Operation *op, ArrayRef<int64_t> inUse) {
  op->setAttr(kBuffersInUseName,
              DenseI64ArrayAttr::get(op->getContext(), inUse));
}

/// Where `op`'s scratch of `bytes`, `alignment`-aligned, starts: the
/// lowest gap between the buffers in use while it runs, where they are
/// known, else past every kernel-long buffer.
static int64_t findScratch(Operation *op, gpu::GPUModuleOp module,
                           int64_t bytes, int64_t alignment) {
  auto inUse = op->getAttrOfType<DenseI64ArrayAttr>(kBuffersInUseName);
  if (!inUse)
    return llvm::alignTo(getScratchOffset(module), alignment);
  int64_t offset = 0;
  for (bool moved = true; moved;) {
    moved = false;
    for (int64_t i = 0; i + 1 < int64_t(inUse.size()); i += 2)
      if (inUse[i] < offset + bytes && offset < inUse[i + 1]) {
        offset = llvm::alignTo(inUse[i + 1], alignment);
        moved = true;
      }
  }
  return offset;
}

SmallVector<Value>
kiln::tiletogpu::allocateSharedMemory(OpBuilder &b, Operation *op,
                                      ArrayRef<int64_t> bytes,
                                      int64_t alignment) {
  Location loc = op->getLoc();
  // Buffers avoid the kernel-long buffers in use while `op` runs.
  auto module = op->getParentOfType<gpu::GPUModuleOp>();
  int64_t needed = 0;
  for (int64_t size : bytes)
    needed = llvm::alignTo(needed, alignment) + size;
  SmallVector<int64_t> offsets;
  int64_t total = findScratch(op, module, needed, alignment);
  for (int64_t size : bytes) {
    total = llvm::alignTo(total, alignment);
    offsets.push_back(total);
    total += size;
  }
  reserveSharedArray(module, total, alignment);
  Value base = getSharedArray(b, loc, module, total);
  auto pointerType = LLVM::LLVMPointerType::get(b.getContext(), 3);
  SmallVector<Value> buffers;
  for (int64_t offset : offsets)
    buffers.push_back(offset == 0
                          ? base
                          : LLVM::GEPOp::create(b, loc, pointerType,
                                                b.getI8Type(), base,
                                                ArrayRef<LLVM::GEPArg>{
                                                    static_cast<int32_t>(offset)})
                                .getResult());
  return buffers;
}

void kiln::tiletogpu::reserveSharedArray(gpu::GPUModuleOp module,
                                         int64_t bytes, int64_t alignment) {
  auto global = module.lookupSymbol<LLVM::GlobalOp>(kSharedArrayName);
  OpBuilder b(module.getContext());
  auto arrayType = LLVM::LLVMArrayType::get(b.getI8Type(), bytes);
  if (!global) {
    b.setInsertionPointToStart(module.getBody());
    LLVM::GlobalOp::create(b, module.getLoc(), arrayType,
                           /*isConstant=*/false, LLVM::Linkage::Internal,
                           kSharedArrayName, Attribute(), alignment,
                           /*addrSpace=*/3);
    return;
  }
  if (cast<LLVM::LLVMArrayType>(global.getGlobalType()).getNumElements() <
      static_cast<uint64_t>(bytes))
    global.setGlobalType(arrayType);
  if (global.getAlignment().value_or(1) < static_cast<uint64_t>(alignment))
    global.setAlignment(alignment);
}

SmallVector<Value>
kiln::tiletogpu::packFragmentWords(OpBuilder &b, Location loc, Value registers,
                                   ArrayRef<int64_t> indices, int64_t perWord) {
  Type element = cast<VectorType>(registers.getType()).getElementType();
  auto wordType = VectorType::get({perWord}, element);
  SmallVector<Value> result;
  for (ArrayRef<int64_t> word = indices; !word.empty();
       word = word.drop_front(perWord)) {
    SmallVector<Value> elements;
    for (int64_t index : word.take_front(perWord))
      elements.push_back(extractRegister(b, loc, registers, index));
    result.push_back(fromRegisters(b, loc, wordType, elements));
  }
  return result;
}

LogicalResult kiln::tiletogpu::finishSharedArray(gpu::GPUModuleOp module,
                                                int64_t limit) {
  // What a kernel may declare statically (ptxas refuses more).
  constexpr int64_t kStaticLimit = 48 * 1024;
  auto global = module.lookupSymbol<LLVM::GlobalOp>(kSharedArrayName);
  if (!global)
    return success();
  int64_t bytes =
      cast<LLVM::LLVMArrayType>(global.getGlobalType()).getNumElements();
  if (bytes > limit)
    return module.emitError()
           << "target nvptx: the kernels need " << bytes
           << " bytes of shared memory and a block may have " << limit
           << " (fewer pipeline stages or smaller blocks need less)";
  if (bytes <= kStaticLimit)
    return success();
  // A zero-length array is NVPTX's `.extern .shared`: its size comes from
  // the launch.
  global.setGlobalType(LLVM::LLVMArrayType::get(
      IntegerType::get(module.getContext(), 8), 0));
  global.setLinkage(LLVM::Linkage::External);
  module->setAttr(kDynamicSharedBytesAttrName,
                  IntegerAttr::get(IntegerType::get(module.getContext(), 64),
                                   bytes));
  return success();
}

Value kiln::tiletogpu::getSharedArray(OpBuilder &b, Location loc,
                                      gpu::GPUModuleOp module, int64_t bytes) {
  reserveSharedArray(module, bytes, /*alignment=*/16);
  return LLVM::AddressOfOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3),
      kSharedArrayName);
}

Value kiln::tiletogpu::allocateSharedMemory(OpBuilder &b, Operation *op,
                                            int64_t bytes) {
  return allocateSharedMemory(b, op, ArrayRef<int64_t>{bytes}).front();
}

Type kiln::tiletogpu::getStorageType(Type type) {
  auto floatType = dyn_cast<FloatType>(type);
  if (type.isInteger(1) || (floatType && floatType.getWidth() == 8))
    return IntegerType::get(type.getContext(), 8);
  return getRegisterType(type);
}

Value kiln::tiletogpu::toStorage(OpBuilder &b, Location loc, Value value) {
  Type type = value.getType(), storage = getStorageType(type);
  if (type == storage)
    return value;
  if (isa<FloatType>(type))
    return arith::BitcastOp::create(b, loc, storage, value);
  return arith::ExtUIOp::create(b, loc, storage, value);
}

Value kiln::tiletogpu::fromStorage(OpBuilder &b, Location loc, Value stored,
                                   Type type) {
  if (stored.getType() == type)
    return stored;
  if (isa<FloatType>(type))
    return arith::BitcastOp::create(b, loc, type, stored);
  // A stored boolean is true where its byte is not zero, as Triton reads
  // it (not its low bit).
  if (type.isInteger(1))
    return arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ne, stored,
        arith::ConstantOp::create(b, loc, b.getZeroAttr(stored.getType())));
  return arith::TruncIOp::create(b, loc, type, stored);
}

int64_t kiln::tiletogpu::getStorageBytes(Type type) {
  if (isa<IndexType>(type))
    return 8;
  return std::max<int64_t>(1,
                           getStorageType(type).getIntOrFloatBitWidth() / 8);
}

/// Address of element `index` of the shared array `base` of `type`.
static Value sharedAddress(OpBuilder &b, Location loc, Value base,
                           Value index, Type type) {
  return LLVM::GEPOp::create(b, loc, base.getType(), getStorageType(type),
                             base, ValueRange{index});
}

void kiln::tiletogpu::storeShared(OpBuilder &b, Location loc, Value base,
                                  Value index, Value value) {
  Type type = value.getType();
  LLVM::StoreOp::create(b, loc, toStorage(b, loc, value),
                        sharedAddress(b, loc, base, index, type));
}

Value kiln::tiletogpu::loadShared(OpBuilder &b, Location loc, Value base,
                                  Value index, Type type) {
  Value value = LLVM::LoadOp::create(b, loc, getStorageType(type),
                                     sharedAddress(b, loc, base, index, type));
  return fromStorage(b, loc, value, type);
}

Value kiln::tiletogpu::linearize(OpBuilder &b, Location loc,
                                 ArrayRef<Value> coordinates,
                                 ArrayRef<int64_t> shape) {
  Value linear;
  for (auto [coordinate, size] : llvm::zip(coordinates, shape)) {
    if (!linear) {
      linear = coordinate;
      continue;
    }
    linear = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, linear,
                              constantInt(b, loc, linear.getType(), size)),
        coordinate);
  }
  return linear;
}

FailureOr<Value> kiln::tiletogpu::redistributeThroughSharedMemory(
    OpBuilder &b, Operation *op, Value source, RankedTensorType sourceType,
    RankedTensorType resultType, const SourceIndexFn &sourceIndex) {
  Location loc = op->getLoc();
  Type elementType = getRegisterType(sourceType.getElementType());
  int64_t bytes = getStorageBytes(elementType) * sourceType.getNumElements();
  FailureOr<TileCoordinates> from = emitTileCoordinates(b, loc, sourceType);
  FailureOr<TileCoordinates> to = emitTileCoordinates(b, loc, resultType);
  if (failed(from) || failed(to))
    return failure();
  Value buffer = allocateSharedMemory(b, op, bytes);
  Value written = linearize(b, loc, from->coordinates, sourceType.getShape());
  Value read = sourceIndex(b, loc, to->coordinates);
  // The first barrier keeps a loop's next write from overtaking this
  // iteration's readers of the same buffer.
  gpu::BarrierOp::create(b, loc);
  for (int64_t reg = 0, e = getNumRegisters(sourceType); reg < e; ++reg)
    storeShared(b, loc, buffer, extractRegister(b, loc, written, reg),
                extractRegister(b, loc, source, reg));
  gpu::BarrierOp::create(b, loc);
  SmallVector<Value> registers;
  for (int64_t reg = 0, e = getNumRegisters(resultType); reg < e; ++reg)
    registers.push_back(loadShared(
        b, loc, buffer, extractRegister(b, loc, read, reg), elementType));
  return fromRegisters(
      b, loc, VectorType::get({getNumRegisters(resultType)}, elementType),
      registers);
}
