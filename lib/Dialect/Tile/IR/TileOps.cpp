//===- TileOps.cpp - Operations of the tile dialect -----------------------===//
//
// Verifiers, memory effects and custom assembly directives. Folds and
// canonicalization patterns live in TileCanonicalize.cpp.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/IR/InlineAsm.h"

using namespace mlir;
using namespace kiln::tile;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// The shape of a tile, or the empty shape of a scalar.
static ArrayRef<int64_t> shapeOf(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.getShape();
  return {};
}

/// A shape as written in IR ("128x64"); "scalar" for the empty shape of a
/// scalar value.
static std::string shapeString(ArrayRef<int64_t> shape, bool isTensor = true) {
  if (!isTensor)
    return "scalar";
  std::string result;
  llvm::raw_string_ostream os(result);
  llvm::interleave(shape, os, "x");
  return result;
}

static std::string shapeString(Type type) {
  return shapeString(shapeOf(type), isa<RankedTensorType>(type));
}

/// Whether two values are both scalars or both tiles of the same shape.
static bool haveSameShape(Type lhs, Type rhs) {
  return isa<RankedTensorType>(lhs) == isa<RankedTensorType>(rhs) &&
         shapeOf(lhs) == shapeOf(rhs);
}

/// Whether two types are the same but for the layout encoding of tiles,
/// which GPU passes add and which does not change what a value is.
static bool equalIgnoringEncoding(Type lhs, Type rhs) {
  auto lhsTensor = dyn_cast<RankedTensorType>(lhs);
  auto rhsTensor = dyn_cast<RankedTensorType>(rhs);
  if (!lhsTensor || !rhsTensor)
    return lhs == rhs;
  return lhsTensor.getShape() == rhsTensor.getShape() &&
         lhsTensor.getElementType() == rhsTensor.getElementType();
}

/// `elementType` with the shape (and layout) of `like`: a tile if `like` is
/// one, else the scalar itself.
static Type withShapeOf(Type like, Type elementType) {
  if (auto tensor = dyn_cast<RankedTensorType>(like))
    return RankedTensorType::get(tensor.getShape(), elementType,
                                 tensor.getEncoding());
  return elementType;
}

/// The value type that pointers of type `ptrLike` point to, shaped like them.
static Type pointeeValueType(Type ptrLike) {
  auto ptr = cast<PointerType>(getElementTypeOrSelf(ptrLike));
  return withShapeOf(ptrLike, ptr.getPointeeType());
}

/// Checks that `mask`, when present, has the shape of `ptr`.
static LogicalResult verifyMask(Operation *op, Value ptr, Value mask) {
  if (!mask)
    return success();
  if (haveSameShape(mask.getType(), ptr.getType()))
    return success();
  return op->emitOpError() << "mask shape " << shapeString(mask.getType())
                           << " does not match pointer shape "
                           << shapeString(ptr.getType());
}

/// Checks that `value` has the type the pointers `ptr` point to.
static LogicalResult verifyPointee(Operation *op, Value ptr, Type valueType,
                                   StringRef what) {
  Type expected = pointeeValueType(ptr.getType());
  if (equalIgnoringEncoding(valueType, expected))
    return success();
  return op->emitOpError() << what << " type " << valueType
                           << " does not match the pointee type " << expected
                           << " of pointer type " << ptr.getType();
}

/// Checks that `dims` names distinct dimensions of a rank-`rank` value.
static LogicalResult verifyDimList(Operation *op, ArrayRef<int32_t> dims,
                                   int64_t rank, StringRef what) {
  llvm::SmallBitVector seen(rank);
  for (int32_t dim : dims) {
    if (dim < 0 || dim >= rank)
      return op->emitOpError() << what << " dimension " << dim
                               << " is out of range for rank " << rank;
    if (seen.test(dim))
      return op->emitOpError() << what << " lists dimension " << dim
                               << " twice";
    seen.set(dim);
  }
  return success();
}

/// Checks that `order` is a permutation of the dimensions of a rank-`rank`
/// value.
static LogicalResult verifyPermutation(Operation *op, ArrayRef<int32_t> order,
                                       int64_t rank) {
  if (static_cast<int64_t>(order.size()) != rank)
    return op->emitOpError() << "order has " << order.size()
                             << " entries but the rank is " << rank;
  return verifyDimList(op, order, rank, "order");
}

/// Checks that a shape operation keeps the element type.
static LogicalResult verifySameElementType(Operation *op,
                                           RankedTensorType srcType,
                                           RankedTensorType resultType) {
  if (srcType.getElementType() == resultType.getElementType())
    return success();
  return op->emitOpError() << "result element type "
                           << resultType.getElementType()
                           << " does not match source element type "
                           << srcType.getElementType();
}

/// Checks a result type that the operands determine.
static LogicalResult verifyResultType(Operation *op, Type resultType,
                                      Type expectedType) {
  if (equalIgnoringEncoding(resultType, expectedType))
    return success();
  return op->emitOpError() << "result type " << resultType
                           << " does not match the expected type "
                           << expectedType;
}

