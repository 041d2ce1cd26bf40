//===- JsonWriter.h - Writing JSON without LLVM -----------------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// orchestra-run links only the runtime, so it writes its JSON (the Chrome
// trace, `--describe=json`) with this streaming writer: indented, keys in
// the order written, strings escaped, doubles in their shortest form that
// reads back exactly.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_TOOLS_ORCHESTRA_RUN_JSONWRITER_H
#define ORCHESTRA_TOOLS_ORCHESTRA_RUN_JSONWRITER_H

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

namespace orchestra {

class JsonWriter {
public:
  explicit JsonWriter(std::ostream &os) : os(os) {}

  void beginObject() { open('{'); }
  void endObject() { close('}'); }
  void beginArray() { open('['); }
  void endArray() { close(']'); }

  /// The key of the next value, inside an object.
  void key(const std::string &name) {
    separate();
    writeString(name);
    os << ": ";
    afterKey = true;
  }

  void value(const std::string &text) {
    separate();
    writeString(text);
  }
  void value(const char *text) { value(std::string(text)); }
  void value(bool flag) {
    separate();
    os << (flag ? "true" : "false");
  }
  void value(int64_t number) {
    separate();
    os << number;
  }
  void value(uint64_t number) {
    separate();
    os << number;
  }
  void value(uint32_t number) { value(static_cast<uint64_t>(number)); }
  void value(int number) { value(static_cast<int64_t>(number)); }
  void value(double number) {
    separate();
    if (!std::isfinite(number)) {
      os << "null";
      return;
    }
    char buffer[32];
    auto result = std::to_chars(buffer, buffer + sizeof(buffer), number);
    os.write(buffer, result.ptr - buffer);
  }
  void null() {
    separate();
    os << "null";
  }

  /// key(name) then value(v).
  template <typename T>
  void member(const std::string &name, const T &v) {
    key(name);
    value(v);
  }

  /// An array of numbers on one line.
  template <typename T>
  void numbers(const std::string &name, const std::vector<T> &values) {
    key(name);
    separate();
    os << "[";
    for (size_t i = 0; i < values.size(); ++i)
      os << (i ? ", " : "") << values[i];
    os << "]";
  }

  /// Ends the document with a newline.
  void finish() { os << "\n"; }

private:
  void open(char bracket) {
    separate();
    os << bracket;
    first.push_back(true);
  }

  void close(char bracket) {
    bool empty = first.back();
    first.pop_back();
    if (!empty)
      newline();
    os << bracket;
  }

  /// Writes what goes before a value or key: nothing after a key, else a
  /// comma unless it is the first, and the indentation.
  void separate() {
    if (afterKey) {
      afterKey = false;
      return;
    }
    if (first.empty())
      return;
    if (!first.back())
      os << ",";
    first.back() = false;
    newline();
  }

  void newline() { os << "\n" << std::string(2 * first.size(), ' '); }

  void writeString(const std::string &text) {
    os << '"';
    for (unsigned char c : text) {
      switch (c) {
      case '"':
        os << "\\\"";
        break;
      case '\\':
        os << "\\\\";
        break;
      case '\n':
        os << "\\n";
        break;
      case '\r':
        os << "\\r";
        break;
      case '\t':
        os << "\\t";
        break;
      default:
        if (c < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof(escaped), "\\u%04x", c);
          os << escaped;
        } else {
          os << c;
        }
      }
    }
    os << '"';
  }

  std::ostream &os;
  /// Per open array or object: whether nothing was written in it yet.
  std::vector<bool> first;
  bool afterKey = false;
};

} // namespace orchestra

#endif // ORCHESTRA_TOOLS_ORCHESTRA_RUN_JSONWRITER_H
