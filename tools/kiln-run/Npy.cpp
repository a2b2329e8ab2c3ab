//===- Npy.cpp - Reading numpy's .npy files -------------------------------===//

#include "Npy.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace kiln;

/// The value of `key` in the header's dictionary text, up to the next
/// comma at depth zero (a tuple stays whole).
static std::optional<llvm::StringRef> lookup(llvm::StringRef header,
                                             llvm::StringRef key) {
  size_t at = header.find(("'" + key + "'").str());
  if (at == llvm::StringRef::npos)
    return std::nullopt;
  llvm::StringRef rest = header.drop_front(at + key.size() + 2).ltrim();
  if (!rest.consume_front(":"))
    return std::nullopt;
  rest = rest.ltrim();
  int depth = 0;
  size_t end = 0;
  for (; end < rest.size(); ++end) {
    char c = rest[end];
    if (c == '(')
      ++depth;
    else if (c == ')')
      --depth;
    else if ((c == ',' || c == '}') && depth == 0)
      break;
  }
  return rest.take_front(end).trim();
}

std::optional<std::string> npy::read(llvm::StringRef path, Array &array) {
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!file)
    return "cannot read " + path.str() + ": " + file.getError().message();
  llvm::StringRef data = (*file)->getBuffer();
  if (!data.consume_front("\x93NUMPY") || data.size() < 4)
    return path.str() + " is not a .npy file";
  uint8_t major = data[0];
  size_t headerSize;
  if (major == 1) {
    headerSize = uint8_t(data[2]) | uint8_t(data[3]) << 8;
    data = data.drop_front(4);
  } else {
    if (data.size() < 6)
      return path.str() + " is truncated";
    headerSize = uint8_t(data[2]) | uint8_t(data[3]) << 8 |
                 uint8_t(data[4]) << 16 | size_t(uint8_t(data[5])) << 24;
    data = data.drop_front(6);
  }
  if (data.size() < headerSize)
    return path.str() + " is truncated";
  llvm::StringRef header = data.take_front(headerSize);
  data = data.drop_front(headerSize);

  std::optional<llvm::StringRef> descr = lookup(header, "descr");
  std::optional<llvm::StringRef> fortran = lookup(header, "fortran_order");
  std::optional<llvm::StringRef> shape = lookup(header, "shape");
  if (!descr || !fortran || !shape)
    return path.str() + " has no descr, fortran_order or shape";
  array.type = llvm::StringSwitch<std::string>(descr->trim("'\""))
                   .Cases({"|i1", "<i1"}, "i8")
                   .Case("<i2", "i16")
                   .Case("<i4", "i32")
                   .Case("<i8", "i64")
                   .Case("<f4", "f32")
                   .Case("<f8", "f64")
                   .Default("");
  if (array.type.empty())
    return path.str() + ": element type " + descr->str() +
           " is not one of int8/16/32/64, float32/64 (little-endian)";
  if (*fortran != "False")
    return path.str() + " is in Fortran order; save a C-ordered array";
  llvm::SmallVector<llvm::StringRef> dims;
  shape->trim("()").split(dims, ',', -1, /*KeepEmpty=*/false);
  int64_t count = 1;
  array.shape.clear();
  for (llvm::StringRef dim : dims) {
    int64_t size;
    if (dim.trim().getAsInteger(10, size) || size < 0)
      return path.str() + ": bad shape " + shape->str();
    array.shape.push_back(size);
    count *= size;
  }
  int64_t bytes = count * (array.type == "i8"    ? 1
                           : array.type == "i16" ? 2
                           : array.type == "i32" || array.type == "f32"
                               ? 4
                               : 8);
  if (static_cast<int64_t>(data.size()) != bytes)
    return path.str() + ": expected " + std::to_string(bytes) +
           " bytes of data, found " + std::to_string(data.size());
  array.bytes.assign(data.begin(), data.end());
  return std::nullopt;
}
