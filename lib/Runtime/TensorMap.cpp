//===- TensorMap.cpp - TMA tensor maps that launches build ----------------===//

#include "kiln/Runtime/TensorMap.h"

#include "kiln/Runtime/CudaDriver.h"

#include <cstring>
#include <sstream>

using namespace kiln::runtime;

namespace {
// cuda.h's values.
constexpr int kInterleaveNone = 0;
constexpr int kL2Promotion128B = 2;
constexpr int kOobFillZero = 0;
} // namespace

std::string
kiln::runtime::printTensorMapSpecs(const std::vector<TensorMapSpec> &specs) {
  std::ostringstream out;
  for (const TensorMapSpec &spec : specs) {
    out << spec.kernel << ' ' << spec.parameter << ' ' << spec.dataType << ' '
        << spec.elementBytes << ' ' << spec.boxRows << ' ' << spec.boxColumns
        << ' ' << spec.swizzle;
    for (int field = 0; field < TensorMapSpec::NumFields; ++field)
      out << ' ' << spec.sources[field] << ' ' << spec.values[field];
    out << '\n';
  }
  return out.str();
}

bool kiln::runtime::parseTensorMapSpecs(const std::string &text,
                                        std::vector<TensorMapSpec> &specs,
                                        std::string &error) {
  std::istringstream lines(text);
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    if (line.empty())
      continue;
    std::istringstream in(line);
    TensorMapSpec spec;
    in >> spec.kernel >> spec.parameter >> spec.dataType >>
        spec.elementBytes >> spec.boxRows >> spec.boxColumns >> spec.swizzle;
    for (int field = 0; field < TensorMapSpec::NumFields; ++field)
      in >> spec.sources[field] >> spec.values[field];
    std::string rest;
    if (in.fail() || (in >> rest) || !spec.elementBytes ||
        spec.sources[TensorMapSpec::Base] < 0) {
      error = "tensor map line " + std::to_string(number) +
              " is not 'kernel parameter dataType elementBytes boxRows "
              "boxColumns swizzle' and four source/value pairs: '" +
              line + "'";
      return false;
    }
    specs.push_back(std::move(spec));
  }
  return true;
}

/// Field `field` of `spec` for the launch with `args`; false with `error`
/// when its argument is missing.
static bool getField(const TensorMapSpec &spec, int field,
                     const std::vector<void *> &args, uint64_t &value,
                     std::string &error) {
  int64_t source = spec.sources[field];
  if (source < 0) {
    value = static_cast<uint64_t>(spec.values[field]);
    return true;
  }
  if (static_cast<size_t>(source) >= args.size() || !args[source]) {
    error = "the tensor map of parameter " + std::to_string(spec.parameter) +
            " of '" + spec.kernel + "' is built from argument " +
            std::to_string(source) + ", which the launch does not give";
    return false;
  }
  if (spec.values[field] == 4) {
    int32_t narrow;
    std::memcpy(&narrow, args[source], sizeof(narrow));
    value = static_cast<uint64_t>(static_cast<int64_t>(narrow));
  } else {
    std::memcpy(&value, args[source], sizeof(value));
  }
  return true;
}

bool kiln::runtime::encodeTensorMap(const CudaDriver &driver,
                                    const TensorMapSpec &spec,
                                    const std::vector<void *> &args,
                                    TensorMap &map, std::string &error) {
  uint64_t fields[TensorMapSpec::NumFields];
  for (int field = 0; field < TensorMapSpec::NumFields; ++field)
    if (!getField(spec, field, args, fields[field], error))
      return false;
  uint64_t base = fields[TensorMapSpec::Base];
  uint64_t rows = fields[TensorMapSpec::Rows];
  uint64_t columns = fields[TensorMapSpec::Columns];
  uint64_t rowBytes = fields[TensorMapSpec::RowStride] * spec.elementBytes;
  std::string what = "the tensor map of parameter " +
                     std::to_string(spec.parameter) + " of '" + spec.kernel +
                     "' (" + std::to_string(rows) + " x " +
                     std::to_string(columns) + " elements at 0x";
  {
    std::ostringstream hex;
    hex << std::hex << base;
    what += hex.str() + ", rows " + std::to_string(rowBytes) + " bytes apart)";
  }
  // The rules of cuTensorMapEncodeTiled, checked here to say which broke.
  const char *problem = nullptr;
  if (base % 16)
    problem = "the base address is not 16-byte aligned";
  else if (rowBytes % 16)
    problem = "the row stride is not a multiple of 16 bytes";
  else if (!rows || !columns || rows > (uint64_t(1) << 32) ||
           columns > (uint64_t(1) << 32))
    problem = "a dimension is 0 or above 2^32";
  else if (rowBytes >= (uint64_t(1) << 40))
    problem = "the row stride is 2^40 bytes or more";
  if (problem) {
    error = "cannot build " + what + ": " + problem +
            " (TMA copies need that; pass aligned tensors)";
    return false;
  }
  const DriverApi &api = driver.api();
  if (!api.cuTensorMapEncodeTiled) {
    error = "cannot build " + what +
            ": the CUDA driver has no cuTensorMapEncodeTiled (CUDA 12 or "
            "later has it)";
    return false;
  }
  const uint64_t globalDim[2] = {columns, rows};
  const uint64_t globalStrides[1] = {rowBytes};
  const uint32_t box[2] = {spec.boxColumns, spec.boxRows};
  const uint32_t elementStrides[2] = {1, 1};
  int swizzle = spec.swizzle == 128  ? 3
                : spec.swizzle == 64 ? 2
                : spec.swizzle == 32 ? 1
                                     : 0;
  if (int result = api.cuTensorMapEncodeTiled(
          &map, spec.dataType, 2, reinterpret_cast<void *>(base), globalDim,
          globalStrides, box, elementStrides, kInterleaveNone, swizzle,
          kL2Promotion128B, kOobFillZero);
      result != kSuccess) {
    error = driver.describe(result, "building " + what +
                                        " (cuTensorMapEncodeTiled)");
    return false;
  }
  return true;
}