//===----------------------------------------------------------------------===//
// Custom assembly directives
//===----------------------------------------------------------------------===//

/// Parses `, %mask` and, when `other` is given, `, other %other`. Unlike an
/// optional group, a comma must be followed by the operand it announces.
static ParseResult
parseMaskAndOther(OpAsmParser &parser,
                  std::optional<OpAsmParser::UnresolvedOperand> &mask,
                  std::optional<OpAsmParser::UnresolvedOperand> *other =
                      nullptr) {
  if (failed(parser.parseOptionalComma()))
    return success();
  mask.emplace();
  if (parser.parseOperand(*mask))
    return failure();
  if (!other || failed(parser.parseOptionalComma()))
    return success();
  other->emplace();
  return failure(parser.parseKeyword("other") || parser.parseOperand(**other));
}

static ParseResult
parseMaskAndOther(OpAsmParser &parser,
                  std::optional<OpAsmParser::UnresolvedOperand> &mask,
                  std::optional<OpAsmParser::UnresolvedOperand> &other) {
  return parseMaskAndOther(parser, mask, &other);
}

static void printMaskAndOther(OpAsmPrinter &printer, Operation *, Value mask,
                              Value other = {}) {
  if (mask)
    printer << ", " << mask;
  if (other)
    printer << ", other " << other;
}

/// Parses the type of pointers and derives the type of their mask, `i1`
/// shaped like them, when the mask is present.
static ParseResult
parsePtrAndMaskTypes(OpAsmParser &parser, Type &ptrType,
                     std::optional<OpAsmParser::UnresolvedOperand> mask,
                     Type &maskType) {
  if (parser.parseType(ptrType))
    return failure();
  if (mask)
    maskType = withShapeOf(ptrType, parser.getBuilder().getI1Type());
  return success();
}

static void printPtrAndMaskTypes(OpAsmPrinter &printer, Operation *,
                                 Type ptrType, Value, Type) {
  printer << ptrType;
}

/// Parses a type and gives it to an optional operand too, when present.
static ParseResult parseTypeAndOptionalOperandType(
    OpAsmParser &parser, Type &type,
    std::optional<OpAsmParser::UnresolvedOperand> operand, Type &operandType) {
  if (parser.parseType(type))
    return failure();
  if (operand)
    operandType = type;
  return success();
}

static void printTypeAndOptionalOperandType(OpAsmPrinter &printer,
                                            Operation *, Type type, Value,
                                            Type) {
  printer << type;
}

#define GET_OP_CLASSES
#include "kiln/Dialect/Tile/IR/TileOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Making and reshaping tiles
//===----------------------------------------------------------------------===//

LogicalResult RangeOp::verify() {
  int64_t start = getStart(), end = getEnd();
  if (end <= start)
    return emitOpError() << "end (" << end << ") must be greater than start ("
                         << start << ")";
  auto type = getType();
  if (type.getRank() != 1 || type.getDimSize(0) != end - start)
    return emitOpError() << "result shape " << shapeString(type)
                         << " does not match the range size " << end - start;
  return success();
}

LogicalResult SplatOp::verify() {
  Type elementType = getType().getElementType();
  if (elementType != getSrc().getType())
    return emitOpError() << "result element type " << elementType
                         << " does not match source type "
                         << getSrc().getType();
  return success();
}

LogicalResult BroadcastOp::verify() {
  RankedTensorType srcType = getSrc().getType(), resultType = getType();
  if (failed(verifySameElementType(*this, srcType, resultType)))
    return failure();
  if (srcType.getRank() != resultType.getRank())
    return emitOpError() << "source shape " << shapeString(srcType)
                         << " and result shape " << shapeString(resultType)
                         << " have different ranks";
  for (auto [dim, sizes] : llvm::enumerate(
           llvm::zip(srcType.getShape(), resultType.getShape()))) {
    auto [srcSize, resultSize] = sizes;
    if (srcSize != resultSize && srcSize != 1)
      return emitOpError() << "source shape " << shapeString(srcType)
                           << " cannot be broadcast to result shape "
                           << shapeString(resultType) << " (dimension " << dim
                           << " is " << srcSize << ", not 1 or " << resultSize
                           << ")";
  }
  return success();
}

LogicalResult ExpandDimsOp::verify() {
  RankedTensorType srcType = getSrc().getType(), resultType = getType();
  int64_t axis = getAxis();
  if (axis < 0 || axis > srcType.getRank())
    return emitOpError() << "axis " << axis
                         << " is out of range for source shape "
                         << shapeString(srcType);
  SmallVector<int64_t> expected(srcType.getShape());
  expected.insert(expected.begin() + axis, 1);
  auto expectedType =
      RankedTensorType::get(expected, srcType.getElementType());
  return verifyResultType(*this, resultType, expectedType);
}

