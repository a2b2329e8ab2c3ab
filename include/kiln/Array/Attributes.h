//===- Attributes.h - Names the array level marks functions by -*- C++ -*-===//
//
// kiln-fuse marks the kernels it outlines, for kiln-tile and the cost
// report, by this name, defined here once. (The plans kiln-tile builds are
// the plan dialect's: plan::isPlan.)
//
//===----------------------------------------------------------------------===//

#ifndef KILN_ARRAY_ATTRIBUTES_H
#define KILN_ARRAY_ATTRIBUTES_H

#include "llvm/ADT/StringRef.h"

namespace kiln::array {

/// A function kiln-fuse outlined: a kernel for kiln-tile to tile.
inline constexpr llvm::StringLiteral kKernelAttr = "kiln.kernel";

} // namespace kiln::array

#endif // KILN_ARRAY_ATTRIBUTES_H
