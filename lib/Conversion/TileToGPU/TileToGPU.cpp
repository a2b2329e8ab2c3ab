//===- TileToGPU.cpp - Laid-out tile kernels to per-thread GPU code -------===//
//
// After tile-assign-layouts every tile has a layout. This pass moves the
// kernels into a gpu.module as gpu.func kernels of `num_warps` warps and
// rewrites every tile into the registers each thread holds of it (a vector,
// register r as element r). Elementwise arith and math ops carry over onto
// those vectors unchanged; the rest is in the pattern files next to this
// one. Upstream convert-gpu-to-nvvm takes it from there.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "ThreadValues.h"

#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Tile/IR/BlockPointerLayout.h"
#include "kiln/Dialect/Tile/IR/TileDialect.h"
#include "kiln/Dialect/TileGPU/IR/TileGPUDialect.h"
#include "kiln/Dialect/TileGPU/Transforms/AxisInfo.h"
#include "kiln/Layout/RegisterMap.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#define DEBUG_TYPE "kiln-convert-tile-to-gpu"

namespace kiln {
#define GEN_PASS_DEF_CONVERTTILETOGPUPASS
#include "kiln/Conversion/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;
using namespace kiln::tiletogpu;

namespace {

/// Tiles become the vector of registers a thread holds; pointers become
/// LLVM pointers, and i64 addresses inside tiles; a block pointer becomes a
/// vector of its i64 fields (base, shape, strides, offsets).
class TileToGPUTypeConverter : public TypeConverter {
public:
  TileToGPUTypeConverter() {
    addConversion([](Type type) { return type; });
    addConversion([](tile::PointerType type) -> Type {
      return LLVM::LLVMPointerType::get(type.getContext(),
                                        type.getAddressSpace());
    });
    addConversion([](tile::BlockPointerType type) -> Type {
      tile::BlockPointerLayout layout(type.getShape().size());
      return VectorType::get({layout.numFields()},
                             IntegerType::get(type.getContext(), 64));
    });
    // A shared buffer is its address.
    addConversion([](MemRefType type) -> std::optional<Type> {
      auto space = dyn_cast_or_null<IntegerAttr>(type.getMemorySpace());
      if (!space || space.getInt() != 3)
        return std::nullopt;
      return LLVM::LLVMPointerType::get(type.getContext(), 3);
    });
    addConversion([](RankedTensorType type) -> std::optional<Type> {
      if (!isa_and_nonnull<tilegpu::DistributedEncodingAttr>(
              type.getEncoding()))
        return std::nullopt;
      return VectorType::get({getNumRegisters(type)},
                             getRegisterType(type.getElementType()));
    });
    auto cast = [](OpBuilder &b, Type type, ValueRange inputs,
                   Location loc) -> Value {
      return UnrealizedConversionCastOp::create(b, loc, type, inputs)
          .getResult(0);
    };
    addSourceMaterialization(cast);
    addTargetMaterialization(cast);
  }
};

/// A kernel becomes a gpu.func kernel of `threads` threads.
struct KernelLowering : OpConversionPattern<func::FuncOp> {
  KernelLowering(const TypeConverter &converter, MLIRContext *context,
                 int64_t threads)
      : OpConversionPattern(converter, context), threads(threads) {}

