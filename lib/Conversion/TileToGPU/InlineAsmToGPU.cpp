//===- InlineAsmToGPU.cpp - tile.inline_asm_elementwise on the GPU --------===//
//
// Each thread runs the assembly on the registers it holds, `pack`
// consecutive ones at a time, as Triton's ElementwiseInlineAsmOpConversion
// does: one llvm.inline_asm per group, whose operands are the registers of
// every result, then of every argument, elements narrower than 32 bits
// packed into vectors that fill 32-bit registers. The layout does not
// matter: the operands and results share it, so register r of each holds
// the same element. A thread whose count of registers is not a multiple
// of `pack` gives its last group zeros for the missing elements and drops
// what comes back for them (Triton gives undefined values).
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "ThreadValues.h"

#include "kiln/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tiletogpu;

/// The type the assembly takes a register (or scalar) of `type` as: a
/// pointer as its i64 address, a float LLVM lacks (8-bit floats) as an
/// integer of its width, anything else as it is.
static Type getAsmType(Type type) {
  if (isa<LLVM::LLVMPointerType>(type))
    return IntegerType::get(type.getContext(), 64);
  if (LLVM::isCompatibleType(type))
    return type;
  return IntegerType::get(type.getContext(), type.getIntOrFloatBitWidth());
}

/// `element` as the assembly takes it (getAsmType).
static Value toAsmOperand(OpBuilder &b, Location loc, Value element) {
  Type type = element.getType(), asmType = getAsmType(type);
  if (type == asmType)
    return element;
  if (isa<LLVM::LLVMPointerType>(type))
    return LLVM::PtrToIntOp::create(b, loc, asmType, element);
  return arith::BitcastOp::create(b, loc, asmType, element);
}

/// The inverse of toAsmOperand: `value` as a register (or scalar) of
/// `type`.
static Value fromAsmResult(OpBuilder &b, Location loc, Value value, Type type) {
  if (value.getType() == type)
    return value;
  if (isa<LLVM::LLVMPointerType>(type))
    return LLVM::IntToPtrOp::create(b, loc, type, value);
  return arith::BitcastOp::create(b, loc, type, value);
}

/// The operands of the invocation that takes elements [first, first +
/// pack) of each argument (`args`: every argument's elements as the
/// assembly takes them): per argument, its elements one to an operand, or
/// packed into vectors of 32 bits.
static SmallVector<Value> packOperands(OpBuilder &b, Location loc,
                                       tile::InlineAsmElementwiseOp op,
                                       ArrayRef<SmallVector<Value>> args,
                                       int64_t first) {
  SmallVector<Value> operands;
  for (auto [arg, elements] : llvm::zip(op.getArgs(), args)) {
    int64_t perOperand = op.getElementsPerOperand(arg.getType());
    for (int64_t i = first; i < first + op.getPackedElement();
         i += perOperand) {
      ArrayRef<Value> group = ArrayRef(elements).slice(i, perOperand);
      operands.push_back(
          perOperand == 1
              ? group.front()
              : fromRegisters(
                    b, loc,
                    VectorType::get({perOperand}, group.front().getType()),
                    group));
    }
  }
  return operands;
}

/// Appends to `results` (each result's elements so far) what one
/// invocation returned: `returned`, a struct when it has several outputs.
static void unpackResults(OpBuilder &b, Location loc,
                          tile::InlineAsmElementwiseOp op, Value returned,
                          MutableArrayRef<SmallVector<Value>> results) {
  bool isStruct = isa<LLVM::LLVMStructType>(returned.getType());
  int64_t output = 0;
  for (auto [result, type] : llvm::enumerate(op.getResultTypes())) {
    int64_t perOperand = op.getElementsPerOperand(type);
    for (int64_t i = 0; i < op.getPackedElement(); i += perOperand) {
      Value value =
          isStruct ? LLVM::ExtractValueOp::create(b, loc, returned, output++)
                         .getResult()
                   : returned;
      if (perOperand == 1) {
        results[result].push_back(value);
        continue;
      }
      for (int64_t e = 0; e < perOperand; ++e)
        results[result].push_back(extractRegister(b, loc, value, e));
    }
  }
}

