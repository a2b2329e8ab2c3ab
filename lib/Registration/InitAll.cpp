//===- InitAll.cpp - Everything Kiln's tools register ---------------------===//

#include "kiln/InitAll.h"

#include "kiln/Array/Passes.h"
#include "kiln/Array/Pipeline.h"
#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Plan/IR/PlanDialect.h"
#include "kiln/Dialect/Tile/IR/TileDialect.h"
#include "kiln/Dialect/Tile/Transforms/Passes.h"
#include "kiln/Dialect/TileGPU/IR/TileGPUDialect.h"
#include "kiln/Dialect/TileGPU/Transforms/Passes.h"
#include "kiln/Target/GPU/GPUPipeline.h"
#include "kiln/Target/Host/HostPipeline.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/IR/TensorInferTypeOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"

void kiln::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<plan::PlanDialect, tile::TileDialect, tilegpu::TileGPUDialect,
                  mlir::arith::ArithDialect, mlir::func::FuncDialect,
                  mlir::math::MathDialect, mlir::linalg::LinalgDialect,
                  mlir::scf::SCFDialect, mlir::tensor::TensorDialect>();
  // kiln-fuse proves dynamic sizes equal through these, and moves
  // reshapes through empty tensors with the shapes the reshapes reify.
  mlir::arith::registerValueBoundsOpInterfaceExternalModels(registry);
  mlir::linalg::registerValueBoundsOpInterfaceExternalModels(registry);
  mlir::tensor::registerValueBoundsOpInterfaceExternalModels(registry);
  mlir::tensor::registerInferTypeOpInterfaceExternalModels(registry);
  host::registerHostDialectExtensions(registry);
  gpu::registerGPUDialectExtensions(registry);
}

void kiln::registerAllPasses() {
  mlir::registerTransformsPasses();
  // Array programs come in as linalg; these normalise them for kiln-fuse.
  mlir::registerConvertElementwiseToLinalgPass();
  mlir::registerLinalgGeneralizeNamedOpsPass();
  registerKilnConversionPasses();
  tile::registerTilePasses();
  tilegpu::registerTileGPUPasses();
  registerKilnArrayPasses();
  registerArrayPipeline();
  host::registerHostLoweringPipeline();
  gpu::registerGPULoweringPipeline();
}