  LogicalResult
  matchAndRewrite(func::FuncOp func, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FunctionType type = func.getFunctionType();
    if (type.getNumResults() != 0)
      return failure();
    TypeConverter::SignatureConversion signature(type.getNumInputs());
    if (failed(getTypeConverter()->convertSignatureArgs(type.getInputs(),
                                                        signature)))
      return failure();
    auto kernel = gpu::GPUFuncOp::create(
        rewriter, func.getLoc(), func.getName(),
        rewriter.getFunctionType(signature.getConvertedTypes(), {}));
    kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                    rewriter.getUnitAttr());
    // A warp-specialized kernel's producer warps come after the warps its
    // layouts are for. Their registers move to the consumers at run time
    // (setmaxnreg), from what each thread has at launch: the block's
    // share, in the multiples of 8 that setmaxnreg counts in.
    int64_t kernelThreads = threads;
    func.walk([&](tilegpu::WarpSpecializeOp op) {
      kernelThreads += op.getProducerWarps() * kWarpSize;
    });
    kernel.setKnownBlockSizeAttr(rewriter.getDenseI32ArrayAttr(
        {static_cast<int32_t>(kernelThreads), 1, 1}));
    if (kernelThreads != threads)
      kernel->setAttr(
          NVVM::NVVMDialect::getMaxnregAttrName(),
          rewriter.getI32IntegerAttr(
              std::min<int64_t>(tilegpu::WarpSpecializeOp::kBlockRegisters /
                                    kernelThreads,
                                255) /
              8 * 8));
    if (Attribute maps = func->getAttr(tilegpu::TensorMapAttr::kAttrName))
      kernel->setAttr(tilegpu::TensorMapAttr::kAttrName, maps);
    rewriter.eraseBlock(&kernel.getBody().front());
    rewriter.inlineRegionBefore(func.getBody(), kernel.getBody(),
                                kernel.getBody().end());
    if (failed(rewriter.convertRegionTypes(&kernel.getBody(),
                                           *getTypeConverter(), &signature)))
      return failure();
    rewriter.eraseOp(func);
    return success();
  }

  int64_t threads;
};

struct ReturnLowering : OpConversionPattern<func::ReturnOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(func::ReturnOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<gpu::ReturnOp>(op);
    return success();
  }
};

/// tile.assume: its facts were read by the layout and access analyses;
/// what remains is its source.
struct AssumeLowering : OpConversionPattern<tile::AssumeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::AssumeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getSrc());
    return success();
  }
};

/// For each integer comparison whose mask is equal over aligned groups of
/// elements along the last dimension (AxisInfo's constancy) that a thread
/// holds as consecutive registers: the group's size.
using MaskGroups = llvm::DenseMap<Operation *, int64_t>;

/// arith and math ops on tiles: the same op on each thread's registers. A
/// comparison with MaskGroups then repeats each group's first lane over
/// the group, so that the accesses it masks read one predicate per group
/// (one per vector, as Triton's) and the other lanes' comparisons die.
struct ElementwiseLowering : ConversionPattern {
  ElementwiseLowering(const TypeConverter &converter, MLIRContext *context,
                      const MaskGroups &groups)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1,
                          context),
        groups(groups) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
        op->getNumRegions() != 0)
      return failure();
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
      if (!dense)
        return failure();
      if (!dense.isSplat())
        return failure();
      auto type = cast<VectorType>(
          getTypeConverter()->convertType(constant.getType()));
      rewriter.replaceOpWithNewOp<arith::ConstantOp>(
          op, DenseElementsAttr::get(type, dense.getSplatValue<Attribute>()));
      return success();
    }
    FailureOr<Operation *> converted =
        convertOpResultTypes(op, operands, *getTypeConverter(), rewriter);
    if (failed(converted))
      return failure();
    auto group = groups.find(op);
    if (group == groups.end()) {
      rewriter.replaceOp(op, (*converted)->getResults());
      return success();
    }
    Value lanes = (*converted)->getResult(0);
    SmallVector<int64_t> leaders;
    for (int64_t lane = 0,
                 e = cast<VectorType>(lanes.getType()).getNumElements();
         lane < e; ++lane)
      leaders.push_back(lane - lane % group->second);
    rewriter.replaceOpWithNewOp<vector::ShuffleOp>(op, lanes, lanes, leaders);
    return success();
  }

private:
  const MaskGroups &groups;
};

struct ConvertTileToGPUPass
    : kiln::impl::ConvertTileToGPUPassBase<ConvertTileToGPUPass> {
  using ConvertTileToGPUPassBase::ConvertTileToGPUPassBase;

  void runOnOperation() override;
};
} // namespace

