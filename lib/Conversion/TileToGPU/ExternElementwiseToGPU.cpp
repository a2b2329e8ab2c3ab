//===- ExternElementwiseToGPU.cpp - tile.extern_elementwise on the GPU ----===//
//
// Each thread calls the function on every register it holds, as Triton's
// ExternElementwiseOpConversion does: one llvm.call of `symbol` per
// register, whose arguments are that register of every operand, and whose
// return value is that register of the result. The layout does not
// matter: the operands and result share it, so register r of each holds
// the same element. The function is declared in the gpu.module with the
// registers' types; it comes from libdevice, which the NVPTX target links
// (and inlines) for every `__nv_` function a kernel calls, checking there
// that libdevice has it with these types.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "ThreadValues.h"

#include "kiln/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tiletogpu;

/// The function type `op` calls its function as: its operands' element
/// types to its result's, which are the registers' (no pointers).
static LLVM::LLVMFunctionType getCallType(tile::ExternElementwiseOp op) {
  SmallVector<Type> parameterTypes;
  for (Type type : op.getSrcs().getTypes())
    parameterTypes.push_back(getElementTypeOrSelf(type));
  return LLVM::LLVMFunctionType::get(getElementTypeOrSelf(op.getType()),
                                     parameterTypes);
}

LogicalResult kiln::tiletogpu::verifyExternCalls(ModuleOp module) {
  llvm::StringMap<LLVM::LLVMFunctionType> callTypes;
  WalkResult result = module.walk([&](tile::ExternElementwiseOp op) {
    StringRef name = op.getSymbol();
    // The GPU target links libdevice, and no other library of functions.
    if (!name.starts_with("__nv_")) {
      op.emitOpError() << "target nvptx: calls '" << name
                       << "', which is not a libdevice function (those are "
                          "named __nv_*): the GPU target links only libdevice";
      return WalkResult::interrupt();
    }
    LLVM::LLVMFunctionType type = getCallType(op);
    for (Type element :
         llvm::concat<const Type>(type.getParams(), type.getReturnTypes()))
      if (!LLVM::isCompatibleType(element)) {
        op.emitOpError() << "target nvptx: calls '" << name
                         << "' with elements of type " << element
                         << ", which no libdevice function takes";
        return WalkResult::interrupt();
      }
    // One function, one declaration.
    auto [known, inserted] = callTypes.try_emplace(name, type);
    if (!inserted && known->second != type) {
      op.emitOpError() << "target nvptx: calls '" << name << "' as " << type
                       << ", but the kernels already call it as "
                       << known->second;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

namespace {

/// Each thread's registers of the operands through one llvm.call each,
/// into the result's registers.
struct ExternElementwiseLowering
    : OpConversionPattern<tile::ExternElementwiseOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::ExternElementwiseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type resultType = getTypeConverter()->convertType(op.getType());
    if (!resultType)
      return failure();
    // Every operand and the result have this shape and layout (the
    // verifier).
    auto tile = dyn_cast<RankedTensorType>(op.getType());
    int64_t count = tile ? getNumRegisters(tile) : 1;

    // verifyExternCalls has checked the name and the types; a declaration
    // of other types can only be another lowering's.
    auto module = op->getParentOfType<gpu::GPUModuleOp>();
    LLVM::LLVMFunctionType type = getCallType(op);
    auto function = module.lookupSymbol<LLVM::LLVMFuncOp>(op.getSymbol());
    if (!function) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(module.getBody());
      function = LLVM::LLVMFuncOp::create(rewriter, op.getLoc(),
                                          op.getSymbol(), type);
    }
    if (function.getFunctionType() != type)
      return rewriter.notifyMatchFailure(op, "declared with other types");

    SmallVector<Value> registers;
    for (int64_t reg = 0; reg < count; ++reg) {
      SmallVector<Value> arguments;
      for (Value src : adaptor.getSrcs())
        arguments.push_back(tile ? extractRegister(rewriter, loc, src, reg)
                                 : src);
      registers.push_back(
          LLVM::CallOp::create(rewriter, loc, function, arguments)
              .getResult());
    }
    rewriter.replaceOp(
        op, tile ? fromRegisters(rewriter, loc, cast<VectorType>(resultType),
                                 registers)
                 : registers.front());
    return success();
  }
};

} // namespace

void kiln::tiletogpu::populateExternElementwiseToGPUPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ExternElementwiseLowering>(converter, patterns.getContext());
}
