//===- Json.cpp - A small JSON reader for the runtime ---------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "Json.h"

#include <cmath>
#include <cstdlib>
#include <cstring>

using namespace orx;
using namespace orx::json;

const Value *Value::get(const std::string &key) const {
  for (const auto &member : members)
    if (member.first == key)
      return &member.second;
  return nullptr;
}

namespace {
class Parser {
public:
  explicit Parser(const std::string &text) : text(text) {}

  bool parseDocument(Value &out) {
    skipSpace();
    if (!parseValue(out, 0))
      return false;
    skipSpace();
    if (pos != text.size())
      return fail("unexpected text after the value");
    return true;
  }

  std::string error;

private:
  bool fail(const std::string &what) {
    size_t line = 1, column = 1;
    for (size_t i = 0; i < pos && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    error = "line " + std::to_string(line) + ", column " +
            std::to_string(column) + ": " + what;
    return false;
  }

  bool atEnd() const { return pos >= text.size(); }
  char peek() const { return atEnd() ? '\0' : text[pos]; }

  void skipSpace() {
    while (!atEnd() && (text[pos] == ' ' || text[pos] == '\t' ||
                        text[pos] == '\n' || text[pos] == '\r'))
      ++pos;
  }

  bool literal(const char *word) {
    size_t length = std::strlen(word);
    if (text.compare(pos, length, word) != 0)
      return fail("invalid value");
    pos += length;
    return true;
  }

  bool parseValue(Value &out, size_t depth) {
    if (atEnd())
      return fail("unexpected end of the text");
    switch (peek()) {
    case '{':
      return parseObject(out, depth + 1);
    case '[':
      return parseArray(out, depth + 1);
    case '"':
      out.kind = Value::Kind::String;
      return parseString(out.string);
    case 't':
      out.kind = Value::Kind::Bool;
      out.boolean = true;
      return literal("true");
    case 'f':
      out.kind = Value::Kind::Bool;
      out.boolean = false;
      return literal("false");
    case 'n':
      out.kind = Value::Kind::Null;
      return literal("null");
    default:
      return parseNumber(out);
    }
  }

  bool parseObject(Value &out, size_t depth) {
    if (depth > kMaxDepth)
      return fail("nested deeper than " + std::to_string(kMaxDepth));
    out.kind = Value::Kind::Object;
    ++pos; // {
    skipSpace();
    if (peek() == '}') {
      ++pos;
      return true;
    }
    for (;;) {
      skipSpace();
      if (peek() != '"')
        return fail("expected a member name in quotes");
      std::string key;
      if (!parseString(key))
        return false;
      skipSpace();
      if (peek() != ':')
        return fail("expected ':' after the member name");
      ++pos;
      skipSpace();
      out.members.emplace_back(std::move(key), Value());
      if (!parseValue(out.members.back().second, depth))
        return false;
      skipSpace();
      if (peek() == ',') {
        ++pos;
        continue;
      }
      if (peek() == '}') {
        ++pos;
        return true;
      }
      return fail("expected ',' or '}' in an object");
    }
  }

  bool parseArray(Value &out, size_t depth) {
    if (depth > kMaxDepth)
      return fail("nested deeper than " + std::to_string(kMaxDepth));
    out.kind = Value::Kind::Array;
    ++pos; // [
    skipSpace();
    if (peek() == ']') {
      ++pos;
      return true;
    }
    for (;;) {
      skipSpace();
      out.elements.emplace_back();
      if (!parseValue(out.elements.back(), depth))
        return false;
      skipSpace();
      if (peek() == ',') {
        ++pos;
        continue;
      }
      if (peek() == ']') {
        ++pos;
        return true;
      }
      return fail("expected ',' or ']' in an array");
    }
  }

  static void appendUtf8(std::string &out, uint32_t code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xc0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3f));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xe0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (code & 0x3f));
    } else {
      out += static_cast<char>(0xf0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3f));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (code & 0x3f));
    }
  }

  bool parseHex4(uint32_t &out) {
    out = 0;
    for (int i = 0; i < 4; ++i, ++pos) {
      char c = peek();
      out <<= 4;
      if (c >= '0' && c <= '9')
        out |= static_cast<uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f')
        out |= static_cast<uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        out |= static_cast<uint32_t>(c - 'A' + 10);
      else
        return fail("expected four hexadecimal digits after \\u");
    }
    return true;
  }

  bool parseString(std::string &out) {
    ++pos; // "
    for (;;) {
      if (atEnd())
        return fail("unterminated string");
      char c = text[pos];
      if (c == '"') {
        ++pos;
        return true;
      }
      if (static_cast<unsigned char>(c) < 0x20)
        return fail("control character in a string");
      if (c != '\\') {
        out += c;
        ++pos;
        continue;
      }
      ++pos;
      char escape = peek();
      ++pos;
      switch (escape) {
      case '"':
      case '\\':
      case '/':
        out += escape;
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        uint32_t code;
        if (!parseHex4(code))
          return false;
        if (code >= 0xd800 && code < 0xdc00) {
          uint32_t low;
          if (text.compare(pos, 2, "\\u") != 0)
            return fail("unpaired surrogate in a string");
          pos += 2;
          if (!parseHex4(low))
            return false;
          if (low < 0xdc00 || low >= 0xe000)
            return fail("unpaired surrogate in a string");
          code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
        } else if (code >= 0xdc00 && code < 0xe000) {
          return fail("unpaired surrogate in a string");
        }
        appendUtf8(out, code);
        break;
      }
      default:
        --pos;
        return fail("invalid escape in a string");
      }
    }
  }

  bool parseNumber(Value &out) {
    size_t start = pos;
    if (peek() == '-')
      ++pos;
    auto digits = [&] {
      size_t first = pos;
      while (!atEnd() && text[pos] >= '0' && text[pos] <= '9')
        ++pos;
      return pos - first;
    };
    if (peek() == '0') {
      ++pos;
    } else if (digits() == 0) {
      pos = start;
      return fail("invalid value");
    }
    if (peek() == '.') {
      ++pos;
      if (digits() == 0)
        return fail("expected digits after '.'");
    }
    if (peek() == 'e' || peek() == 'E') {
      ++pos;
      if (peek() == '+' || peek() == '-')
        ++pos;
      if (digits() == 0)
        return fail("expected digits in the exponent");
    }
    out.kind = Value::Kind::Number;
    out.number = std::strtod(text.substr(start, pos - start).c_str(), nullptr);
    if (!std::isfinite(out.number)) {
      pos = start;
      return fail("number out of range");
    }
    return true;
  }

  const std::string &text;
  size_t pos = 0;
};
} // namespace

bool orx::json::parse(const std::string &text, Value &out, std::string &error) {
  Parser parser(text);
  out = Value();
  if (parser.parseDocument(out))
    return true;
  error = parser.error;
  return false;
}
