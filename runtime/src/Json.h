//===- Json.h - A small JSON reader for the runtime -------------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The runtime links no LLVM, so it reads the JSON it is given (a topology
// file, for the topology check) with this reader: RFC 8259 values into a
// tree, numbers as doubles, strings as UTF-8 with escapes decoded. Input is
// untrusted: nesting is bounded, every error names its line and column, and
// nothing is read past the end.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_RT_JSON_H
#define ORCHESTRA_RT_JSON_H

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace orx::json {

struct Value {
  enum class Kind { Null, Bool, Number, String, Array, Object };
  Kind kind = Kind::Null;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<Value> elements;
  /// Members in file order; a repeated key keeps every occurrence.
  std::vector<std::pair<std::string, Value>> members;

  /// The first member named `key` of an object, or null.
  const Value *get(const std::string &key) const;
};

/// The deepest nesting of arrays and objects accepted.
inline constexpr size_t kMaxDepth = 128;

/// Parses `text` (exactly one value, with optional whitespace around it).
/// Returns false with `error` set ("line L, column C: what").
bool parse(const std::string &text, Value &out, std::string &error);

} // namespace orx::json

#endif // ORCHESTRA_RT_JSON_H
