//===- TileGPUDialect.cpp - GPU-level additions to tile IR ----------------===//

#include "kiln/Dialect/TileGPU/IR/TileGPUDialect.h"
#include "kiln/Layout/MmaLayout.h"

#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace kiln::tilegpu;
using kiln::layout::Shape;

#include "kiln/Dialect/TileGPU/IR/TileGPUDialect.cpp.inc"
#include "kiln/Dialect/TileGPU/IR/TileGPUAttrInterfaces.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "kiln/Dialect/TileGPU/IR/TileGPUAttrs.cpp.inc"

namespace {
/// Prints layouts once, as `#blocked`/`#slice` aliases at the top of the
/// module, instead of inside every tile type.
struct TileGPUOpAsmInterface : OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;

  AliasResult getAlias(Attribute attr, raw_ostream &os) const override {
    if (isa<BlockedEncodingAttr>(attr)) {
      os << "blocked";
      return AliasResult::FinalAlias;
    }
    if (isa<SliceEncodingAttr>(attr)) {
      os << "slice";
      return AliasResult::FinalAlias;
    }
    if (isa<MmaEncodingAttr>(attr)) {
      os << "mma";
      return AliasResult::FinalAlias;
    }
    if (isa<DotOperandEncodingAttr>(attr)) {
      os << "dot_op";
      return AliasResult::FinalAlias;
    }
    return AliasResult::NoAlias;
  }
};
} // namespace

void TileGPUDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "kiln/Dialect/TileGPU/IR/TileGPUAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "kiln/Dialect/TileGPU/IR/TileGPUOps.cpp.inc"
      >();
  addInterfaces<TileGPUOpAsmInterface>();
}

LogicalResult TileGPUDialect::verifyOperationAttribute(Operation *op,
                                                      NamedAttribute attr) {
  if (attr.getName() != TensorMapAttr::kAttrName)
    return success();
  auto function = dyn_cast<FunctionOpInterface>(op);
  auto maps = dyn_cast<ArrayAttr>(attr.getValue());
  if (!function || !maps ||
      !llvm::all_of(maps, llvm::IsaPred<TensorMapAttr>))
    return op->emitOpError()
           << "'" << attr.getName().getValue()
           << "' is a list of #tilegpu.tensor_map on a function";
  unsigned arguments = function.getNumArguments();
  SmallVector<int64_t> parameters;
  for (auto map : maps.getAsRange<TensorMapAttr>()) {
    if (map.getArgument() >= arguments ||
        llvm::is_contained(parameters, map.getArgument()))
      return op->emitOpError() << "tensor map parameter " << map.getArgument()
                               << " is not a distinct one of its "
                               << arguments << " arguments";
    for (int64_t source : map.getSources())
      if (source >= int64_t(arguments) || source == map.getArgument())
        return op->emitOpError()
               << "tensor map of parameter " << map.getArgument()
               << " is built from argument " << source
               << ", which is not another of its " << arguments
               << " arguments";
    parameters.push_back(map.getArgument());
  }
  return success();
}

/// A tile's rank must be its layout's.
static LogicalResult verifyTileRank(DistributedEncodingAttr encoding,
                                    ArrayRef<int64_t> shape,
                                    function_ref<InFlightDiagnostic()> emitError) {
  if (static_cast<int64_t>(shape.size()) == encoding.getRank())
    return success();
  return emitError() << "a tile of rank " << shape.size()
                     << " cannot have a layout of rank " << encoding.getRank();
}

#define KILN_VERIFY_TILE_RANK(Attr)                                            \
  LogicalResult Attr::verifyEncoding(                                          \
      ArrayRef<int64_t> shape, Type,                                           \
      function_ref<InFlightDiagnostic()> emitError) const {                    \
    return verifyTileRank(*this, shape, emitError);                            \
  }
KILN_VERIFY_TILE_RANK(BlockedEncodingAttr)
KILN_VERIFY_TILE_RANK(SliceEncodingAttr)
KILN_VERIFY_TILE_RANK(MmaEncodingAttr)
KILN_VERIFY_TILE_RANK(DotOperandEncodingAttr)
#undef KILN_VERIFY_TILE_RANK

//===----------------------------------------------------------------------===//
// BlockedEncodingAttr
//===----------------------------------------------------------------------===//

