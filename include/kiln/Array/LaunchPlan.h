//===- LaunchPlan.h - Calling a launch plan ---------------------*- C++ -*-===//
//
// kiln-tile turns an array function into a launch plan (see
// lib/Array/LaunchPlan.cpp for its interface). A caller that has input
// tensors binds them to the plan: it gets the plan's size arguments and the
// shapes of the results it must allocate.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_ARRAY_LAUNCHPLAN_H
#define KILN_ARRAY_LAUNCHPLAN_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>

namespace kiln {

/// How to call a launch plan on inputs of some shapes.
struct PlanCall {
  /// The plan's size arguments (after the buffers' addresses).
  llvm::SmallVector<int64_t> sizes;
  /// The shape of each result.
  llvm::SmallVector<llvm::SmallVector<int64_t>> outputShapes;
};

/// Binds the launch plan `plan` to inputs of `inputShapes`. Fails, with
/// `error` naming the input and dimension, when an input has the wrong
/// rank, a size other than the one the program fixes, or a size other than
/// an input dimension it must equal.
mlir::FailureOr<PlanCall>
bindLaunchPlan(mlir::func::FuncOp plan,
               llvm::ArrayRef<llvm::SmallVector<int64_t>> inputShapes,
               std::string &error);

} // namespace kiln

#endif // KILN_ARRAY_LAUNCHPLAN_H
