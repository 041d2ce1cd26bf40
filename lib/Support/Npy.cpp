//===- Npy.cpp - Reading and writing NumPy .npy files ---------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Layout: the magic "\x93NUMPY", major and minor version bytes, the header
// length (u16 in 1.0, u32 in 2.0/3.0), then the header: a Python dict literal
// such as {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }, padded
// with spaces and a newline; the data follows.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Support/Npy.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <limits>
#include <optional>

using namespace orchestra::npy;
using llvm::StringRef;

static constexpr StringRef kMagic("\x93NUMPY", 6);

namespace {
/// The .npy spelling of each element type, without the byte-order character.
struct TypeCode {
  ElementType type;
  const char *code;
  const char *name;
  size_t size;
};
} // namespace

static const TypeCode kTypeCodes[] = {
    {ElementType::F32, "f4", "f32", 4}, {ElementType::F64, "f8", "f64", 8},
    {ElementType::F16, "f2", "f16", 2}, {ElementType::Bool, "b1", "i1", 1},
    {ElementType::I8, "i1", "i8", 1},   {ElementType::I16, "i2", "i16", 2},
    {ElementType::I32, "i4", "i32", 4}, {ElementType::I64, "i8", "i64", 8},
    {ElementType::U8, "u1", "u8", 1},   {ElementType::U16, "u2", "u16", 2},
    {ElementType::U32, "u4", "u32", 4}, {ElementType::U64, "u8", "u64", 8},
};

static const TypeCode &getTypeCode(ElementType type) {
  for (const TypeCode &code : kTypeCodes)
    if (code.type == type)
      return code;
  llvm_unreachable("every element type has a type code");
}

StringRef orchestra::npy::getElementTypeName(ElementType type) {
  return getTypeCode(type).name;
}

size_t orchestra::npy::getElementTypeSize(ElementType type) {
  return getTypeCode(type).size;
}

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Maps a descr such as "<f4" or "|b1" to its element type.
static llvm::Expected<ElementType> parseDescr(StringRef descr) {
  if (descr.size() == 3) {
    char order = descr[0];
    for (const TypeCode &code : kTypeCodes) {
      if (descr.drop_front() != code.code)
        continue;
      // One-byte types have no byte order ('|'); '=' is native, which is
      // little-endian on every host OrchestraOS supports.
      if (order == '<' || order == '=' || (code.size == 1 && order == '|'))
        return code.type;
      if (order == '>')
        return makeError("big-endian data ('" + descr + "') is not supported");
    }
  }
  return makeError(
      "unsupported dtype '" + descr +
      "' (supported: <f4 <f8 <f2 <i2 <i4 <i8 |i1 |u1 <u2 <u4 <u8 |b1)");
}

namespace {
/// Parses the header dict, a Python literal. Only what np.save writes is
/// accepted: string keys; string, boolean and integer-tuple values.
class HeaderParser {
public:
  explicit HeaderParser(StringRef text) : rest(text) {}

  llvm::Error parse(std::optional<std::string> &descr,
                    std::optional<bool> &fortranOrder,
                    std::optional<std::vector<int64_t>> &shape) {
    skipSpace();
    if (!rest.consume_front("{"))
      return makeError("header is not a dict");
    for (;;) {
      skipSpace();
      if (rest.consume_front("}"))
        break;
      std::string key;
      if (llvm::Error err = parseString(key))
        return err;
      skipSpace();
      if (!rest.consume_front(":"))
        return makeError("expected ':' after '" + key + "' in the header");
      skipSpace();
      if (key == "descr") {
        if (rest.starts_with("["))
          return makeError("structured dtypes are not supported");
        std::string value;
        if (llvm::Error err = parseString(value))
          return err;
        descr = value;
      } else if (key == "fortran_order") {
        bool value;
        if (llvm::Error err = parseBool(value))
          return err;
        fortranOrder = value;
      } else if (key == "shape") {
        std::vector<int64_t> value;
        if (llvm::Error err = parseShape(value))
          return err;
        shape = std::move(value);
      } else {
        return makeError("unexpected key '" + key + "' in the header");
      }
      skipSpace();
      if (rest.consume_front(","))
        continue;
      skipSpace();
      if (!rest.consume_front("}"))
        return makeError("expected ',' or '}' in the header");
      break;
    }
    skipSpace();
    if (!rest.empty())
      return makeError("unexpected text after the header dict");
    return llvm::Error::success();
  }

private:
  void skipSpace() { rest = rest.ltrim(" \t\r\n"); }

  llvm::Error parseString(std::string &value) {
    if (rest.empty() || (rest[0] != '\'' && rest[0] != '"'))
      return makeError("expected a string in the header");
    char quote = rest[0];
    size_t end = rest.find(quote, 1);
    if (end == StringRef::npos)
      return makeError("unterminated string in the header");
    value = rest.slice(1, end).str();
    if (value.find('\\') != std::string::npos)
      return makeError("escapes in header strings are not supported");
    rest = rest.drop_front(end + 1);
    return llvm::Error::success();
  }

  llvm::Error parseBool(bool &value) {
    if (rest.consume_front("True"))
      value = true;
    else if (rest.consume_front("False"))
      value = false;
    else
      return makeError("expected True or False in the header");
    return llvm::Error::success();
  }

