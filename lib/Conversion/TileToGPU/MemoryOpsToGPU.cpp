//===- MemoryOpsToGPU.cpp - Loads, stores, atomics and pointers to GPU ----===//
//
// A thread accesses its registers in groups of consecutive elements as one
// vector (ld.global.v4.b32 moves 16 bytes). A block pointer is, in each
// thread, a vector of i64 fields (base, shape, strides, offsets); its
// accesses compute each register's address and bounds from them, one
// element at a time. Masked accesses are predicated
// PTX instructions, so that a false mask never touches memory; replicated
// copies of an element do not store or apply an atomic twice.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "ThreadValues.h"

#include "kiln/Dialect/Tile/IR/BlockPointerLayout.h"
#include "kiln/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tiletogpu;

namespace {

/// PTX state space of an address space, as an instruction suffix.
static StringRef getStateSpace(unsigned addressSpace) {
  switch (addressSpace) {
  case 1:
    return ".global";
  case 3:
    return ".shared";
  default:
    return "";
  }
}

/// The inline-asm constraint of an address in `addressSpace`: generic and
/// global addresses take 64 bits, the others (shared, constant, local)
/// 32, since the NVPTX target compiles with nvptx-short-ptr as Triton
/// does.
static StringRef getAddressConstraint(unsigned addressSpace) {
  return addressSpace <= 1 ? "l" : "r";
}

/// How `count` elements of `bytes` each travel through inline PTX: as
/// 32-bit words where they fill one, else as one 16-bit register.
struct Words {
  Type type;
  int64_t count;
  StringRef constraint, ptxType;
};

static Words getWords(OpBuilder &b, int64_t totalBytes) {
  if (totalBytes >= 4)
    return {b.getI32Type(), totalBytes / 4, "r", "b32"};
  return {b.getI16Type(), 1, "h", totalBytes == 2 ? "b16" : "u8"};
}

/// `elements` (of one type) as the words of `words`.
static SmallVector<Value> packWords(OpBuilder &b, Location loc,
                                    ArrayRef<Value> elements,
                                    const Words &words) {
  Type storage = getStorageType(elements.front().getType());
  SmallVector<Value> stored;
  for (Value element : elements)
    stored.push_back(toStorage(b, loc, element));
  Value vector = fromRegisters(
      b, loc, VectorType::get({int64_t(stored.size())}, storage), stored);
  int64_t bits = storage.getIntOrFloatBitWidth() * stored.size();
  if (bits < 16)
    return {arith::ExtUIOp::create(
        b, loc, words.type,
        LLVM::BitcastOp::create(b, loc, b.getIntegerType(bits), vector))};
  Value asWords = LLVM::BitcastOp::create(
      b, loc, VectorType::get({words.count}, words.type), vector);
  SmallVector<Value> result;
  for (int64_t i = 0; i < words.count; ++i)
    result.push_back(extractRegister(b, loc, asWords, i));
  return result;
}

/// The inverse of packWords: `count` elements of `type`.
static SmallVector<Value> unpackWords(OpBuilder &b, Location loc,
                                      ArrayRef<Value> wordValues, Type type,
                                      int64_t count) {
  Type storage = getStorageType(type);
  int64_t bits = storage.getIntOrFloatBitWidth() * count;
  auto vectorType = VectorType::get({count}, storage);
  Value vector;
  if (bits < 16) {
    vector = LLVM::BitcastOp::create(
        b, loc, vectorType,
        arith::TruncIOp::create(b, loc, b.getIntegerType(bits),
                                wordValues.front()));
  } else {
    auto wordsType = VectorType::get({int64_t(wordValues.size())},
                                     wordValues.front().getType());
    vector = LLVM::BitcastOp::create(
        b, loc, vectorType, fromRegisters(b, loc, wordsType, wordValues));
  }
  SmallVector<Value> elements;
  for (int64_t i = 0; i < count; ++i)
    elements.push_back(
        fromStorage(b, loc, extractRegister(b, loc, vector, i), type));
  return elements;
}

/// Loads `count` consecutive elements of `type` at `address`; only where
/// `predicate` (i1, or null for always) holds, and else `others` (one per
/// element; none: undefined). As Triton does, the destination registers
/// hold `others` before the predicated load (inputs tied to its outputs):
/// a select after the load would keep the loaded and the selected words
/// apart, which costs ptxas registers (100 against 80 for the corpus's
/// layer norm). `isVolatile`: `ld.volatile`, which is never merged or
/// moved.
static SmallVector<Value> loadElements(OpBuilder &b, Location loc,
                                       Value address, Type type, int64_t count,
                                       Value predicate,
                                       ArrayRef<Value> others = {},
                                       bool isVolatile = false) {
  Type storage = getStorageType(type);
  int64_t bytes = getStorageBytes(storage) * count;
  if (!predicate) {
    Type loaded = count == 1 ? storage : VectorType::get({count}, storage);
    Value value =
        LLVM::LoadOp::create(b, loc, loaded, address, bytes, isVolatile);
    SmallVector<Value> elements;
    for (int64_t i = 0; i < count; ++i)
      elements.push_back(fromStorage(
          b, loc, count == 1 ? value : extractRegister(b, loc, value, i),
          type));
    return elements;
  }
  Words words = getWords(b, bytes);
  unsigned space =
      cast<LLVM::LLVMPointerType>(address.getType()).getAddressSpace();
  std::string destinations, constraints;
  for (int64_t i = 0; i < words.count; ++i) {
    destinations += llvm::formatv("{0}${1}", i ? ", " : "", i).str();
    constraints += "=" + words.constraint.str() + ",";
  }
  if (words.count > 1)
    destinations = "{" + destinations + "}";
  std::string vectorSuffix =
      words.count > 1 ? llvm::formatv(".v{0}", words.count).str() : "";
  std::string asmString =
      llvm::formatv("@${0} ld{1}{2}{3}.{4} {5}, [${6}];", words.count + 1,
                    isVolatile ? ".volatile" : "", getStateSpace(space),
                    vectorSuffix, words.ptxType, destinations, words.count)
          .str();
  constraints += (getAddressConstraint(space) + ",b").str();
  SmallVector<Value> operands = {address, predicate};
  if (!others.empty()) {
    llvm::append_range(operands, packWords(b, loc, others, words));
    for (int64_t i = 0; i < words.count; ++i)
      constraints += "," + std::to_string(i);
  }
  Type resultType =
      words.count == 1
          ? words.type
          : LLVM::LLVMStructType::getLiteral(
                b.getContext(), SmallVector<Type>(words.count, words.type));
  auto load = LLVM::InlineAsmOp::create(
      b, loc, resultType, operands, asmString, constraints,
      /*has_side_effects=*/isVolatile,
      /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr(), ArrayAttr());
  SmallVector<Value> wordValues;
  if (words.count == 1)
    wordValues.push_back(load.getResult(0));
  else
    for (int64_t i = 0; i < words.count; ++i)
      wordValues.push_back(
          LLVM::ExtractValueOp::create(b, loc, load.getResult(0), i));
  return unpackWords(b, loc, wordValues, type, count);
}

/// Stores `elements` consecutively at `address`, only where `predicate`
/// (or always when it is null) holds.
static void storeElements(OpBuilder &b, Location loc, Value address,
                          ArrayRef<Value> elements, Value predicate) {
  Type storage = getStorageType(elements.front().getType());
  int64_t count = elements.size();
  int64_t bytes = getStorageBytes(storage) * count;
  if (!predicate) {
    SmallVector<Value> stored;
    for (Value element : elements)
      stored.push_back(toStorage(b, loc, element));
    Value value = count == 1 ? stored.front()
                             : fromRegisters(b, loc,
                                             VectorType::get({count}, storage),
                                             stored);
    LLVM::StoreOp::create(b, loc, value, address, bytes);
    return;
  }
  Words words = getWords(b, bytes);
  SmallVector<Value> wordValues = packWords(b, loc, elements, words);
  unsigned space =
      cast<LLVM::LLVMPointerType>(address.getType()).getAddressSpace();
  std::string sources, constraints = getAddressConstraint(space).str();
  for (int64_t i = 0; i < words.count; ++i) {
    sources += llvm::formatv("{0}${1}", i ? ", " : "", i + 1).str();
    constraints += "," + words.constraint.str();
  }
  if (words.count > 1)
    sources = "{" + sources + "}";
  std::string vectorSuffix =
      words.count > 1 ? llvm::formatv(".v{0}", words.count).str() : "";
  std::string asmString =
      llvm::formatv("@${0} st{1}{2}.{3} [$0], {4};", words.count + 1,
                    getStateSpace(space), vectorSuffix, words.ptxType, sources)
          .str();
  constraints += ",b";
  SmallVector<Value> operands{address};
  operands.append(wordValues);
  operands.push_back(predicate);
  LLVM::InlineAsmOp::create(b, loc, TypeRange(), operands, asmString,
                            constraints, /*has_side_effects=*/true,
                            /*is_align_stack=*/false,
                            LLVM::tailcallkind::TailCallKind::None,
                            LLVM::AsmDialectAttr(), ArrayAttr());
}

/// `a && b` where either may be null (always true).
static Value both(OpBuilder &b, Location loc, Value x, Value y) {
  if (!x)
    return y;
  if (!y)
    return x;
  return arith::AndIOp::create(b, loc, x, y);
}

/// The pointer to register `reg` of a tile of addresses.
static Value registerAddress(OpBuilder &b, Location loc, Value addresses,
                             int64_t reg, unsigned addressSpace) {
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), addressSpace),
      extractRegister(b, loc, addresses, reg));
}

