//===- Pipeline.h - An array program to tile kernels and a plan -*- C++ -*-===//
//
// The passes that turn an array program (functions over whole tensors in
// linalg, arith and math) into tile kernels and launch plans, built here
// once for every caller: kiln-run, the C API and Python (through the
// registered pipeline), the fuzzer.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_ARRAY_PIPELINE_H
#define KILN_ARRAY_PIPELINE_H

#include "mlir/Pass/PassManager.h"

namespace kiln {

/// Elementwise ops to linalg, then kiln-fuse: the kernels, still over
/// whole tensors (what the cost report after fusion reads).
void buildArrayFusionPipeline(mlir::OpPassManager &pm);

/// kiln-tile (`tile`, made with its options, else with its defaults), then
/// canonicalization: tile kernels and launch plans.
void buildArrayTilingPipeline(mlir::OpPassManager &pm,
                              std::unique_ptr<mlir::Pass> tile = nullptr);

/// Both: the whole array pipeline.
void buildArrayPipeline(mlir::OpPassManager &pm,
                        std::unique_ptr<mlir::Pass> tile = nullptr);

/// Registers buildArrayPipeline as `kiln-array-pipeline`, whose options
/// are kiln-tile's.
void registerArrayPipeline();

} // namespace kiln

#endif // KILN_ARRAY_PIPELINE_H