LogicalResult ReshapeOp::verify() {
  RankedTensorType srcType = getSrc().getType(), resultType = getType();
  if (failed(verifySameElementType(*this, srcType, resultType)))
    return failure();
  if (srcType.getNumElements() != resultType.getNumElements())
    return emitOpError() << "source shape " << shapeString(srcType) << " has "
                         << srcType.getNumElements()
                         << " elements but result shape "
                         << shapeString(resultType) << " has "
                         << resultType.getNumElements();
  return success();
}

LogicalResult TransOp::verify() {
  RankedTensorType srcType = getSrc().getType(), resultType = getType();
  if (failed(verifyPermutation(*this, getOrder(), srcType.getRank())))
    return failure();
  SmallVector<int64_t> expected;
  for (int32_t dim : getOrder())
    expected.push_back(srcType.getDimSize(dim));
  auto expectedType =
      RankedTensorType::get(expected, srcType.getElementType());
  return verifyResultType(*this, resultType, expectedType);
}

LogicalResult GatherOp::verify() {
  RankedTensorType srcType = getSrc().getType();
  RankedTensorType indexType = getIndex().getType();
  int64_t rank = srcType.getRank();
  if (indexType.getRank() != rank)
    return emitOpError() << "index has rank " << indexType.getRank()
                         << " but the source has rank " << rank;
  int32_t axis = getAxis();
  if (axis < 0 || axis >= rank)
    return emitOpError() << "axis " << axis << " is not a dimension of a "
                         << "rank-" << rank << " source";
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis && indexType.getDimSize(d) != srcType.getDimSize(d))
      return emitOpError() << "index dimension " << d << " has size "
                           << indexType.getDimSize(d)
                           << " but the source's has "
                           << srcType.getDimSize(d);
  auto expectedType =
      RankedTensorType::get(indexType.getShape(), srcType.getElementType());
  return verifyResultType(*this, getType(), expectedType);
}

//===----------------------------------------------------------------------===//
// Pointers and memory
//===----------------------------------------------------------------------===//

LogicalResult AddPtrOp::verify() {
  if (!haveSameShape(getOffset().getType(), getPtr().getType()))
    return emitOpError() << "offset shape " << shapeString(getOffset().getType())
                         << " does not match pointer shape "
                         << shapeString(getPtr().getType());
  return success();
}

LogicalResult LoadOp::verify() {
  if (failed(verifyMask(*this, getPtr(), getMask())) ||
      failed(verifyPointee(*this, getPtr(), getType(), "result")))
    return failure();
  if (getOther() && getOther().getType() != getType())
    return emitOpError() << "other type " << getOther().getType()
                         << " does not match result type " << getType();
  if (getOther() && !getMask())
    return emitOpError() << "has an other value but no mask";
  return success();
}

void LoadOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Read::get(), &getPtrMutable(),
                       SideEffects::DefaultResource::get());
  // A write too, so that no transformation merges, hoists or drops it.
  if (getIsVolatile())
    effects.emplace_back(MemoryEffects::Write::get(), &getPtrMutable(),
                         SideEffects::DefaultResource::get());
}

LogicalResult StoreOp::verify() {
  if (failed(verifyMask(*this, getPtr(), getMask())))
    return failure();
  return verifyPointee(*this, getPtr(), getValue().getType(), "value");
}

void StoreOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Write::get(), &getPtrMutable(),
                       SideEffects::DefaultResource::get());
}

LogicalResult PrintOp::verify() {
  // Each line shows one element of every operand at the same index.
  auto shapeOf = [](Value value) -> ArrayRef<int64_t> {
    if (auto tensor = dyn_cast<RankedTensorType>(value.getType()))
      return tensor.getShape();
    return {};
  };
  for (auto [i, value] : llvm::enumerate(getValues()))
    if (shapeOf(value) != shapeOf(getValues().front()))
      return emitOpError() << "operand #" << i << " of type "
                           << value.getType() << " does not have the shape of "
                           << "operand #0, of type "
                           << getValues().front().getType();
  return success();
}

int64_t InlineAsmElementwiseOp::getElementsPerOperand(Type type) {
  Type element = getElementTypeOrSelf(type);
  // A pointer is a 64-bit address.
  int64_t width = element.isIntOrFloat() ? element.getIntOrFloatBitWidth() : 64;
  if (width >= 32)
    return 1;
  return std::min<int64_t>(32 / width, getPackedElement());
}

/// The types of an op's operands, then of its results, each with its name
/// in messages ("operand #0", "result #1").
static SmallVector<std::pair<std::string, Type>>
nameOperandsAndResults(TypeRange operands, TypeRange results) {
  SmallVector<std::pair<std::string, Type>> values;
  for (auto [i, type] : llvm::enumerate(operands))
    values.emplace_back("operand #" + std::to_string(i), type);
  for (auto [i, type] : llvm::enumerate(results))
    values.emplace_back("result #" + std::to_string(i), type);
  return values;
}