static unsigned getAddressSpace(Type pointerLike) {
  if (auto tensor = dyn_cast<RankedTensorType>(pointerLike))
    pointerLike = tensor.getElementType();
  return cast<tile::PointerType>(pointerLike).getAddressSpace();
}

/// Runs `body` on each group of `width` registers of a tile access (or on
/// the single scalar of a scalar one): the group's first register, and
/// its predicate (null when always).
template <typename Body>
static void forEachAccessGroup(OpBuilder &b, Location loc, int64_t registers,
                               int64_t width, Value mask, Value canonical,
                               bool scalar, Body body) {
  for (int64_t first = 0; first < registers; first += width) {
    Value predicate;
    if (mask)
      predicate = scalar ? mask : extractRegister(b, loc, mask, first);
    if (canonical)
      predicate = both(b, loc, predicate,
                       extractRegister(b, loc, canonical, first));
    body(first, predicate);
  }
}

struct LoadLowering : OpConversionPattern<tile::LoadOp> {
  LoadLowering(const TypeConverter &converter, MLIRContext *context,
               const AccessWidths &widths)
      : OpConversionPattern(converter, context), widths(widths) {}

  LogicalResult
  matchAndRewrite(tile::LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type resultType = op.getType();
    auto tensor = dyn_cast<RankedTensorType>(resultType);
    Type elementType = getElementTypeOrSelf(resultType);
    Type registerType = getRegisterType(elementType);
    unsigned space = getAddressSpace(op.getPtr().getType());
    int64_t registers = tensor ? getNumRegisters(tensor) : 1;
    int64_t width = tensor ? widths.lookup(op) : 1;
    SmallVector<Value> values;
    forEachAccessGroup(
        rewriter, loc, registers, width, adaptor.getMask(), Value(), !tensor,
        [&](int64_t first, Value predicate) {
          Value address =
              tensor ? registerAddress(rewriter, loc, adaptor.getPtr(), first,
                                       space)
                     : adaptor.getPtr();
          SmallVector<Value> others;
          if (Value other = adaptor.getOther(); other && predicate)
            for (int64_t i = 0; i < width; ++i)
              others.push_back(
                  tensor ? extractRegister(rewriter, loc, other, first + i)
                         : other);
          llvm::append_range(
              values, loadElements(rewriter, loc, address, registerType, width,
                                   predicate, others, op.getIsVolatile()));
        });
    if (!tensor) {
      rewriter.replaceOp(op, values.front());
      return success();
    }
    rewriter.replaceOp(
        op, fromRegisters(rewriter, loc,
                          VectorType::get({registers}, registerType), values));
    return success();
  }