LogicalResult
BlockedEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                            ArrayRef<int64_t> sizePerThread,
                            ArrayRef<int64_t> threadsPerWarp,
                            ArrayRef<int64_t> warpsPerCTA,
                            ArrayRef<int64_t> order) {
  std::string problem = kiln::layout::BlockedLayout::verify(
      Shape(sizePerThread), Shape(threadsPerWarp), Shape(warpsPerCTA),
      Shape(order));
  if (!problem.empty())
    return emitError() << "invalid blocked layout: " << problem;
  return success();
}

std::shared_ptr<const kiln::layout::DistributedLayout>
BlockedEncodingAttr::getLayout() const {
  return std::make_shared<kiln::layout::BlockedLayout>(
      Shape(getSizePerThread()), Shape(getThreadsPerWarp()),
      Shape(getWarpsPerCTA()), Shape(getOrder()));
}

int64_t BlockedEncodingAttr::getRank() const {
  return getSizePerThread().size();
}

//===----------------------------------------------------------------------===//
// SliceEncodingAttr
//===----------------------------------------------------------------------===//

LogicalResult
SliceEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                          int64_t dim, DistributedEncodingAttr parent) {
  if (!parent)
    return emitError() << "the parent of a slice must be a distributed layout";
  if (dim < 0 || dim >= parent.getRank())
    return emitError() << "slice dimension " << dim
                       << " is out of range for a parent of rank "
                       << parent.getRank();
  if (parent.getRank() < 2)
    return emitError() << "a slice needs a parent of rank 2 or more";
  return success();
}

std::shared_ptr<const kiln::layout::DistributedLayout>
SliceEncodingAttr::getLayout() const {
  return std::make_shared<kiln::layout::SliceLayout>(
      getDim(), getParent().getLayout());
}

int64_t SliceEncodingAttr::getRank() const {
  return getParent().getRank() - 1;
}

//===----------------------------------------------------------------------===//
// MmaEncodingAttr
//===----------------------------------------------------------------------===//

LogicalResult
MmaEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        ArrayRef<int64_t> warpsPerCTA, bool warpgroup) {
  if (warpsPerCTA.size() != 2 || warpsPerCTA[0] <= 0 || warpsPerCTA[1] <= 0)
    return emitError() << "an mma layout needs two positive warp counts";
  if (warpgroup && (warpsPerCTA[0] % 4 != 0 || warpsPerCTA[1] != 1))
    return emitError() << "a warpgroup mma layout has its warps along M in "
                          "fours (warpsPerCTA = [4k, 1]), not ["
                       << warpsPerCTA[0] << ", " << warpsPerCTA[1] << "]";
  return success();
}

std::shared_ptr<const kiln::layout::DistributedLayout>
MmaEncodingAttr::getLayout() const {
  return std::make_shared<kiln::layout::MmaLayout>(Shape(getWarpsPerCTA()));
}

int64_t MmaEncodingAttr::getRank() const { return 2; }

//===----------------------------------------------------------------------===//
// DotOperandEncodingAttr
//===----------------------------------------------------------------------===//

LogicalResult
DotOperandEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               unsigned opIdx, MmaEncodingAttr parent,
                               unsigned kWidth) {
  if (opIdx > 1)
    return emitError() << "a dot operand is operand 0 (A) or 1 (B), not "
                       << opIdx;
  if (!parent)
    return emitError() << "the parent of a dot operand must be an mma layout";
  if (kWidth != 1 && kWidth != 2 && kWidth != 4)
    return emitError() << "kWidth is a lane's adjacent K elements per "
                          "group: 1, 2 or 4, not "
                       << kWidth;
  return success();
}

std::shared_ptr<const kiln::layout::DistributedLayout>
DotOperandEncodingAttr::getLayout() const {
  return std::make_shared<kiln::layout::DotOperandLayout>(
      getOpIdx(),
      kiln::layout::MmaLayout(Shape(getParent().getWarpsPerCTA())),
      getKWidth());
}

int64_t DotOperandEncodingAttr::getRank() const { return 2; }

//===----------------------------------------------------------------------===//
// ConvertLayoutOp
//===----------------------------------------------------------------------===//

#define GET_OP_CLASSES
#include "kiln/Dialect/TileGPU/IR/TileGPUOps.cpp.inc"

LogicalResult ConvertLayoutOp::verify() {
  RankedTensorType src = getSrc().getType(), result = getType();
  if (src.getShape() != result.getShape() ||
      src.getElementType() != result.getElementType())
    return emitOpError() << "converts " << src << " to " << result
                         << ": only the layout may change";
  for (RankedTensorType type : {src, result})
    if (!isa_and_present<DistributedEncodingAttr>(type.getEncoding()))
      return emitOpError() << "type " << type
                           << " has no distributed layout encoding";
  return success();
}

