//===- Attributes.h - Names the array level marks functions by -*- C++ -*-===//
//
// kiln-fuse marks the kernels it outlines and kiln-tile the launch plans it
// builds; the passes and targets below them tell those functions apart by
// these names (a plan is host code, not a tile kernel), so each is defined
// here once.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_ARRAY_ATTRIBUTES_H
#define KILN_ARRAY_ATTRIBUTES_H

#include "llvm/ADT/StringRef.h"

namespace kiln::array {

/// A function kiln-fuse outlined: a kernel for kiln-tile to tile.
inline constexpr llvm::StringLiteral kKernelAttr = "kiln.kernel";

/// A launch plan (see lib/Array/LaunchPlan.cpp), and how to call it: the
/// tensor types of its inputs and outputs, and which size argument each
/// dynamic dimension of those types equals.
inline constexpr llvm::StringLiteral kPlanAttr = "kiln.plan";
inline constexpr llvm::StringLiteral kPlanInputsAttr = "kiln.plan.inputs";
inline constexpr llvm::StringLiteral kPlanOutputsAttr = "kiln.plan.outputs";
inline constexpr llvm::StringLiteral kPlanSizesAttr = "kiln.plan.sizes";

} // namespace kiln::array

#endif // KILN_ARRAY_ATTRIBUTES_H