  const AccessWidths &widths;
};

struct StoreLowering : OpConversionPattern<tile::StoreOp> {
  StoreLowering(const TypeConverter &converter, MLIRContext *context,
                const AccessWidths &widths)
      : OpConversionPattern(converter, context), widths(widths) {}

  LogicalResult
  matchAndRewrite(tile::StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto tensor = dyn_cast<RankedTensorType>(op.getValue().getType());
    unsigned space = getAddressSpace(op.getPtr().getType());
    Value canonical;
    if (tensor) {
      FailureOr<TileCoordinates> coordinates =
          emitTileCoordinates(rewriter, loc, tensor);
      if (failed(coordinates))
        return failure();
      canonical = coordinates->canonical;
    }
    int64_t registers = tensor ? getNumRegisters(tensor) : 1;
    int64_t width = tensor ? widths.lookup(op) : 1;
    forEachAccessGroup(
        rewriter, loc, registers, width, adaptor.getMask(), canonical,
        !tensor, [&](int64_t first, Value predicate) {
          Value address =
              tensor ? registerAddress(rewriter, loc, adaptor.getPtr(), first,
                                       space)
                     : adaptor.getPtr();
          SmallVector<Value> elements;
          for (int64_t i = 0; i < width; ++i)
            elements.push_back(tensor ? extractRegister(rewriter, loc,
                                                        adaptor.getValue(),
                                                        first + i)
                                      : adaptor.getValue());
          storeElements(rewriter, loc, address, elements, predicate);
        });
    rewriter.eraseOp(op);
    return success();
  }