  llvm::Error parseShape(std::vector<int64_t> &shape) {
    if (!rest.consume_front("("))
      return makeError("expected a tuple for 'shape'");
    for (;;) {
      skipSpace();
      if (rest.consume_front(")"))
        return llvm::Error::success();
      size_t digits = 0;
      while (digits < rest.size() && llvm::isDigit(rest[digits]))
        ++digits;
      uint64_t dim;
      if (digits == 0 || rest.take_front(digits).getAsInteger(10, dim) ||
          dim > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        return makeError("expected a non-negative dimension in 'shape'");
      shape.push_back(static_cast<int64_t>(dim));
      rest = rest.drop_front(digits);
      rest.consume_front("L");
      skipSpace();
      if (rest.consume_front(","))
        continue;
      skipSpace();
      if (!rest.consume_front(")"))
        return makeError("expected ',' or ')' in 'shape'");
      return llvm::Error::success();
    }
  }

  StringRef rest;
};
} // namespace

llvm::Expected<Array> orchestra::npy::parse(StringRef bytes) {
  if (!bytes.starts_with(kMagic))
    return makeError("not a .npy file (bad magic)");
  if (bytes.size() < 8)
    return makeError("truncated .npy header");
  unsigned major = static_cast<uint8_t>(bytes[6]);
  size_t headerLength, headerStart;
  if (major == 1) {
    if (bytes.size() < 10)
      return makeError("truncated .npy header");
    headerLength = static_cast<uint8_t>(bytes[8]) |
                   static_cast<size_t>(static_cast<uint8_t>(bytes[9])) << 8;
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return makeError("truncated .npy header");
    headerLength = 0;
    for (int i = 0; i < 4; ++i)
      headerLength |= static_cast<size_t>(static_cast<uint8_t>(bytes[8 + i]))
                      << (8 * i);
    headerStart = 12;
  } else {
    return makeError(
        "unsupported .npy version " + llvm::Twine(major) + "." +
        llvm::Twine(static_cast<unsigned>(static_cast<uint8_t>(bytes[7]))));
  }
  if (headerLength > bytes.size() - headerStart)
    return makeError("truncated .npy header");

  std::optional<std::string> descr;
  std::optional<bool> fortranOrder;
  std::optional<std::vector<int64_t>> shape;
  HeaderParser parser(bytes.substr(headerStart, headerLength));
  if (llvm::Error err = parser.parse(descr, fortranOrder, shape))
    return std::move(err);
  if (!descr || !fortranOrder || !shape)
    return makeError("the header lacks 'descr', 'fortran_order' or 'shape'");
  if (*fortranOrder)
    return makeError("Fortran-order arrays are not supported");

  Array array;
  llvm::Expected<ElementType> type = parseDescr(*descr);
  if (!type)
    return type.takeError();
  array.type = *type;
  array.shape = std::move(*shape);
  uint64_t expectedBytes = getElementTypeSize(array.type);
  for (int64_t dim : array.shape) {
    if (dim != 0 && expectedBytes > std::numeric_limits<uint64_t>::max() /
                                        static_cast<uint64_t>(dim))
      return makeError("the shape is too large");
    expectedBytes *= static_cast<uint64_t>(dim);
  }
  StringRef data = bytes.drop_front(headerStart + headerLength);
  if (data.size() != expectedBytes)
    return makeError("expected " + llvm::Twine(expectedBytes) +
                     " data bytes for the shape, the file has " +
                     llvm::Twine(data.size()));
  array.data.assign(data.bytes_begin(), data.bytes_end());
  return array;
}

std::string orchestra::npy::serialize(const Array &array) {
  std::string header = "{'descr': '";
  header += getElementTypeSize(array.type) == 1 ? '|' : '<';
  header += getTypeCode(array.type).code;
  header += "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < array.shape.size(); ++i)
    header += (i ? ", " : "") + std::to_string(array.shape[i]);
  header += array.shape.size() == 1 ? ",), }" : "), }";
  // Pad with spaces and a newline so that the data starts 64-byte aligned.
  bool version2 = header.size() + 12 + 64 > 0xffff;
  size_t prefix = version2 ? 12 : 10;
  size_t total = (prefix + header.size() + 1 + 63) / 64 * 64;
  header.append(total - prefix - header.size() - 1, ' ');
  header += '\n';

  std::string result(kMagic);
  result += static_cast<char>(version2 ? 2 : 1);
  result += '\0';
  for (size_t i = 0; i < (version2 ? 4u : 2u); ++i)
    result += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  result += header;
  result.append(array.data.begin(), array.data.end());
  return result;
}

llvm::Expected<Array> orchestra::npy::readFile(StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer)
    return makeError("cannot read '" + path +
                     "': " + buffer.getError().message());
  llvm::Expected<Array> array = parse((*buffer)->getBuffer());
  if (!array)
    return makeError("'" + path + "': " + llvm::toString(array.takeError()));
  return array;
}

llvm::Error orchestra::npy::writeFile(StringRef path, const Array &array) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return makeError("cannot write '" + path + "': " + ec.message());
  os << serialize(array);
  os.close();
  if (os.has_error())
    return makeError("cannot write '" + path + "': " + os.error().message());
  return llvm::Error::success();
}