/// Checks that `values` (nameOperandsAndResults) are all scalars or all
/// tiles of one shape and layout: an op that computes on the elements at
/// one index of each, as a GPU thread holds them, needs no more.
static LogicalResult
verifyOneShapeAndLayout(Operation *op,
                        ArrayRef<std::pair<std::string, Type>> values) {
  auto [firstName, firstType] = values.front();
  for (auto &[name, type] : values) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    auto firstTensor = dyn_cast<RankedTensorType>(firstType);
    if (!haveSameShape(type, firstType) ||
        (tensor && tensor.getEncoding() != firstTensor.getEncoding()))
      return op->emitOpError()
             << name << " of type " << type << " does not have the shape "
             << "and layout of " << firstName << ", of type " << firstType
             << ": the operands and results are all scalars or all tiles of "
                "one shape";
  }
  return success();
}

LogicalResult InlineAsmElementwiseOp::verify() {
  int64_t pack = getPackedElement();
  if (pack < 1)
    return emitOpError() << "pack " << pack << " is not positive";

  SmallVector<std::pair<std::string, Type>> values =
      nameOperandsAndResults(getArgs().getTypes(), getResultTypes());
  if (values.empty())
    return emitOpError() << "has no operands and no results";
  // One invocation takes elements at the same index of every tile.
  if (failed(verifyOneShapeAndLayout(*this, values)))
    return failure();

  // Elements narrower than 32 bits go in whole 32-bit registers.
  int64_t outputs = 0, inputs = 0;
  for (auto [index, value] : llvm::enumerate(values)) {
    auto &[name, type] = value;
    Type element = getElementTypeOrSelf(type);
    if (element.isIntOrFloat() && element.getIntOrFloatBitWidth() == 0)
      return emitOpError() << name << " has elements of type " << element
                           << ", which has no bits to put in a register";
    int64_t perOperand = getElementsPerOperand(type);
    if (pack % perOperand != 0)
      return emitOpError() << "pack " << pack << " does not fill whole 32-bit "
                           << "registers of " << element << " (" << perOperand
                           << " to a register) for " << name << ": pack at "
                           << "most " << perOperand << " or a multiple of "
                           << perOperand;
    (index < getArgs().size() ? inputs : outputs) += pack / perOperand;
  }

  // LLVM takes an inline assembly whose constraints do not match its
  // operands without a word and then miscompiles or crashes: check them as
  // LLVM's InlineAsm::verify would.
  StringRef constraints = getConstraints();
  llvm::InlineAsm::ConstraintInfoVector infos =
      llvm::InlineAsm::ParseConstraints(constraints);
  if (infos.empty() && !constraints.empty())
    return emitOpError() << "constraints \"" << constraints
                         << "\" are not an LLVM constraint string";
  int64_t foundOutputs = 0, foundInputs = 0, clobbers = 0;
  for (auto [i, info] : llvm::enumerate(infos)) {
    if (info.isIndirect || info.Type == llvm::InlineAsm::isLabel)
      return emitOpError() << "constraint #" << i << " of \"" << constraints
                           << "\" is an indirect or label operand; elementwise "
                              "assembly takes and gives only values";
    if (info.Type == llvm::InlineAsm::isOutput && (foundInputs || clobbers))
      return emitOpError() << "output constraint #" << i << " of \""
                           << constraints
                           << "\" comes after an input or a clobber";
    if (info.Type == llvm::InlineAsm::isInput && clobbers)
      return emitOpError() << "input constraint #" << i << " of \""
                           << constraints << "\" comes after a clobber";
    foundOutputs += info.Type == llvm::InlineAsm::isOutput;
    foundInputs += info.Type == llvm::InlineAsm::isInput;
    clobbers += info.Type == llvm::InlineAsm::isClobber;
  }
  if (foundOutputs != outputs || foundInputs != inputs)
    return emitOpError() << "constraints \"" << constraints << "\" list "
                         << foundOutputs << " output(s) and " << foundInputs
                         << " input(s), but with pack " << pack << " the "
                         << getNumResults() << " result(s) take " << outputs
                         << " and the " << getArgs().size()
                         << " operand(s) take " << inputs;
  return success();
}

/// The effects of code the compiler cannot see into (inline assembly, an
/// external function): none when the op says it is `pure`, else reading
/// and writing anything.
static void getOpaqueEffects(
    bool pure,
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  if (pure)
    return;
  effects.emplace_back(MemoryEffects::Read::get(),
                       SideEffects::DefaultResource::get());
  effects.emplace_back(MemoryEffects::Write::get(),
                       SideEffects::DefaultResource::get());
}

void InlineAsmElementwiseOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  getOpaqueEffects(getPure(), effects);
}

Speculation::Speculatability InlineAsmElementwiseOp::getSpeculatability() {
  return getPure() ? Speculation::Speculatable : Speculation::NotSpeculatable;
}