  const AccessWidths &widths;
};

static LLVM::AtomicBinOp getAtomicBinOp(tile::AtomicRMWKind kind,
                                        bool isFloat) {
  switch (kind) {
  case tile::AtomicRMWKind::Add:
    return isFloat ? LLVM::AtomicBinOp::fadd : LLVM::AtomicBinOp::add;
  case tile::AtomicRMWKind::Max:
    return isFloat ? LLVM::AtomicBinOp::fmax : LLVM::AtomicBinOp::max;
  case tile::AtomicRMWKind::Min:
    return isFloat ? LLVM::AtomicBinOp::fmin : LLVM::AtomicBinOp::min;
  case tile::AtomicRMWKind::UMax:
    return LLVM::AtomicBinOp::umax;
  case tile::AtomicRMWKind::UMin:
    return LLVM::AtomicBinOp::umin;
  case tile::AtomicRMWKind::And:
    return LLVM::AtomicBinOp::_and;
  case tile::AtomicRMWKind::Or:
    return LLVM::AtomicBinOp::_or;
  case tile::AtomicRMWKind::Xor:
    return LLVM::AtomicBinOp::_xor;
  case tile::AtomicRMWKind::Xchg:
    return LLVM::AtomicBinOp::xchg;
  }
  llvm_unreachable("unknown atomic kind");
}

static LLVM::AtomicOrdering getOrdering(tile::MemSemantic semantic) {
  switch (semantic) {
  case tile::MemSemantic::Relaxed:
    return LLVM::AtomicOrdering::monotonic;
  case tile::MemSemantic::Acquire:
    return LLVM::AtomicOrdering::acquire;
  case tile::MemSemantic::Release:
    return LLVM::AtomicOrdering::release;
  case tile::MemSemantic::AcqRel:
    return LLVM::AtomicOrdering::acq_rel;
  }
  llvm_unreachable("unknown memory semantic");
}

/// NVPTX's name of a scope (the system scope has none).
static StringRef getSyncScope(tile::MemScope scope) {
  switch (scope) {
  case tile::MemScope::CTA:
    return "block";
  case tile::MemScope::GPU:
    return "device";
  case tile::MemScope::System:
    return "";
  }
  llvm_unreachable("unknown memory scope");
}