/// Ops this lowering does not handle yet, with the reason.
static LogicalResult checkLowerable(ModuleOp module,
                                    int64_t sharedMemoryLimit) {
  WalkResult result = module.walk([&](Operation *op) {
    for (Type type : llvm::concat<const Type>(op->getOperandTypes(),
                                              op->getResultTypes())) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (tensor && !isa_and_nonnull<tilegpu::DistributedEncodingAttr>(
                        tensor.getEncoding())) {
        op->emitOpError() << "target nvptx: tile " << tensor
                          << " has no layout; run tile-assign-layouts first";
        return WalkResult::interrupt();
      }
    }
    if (isa<func::CallOp>(op)) {
      op->emitOpError() << "has no lowering for target nvptx: kernels cannot "
                           "call functions; inline them first";
      return WalkResult::interrupt();
    }
    if (auto func = dyn_cast<func::FuncOp>(op)) {
      if (func.getFunctionType().getNumResults() != 0) {
        func.emitOpError("target nvptx: a kernel returns no values");
        return WalkResult::interrupt();
      }
      if (func.isExternal()) {
        func.emitOpError("target nvptx: a kernel needs a body");
        return WalkResult::interrupt();
      }
      // NVPTX aborts on a zero-width parameter (LLVM's fatal error would
      // end the process).
      for (Type type : func.getArgumentTypes())
        if (auto integer = dyn_cast<IntegerType>(getElementTypeOrSelf(type));
            integer && integer.getWidth() == 0) {
          func.emitOpError("target nvptx: a kernel argument of type ")
              << type << " (no bits) is not supported";
          return WalkResult::interrupt();
        }
    }
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
      if (dense && isa<RankedTensorType>(dense.getType()) &&
          !dense.isSplat()) {
        op->emitOpError()
            << "target nvptx: a tile constant with different elements has "
               "no lowering; build it from tile.range or tile.splat";
        return WalkResult::interrupt();
      }
    }
    if (isa<tile::ScanOp>(op))
      for (Type type : op->getOperandTypes())
        if (!getElementTypeOrSelf(type).isIntOrFloat()) {
          op->emitOpError() << "target nvptx: cannot scan elements of type "
                            << getElementTypeOrSelf(type);
          return WalkResult::interrupt();
        }
    if (isa<tile::DotOp>(op) && failed(checkDotLowerable(op, sharedMemoryLimit)))
      return WalkResult::interrupt();
    if (isa<tile::ReduceOp>(op) && failed(checkReduceLowerable(op)))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// The group size of `compare`'s mask (see MaskGroups); 1 for none.
static int64_t getMaskGroup(tilegpu::AxisInfoAnalysis &axisInfo,
                            arith::CmpIOp compare) {
  auto type = dyn_cast<RankedTensorType>(compare.getType());
  if (!type)
    return 1;
  int64_t constancy = axisInfo.get(compare).constancy.back();
  return layout::getContiguousRegisterRun(
      *getLayout(type), getShape(type),
      static_cast<int64_t>(llvm::bit_floor(
          static_cast<uint64_t>(std::max<int64_t>(constancy, 1)))));
}

/// How many elements each tile access moves at once: what the pointers
/// allow (AxisInfo) within the run of registers the layout gives a thread
/// along its fastest dimension; and the comparisons' MaskGroups, from the
/// same analysis.
static AccessWidths computeAccessWidths(ModuleOp module, MaskGroups &groups) {
  AccessWidths widths;
  module.walk([&](func::FuncOp func) {
    tilegpu::AxisInfoAnalysis axisInfo;
    func.walk([&](Operation *op) {
      if (auto compare = dyn_cast<arith::CmpIOp>(op)) {
        if (int64_t group = getMaskGroup(axisInfo, compare); group > 1)
          groups[compare] = group;
        return;
      }
      Value ptr, mask;
      if (auto load = dyn_cast<tile::LoadOp>(op))
        ptr = load.getPtr(), mask = load.getMask();
      else if (auto store = dyn_cast<tile::StoreOp>(op))
        ptr = store.getPtr(), mask = store.getMask();
      else if (auto copy = dyn_cast<tilegpu::AsyncCopyOp>(op))
        ptr = copy.getPtrs(), mask = copy.getMask();
      auto type = ptr ? dyn_cast<RankedTensorType>(ptr.getType()) : nullptr;
      if (!type)
        return;
      int64_t width = 1;
      if (auto blocked =
              dyn_cast<tilegpu::BlockedEncodingAttr>(type.getEncoding())) {
        int64_t fastest = blocked.getOrder()[0];
        width = std::min(
            tilegpu::getAccessVectorWidth(axisInfo, ptr, mask, fastest),
            blocked.getSizePerThread()[fastest]);
        // Groups of registers must tile the thread's run.
        while (blocked.getSizePerThread()[fastest] % width != 0)
          width /= 2;
        // A copy into slots laid out along the other dimension (a row-major
        // tile staged K-major, tile-pipeline-loops) moves an element at a
        // time.
        if (auto copy = dyn_cast<tilegpu::AsyncCopyOp>(op);
            copy && type.getRank() == 2 &&
            tilegpu::hasTransposedSlots(copy.getBuffer().getType()) !=
                (fastest == 0))
          width = 1;
      } else if (isa<tilegpu::MmaEncodingAttr>(type.getEncoding())) {
        // An accumulator's registers come in pairs of adjacent columns.
        width = std::min<int64_t>(
            tilegpu::getAccessVectorWidth(axisInfo, ptr, mask, 1), 2);
      }
      widths[op] = std::max<int64_t>(1, width);
    });
  });
  return widths;
}

void ConvertTileToGPUPass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *context = &getContext();
  auto numWarps =
      module->getAttrOfType<IntegerAttr>("tilegpu.num_warps");
  if (!numWarps) {
    module.emitError("target nvptx: the module has no tilegpu.num_warps; "
                     "run tile-assign-layouts first");
    return signalPassFailure();
  }
  if (failed(checkLowerable(module, sharedMemoryLimit)) ||
      failed(verifyExternCalls(module)))
    return signalPassFailure();
  MaskGroups maskGroups;
  AccessWidths widths = computeAccessWidths(module, maskGroups);

  // The kernels move into one gpu.module, as upstream's GPU lowering wants.
  OpBuilder builder(context);
  builder.setInsertionPointToEnd(module.getBody());
  auto kernels = gpu::GPUModuleOp::create(builder, module.getLoc(), "kiln");
  for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
    func->moveBefore(kernels.getBody(), kernels.getBody()->end());
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  builder.getUnitAttr());
  placeKernelBuffers(kernels, sharedMemoryLimit);

  TileToGPUTypeConverter converter;
  ConversionTarget target(*context);
  target.addLegalDialect<cf::ControlFlowDialect, gpu::GPUDialect,
                         LLVM::LLVMDialect, NVVM::NVVMDialect,
                         vector::VectorDialect>();
  target.addIllegalDialect<tile::TileDialect, tilegpu::TileGPUDialect,
                           func::FuncDialect>();
  target.addDynamicallyLegalDialect<arith::ArithDialect, math::MathDialect,
                                    scf::SCFDialect>(
      [&](Operation *op) { return converter.isLegal(op); });
  // Lowered once its region is (lowerWarpSpecialize).
  target.addLegalOp<gpu::GPUModuleOp, UnrealizedConversionCastOp,
                    tilegpu::WarpSpecializeOp>();

  RewritePatternSet patterns(context);
  patterns.add<KernelLowering>(converter, context,
                               numWarps.getInt() * kWarpSize);
  patterns.add<ReturnLowering, AssumeLowering>(converter, context);
  patterns.add<ElementwiseLowering>(converter, context, maskGroups);
  populateShapeOpsToGPUPatterns(converter, patterns);
  populateMemoryOpsToGPUPatterns(converter, patterns, widths);
  populateReduceOpToGPUPatterns(converter, patterns);
  populateDotOpToGPUPatterns(converter, patterns);
  populateMmaDotOpToGPUPatterns(converter, patterns);
  populateWarpgroupDotOpToGPUPatterns(converter, patterns);
  populateAsyncCopyToGPUPatterns(converter, patterns, widths);
  populateTensorMapCopyToGPUPatterns(converter, patterns);
  populateScanOpToGPUPatterns(converter, patterns);
  populateDebugOpsToGPUPatterns(converter, patterns);
  populateInlineAsmToGPUPatterns(converter, patterns);
  populateMapElementwiseToGPUPatterns(converter, patterns);
  populateExternElementwiseToGPUPatterns(converter, patterns);
  scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                       target);
  if (failed(applyPartialConversion(kernels, target, std::move(patterns))) ||
      failed(finishSharedArray(kernels, sharedMemoryLimit)))
    return signalPassFailure();
  lowerWarpSpecialize(kernels, numWarps.getInt() * kWarpSize);
}
