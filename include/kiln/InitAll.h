//===- InitAll.h - Everything Kiln's tools register -------------*- C++ -*-===//
//
// The dialects and passes Kiln's pipeline uses, in one place, so that
// kiln-opt and the C API accept the same programs and pipelines.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_INITALL_H
#define KILN_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace kiln {

/// Adds the tile dialect and the upstream dialects Kiln programs use.
void registerAllDialects(mlir::DialectRegistry &registry);

/// Registers the passes Kiln pipelines may name. Safe to call more than once.
void registerAllPasses();

} // namespace kiln

#endif // KILN_INITALL_H