/// Lowers an atomic on the pointers `ptr` under `mask` (null for none):
/// `apply(b, loc, address, elements)` does the atomic on one element, given
/// the elements of `operands` at that register. Only one copy of each
/// element applies it (the canonical one of a tile, thread 0 for a
/// scalar); where the layout replicates elements, or for a scalar, the
/// old values reach the other copies through shared memory. A scalar
/// atomic that releases (`sem`) waits at a barrier first, so that what
/// every thread of the program wrote before it is released with it (a
/// lock's release after the stores it guards).
static LogicalResult lowerAtomic(
    Operation *op, ConversionPatternRewriter &rewriter, tile::MemSemantic sem,
    Value ptr, Value mask, ValueRange operands,
    function_ref<Value(OpBuilder &, Location, Value, ValueRange)> apply) {
  Location loc = op->getLoc();
  Type resultType = op->getResult(0).getType();
  auto tensor = dyn_cast<RankedTensorType>(resultType);
  Type elementType = getElementTypeOrSelf(resultType);
  unsigned space = getAddressSpace(op->getOperand(0).getType());
  Value canonical;
  FailureOr<TileCoordinates> coordinates;
  if (tensor) {
    coordinates = emitTileCoordinates(rewriter, loc, tensor);
    if (failed(coordinates))
      return failure();
    canonical = coordinates->canonical;
  } else {
    canonical = isThreadZero(rewriter, loc);
    if (sem == tile::MemSemantic::Release || sem == tile::MemSemantic::AcqRel)
      gpu::BarrierOp::create(rewriter, loc);
  }
  int64_t registers = tensor ? getNumRegisters(tensor) : 1;
  SmallVector<Value> olds;
  forEachAccessGroup(
      rewriter, loc, registers, 1, mask, tensor ? canonical : Value(),
      !tensor, [&](int64_t reg, Value predicate) {
        if (!tensor)
          predicate = both(rewriter, loc, predicate, canonical);
        Value address =
            tensor ? registerAddress(rewriter, loc, ptr, reg, space) : ptr;
        SmallVector<Value> elements;
        for (Value operand : operands)
          elements.push_back(
              tensor ? extractRegister(rewriter, loc, operand, reg) : operand);
        if (!predicate) {
          olds.push_back(apply(rewriter, loc, address, elements));
          return;
        }
        auto guarded = scf::IfOp::create(
            rewriter, loc, predicate,
            [&](OpBuilder &b, Location l) {
              scf::YieldOp::create(b, l, apply(b, l, address, elements));
            },
            [&](OpBuilder &b, Location l) {
              scf::YieldOp::create(
                  b, l, Value(LLVM::PoisonOp::create(b, l, elementType)));
            });
        olds.push_back(guarded.getResult(0));
      });
  if (tensor && canonical && !op->use_empty()) {
    // The canonical copies write the old values by element, every copy
    // reads its own back.
    Value linear =
        linearize(rewriter, loc, coordinates->coordinates, tensor.getShape());
    Value buffer = allocateSharedMemory(
        rewriter, op, tensor.getNumElements() * getStorageBytes(elementType));
    gpu::BarrierOp::create(rewriter, loc);
    for (int64_t reg = 0; reg < registers; ++reg) {
      Value index = extractRegister(rewriter, loc, linear, reg);
      scf::IfOp::create(rewriter, loc,
                        extractRegister(rewriter, loc, canonical, reg),
                        [&](OpBuilder &b, Location l) {
                          storeShared(b, l, buffer, index, olds[reg]);
                          scf::YieldOp::create(b, l);
                        });
    }
    gpu::BarrierOp::create(rewriter, loc);
    for (int64_t reg = 0; reg < registers; ++reg)
      olds[reg] =
          loadShared(rewriter, loc, buffer,
                     extractRegister(rewriter, loc, linear, reg), elementType);
    gpu::BarrierOp::create(rewriter, loc);
  }
  if (tensor) {
    rewriter.replaceOp(op, fromRegisters(rewriter, loc,
                                         VectorType::get({registers},
                                                         elementType),
                                         olds));
    return success();
  }
  if (op->use_empty()) {
    rewriter.eraseOp(op);
    return success();
  }
  // Thread 0 shares the old value with the program's other threads,
  // once the previous user of the shared array is done with it.
  Value buffer =
      allocateSharedMemory(rewriter, op, getStorageBytes(elementType));
  Value zero = constantInt(rewriter, loc, rewriter.getI32Type(), 0);
  gpu::BarrierOp::create(rewriter, loc);
  scf::IfOp::create(rewriter, loc, canonical, [&](OpBuilder &b, Location l) {
    storeShared(b, l, buffer, zero, olds.front());
    scf::YieldOp::create(b, l);
  });
  gpu::BarrierOp::create(rewriter, loc);
  Value shared = loadShared(rewriter, loc, buffer, zero, elementType);
  gpu::BarrierOp::create(rewriter, loc);
  rewriter.replaceOp(op, shared);
  return success();
}