LogicalResult AtomicRMWOp::verify() {
  if (failed(verifyMask(*this, getPtr(), getMask())) ||
      failed(verifyPointee(*this, getPtr(), getValue().getType(), "value")))
    return failure();
  Type elementType = getElementTypeOrSelf(getValue().getType());
  if (isa<FloatType>(elementType)) {
    switch (getKind()) {
    case AtomicRMWKind::Add:
    case AtomicRMWKind::Max:
    case AtomicRMWKind::Min:
    case AtomicRMWKind::Xchg:
      return success();
    default:
      return emitOpError() << "'" << stringifyAtomicRMWKind(getKind())
                           << "' is not defined on float type "
                           << elementType;
    }
  }
  if (!isa<IntegerType>(elementType))
    return emitOpError() << "value element type " << elementType
                         << " is not an integer or float type";
  return success();
}

/// An atomic reads and writes through its pointers.
static void addReadWriteEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects,
    OpOperand &ptr) {
  effects.emplace_back(MemoryEffects::Read::get(), &ptr,
                       SideEffects::DefaultResource::get());
  effects.emplace_back(MemoryEffects::Write::get(), &ptr,
                       SideEffects::DefaultResource::get());
}

void AtomicRMWOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  addReadWriteEffects(effects, getPtrMutable());
}

LogicalResult AtomicCASOp::verify() {
  if (failed(verifyPointee(*this, getPtr(), getValue().getType(), "value")))
    return failure();
  Type elementType = getElementTypeOrSelf(getValue().getType());
  unsigned bits = elementType.isIntOrFloat()
                      ? elementType.getIntOrFloatBitWidth()
                      : 0;
  if (bits != 16 && bits != 32 && bits != 64)
    return emitOpError() << "compares and swaps integers or floats of 16, 32 "
                            "or 64 bits, not "
                         << elementType;
  return success();
}

void AtomicCASOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  addReadWriteEffects(effects, getPtrMutable());
}

/// Checks a pointer/integer conversion: same shape, and 64-bit integers,
/// the width of a global address.
static LogicalResult verifyPtrIntCast(Operation *op, Type ptrLike,
                                      Type intLike) {
  if (!haveSameShape(ptrLike, intLike))
    return op->emitOpError() << "source shape " << shapeString(op->getOperand(0).getType())
                             << " does not match result shape "
                             << shapeString(op->getResult(0).getType());
  if (!getElementTypeOrSelf(intLike).isInteger(64))
    return op->emitOpError() << "integer type " << intLike
                             << " must have 64-bit elements";
  return success();
}

LogicalResult PtrToIntOp::verify() {
  return verifyPtrIntCast(*this, getSrc().getType(), getType());
}

LogicalResult IntToPtrOp::verify() {
  return verifyPtrIntCast(*this, getType(), getSrc().getType());
}

LogicalResult PtrCastOp::verify() {
  Type srcType = getSrc().getType(), resultType = getType();
  if (!haveSameShape(srcType, resultType))
    return emitOpError() << "source shape " << shapeString(srcType)
                         << " does not match result shape "
                         << shapeString(resultType);
  auto srcPtr = cast<PointerType>(getElementTypeOrSelf(srcType));
  auto resultPtr = cast<PointerType>(getElementTypeOrSelf(resultType));
  if (srcPtr.getAddressSpace() != resultPtr.getAddressSpace())
    return emitOpError() << "cannot change address space "
                         << srcPtr.getAddressSpace() << " to "
                         << resultPtr.getAddressSpace();
  return success();
}

LogicalResult AssumeOp::verify() {
  int64_t rank = std::max<int64_t>(1, shapeOf(getSrc().getType()).size());
  auto check = [&](std::optional<ArrayRef<int64_t>> facts,
                   StringRef name) -> LogicalResult {
    if (!facts)
      return success();
    if (static_cast<int64_t>(facts->size()) != rank)
      return emitOpError() << name << " has " << facts->size()
                           << " entries for a value of rank " << rank;
    for (int64_t fact : *facts)
      if (fact < 1)
        return emitOpError() << name << " must be positive, found " << fact;
    return success();
  };
  return failure(failed(check(getDivisibility(), "divisibility")) ||
                 failed(check(getContiguity(), "contiguity")) ||
                 failed(check(getConstancy(), "constancy")));
}

//===----------------------------------------------------------------------===//
// Block pointers
//===----------------------------------------------------------------------===//

LogicalResult MakeBlockPtrOp::verify() {
  BlockPointerType type = getType();
  int64_t rank = type.getShape().size();
  auto checkCount = [&](ValueRange values, StringRef what) -> LogicalResult {
    if (static_cast<int64_t>(values.size()) == rank)
      return success();
    return emitOpError() << "has " << values.size() << " " << what
                         << " for a block of rank " << rank;
  };
  if (failed(checkCount(getShape(), "sizes")) ||
      failed(checkCount(getStrides(), "strides")) ||
      failed(checkCount(getOffsets(), "offsets")) ||
      failed(verifyPermutation(*this, getOrder(), rank)))
    return failure();
  Type pointee = getBase().getType().getPointeeType();
  if (pointee != type.getElementType())
    return emitOpError() << "base pointee type " << pointee
                         << " does not match block element type "
                         << type.getElementType();
  if (getBase().getType().getAddressSpace() != 1)
    return emitOpError() << "base must point to global memory (address "
                            "space 1), not address space "
                         << getBase().getType().getAddressSpace();
  return success();
}

