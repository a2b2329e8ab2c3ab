//===- Npy.cpp - Reading numpy's .npy files -------------------------------===//

#include "Npy.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

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
                   .Case("<f2", "f16")
                   .Case("<i4", "i32")
                   .Case("<i8", "i64")
                   .Case("<f4", "f32")
                   .Case("<f8", "f64")
                   .Default("");
  if (array.type.empty())
    return path.str() + ": element type " + descr->str() +
           " is not one of int8/16/32/64, float16/32/64 (little-endian)";
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
  int64_t bytes = count * (array.type == "i8" ? 1
                           : array.type == "i16" || array.type == "f16" ? 2
                           : array.type == "i32" || array.type == "f32"
                               ? 4
                               : 8);
  if (static_cast<int64_t>(data.size()) != bytes)
    return path.str() + ": expected " + std::to_string(bytes) +
           " bytes of data, found " + std::to_string(data.size());
  array.bytes.assign(data.begin(), data.end());
  return std::nullopt;
}

std::optional<std::string> npy::write(llvm::StringRef path,
                                      const Array &array) {
  std::string descr = llvm::StringSwitch<std::string>(array.type)
                          .Case("i8", "|i1")
                          .Case("i16", "<i2")
                          .Case("f16", "<f2")
                          .Case("i32", "<i4")
                          .Case("i64", "<i8")
                          .Case("f32", "<f4")
                          .Case("f64", "<f8")
                          .Default("");
  if (descr.empty())
    return "cannot write elements of type " + array.type;
  std::string shape = "(";
  for (int64_t size : array.shape)
    shape += std::to_string(size) + ",";
  shape += ")";
  std::string header = "{'descr': '" + descr +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // The data starts at a multiple of 64 bytes, the header ends in '\n'.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::error_code error;
  llvm::raw_fd_ostream os(path, error, llvm::sys::fs::OF_None);
  if (error)
    return "cannot write " + path.str() + ": " + error.message();
  os << "\x93NUMPY" << char(1) << char(0) << char(header.size() & 0xff)
     << char(header.size() >> 8) << header;
  os.write(array.bytes.data(), array.bytes.size());
  os.close();
  if (os.has_error())
    return "cannot write " + path.str() + ": " + os.error().message();
  return std::nullopt;
}