/// A read-modify-write. NVPTX drops the ordering of an `atomicrmw` (it
/// emits a relaxed `atom`; a `cmpxchg` keeps its own), so an ordered one
/// is a relaxed atomic between fences: a release fence before it, an
/// acquire fence after it. Two forms are what they amount to, as Triton
/// emits them: an `or` of 0 is an atomic load (`ld.acquire`,
/// tl.atomic_load) and an exchange whose old value is unused an atomic
/// store (`st.release`, tl.atomic_store).
struct AtomicRMWLowering : OpConversionPattern<tile::AtomicRMWOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::AtomicRMWOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type elementType = getElementTypeOrSelf(op.getType());
    auto binOp = getAtomicBinOp(op.getKind(), isa<FloatType>(elementType));
    tile::MemSemantic sem = op.getSem();
    auto ordering = getOrdering(sem);
    StringRef scope = getSyncScope(op.getScope());
    bool releases =
        sem == tile::MemSemantic::Release || sem == tile::MemSemantic::AcqRel;
    bool acquires =
        sem == tile::MemSemantic::Acquire || sem == tile::MemSemantic::AcqRel;
    bool load = op.getKind() == tile::AtomicRMWKind::Or && !releases &&
                matchPattern(op.getValue(), m_Zero());
    bool store =
        op.getKind() == tile::AtomicRMWKind::Xchg && !acquires && op.use_empty();
    unsigned alignment = getStorageBytes(elementType);
    auto fence = [&](OpBuilder &b, Location l, LLVM::AtomicOrdering order) {
      LLVM::FenceOp::create(b, l, order, scope);
    };
    return lowerAtomic(
        op, rewriter, sem, adaptor.getPtr(), adaptor.getMask(),
        adaptor.getValue(),
        [&](OpBuilder &b, Location l, Value address,
            ValueRange elements) -> Value {
          if (load)
            return LLVM::LoadOp::create(b, l, elementType, address, alignment,
                                        /*isVolatile=*/false,
                                        /*isNonTemporal=*/false,
                                        /*isInvariant=*/false,
                                        /*isInvariantGroup=*/false, ordering,
                                        scope);
          if (store) {
            LLVM::StoreOp::create(b, l, elements[0], address, alignment,
                                  /*isVolatile=*/false,
                                  /*isNonTemporal=*/false,
                                  /*isInvariantGroup=*/false, ordering,
                                  scope);
            return LLVM::PoisonOp::create(b, l, elementType);
          }
          if (releases)
            fence(b, l, LLVM::AtomicOrdering::release);
          auto atomic = LLVM::AtomicRMWOp::create(b, l, binOp, address,
                                                  elements[0], ordering);
          if (!scope.empty())
            atomic.setSyncscope(scope);
          if (acquires)
            fence(b, l, LLVM::AtomicOrdering::acquire);
          return atomic;
        });
  }
};

/// A compare-and-swap is LLVM's cmpxchg on the elements' bits (PTX
/// atom.cas.b16/b32/b64), which fails only by comparing unequal. A
/// release-only order fails as relaxed, as cmpxchg requires.
struct AtomicCASLowering : OpConversionPattern<tile::AtomicCASOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::AtomicCASOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto success = getOrdering(op.getSem());
    auto failure = success == LLVM::AtomicOrdering::release
                       ? LLVM::AtomicOrdering::monotonic
                   : success == LLVM::AtomicOrdering::acq_rel
                       ? LLVM::AtomicOrdering::acquire
                       : success;
    StringRef scope = getSyncScope(op.getScope());
    return lowerAtomic(
        op, rewriter, op.getSem(), adaptor.getPtr(), Value(),
        ValueRange{adaptor.getCmp(), adaptor.getValue()},
        [&](OpBuilder &b, Location l, Value address,
            ValueRange elements) -> Value {
          Type type = elements[0].getType();
          Type bits = b.getIntegerType(type.getIntOrFloatBitWidth());
          auto asBits = [&](Value v) -> Value {
            return v.getType() == bits ? v
                                       : LLVM::BitcastOp::create(b, l, bits, v);
          };
          auto exchange = LLVM::AtomicCmpXchgOp::create(
              b, l, address, asBits(elements[0]), asBits(elements[1]),
              success, failure);
          if (!scope.empty())
            exchange.setSyncscope(scope);
          Value old = LLVM::ExtractValueOp::create(b, l, exchange, 0);
          return old.getType() == type
                     ? old
                     : LLVM::BitcastOp::create(b, l, type, old).getResult();
        });
  }
};

/// Element size in bytes as an i64 constant shaped like `like`.
static Value scaleToBytes(OpBuilder &b, Location loc, Value offset,
                          Type pointee, Type addressType) {
  Value wide = offset;
  if (getElementTypeOrSelf(offset.getType()).getIntOrFloatBitWidth() < 64)
    wide = arith::ExtSIOp::create(b, loc, addressType, offset);
  return arith::MulIOp::create(
      b, loc, wide, constantInt(b, loc, addressType, getStorageBytes(pointee)));
}