LogicalResult AdvanceOp::verify() {
  int64_t rank = getBlockPtr().getType().getShape().size();
  if (static_cast<int64_t>(getOffsets().size()) != rank)
    return emitOpError() << "has " << getOffsets().size()
                         << " offsets for a block of rank " << rank;
  return success();
}

/// Checks that `value` is the tile the block pointer `blockPtr` describes and
/// that `boundaryCheck` names its dimensions.
static LogicalResult verifyBlockAccess(Operation *op, BlockPointerType blockPtr,
                                       Type value, StringRef what,
                                       ArrayRef<int32_t> boundaryCheck) {
  RankedTensorType expected = blockPtr.getBlockTensorType();
  if (!equalIgnoringEncoding(value, expected))
    return op->emitOpError() << what << " type " << value
                             << " does not match the block type " << expected;
  return verifyDimList(op, boundaryCheck, expected.getRank(),
                       "boundary_check");
}

LogicalResult BlockLoadOp::verify() {
  Type elementType = getBlockPtr().getType().getElementType();
  if (getPadding() == PaddingOption::NaN && !isa<FloatType>(elementType))
    return emitOpError() << "padding nan needs float elements, not "
                         << elementType;
  return verifyBlockAccess(*this, getBlockPtr().getType(), getType(), "result",
                           getBoundaryCheck());
}

void BlockLoadOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Read::get(), &getBlockPtrMutable(),
                       SideEffects::DefaultResource::get());
}

LogicalResult BlockStoreOp::verify() {
  return verifyBlockAccess(*this, getBlockPtr().getType(),
                           getValue().getType(), "value", getBoundaryCheck());
}

void BlockStoreOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Write::get(), &getBlockPtrMutable(),
                       SideEffects::DefaultResource::get());
}

//===----------------------------------------------------------------------===//
// Matrix multiplication
//===----------------------------------------------------------------------===//

/// The accumulator element type `tile.dot` allows for inputs of `input`.
static bool isValidDotAccumulator(Type input, Type acc) {
  if (input.isInteger(8))
    return acc.isInteger(32);
  if (input.isF16())
    return acc.isF32() || acc.isF16();
  if (input.isF64())
    return acc.isF64();
  return acc.isF32();
}

static bool isValidDotInput(Type type) {
  return type.isF16() || type.isBF16() || type.isF32() || type.isF64() ||
         type.isInteger(8) || isa<Float8E4M3FNType, Float8E5M2Type>(type);
}

LogicalResult DotOp::verify() {
  RankedTensorType aType = getA().getType(), bType = getB().getType(),
                   accType = getAcc().getType();
  int64_t rank = aType.getRank();
  if (rank != 2 && rank != 3)
    return emitOpError() << "operand a must be 2-D (or 3-D with a batch "
                            "dimension), but has shape "
                         << shapeString(aType);
  if (bType.getRank() != rank || accType.getRank() != rank)
    return emitOpError() << "operands a (" << shapeString(aType) << "), b ("
                         << shapeString(bType) << ") and acc ("
                         << shapeString(accType) << ") must have one rank";
  ArrayRef<int64_t> a = aType.getShape(), b = bType.getShape(),
                    acc = accType.getShape();
  if (rank == 3 && (a[0] != b[0] || a[0] != acc[0]))
    return emitOpError() << "batch sizes of a (" << shapeString(aType)
                         << "), b (" << shapeString(bType) << ") and acc ("
                         << shapeString(accType) << ") differ";
  int64_t m = a[rank - 2], k = a[rank - 1], n = b[rank - 1];
  if (b[rank - 2] != k)
    return emitOpError() << "reduction sizes differ: a is "
                         << shapeString(aType) << " and b is "
                         << shapeString(bType);
  if (acc[rank - 2] != m || acc[rank - 1] != n)
    return emitOpError() << "accumulator shape " << shapeString(accType)
                         << " does not match the product shape " << m << "x"
                         << n << " of a (" << shapeString(aType)
                         << ") and b (" << shapeString(bType) << ")";
  Type aElem = aType.getElementType(), bElem = bType.getElementType(),
       accElem = accType.getElementType();
  if (!isValidDotInput(aElem))
    return emitOpError() << "operand element type " << aElem
                         << " is not one of f16, bf16, f32, f64, f8E4M3FN, "
                            "f8E5M2, i8";
  bool bothF8 = isa<Float8E4M3FNType, Float8E5M2Type>(aElem) &&
                isa<Float8E4M3FNType, Float8E5M2Type>(bElem);
  if (aElem != bElem && !bothF8)
    return emitOpError() << "operand element types differ: a has " << aElem
                         << " and b has " << bElem;
  if (!isValidDotAccumulator(aElem, accElem))
    return emitOpError() << "accumulator element type " << accElem
                         << " is not allowed for " << aElem << " inputs";
  if (getInputPrecision() != InputPrecision::IEEE && !aElem.isF32())
    return emitOpError() << "input_precision "
                         << stringifyInputPrecision(getInputPrecision())
                         << " applies only to f32 inputs, not " << aElem;
  return success();
}

