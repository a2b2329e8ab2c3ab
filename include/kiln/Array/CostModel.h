//===- CostModel.h - FLOPs, bytes and regimes of kernels --------*- C++ -*-===//

#ifndef KILN_ARRAY_COSTMODEL_H
#define KILN_ARRAY_COSTMODEL_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace kiln {

/// Peaks of one GPU, from vendor data sheets (dense, no sparsity).
struct TargetPeaks {
  std::string name;
  double fp32Tflops;     ///< CUDA cores, FP32
  double tensorTflops;   ///< tensor cores, FP16/BF16 inputs
  double bandwidthTbps;  ///< DRAM
  double launchMicros;   ///< issuing one kernel from the host
};

/// The named target (a100, h100, h200), if there is one.
std::optional<TargetPeaks> lookupTarget(llvm::StringRef name);

/// Prints the cost report of every function of `module` to `os`, each
/// dynamic dimension taken as `dynamicSize` (the report says so).
void printCostReport(mlir::ModuleOp module, const TargetPeaks &target,
                     int64_t dynamicSize, llvm::raw_ostream &os);

} // namespace kiln

#endif // KILN_ARRAY_COSTMODEL_H
