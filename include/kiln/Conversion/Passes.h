//===- Passes.h - Kiln conversion passes ------------------------*- C++ -*-===//

#ifndef KILN_CONVERSION_PASSES_H
#define KILN_CONVERSION_PASSES_H

#include "mlir/Pass/Pass.h"

namespace kiln {

/// The gpu.module attribute (i64) giving the dynamic shared memory, in
/// bytes, that every launch of its kernels must give; absent when their
/// shared memory is static.
inline constexpr llvm::StringLiteral kDynamicSharedBytesAttrName =
    "kiln.dynamic_shared_bytes";

#define GEN_PASS_DECL
#include "kiln/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "kiln/Conversion/Passes.h.inc"

} // namespace kiln

#endif // KILN_CONVERSION_PASSES_H