bool DotOp::hasFloat8Operands() {
  return llvm::any_of(ValueRange{getA(), getB()}, [](Value operand) {
    return isa<Float8E4M3FNType, Float8E5M2Type>(
        getElementTypeOrSelf(operand.getType()));
  });
}

void DotOp::widenFloat8Operands() {
  OpBuilder b(*this);
  for (OpOperand *operand : {&getAMutable(), &getBMutable()}) {
    auto type = cast<RankedTensorType>(operand->get().getType());
    if (!isa<Float8E4M3FNType, Float8E5M2Type>(type.getElementType()))
      continue;
    operand->set(arith::ExtFOp::create(
        b, getLoc(),
        RankedTensorType::get(type.getShape(), b.getF16Type(),
                              type.getEncoding()),
        operand->get()));
  }
}

//===----------------------------------------------------------------------===//
// Reductions and scans
//===----------------------------------------------------------------------===//

/// Checks what `tile.reduce` and `tile.scan` share: operands of one shape,
/// an axis inside it.
static LogicalResult verifyCombineOperands(Operation *op, ValueRange srcs,
                                           int64_t axis) {
  if (srcs.empty())
    return op->emitOpError() << "needs at least one operand";
  Type first = srcs.front().getType();
  for (auto [i, src] : llvm::enumerate(srcs))
    if (shapeOf(src.getType()) != shapeOf(first))
      return op->emitOpError() << "operand " << i << " has shape "
                               << shapeString(src.getType())
                               << " but operand 0 has shape "
                               << shapeString(first);
  int64_t rank = shapeOf(first).size();
  if (axis < 0 || axis >= rank)
    return op->emitOpError() << "axis " << axis
                             << " is out of range for operand shape "
                             << shapeString(first);
  return success();
}

/// Checks a combining region: for N operands it takes 2N scalars (two of
/// each operand's element type) and yields N.
static LogicalResult verifyCombiner(Operation *op, Region &region,
                                    ValueRange srcs) {
  Block &block = region.front();
  size_t n = srcs.size();
  if (block.getNumArguments() != 2 * n)
    return op->emitOpError() << "combining region must take " << 2 * n
                             << " arguments for " << n
                             << " operand(s), but takes "
                             << block.getNumArguments();
  for (auto [i, src] : llvm::enumerate(srcs)) {
    Type elementType = getElementTypeOrSelf(src.getType());
    for (size_t arg : {i, i + n})
      if (block.getArgument(arg).getType() != elementType)
        return op->emitOpError()
               << "combining region argument " << arg << " has type "
               << block.getArgument(arg).getType() << " but operand " << i
               << " has element type " << elementType;
  }
  auto yield = dyn_cast<YieldOp>(block.getTerminator());
  if (!yield)
    return op->emitOpError() << "combining region must end with tile.yield";
  if (yield.getValues().size() != n)
    return yield.emitOpError()
           << "yields " << yield.getValues().size() << " value(s) but "
           << op->getName() << " has " << n << " operand(s)";
  for (auto [i, values] : llvm::enumerate(llvm::zip(yield.getValues(), srcs))) {
    auto [yielded, src] = values;
    Type elementType = getElementTypeOrSelf(src.getType());
    if (yielded.getType() != elementType)
      return yield.emitOpError() << "value " << i << " has type "
                                 << yielded.getType() << " but operand " << i
                                 << " has element type " << elementType;
  }
  return success();
}

LogicalResult ReduceOp::verify() {
  if (failed(verifyCombineOperands(*this, getSrcs(), getAxis())))
    return failure();
  if (getNumResults() != getSrcs().size())
    return emitOpError() << "has " << getNumResults() << " results for "
                         << getSrcs().size() << " operands";
  int64_t axis = getAxis();
  for (auto [i, values] : llvm::enumerate(llvm::zip(getSrcs(), getResults()))) {
    auto [src, result] = values;
    auto srcType = cast<RankedTensorType>(src.getType());
    SmallVector<int64_t> shape(srcType.getShape());
    shape.erase(shape.begin() + axis);
    Type expected = shape.empty()
                        ? srcType.getElementType()
                        : RankedTensorType::get(shape, srcType.getElementType());
    if (!equalIgnoringEncoding(result.getType(), expected))
      return emitOpError() << "result " << i << " has type "
                           << result.getType() << " but reducing "
                           << srcType << " along axis " << axis << " gives "
                           << expected;
  }
  return success();
}

LogicalResult ReduceOp::verifyRegions() {
  return verifyCombiner(*this, getCombiner(), getSrcs());
}

