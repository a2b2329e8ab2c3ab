//===- TensorMap.h - TMA tensor maps that launches build --------*- C++ -*-===//
//
// A kernel that copies with the tensor memory accelerator reads each tensor
// map from a 128-byte __grid_constant__ parameter after its own arguments.
// The compiler describes how to build each map from the launch's arguments
// (TensorMapSpec, kept as text with the binary and in caches); the launch
// builds it with cuTensorMapEncodeTiled. No LLVM or MLIR here.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_TENSORMAP_H
#define KILN_RUNTIME_TENSORMAP_H

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace kiln::runtime {

struct DriverApi;
class CudaDriver;

/// How to build the tensor map of one parameter of one kernel: a
/// row-major 2-D tensor read in boxes of `boxRows` x `boxColumns` with a
/// `swizzle`-byte swizzle (0, 32, 64 or 128).
struct TensorMapSpec {
  std::string kernel;
  /// The parameter the map fills (after the kernel's own arguments).
  unsigned parameter = 0;
  /// cuda.h's CUtensorMapDataType of the elements, and their size.
  int dataType = 0;
  unsigned elementBytes = 0;
  unsigned boxRows = 0, boxColumns = 0, swizzle = 0;
  /// Base address, rows, columns and row stride (in elements), in that
  /// order: source -1 is the constant in `values`; a source k >= 0 is
  /// argument k, of `values` bytes (4 or 8).
  enum Field { Base, Rows, Columns, RowStride, NumFields };
  std::array<int64_t, NumFields> sources{}, values{};
};

/// One line per spec: "kernel parameter dataType elementBytes boxRows
/// boxColumns swizzle" then the source and value of each field.
std::string printTensorMapSpecs(const std::vector<TensorMapSpec> &specs);
/// The specs of `text` (printTensorMapSpecs's form); false with `error`
/// naming the line that is not.
bool parseTensorMapSpecs(const std::string &text,
                         std::vector<TensorMapSpec> &specs,
                         std::string &error);

/// A CUtensorMap: 128 bytes, 64-byte aligned, opaque.
struct alignas(64) TensorMap {
  uint64_t words[16];
};

/// Builds the map `spec` describes from `args` (pointers to the launch's
/// arguments, as cuLaunchKernel takes them). False with `error` naming the
/// parameter, the tensor and the rule broken (alignment, sizes) or the
/// driver's error.
bool encodeTensorMap(const CudaDriver &driver, const TensorMapSpec &spec,
                     const std::vector<void *> &args, TensorMap &map,
                     std::string &error);

} // namespace kiln::runtime

#endif // KILN_RUNTIME_TENSORMAP_H
