//===- Limits.cpp - What the compiler refuses to take in ------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Support/Limits.h"

#include <algorithm>
#include <cctype>

std::optional<size_t>
mlir::orchestra::findExcessiveNesting(std::string_view text, unsigned limit) {
  unsigned depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    char next = i + 1 < text.size() ? text[i + 1] : '\0';
    if (c == '"') {
      // A string literal: up to the next unescaped quote.
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
      continue;
    }
    if (c == '/' && next == '/') {
      while (i < text.size() && text[i] != '\n')
        ++i;
      continue;
    }
    bool opens = c == '{' || c == '(' || c == '[';
    bool closes = c == '}' || c == ')' || c == ']';
    // `<` opens a type's or attribute's parameters (`tensor<`, `array<`);
    // `>` closes them unless it is part of `->` or `>=`.
    if (c == '<' && i > 0 &&
        (std::isalnum(static_cast<unsigned char>(text[i - 1])) ||
         text[i - 1] == '_'))
      opens = true;
    if (c == '>' && (i == 0 || text[i - 1] != '-') && next != '=')
      closes = depth > 0;
    if (opens && ++depth > limit)
      return i;
    if (closes && depth > 0)
      --depth;
  }
  return std::nullopt;
}

/// Whether `text` at `i` is a list of integers, `[1, -2]` or `[]`, as a
/// dense i64 array's parser takes it.
static bool isIntegerList(std::string_view text, size_t i) {
  auto skipSpace = [&] {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])))
      ++i;
  };
  if (i >= text.size() || text[i] != '[')
    return false;
  ++i;
  skipSpace();
  if (i < text.size() && text[i] == ']')
    return true;
  for (;;) {
    if (i < text.size() && text[i] == '-')
      ++i;
    size_t digits = i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])))
      ++i;
    if (i == digits)
      return false;
    skipSpace();
    if (i < text.size() && text[i] == ']')
      return true;
    if (i >= text.size() || text[i] != ',')
      return false;
    ++i;
    skipSpace();
  }
}

std::optional<size_t>
mlir::orchestra::findKnownParserCrash(std::string_view text) {
  for (std::string_view keyword : {"dimensions", "permutation"}) {
    for (size_t at = text.find(keyword); at != std::string_view::npos;
         at = text.find(keyword, at + 1)) {
      size_t i = at + keyword.size();
      // Only the keyword itself, as the custom syntax spells it.
      if (at > 0 && (std::isalnum(static_cast<unsigned char>(text[at - 1])) ||
                     text[at - 1] == '_' || text[at - 1] == '"'))
        continue;
      while (i < text.size() &&
             std::isspace(static_cast<unsigned char>(text[i])))
        ++i;
      if (i >= text.size() || text[i] != '=')
        continue;
      ++i;
      while (i < text.size() &&
             std::isspace(static_cast<unsigned char>(text[i])))
        ++i;
      if (!isIntegerList(text, i))
        return std::min(i, text.size() - 1);
    }
  }
  return std::nullopt;
}
