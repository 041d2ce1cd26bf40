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

static bool isIdentifierChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

/// Whether offset `at` of `text` lies in a `//` comment or a string literal
/// (neither spans lines in MLIR: its line is enough to tell).
static bool inCommentOrString(std::string_view text, size_t at) {
  size_t i = text.rfind('\n', at);
  i = i == std::string_view::npos ? 0 : i + 1;
  bool inString = false;
  for (; i < at; ++i) {
    if (inString && text[i] == '\\')
      ++i;
    else if (text[i] == '"')
      inString = !inString;
    else if (!inString && text[i] == '/' && i + 1 < at && text[i + 1] == '/')
      return true;
  }
  return inString;
}

static size_t skipSpace(std::string_view text, size_t i) {
  // MLIR's lexer skips these four, and a NUL inside the buffer, only: a
  // vertical tab or form feed (which `isspace` would skip) is an
  // "unexpected character" to it, and the op's parser goes on with a failed
  // list (both found by the MLIR fuzzer).
  // Comments (`//` to the end of the line) are skipped too.
  while (i < text.size()) {
    if (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' ||
        text[i] == '\r' || text[i] == '\0') {
      ++i;
    } else if (text[i] == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n' && text[i] != '\r')
        ++i;
    } else {
      break;
    }
  }
  return i;
}

/// Whether `text` at `i` is a list of integers, `[1, -2]` or `[]`, as a
/// dense i64 array's parser takes it.
static bool isIntegerList(std::string_view text, size_t i) {
  if (i >= text.size() || text[i] != '[')
    return false;
  ++i;
  i = skipSpace(text, i);
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
    i = skipSpace(text, i);
    if (i < text.size() && text[i] == ']')
      return true;
    if (i >= text.size() || text[i] != ',')
      return false;
    ++i;
    i = skipSpace(text, i);
  }
}

std::optional<mlir::orchestra::KnownParserCrash>
mlir::orchestra::findKnownParserCrash(std::string_view text) {
  std::optional<KnownParserCrash> first;
  auto found = [&](size_t offset, const char *expected) {
    offset = std::min(offset, text.size() - 1);
    if (!first || offset < first->offset)
      first = KnownParserCrash{offset, expected};
  };
  // `dimensions =` / `permutation =` and no list of integers.
  for (std::string_view keyword : {"dimensions", "permutation"}) {
    for (size_t at = text.find(keyword); at != std::string_view::npos;
         at = text.find(keyword, at + 1)) {
      // Only the keyword itself, as the custom syntax spells it.
      if (at > 0 && (isIdentifierChar(text[at - 1]) || text[at - 1] == '"'))
        continue;
      size_t i = skipSpace(text, at + keyword.size());
      if (i >= text.size() || text[i] != '=' || inCommentOrString(text, at))
        continue;
      i = skipSpace(text, i + 1);
      if (!isIntegerList(text, i)) {
        found(i, "expected a list of integers ([0, 1]) after '='; MLIR's "
                 "parser of this op crashes on anything else (llvm-project "
                 "issue 132747)");
        break;
      }
    }
  }
  // A named linalg op in custom form, then `<` and no dictionary.
  std::string_view dialect = "linalg.";
  for (size_t at = text.find(dialect); at != std::string_view::npos;
       at = text.find(dialect, at + 1)) {
    // An op's name, not a type's (`!linalg.`), an attribute's (`#linalg.`),
    // a quoted generic op's or part of a longer name.
    if (at > 0 &&
        (isIdentifierChar(text[at - 1]) || text[at - 1] == '"' ||
         text[at - 1] == '!' || text[at - 1] == '#' || text[at - 1] == '.'))
      continue;
    size_t i = at + dialect.size();
    while (i < text.size() && (isIdentifierChar(text[i]) || text[i] == '.'))
      ++i;
    i = skipSpace(text, i);
    if (i >= text.size() || text[i] != '<' || inCommentOrString(text, at))
      continue;
    size_t next = skipSpace(text, i + 1);
    if (next >= text.size() || text[next] != '{') {
      found(i, "expected a dictionary of properties (<{...}>) after the op's "
               "name; MLIR's parser of named linalg ops crashes on anything "
               "else");
      break;
    }
  }
  return first;
}
