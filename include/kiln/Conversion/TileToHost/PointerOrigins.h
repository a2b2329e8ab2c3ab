//===- PointerOrigins.h - Which kernel argument a pointer points into -*- C++ -*-===//
//
// The host target's bounds checks compare an access with the array its
// pointer was derived from, so that a store past the end of one array is
// caught even where another array of the launch lies behind it.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CONVERSION_TILETOHOST_POINTERORIGINS_H
#define KILN_CONVERSION_TILETOHOST_POINTERORIGINS_H

#include "mlir/IR/Value.h"

namespace kiln::host {

/// Where the elements of a pointer (or tile of pointers, or block pointer)
/// come from.
struct PointerOrigin {
  enum Kind {
    /// All from argument `argument` of the enclosing function, by pointer
    /// arithmetic, views and choices between such pointers.
    Argument,
    /// Some from an integer made a pointer: an address the launch's
    /// arguments may not cover.
    Address,
    /// From several arguments, or from what the search does not follow.
    Unknown,
  };
  Kind kind = Unknown;
  unsigned argument = 0;
};

PointerOrigin findPointerOrigin(mlir::Value ptr);

} // namespace kiln::host

#endif // KILN_CONVERSION_TILETOHOST_POINTERORIGINS_H
