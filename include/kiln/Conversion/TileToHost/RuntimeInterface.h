//===- RuntimeInterface.h - What host kernels call at run time --*- C++ -*-===//
//
// The functions that kernels lowered for the host (and launch plans) call,
// which the host runtime (lib/Target/Host, kiln-run's GPU plans) provides,
// and the module attributes through which the lowering describes its call
// sites to that runtime. Both sides take the names from here.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CONVERSION_TILETOHOST_RUNTIMEINTERFACE_H
#define KILN_CONVERSION_TILETOHOST_RUNTIMEINTERFACE_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace kiln::host {

/// Temporaries of launch plans: (i64 bytes) -> i64 address; (i64) -> ().
inline constexpr llvm::StringLiteral kAllocFunction = "__kiln_host_alloc";
inline constexpr llvm::StringLiteral kFreeFunction = "__kiln_host_free";

/// The bounds check of one access (`bounds-check`): (i64 address, i64
/// bytes, i32 site, i32 enabled, i32 program id x, y, z) -> i32 whether to
/// access. The check of a tile's accesses at once: (i64 lowest address, i64
/// highest address, i64 bytes of one element, i32 site) -> i32 whether all
/// are allowed. The module attribute describes each site as ["file:line:col:
/// op", the argument its pointer comes from (i32, -1 for any), whether it
/// writes (bool)].
inline constexpr llvm::StringLiteral kCheckFunction =
    "__kiln_host_check_access";
inline constexpr llvm::StringLiteral kCheckSpanFunction =
    "__kiln_host_check_span";
inline constexpr llvm::StringLiteral kAccessSitesAttr =
    "kiln.host.access_sites";

/// The lock that makes atomics atomic across the threads of a launch.
inline constexpr llvm::StringLiteral kLockFunction = "__kiln_host_lock";
inline constexpr llvm::StringLiteral kUnlockFunction = "__kiln_host_unlock";

/// tile.print, per element and operand: (i32 site, i32 operand (-1: none),
/// i64 element, i32 PrintKind, i64 integer, f64 float, i32 program id x,
/// y, z) -> (). tile.assert, per element: (i32 site, i32 holds, i64
/// element, i32 program id x, y, z) -> (). The module attribute describes
/// each site as [text, shape (array<i64>), number of operands (i32)]: a
/// print's prefix, an assert's "file:line:col: message".
inline constexpr llvm::StringLiteral kPrintFunction = "__kiln_host_print";
inline constexpr llvm::StringLiteral kAssertFunction = "__kiln_host_assert";
inline constexpr llvm::StringLiteral kDebugSitesAttr = "kiln.host.debug_sites";

/// How a printed value is passed and written.
enum class PrintKind : int32_t { Integer = 0, Float = 1, Double = 2 };

} // namespace kiln::host

#endif // KILN_CONVERSION_TILETOHOST_RUNTIMEINTERFACE_H