LogicalResult ScanOp::verify() {
  if (failed(verifyCombineOperands(*this, getSrcs(), getAxis())))
    return failure();
  if (getResultTypes() != getSrcs().getTypes())
    return emitOpError() << "result types must match the operand types";
  return success();
}

LogicalResult ScanOp::verifyRegions() {
  return verifyCombiner(*this, getCombiner(), getSrcs());
}

//===----------------------------------------------------------------------===//
// Scalar functions mapped over tiles
//===----------------------------------------------------------------------===//

LogicalResult MapElementwiseOp::verify() {
  int64_t pack = getPack();
  if (pack < 1)
    return emitOpError() << "pack " << pack << " is not positive";
  if (getSrcs().empty())
    return emitOpError() << "needs at least one operand";
  if (getNumResults() == 0)
    return emitOpError() << "needs at least one result";
  // A group takes the elements at the same indices of every tile.
  return verifyOneShapeAndLayout(
      *this, nameOperandsAndResults(getSrcs().getTypes(), getResultTypes()));
}

/// Whether the region of a tile.map_elementwise may compute on a value of
/// `type`: a scalar, as each run of the region has its own elements.
static bool isMappedScalar(Type type) {
  return type.isIntOrIndexOrFloat() || isa<PointerType>(type);
}

LogicalResult MapElementwiseOp::verifyRegions() {
  Block &block = getBody().front();
  int64_t pack = getPack();
  int64_t numSrcs = getSrcs().size();
  if (static_cast<int64_t>(block.getNumArguments()) != numSrcs * pack)
    return emitOpError() << "region must take " << numSrcs * pack
                         << " scalars (" << pack << " per operand for "
                         << numSrcs << " operand(s)), but takes "
                         << block.getNumArguments();
  for (auto [i, src] : llvm::enumerate(getSrcs())) {
    Type elementType = getElementTypeOrSelf(src.getType());
    for (int64_t j = 0; j < pack; ++j) {
      Type argType = block.getArgument(i * pack + j).getType();
      if (argType != elementType)
        return emitOpError()
               << "region argument " << i * pack + j << " has type " << argType
               << " but operand #" << i << " has element type " << elementType;
    }
  }

  auto yield = dyn_cast<YieldOp>(block.getTerminator());
  if (!yield)
    return emitOpError() << "region must end with tile.yield";
  int64_t numResults = getNumResults();
  if (static_cast<int64_t>(yield.getValues().size()) != numResults * pack)
    return yield.emitOpError()
           << "yields " << yield.getValues().size() << " value(s) but "
           << "tile.map_elementwise takes " << numResults * pack << " (" << pack
           << " per result for " << numResults << " result(s))";
  for (auto [i, result] : llvm::enumerate(getResults())) {
    Type elementType = getElementTypeOrSelf(result.getType());
    for (int64_t j = 0; j < pack; ++j) {
      Type yielded = yield.getValues()[i * pack + j].getType();
      if (yielded != elementType)
        return yield.emitOpError()
               << "value " << i * pack + j << " has type " << yielded
               << " but result #" << i << " has element type " << elementType;
    }
  }

  // Each run of the region computes its own elements: no tiles, and no
  // writes, which would happen once for every copy of an element that a
  // GPU layout replicates (Triton refuses stores there too).
  WalkResult walk = getBody().walk([&](Operation *op) {
    SmallVector<Type> types(op->getOperandTypes());
    llvm::append_range(types, op->getResultTypes());
    for (Region &region : op->getRegions())
      for (Block &nested : region)
        llvm::append_range(types, nested.getArgumentTypes());
    for (Type type : types)
      if (!isMappedScalar(type)) {
        op->emitOpError() << "computes on a value of type " << type
                          << " in the region of tile.map_elementwise, which "
                             "computes on scalars (integers, floats, index, "
                             "pointers)";
        return WalkResult::interrupt();
      }
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (effects ? effects.hasEffect<MemoryEffects::Write>()
                : !op->hasTrait<OpTrait::HasRecursiveMemoryEffects>()) {
      op->emitOpError() << "may write memory, which the region of "
                           "tile.map_elementwise does not: it runs once for "
                           "every copy of an element a thread holds";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

LogicalResult ExternElementwiseOp::verify() {
  if (getSymbol().empty())
    return emitOpError() << "names no function to call: symbol is empty";
  if (std::optional<StringRef> host = getHostSymbol(); host && host->empty())
    return emitOpError() << "names an empty host function: leave `host` out "
                            "where the C math library has none";
  if (getSrcs().empty())
    return emitOpError() << "needs at least one operand";
  // A call takes the elements at one index of every tile.
  return verifyOneShapeAndLayout(
      *this, nameOperandsAndResults(getSrcs().getTypes(), getResult().getType()));
}

void ExternElementwiseOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  getOpaqueEffects(getPure(), effects);
}

Speculation::Speculatability ExternElementwiseOp::getSpeculatability() {
  return getPure() ? Speculation::Speculatable : Speculation::NotSpeculatable;
}