namespace {

/// Each thread's registers of the arguments, `pack` at a time, through one
/// llvm.inline_asm each, into the results' registers.
struct InlineAsmElementwiseLowering
    : OpConversionPattern<tile::InlineAsmElementwiseOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::InlineAsmElementwiseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = op.getContext();
    int64_t pack = op.getPackedElement();
    // Every operand and result has this shape and layout (the verifier).
    Type shaped = op->getNumOperands() ? op->getOperand(0).getType()
                                       : op->getResult(0).getType();
    auto tile = dyn_cast<RankedTensorType>(shaped);
    int64_t count = tile ? getNumRegisters(tile) : 1;
    int64_t padded = llvm::alignTo(count, pack);

    // Each argument's elements as the assembly takes them, zeros past the
    // thread's last.
    SmallVector<SmallVector<Value>> args;
    for (Value converted : adaptor.getArgs()) {
      SmallVector<Value> &elements = args.emplace_back();
      for (int64_t reg = 0; reg < count; ++reg)
        elements.push_back(toAsmOperand(
            rewriter, loc,
            tile ? extractRegister(rewriter, loc, converted, reg) : converted));
      if (padded == count)
        continue;
      Type type = elements.front().getType();
      Value zero = arith::ConstantOp::create(rewriter, loc, type,
                                             rewriter.getZeroAttr(type));
      elements.resize(padded, zero);
    }

    // What one invocation returns: each result's registers in turn, one
    // value, a struct of several, or nothing.
    SmallVector<Type> registerTypes, outputTypes;
    for (Type type : op.getResultTypes()) {
      Type converted = getTypeConverter()->convertType(type);
      if (!converted)
        return failure();
      registerTypes.push_back(getElementTypeOrSelf(converted));
      Type element = getAsmType(registerTypes.back());
      int64_t perOperand = op.getElementsPerOperand(type);
      outputTypes.append(
          pack / perOperand,
          perOperand == 1 ? element : VectorType::get({perOperand}, element));
    }
    Type returned;
    if (outputTypes.size() == 1)
      returned = outputTypes.front();
    else if (!outputTypes.empty())
      returned = LLVM::LLVMStructType::getLiteral(context, outputTypes);

    SmallVector<SmallVector<Value>> results(op.getNumResults());
    for (int64_t first = 0; first < padded; first += pack) {
      auto asmOp = LLVM::InlineAsmOp::create(
          rewriter, loc, returned, packOperands(rewriter, loc, op, args, first),
          op.getAsmString(), op.getConstraints(),
          /*has_side_effects=*/!op.getPure(),
          /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
          LLVM::AsmDialectAttr::get(context, LLVM::AsmDialect::AD_ATT),
          /*operand_attrs=*/ArrayAttr());
      if (returned)
        unpackResults(rewriter, loc, op, asmOp.getRes(), results);
    }

    SmallVector<Value> replacements;
    for (auto [result, type] : llvm::enumerate(op.getResultTypes())) {
      SmallVector<Value> registers;
      for (Value value : ArrayRef(results[result]).take_front(count))
        registers.push_back(
            fromAsmResult(rewriter, loc, value, registerTypes[result]));
      replacements.push_back(
          tile ? fromRegisters(
                     rewriter, loc,
                     cast<VectorType>(getTypeConverter()->convertType(type)),
                     registers)
               : registers.front());
    }
    rewriter.replaceOp(op, replacements);
    return success();
  }
};

} // namespace

void kiln::tiletogpu::populateInlineAsmToGPUPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<InlineAsmElementwiseLowering>(converter, patterns.getContext());
}