OpFoldResult ConvertLayoutOp::fold(FoldAdaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  // Converting a conversion goes straight from the first source.
  if (auto producer = getSrc().getDefiningOp<ConvertLayoutOp>()) {
    if (producer.getSrc().getType() == getType())
      return producer.getSrc();
    getSrcMutable().assign(producer.getSrc());
    return getResult();
  }
  return {};
}

//===----------------------------------------------------------------------===//
// Shared buffers
//===----------------------------------------------------------------------===//

/// Whether `type` is a buffer in shared memory (address space 3).
static bool isShared(MemRefType type) {
  auto space = dyn_cast_or_null<IntegerAttr>(type.getMemorySpace());
  return space && space.getInt() == 3;
}

MemRefType kiln::tilegpu::getSlotBufferType(int64_t stages,
                                            ArrayRef<int64_t> shape,
                                            Type element, bool transposed) {
  MLIRContext *context = element.getContext();
  auto space = IntegerAttr::get(IntegerType::get(context, 64), 3);
  if (shape.size() == 1)
    return MemRefType::get({stages, shape[0]}, element,
                           MemRefLayoutAttrInterface(), space);
  int64_t rows = shape[0], columns = shape[1];
  MemRefLayoutAttrInterface layout;
  if (transposed)
    layout = StridedLayoutAttr::get(context, 0, {rows * columns, 1, rows});
  return MemRefType::get({stages, rows, columns}, element, layout, space);
}

bool kiln::tilegpu::runsOnTensorCores(tile::DotOp dot) {
  return isa_and_present<DotOperandEncodingAttr>(
      cast<RankedTensorType>(dot.getA().getType()).getEncoding());
}

bool kiln::tilegpu::hasTransposedSlots(MemRefType buffer) {
  auto strided = dyn_cast<StridedLayoutAttr>(buffer.getLayout());
  return strided && buffer.getRank() == 3 &&
         strided == StridedLayoutAttr::get(
                        buffer.getContext(), 0,
                        {buffer.getDimSize(1) * buffer.getDimSize(2), 1,
                         buffer.getDimSize(1)});
}

