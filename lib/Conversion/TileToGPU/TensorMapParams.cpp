//===- TensorMapParams.cpp - Tensor maps as __grid_constant__ parameters --===//
//
// cp.async.bulk.tensor reads its tensor map from the address of a kernel
// parameter, which is valid only for a by-value parameter marked
// grid-constant. convert-gpu-to-nvvm does not carry such argument
// attributes over from gpu.func, so they are set here on the llvm.func.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/TileGPU/IR/TileGPUDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace kiln {
#define GEN_PASS_DEF_TENSORMAPPARAMSPASS
#include "kiln/Conversion/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {
struct TensorMapParamsPass
    : kiln::impl::TensorMapParamsPassBase<TensorMapParamsPass> {
  void runOnOperation() override;
};
} // namespace

/// Bytes and alignment of a CUtensorMap.
static constexpr int64_t kTensorMapBytes = 128, kTensorMapAlignment = 64;

void TensorMapParamsPass::runOnOperation() {
  Builder b(&getContext());
  auto byValue = LLVM::LLVMArrayType::get(b.getI8Type(), kTensorMapBytes);
  WalkResult result = getOperation().walk([&](LLVM::LLVMFuncOp func) {
    auto maps = func->getAttrOfType<ArrayAttr>(
        kiln::tilegpu::TensorMapAttr::kAttrName);
    if (!maps)
      return WalkResult::advance();
    for (auto map : maps.getAsRange<kiln::tilegpu::TensorMapAttr>()) {
      unsigned index = map.getArgument();
      if (index >= func.getNumArguments() ||
          !isa<LLVM::LLVMPointerType>(func.getArgumentTypes()[index])) {
        func.emitOpError() << "tensor map parameter " << index
                           << " is not a pointer parameter";
        return WalkResult::interrupt();
      }
      func.setArgAttr(index, LLVM::LLVMDialect::getByValAttrName(),
                      TypeAttr::get(byValue));
      func.setArgAttr(index, LLVM::LLVMDialect::getAlignAttrName(),
                      b.getI64IntegerAttr(kTensorMapAlignment));
      func.setArgAttr(index, NVVM::NVVMDialect::getGridConstantAttrName(),
                      b.getUnitAttr());
    }
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    signalPassFailure();
}
