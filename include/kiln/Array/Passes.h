//===- Passes.h - Kiln's array-level passes ---------------------*- C++ -*-===//

#ifndef KILN_ARRAY_PASSES_H
#define KILN_ARRAY_PASSES_H

#include "mlir/Pass/Pass.h"

namespace kiln {

#define GEN_PASS_DECL
#include "kiln/Array/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "kiln/Array/Passes.h.inc"

} // namespace kiln

#endif // KILN_ARRAY_PASSES_H