LogicalResult WarpSpecializeOp::verify() {
  auto function = dyn_cast<FunctionOpInterface>((*this)->getParentOp());
  if (!function)
    return emitOpError() << "is in a function's body";
  if (llvm::range_size(function.getFunctionBody().getOps<WarpSpecializeOp>()) !=
      1)
    return emitOpError() << "is the only one of its function";
  // setmaxnreg sets a warpgroup's registers: the producers are warpgroups.
  if (getProducerWarps() % 4)
    return emitOpError() << "has a whole number of producer warpgroups (4 "
                            "warps each), not "
                         << getProducerWarps() << " warps";
  for (int64_t registers : {getProducerRegisters(), getConsumerRegisters()})
    if (registers < 24 || registers > 256 || registers % 8)
      return emitOpError() << "sets 24 to 256 registers a thread, a "
                              "multiple of 8, not "
                           << registers;
  Block &entry = function.getFunctionBody().front();
  WalkResult outside = getProducer().walk([&](Operation *op) {
    for (Value operand : op->getOperands()) {
      auto arg = dyn_cast<BlockArgument>(operand);
      Operation *producer = operand.getDefiningOp();
      if ((arg && arg.getOwner() == &entry) ||
          getProducer().isAncestor(operand.getParentRegion()) ||
          (isa_and_nonnull<LocalAllocOp, TransposeSlotsOp>(producer) &&
           producer->getBlock() == &entry) ||
          (producer && producer->hasTrait<OpTrait::ConstantLike>()))
        continue;
      op->emitOpError() << "in a tilegpu.warp_specialize uses a value from "
                           "outside it other than the function's arguments, "
                           "shared buffers and constants";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(outside.wasInterrupted());
}

LogicalResult LocalAllocOp::verify() {
  auto type = cast<MemRefType>(getBuffer().getType());
  if (!isShared(type) || !type.hasStaticShape() ||
      !(type.getLayout().isIdentity() || hasTransposedSlots(type)))
    return emitOpError() << "allocates static memrefs in address space 3, "
                            "laid out by identity or with transposed slots "
                            "(strides [rows * columns, 1, rows]), not "
                         << type;
  return success();
}

/// Checks that a tile of `tile` fits one slot of `buffer`.
static LogicalResult verifySlot(Operation *op, MemRefType buffer,
                                ArrayRef<int64_t> shape, Type element) {
  if (!isShared(buffer))
    return op->emitOpError() << "needs a buffer in shared memory (address "
                                "space 3), not "
                             << buffer;
  if (buffer.getShape().drop_front() != shape ||
      buffer.getElementType() != element)
    return op->emitOpError()
           << "a slot of " << buffer << " does not hold a tile of "
           << shape.size() << " dimensions " << element
           << " of that shape";
  return success();
}

LogicalResult AsyncCopyOp::verify() {
  auto ptrs = cast<RankedTensorType>(getPtrs().getType());
  if (getMask() &&
      cast<RankedTensorType>(getMask().getType()).getShape() !=
          ptrs.getShape())
    return emitOpError() << "mask and pointers differ in shape";
  auto pointee =
      cast<kiln::tile::PointerType>(ptrs.getElementType()).getPointeeType();
  return verifySlot(*this, getBuffer().getType(), ptrs.getShape(), pointee);
}

LogicalResult
TensorMapAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      int64_t argument, Type elementType, ArrayRef<int64_t> box,
                      int64_t swizzle, ArrayRef<int64_t> sources,
                      ArrayRef<int64_t> values) {
  if (argument < 0)
    return emitError() << "tensor map argument " << argument
                       << " is not a parameter";
  if (!elementType.isIntOrFloat())
    return emitError() << "tensor map elements must be integers or floats, "
                          "not "
                       << elementType;
  // The limits of cuTensorMapEncodeTiled.
  if (box.size() != 2 || llvm::any_of(box, [](int64_t size) {
        return size <= 0 || size > 256;
      }))
    return emitError() << "a tensor map box has two sizes from 1 to 256";
  if (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128)
    return emitError() << "tensor map swizzle " << swizzle
                       << " is not 0, 32, 64 or 128 bytes";
  if (sources.size() != NumFields || values.size() != NumFields)
    return emitError() << "a tensor map has " << int(NumFields)
                       << " sources and values: base, rows, columns, row "
                          "stride";
  for (auto [field, source, value] : llvm::enumerate(sources, values)) {
    if (source < -1 || (source == -1 && field == Base))
      return emitError() << "tensor map source " << source
                         << " is not an argument"
                         << (field == Base ? "" : " or -1 (a constant)");
    if (source >= 0 && value != 4 && value != 8)
      return emitError() << "tensor map argument " << source << " of " << value
                         << " bytes: arguments are 4 or 8 bytes";
  }
  return success();
}

LogicalResult TensorMapCopyOp::verify() {
  auto blockType = cast<kiln::tile::BlockPointerType>(getBlockPtr().getType());
  if (blockType.getShape().size() != 2)
    return emitOpError() << "copies 2-D blocks, not " << blockType;
  if (getTensorMap().getType().getAddressSpace() != 0)
    return emitOpError() << "reads the tensor map through a generic pointer "
                            "(address space 0)";
  MemRefType barriers = getBarriers().getType();
  if (!isShared(barriers) ||
      barriers.getDimSize(0) != getBuffer().getType().getDimSize(0))
    return emitOpError() << "needs one mbarrier in shared memory per slot, "
                            "not "
                         << barriers;
  return verifySlot(*this, getBuffer().getType(), blockType.getShape(),
                    blockType.getElementType());
}

LogicalResult TensorMapStoreOp::verify() {
  auto blockType = cast<kiln::tile::BlockPointerType>(getBlockPtr().getType());
  auto valueType = cast<RankedTensorType>(getValue().getType());
  if (blockType.getShape().size() != 2)
    return emitOpError() << "stores 2-D blocks, not " << blockType;
  if (valueType.getShape() != blockType.getShape() ||
      valueType.getElementType() != blockType.getElementType())
    return emitOpError() << "stores a tile of the block's shape and element "
                            "type ("
                         << blockType << "), not " << valueType;
  if (getTensorMap().getType().getAddressSpace() != 0)
    return emitOpError() << "reads the tensor map through a generic pointer "
                            "(address space 0)";
  return success();
}

LogicalResult LocalStoreOp::verify() {
  auto value = cast<RankedTensorType>(getValue().getType());
  return verifySlot(*this, getBuffer().getType(), value.getShape(),
                    value.getElementType());
}

LogicalResult TransposeSlotsOp::verify() {
  MemRefType buffer = getBuffer().getType();
  if (!isShared(buffer) ||
      !(buffer.getLayout().isIdentity() || hasTransposedSlots(buffer)))
    return emitOpError() << "views a buffer of slots in shared memory, laid "
                            "out by identity or with transposed slots, not "
                         << buffer;
  MemRefType expected = getSlotBufferType(
      buffer.getDimSize(0), {buffer.getDimSize(2), buffer.getDimSize(1)},
      buffer.getElementType(), !hasTransposedSlots(buffer));
  if (getType() != expected)
    return emitOpError() << "views " << buffer << " as " << expected
                         << ", not " << getType();
  return success();
}

LogicalResult LocalLoadOp::verify() {
  auto result = cast<RankedTensorType>(getType());
  return verifySlot(*this, getBuffer().getType(), result.getShape(),
                    result.getElementType());
}

LogicalResult WarpgroupDotOp::verify() {
  auto acc = cast<RankedTensorType>(getAcc().getType());
  auto mma = dyn_cast_or_null<MmaEncodingAttr>(acc.getEncoding());
  if (acc.getRank() != 2 || !mma || !mma.getWarpgroup())
    return emitOpError() << "accumulates into a 2-D tile with a warpgroup "
                            "mma layout, not "
                         << acc;
  MemRefType b = getB().getType();
  auto aBuffer = dyn_cast<MemRefType>(getA().getType());
  if (!isShared(b) || (aBuffer && !isShared(aBuffer)))
    return emitOpError() << "reads its operands from shared memory (address "
                            "space 3)";
  if (bool(aBuffer) != bool(getASlot()))
    return emitOpError() << "takes a slot for A exactly when A is a buffer";
  if (aBuffer && hasTransposedSlots(aBuffer))
    return emitOpError() << "reads A K-major from its slot, not from a "
                            "transposed one";
  ShapedType a = cast<ShapedType>(getA().getType());
  if (!aBuffer) {
    auto operand = dyn_cast_or_null<DotOperandEncodingAttr>(
        cast<RankedTensorType>(a).getEncoding());
    if (!operand || operand.getOpIdx() != 0 || operand.getParent() != mma ||
        operand.getKWidth() != 2)
      return emitOpError() << "takes A in registers only as a dot operand "
                              "(opIdx 0, kWidth 2) of the accumulator's "
                              "layout, not "
                           << a;
  }
  Type element = a.getElementType();
  Type accElement = acc.getElementType();
  bool isInteger = element.isInteger(8);
  auto isFloat8 = [](Type type) {
    return isa<Float8E4M3FNType, Float8E5M2Type>(type);
  };
  bool sameKind = b.getElementType() == element ||
                  (isFloat8(element) && isFloat8(b.getElementType()));
  if (!sameKind || !(element.isF16() || element.isBF16() || element.isF32() ||
                     isInteger || isFloat8(element)))
    return emitOpError() << "multiplies f16, bf16, f32 (as tf32), i8 or 8-bit "
                            "float (f8E4M3FN, f8E5M2) operands of one type, "
                            "not "
                         << element << " and " << b.getElementType();
  if (accElement != (isInteger ? Type(IntegerType::get(getContext(), 32))
                               : Type(Float32Type::get(getContext()))))
    return emitOpError() << "accumulates " << element << " products in "
                         << (isInteger ? "i32" : "f32") << ", not "
                         << accElement;
  if (readsKMajorOnly(element) &&
      (!aBuffer || hasTransposedSlots(aBuffer) || !hasTransposedSlots(b)))
    return emitOpError() << "reads " << element
                         << " operands K-major only: A from a slot, B from "
                            "a transposed slot";
  ArrayRef<int64_t> aShape = a.getShape().take_back(2);
  int64_t m = acc.getDimSize(0), n = acc.getDimSize(1), k = aShape[1];
  if (aShape[0] != m || b.getDimSize(1) != k || b.getDimSize(2) != n)
    return emitOpError() << "operands " << a << " and " << b
                         << " are not M x K and K x N operands of a " << m
                         << "x" << n << " accumulator";
  int64_t rows = 16 * mma.getWarpsPerCTA()[0], instrK = getInstrK(element);
  if (m % rows != 0 || k % instrK != 0 || n % 16 != 0)
    return emitOpError() << "needs M a multiple of " << rows
                         << " (16 rows per warp), K of " << instrK
                         << " and N of 16, not " << m << "x" << n << "x" << k
                         << " (MxNxK)";
  return success();
}
