//===- Npy.h - Reading numpy's .npy files -----------------------*- C++ -*-===//
//
// kiln-run takes inputs and expected results as .npy files, and writes
// results as .npy files: little-endian, C-ordered arrays of the element
// types kernels take.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TOOLS_KILN_RUN_NPY_H
#define KILN_TOOLS_KILN_RUN_NPY_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln::npy {

/// An array read from a .npy file.
struct Array {
  /// Element type as kiln-run spells it: i8 i16 i32 i64 f16 f32 f64.
  std::string type;
  std::vector<int64_t> shape;
  std::vector<char> bytes;
};

/// Reads `path`; on failure returns a message saying what is wrong.
std::optional<std::string> read(llvm::StringRef path, Array &array);

/// Writes `array` to `path` (format version 1.0); on failure returns a
/// message.
std::optional<std::string> write(llvm::StringRef path, const Array &array);

} // namespace kiln::npy

#endif // KILN_TOOLS_KILN_RUN_NPY_H
