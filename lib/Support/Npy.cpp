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
#include "orchestra/Support/AtomicFile.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>

using namespace orchestra::npy;

static const std::string kMagic("\x93NUMPY", 6);

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
  return kTypeCodes[0]; // unreachable: every element type has a code
}

const char *orchestra::npy::getElementTypeName(ElementType type) {
  return getTypeCode(type).name;
}

size_t orchestra::npy::getElementTypeSize(ElementType type) {
  return getTypeCode(type).size;
}

namespace {
/// The outcome of a parsing step: empty on success, else the error.
using Error = std::optional<std::string>;
} // namespace

static Error makeError(std::string message) { return std::move(message); }

/// Maps a descr such as "<f4" or "|b1" to its element type.
static Error parseDescr(const std::string &descr, ElementType &out) {
  if (descr.size() == 3) {
    char order = descr[0];
    for (const TypeCode &code : kTypeCodes) {
      if (descr.compare(1, std::string::npos, code.code) != 0)
        continue;
      // One-byte types have no byte order ('|'); '=' is native, which is
      // little-endian on every host OrchestraOS supports.
      if (order == '<' || order == '=' || (code.size == 1 && order == '|')) {
        out = code.type;
        return std::nullopt;
      }
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
  explicit HeaderParser(std::string text) : rest(std::move(text)) {}

  Error parse(std::optional<std::string> &descr,
              std::optional<bool> &fortranOrder,
              std::optional<std::vector<int64_t>> &shape) {
    skipSpace();
    if (!consumeFront("{"))
      return makeError("header is not a dict");
    for (;;) {
      skipSpace();
      if (consumeFront("}"))
        break;
      std::string key;
      if (Error err = parseString(key))
        return err;
      skipSpace();
      if (!consumeFront(":"))
        return makeError("expected ':' after '" + key + "' in the header");
      skipSpace();
      if (key == "descr") {
        if (startsWith("["))
          return makeError("structured dtypes are not supported");
        std::string value;
        if (Error err = parseString(value))
          return err;
        descr = value;
      } else if (key == "fortran_order") {
        bool value;
        if (Error err = parseBool(value))
          return err;
        fortranOrder = value;
      } else if (key == "shape") {
        std::vector<int64_t> value;
        if (Error err = parseShape(value))
          return err;
        shape = std::move(value);
      } else {
        return makeError("unexpected key '" + key + "' in the header");
      }
      skipSpace();
      if (consumeFront(","))
        continue;
      skipSpace();
      if (!consumeFront("}"))
        return makeError("expected ',' or '}' in the header");
      break;
    }
    skipSpace();
    if (!rest.empty())
      return makeError("unexpected text after the header dict");
    return std::nullopt;
  }

private:
  bool startsWith(const char *prefix) const {
    return rest.compare(0, std::strlen(prefix), prefix) == 0;
  }
  bool consumeFront(const char *prefix) {
    if (!startsWith(prefix))
      return false;
    rest.erase(0, std::strlen(prefix));
    return true;
  }
  void skipSpace() { rest.erase(0, rest.find_first_not_of(" \t\r\n")); }

  Error parseString(std::string &value) {
    if (rest.empty() || (rest[0] != '\'' && rest[0] != '"'))
      return makeError("expected a string in the header");
    char quote = rest[0];
    size_t end = rest.find(quote, 1);
    if (end == std::string::npos)
      return makeError("unterminated string in the header");
    value = rest.substr(1, end - 1);
    if (value.find('\\') != std::string::npos)
      return makeError("escapes in header strings are not supported");
    rest.erase(0, end + 1);
    return std::nullopt;
  }

  Error parseBool(bool &value) {
    if (consumeFront("True"))
      value = true;
    else if (consumeFront("False"))
      value = false;
    else
      return makeError("expected True or False in the header");
    return std::nullopt;
  }

  Error parseShape(std::vector<int64_t> &shape) {
    if (!consumeFront("("))
      return makeError("expected a tuple for 'shape'");
    for (;;) {
      skipSpace();
      if (consumeFront(")"))
        return std::nullopt;
      size_t digits = 0;
      uint64_t dim = 0;
      bool overflow = false;
      while (digits < rest.size() && rest[digits] >= '0' &&
             rest[digits] <= '9') {
        unsigned digit = static_cast<unsigned>(rest[digits] - '0');
        if (dim > (static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) -
                   digit) /
                      10)
          overflow = true;
        else
          dim = dim * 10 + digit;
        ++digits;
      }
      if (digits == 0 || overflow)
        return makeError("expected a non-negative dimension in 'shape'");
      shape.push_back(static_cast<int64_t>(dim));
      rest.erase(0, digits);
      consumeFront("L");
      skipSpace();
      if (consumeFront(","))
        continue;
      skipSpace();
      if (!consumeFront(")"))
        return makeError("expected ',' or ')' in 'shape'");
      return std::nullopt;
    }
  }

  std::string rest;
};
} // namespace

static Error parseArray(const std::string &bytes, Array &out) {
  if (bytes.compare(0, kMagic.size(), kMagic) != 0)
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
        "unsupported .npy version " + std::to_string(major) + "." +
        std::to_string(static_cast<unsigned>(static_cast<uint8_t>(bytes[7]))));
  }
  if (headerLength > bytes.size() - headerStart)
    return makeError("truncated .npy header");

  std::optional<std::string> descr;
  std::optional<bool> fortranOrder;
  std::optional<std::vector<int64_t>> shape;
  HeaderParser parser(bytes.substr(headerStart, headerLength));
  if (Error err = parser.parse(descr, fortranOrder, shape))
    return err;
  if (!descr || !fortranOrder || !shape)
    return makeError("the header lacks 'descr', 'fortran_order' or 'shape'");
  if (*fortranOrder)
    return makeError("Fortran-order arrays are not supported");

  Array array;
  if (Error err = parseDescr(*descr, array.type))
    return err;
  array.shape = std::move(*shape);
  uint64_t expectedBytes = getElementTypeSize(array.type);
  for (int64_t dim : array.shape) {
    if (dim != 0 && expectedBytes > std::numeric_limits<uint64_t>::max() /
                                        static_cast<uint64_t>(dim))
      return makeError("the shape is too large");
    expectedBytes *= static_cast<uint64_t>(dim);
  }
  size_t dataStart = headerStart + headerLength;
  size_t dataBytes = bytes.size() - dataStart;
  if (dataBytes != expectedBytes)
    return makeError("expected " + std::to_string(expectedBytes) +
                     " data bytes for the shape, the file has " +
                     std::to_string(dataBytes));
  array.data.assign(bytes.begin() + dataStart, bytes.end());
  out = std::move(array);
  return std::nullopt;
}

bool orchestra::npy::parse(const std::string &bytes, Array &out,
                           std::string &error) {
  Error err = parseArray(bytes, out);
  if (err)
    error = *err;
  return !err;
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

bool orchestra::npy::readFile(const std::string &path, Array &out,
                              std::string &error) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    error = "cannot read '" + path + "': " + std::strerror(errno);
    return false;
  }
  std::string bytes((std::istreambuf_iterator<char>(file)),
                    std::istreambuf_iterator<char>());
  if (file.bad()) {
    error = "cannot read '" + path + "': " + std::strerror(errno);
    return false;
  }
  if (parse(bytes, out, error))
    return true;
  error = "'" + path + "': " + error;
  return false;
}

bool orchestra::npy::writeFile(const std::string &path, const Array &array,
                               std::string &error) {
  std::string bytes = serialize(array);
  return writeFileAtomically(path, bytes.data(), bytes.size(), error);
}
