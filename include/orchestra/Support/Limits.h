//===- Limits.h - What the compiler refuses to take in ----------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Limits on hostile or broken input, enforced where a program comes in (the
// ONNX importer, orchestra-compile's MLIR reader, the scheduler's entry
// check) with a message that names the limit, instead of overflowing a size
// computation or the stack further in. docs/Reliability.md lists them.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_SUPPORT_LIMITS_H
#define ORCHESTRA_SUPPORT_LIMITS_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace mlir::orchestra {

/// The most elements of one tensor: 2^40 (4 TiB of f32), far beyond any
/// device's memory, and small enough that byte counts and offsets of such
/// tensors never overflow 64 bits.
inline constexpr int64_t kMaxTensorElements = int64_t(1) << 40;

/// The deepest nesting of brackets (`{`, `(`, `[`, `<`) in MLIR text that
/// orchestra-compile reads; deeper text would exhaust the parser's stack.
inline constexpr unsigned kMaxMlirNesting = 256;

/// The product of `dims`, or none when one is negative or the product
/// exceeds kMaxTensorElements.
template <typename Range>
std::optional<int64_t> getBoundedElementCount(const Range &dims) {
  int64_t count = 1;
  for (int64_t dim : dims) {
    if (dim < 0)
      return std::nullopt;
    if (dim != 0 && count > kMaxTensorElements / dim)
      return std::nullopt;
    count *= dim;
  }
  return count;
}

/// Text that one of MLIR 22's parsers crashes on instead of reporting an
/// error: where it is in the input and what it should have been.
struct KnownParserCrash {
  size_t offset;
  const char *expected;
};

/// The first place in MLIR text `text` that an upstream parser is known to
/// crash on (outside `//` comments), or none. orchestra-compile refuses such
/// text before the parser sees it. Two are known in MLIR 22:
/// - `dimensions =` or `permutation =` not followed by a list of integers
///   (the custom parsers of linalg.reduce, linalg.transpose and
///   linalg.broadcast; llvm issue 132747);
/// - a named linalg op (`linalg.fill`, `linalg.matmul`, ...) followed by `<`
///   and anything but a dictionary of properties, `<{...}>`.
std::optional<KnownParserCrash> findKnownParserCrash(std::string_view text);

/// The offset in MLIR text `text` of the first bracket nested deeper than
/// `limit` (counting `{`, `(`, `[` and the `<` of types and attributes,
/// outside string literals and comments), or none.
std::optional<size_t> findExcessiveNesting(std::string_view text,
                                           unsigned limit = kMaxMlirNesting);

} // namespace mlir::orchestra

#endif // ORCHESTRA_SUPPORT_LIMITS_H
