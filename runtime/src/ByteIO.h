//===- ByteIO.h - Little-endian fields of the runtime's formats -*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The encodings the artifact and the GPU module bundle share: `u32`/`u64`/
// `i64` little-endian, `f64` as its IEEE-754 bits, `str` a u32 length then the
// bytes, `blob` a u64 length then the bytes, `vec<T>` a u32 count then the
// elements. The reader checks every length against the bytes left.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_RT_BYTEIO_H
#define ORCHESTRA_RT_BYTEIO_H

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace orx {

/// Appends little-endian fields to a byte vector.
class ByteWriter {
public:
  std::vector<uint8_t> bytes;

  void u32(uint32_t value) { little(value, 4); }
  void u64(uint64_t value) { little(value, 8); }
  void i64(int64_t value) { little(static_cast<uint64_t>(value), 8); }
  void f64(double value) {
    uint64_t bits;
    std::memcpy(&bits, &value, sizeof(bits));
    little(bits, 8);
  }
  void count(size_t value) { u32(static_cast<uint32_t>(value)); }
  void str(const std::string &value) {
    count(value.size());
    bytes.insert(bytes.end(), value.begin(), value.end());
  }
  void blob(const std::vector<uint8_t> &value) {
    u64(value.size());
    bytes.insert(bytes.end(), value.begin(), value.end());
  }
  void u32s(const std::vector<uint32_t> &values) {
    count(values.size());
    for (uint32_t value : values)
      u32(value);
  }

private:
  void little(uint64_t value, int numBytes) {
    for (int i = 0; i < numBytes; ++i)
      bytes.push_back(static_cast<uint8_t>(value >> (8 * i)));
  }
};

/// Reads little-endian fields with bounds checks. The first failure is kept
/// in `error`; later reads fail without touching their outputs.
class ByteReader {
public:
  ByteReader(const uint8_t *data, size_t size) : data(data), size(size) {}

  bool ok() const { return error.empty(); }
  size_t remaining() const { return size - pos; }

  bool u32(uint32_t &value, const std::string &what) {
    uint64_t wide;
    if (!little(wide, 4, what))
      return false;
    value = static_cast<uint32_t>(wide);
    return true;
  }
  bool u64(uint64_t &value, const std::string &what) {
    return little(value, 8, what);
  }
  bool i64(int64_t &value, const std::string &what) {
    uint64_t bits;
    if (!little(bits, 8, what))
      return false;
    value = static_cast<int64_t>(bits);
    return true;
  }
  bool f64(double &value, const std::string &what) {
    uint64_t bits;
    if (!little(bits, 8, what))
      return false;
    std::memcpy(&value, &bits, sizeof(value));
    return true;
  }
  /// Reads an element count and checks that `count * minElementBytes` bytes
  /// remain, so callers can reserve `count` elements safely.
  bool count(uint32_t &value, size_t minElementBytes, const std::string &what) {
    if (!u32(value, what))
      return false;
    if (minElementBytes != 0 && value > remaining() / minElementBytes)
      return fail(what + ": count " + std::to_string(value) +
                  " exceeds the remaining " + std::to_string(remaining()) +
                  " payload bytes");
    return true;
  }
  bool str(std::string &value, const std::string &what) {
    uint32_t length;
    if (!count(length, 1, what))
      return false;
    value.assign(reinterpret_cast<const char *>(data + pos), length);
    pos += length;
    return true;
  }
  bool blob(std::vector<uint8_t> &value, const std::string &what) {
    uint64_t length;
    if (!u64(length, what))
      return false;
    if (length > remaining())
      return fail(what + ": " + std::to_string(length) +
                  " bytes exceed the remaining " + std::to_string(remaining()) +
                  " payload bytes");
    value.assign(data + pos, data + pos + length);
    pos += length;
    return true;
  }
  bool u32s(std::vector<uint32_t> &values, const std::string &what) {
    uint32_t n;
    if (!count(n, 4, what))
      return false;
    values.resize(n);
    for (uint32_t i = 0; i < n; ++i)
      if (!u32(values[i], what))
        return false;
    return true;
  }

  bool fail(const std::string &message) {
    if (error.empty())
      error = message;
    return false;
  }

  std::string error;

private:
  bool little(uint64_t &value, size_t numBytes, const std::string &what) {
    if (!ok())
      return false;
    if (remaining() < numBytes)
      return fail(what + " extends past the end of the payload");
    value = 0;
    for (size_t i = 0; i < numBytes; ++i)
      value |= static_cast<uint64_t>(data[pos + i]) << (8 * i);
    pos += numBytes;
    return true;
  }

  const uint8_t *data;
  size_t size;
  size_t pos = 0;
};

} // namespace orx

#endif // ORCHESTRA_RT_BYTEIO_H