struct AddPtrLowering : OpConversionPattern<tile::AddPtrOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::AddPtrOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type pointee = cast<tile::PointerType>(getElementTypeOrSelf(op.getType()))
                       .getPointeeType();
    Value base = adaptor.getPtr();
    if (isa<LLVM::LLVMPointerType>(base.getType())) {
      Value bytes = scaleToBytes(rewriter, loc, adaptor.getOffset(), pointee,
                                 rewriter.getI64Type());
      rewriter.replaceOpWithNewOp<LLVM::GEPOp>(op, base.getType(),
                                               rewriter.getI8Type(), base,
                                               ValueRange{bytes});
      return success();
    }
    Value bytes = scaleToBytes(rewriter, loc, adaptor.getOffset(), pointee,
                               base.getType());
    rewriter.replaceOpWithNewOp<arith::AddIOp>(op, base, bytes);
    return success();
  }
};

/// `value` (an integer or a vector of them) as `type`, zero-extended or
/// truncated.
static Value resizeInteger(OpBuilder &b, Location loc, Value value,
                           Type type) {
  unsigned from = getElementTypeOrSelf(value.getType()).getIntOrFloatBitWidth();
  unsigned to = getElementTypeOrSelf(type).getIntOrFloatBitWidth();
  if (from == to)
    return value;
  if (from > to)
    return arith::TruncIOp::create(b, loc, type, value);
  return arith::ExtUIOp::create(b, loc, type, value);
}

/// Addresses to integers and back: a scalar pointer through LLVM's casts,
/// a tile, which holds i64 addresses already, by resizing them.
template <typename SourceOp, typename LLVMCastOp>
struct AddressCastLowering : OpConversionPattern<SourceOp> {
  using OpConversionPattern<SourceOp>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SourceOp op, typename SourceOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = this->getTypeConverter()->convertType(op.getType());
    Value value = adaptor.getSrc();
    if (isa<LLVM::LLVMPointerType>(type) ||
        isa<LLVM::LLVMPointerType>(value.getType()))
      rewriter.replaceOpWithNewOp<LLVMCastOp>(op, type, value);
    else
      rewriter.replaceOp(op, resizeInteger(rewriter, op.getLoc(), value, type));
    return success();
  }
};
using PtrToIntLowering = AddressCastLowering<tile::PtrToIntOp, LLVM::PtrToIntOp>;
using IntToPtrLowering = AddressCastLowering<tile::IntToPtrOp, LLVM::IntToPtrOp>;

struct PtrCastLowering : OpConversionPattern<tile::PtrCastOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::PtrCastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = getTypeConverter()->convertType(op.getType());
    Value value = adaptor.getSrc();
    if (value.getType() != type)
      value = LLVM::AddrSpaceCastOp::create(rewriter, op.getLoc(), type, value);
    rewriter.replaceOp(op, value);
    return success();
  }
};

struct MakeBlockPtrLowering : OpConversionPattern<tile::MakeBlockPtrOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::MakeBlockPtrOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type i64 = rewriter.getI64Type();
    tile::BlockPointerLayout layout(adaptor.getShape().size());
    SmallVector<Value> fields(layout.numFields());
    fields[tile::BlockPointerLayout::kBase] =
        LLVM::PtrToIntOp::create(rewriter, loc, i64, adaptor.getBase());
    for (int64_t d = 0; d < layout.rank; ++d) {
      fields[layout.size(d)] = adaptor.getShape()[d];
      fields[layout.stride(d)] = adaptor.getStrides()[d];
      fields[layout.offset(d)] =
          arith::ExtSIOp::create(rewriter, loc, i64, adaptor.getOffsets()[d]);
    }
    rewriter.replaceOp(
        op, fromRegisters(rewriter, loc,
                          cast<VectorType>(
                              getTypeConverter()->convertType(op.getType())),
                          fields));
    return success();
  }
};

struct AdvanceLowering : OpConversionPattern<tile::AdvanceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::AdvanceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value fields = adaptor.getBlockPtr();
    tile::BlockPointerLayout layout(op.getOffsets().size());
    for (auto [d, delta] : llvm::enumerate(adaptor.getOffsets())) {
      int64_t at = layout.offset(d);
      Value moved = arith::AddIOp::create(
          rewriter, loc, extractRegister(rewriter, loc, fields, at),
          arith::ExtSIOp::create(rewriter, loc, rewriter.getI64Type(), delta));
      fields = vector::InsertOp::create(rewriter, loc, moved, fields,
                                        ArrayRef<int64_t>{at});
    }
    rewriter.replaceOp(op, fields);
    return success();
  }
};

/// For each register of a block access of `type`: its address, and whether
/// it is inside the tensor along every dimension of `checked` (null when no
/// dimension is checked).
static FailureOr<std::pair<SmallVector<Value>, SmallVector<Value>>>
emitBlockAddresses(OpBuilder &b, Location loc, Value fields,
                   RankedTensorType type, ArrayRef<int32_t> checked) {
  FailureOr<TileCoordinates> at = emitTileCoordinates(b, loc, type);
  if (failed(at))
    return failure();
  int64_t rank = type.getRank();
  tile::BlockPointerLayout layout(rank);
  Type i64 = b.getI64Type();
  auto field = [&](int64_t index) {
    return extractRegister(b, loc, fields, index);
  };
  Value bytes = constantInt(b, loc, i64, getStorageBytes(type.getElementType()));
  SmallVector<Value> addresses, inside;
  for (int64_t reg = 0, e = getNumRegisters(type); reg < e; ++reg) {
    Value address = field(tile::BlockPointerLayout::kBase);
    Value in;
    for (int64_t d = 0; d < rank; ++d) {
      Value index = arith::AddIOp::create(
          b, loc, field(layout.offset(d)),
          arith::ExtSIOp::create(
              b, loc, i64, extractRegister(b, loc, at->coordinates[d], reg)));
      address = arith::AddIOp::create(
          b, loc, address,
          arith::MulIOp::create(
              b, loc, index,
              arith::MulIOp::create(b, loc, field(layout.stride(d)), bytes)));
      if (llvm::is_contained(checked, d)) {
        // Unsigned: a negative index is out of bounds too.
        Value ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                         index, field(layout.size(d)));
        in = both(b, loc, in, ok);
      }
    }
    addresses.push_back(LLVM::IntToPtrOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext(), 1), address));
    inside.push_back(in);
  }
  return std::make_pair(addresses, inside);
}

struct BlockLoadLowering : OpConversionPattern<tile::BlockLoadOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::BlockLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    auto access = emitBlockAddresses(rewriter, loc, adaptor.getBlockPtr(),
                                     type, op.getBoundaryCheck());
    if (failed(access))
      return failure();
    Type element = type.getElementType();
    Value padding;
    SmallVector<Value> values;
    for (auto [address, inside] : llvm::zip(access->first, access->second)) {
      Value value =
          loadElements(rewriter, loc, address, element, 1, inside).front();
      if (inside) {
        if (!padding) {
          auto floatType = dyn_cast<FloatType>(element);
          padding = arith::ConstantOp::create(
              rewriter, loc,
              floatType && op.getPadding() == tile::PaddingOption::NaN
                  ? rewriter.getFloatAttr(
                        element, APFloat::getNaN(floatType.getFloatSemantics()))
                  : rewriter.getZeroAttr(element));
        }
        value = arith::SelectOp::create(rewriter, loc, inside, value, padding);
      }
      values.push_back(value);
    }
    rewriter.replaceOp(
        op, fromRegisters(rewriter, loc,
                          VectorType::get({int64_t(values.size())}, element),
                          values));
    return success();
  }
};

struct BlockStoreLowering : OpConversionPattern<tile::BlockStoreOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::BlockStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getValue().getType());
    auto access = emitBlockAddresses(rewriter, loc, adaptor.getBlockPtr(),
                                     type, op.getBoundaryCheck());
    FailureOr<TileCoordinates> at = emitTileCoordinates(rewriter, loc, type);
    if (failed(access) || failed(at))
      return failure();
    for (auto [reg, address, inside] :
         llvm::enumerate(access->first, access->second)) {
      Value predicate = inside;
      if (at->canonical)
        predicate = both(rewriter, loc, predicate,
                         extractRegister(rewriter, loc, at->canonical, reg));
      storeElements(rewriter, loc, address,
                    {extractRegister(rewriter, loc, adaptor.getValue(), reg)},
                    predicate);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void kiln::tiletogpu::populateMemoryOpsToGPUPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns,
    const AccessWidths &widths) {
  MLIRContext *context = patterns.getContext();
  patterns.add<LoadLowering, StoreLowering>(converter, context, widths);
  patterns.add<AtomicRMWLowering, AtomicCASLowering, AddPtrLowering, PtrToIntLowering,
               IntToPtrLowering, PtrCastLowering, MakeBlockPtrLowering,
               AdvanceLowering, BlockLoadLowering, BlockStoreLowering>(
      converter, context);
}
