//===- TuningCache.h - Persisted results of orchestra-tune ------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The tuning cache: for a kernel op of a given kind and shape on a target
// (arch and thread count), the strategy variant orchestra-tune measured
// fastest on the machine it ran on. orchestra-tune writes it; the
// orchestra-apply-tuning-cache pass reads it and names the variant on the
// op (`orchestra.tile_variant`) for the target's strategy script. The file
// is JSON (docs/Tuning.md):
//
//   {"format": "orchestra-tuning-cache", "version": 1,
//    "machine": "AMD EPYC ...",
//    "entries": [{"arch": "x86_64", "threads": 2, "op": "linalg.matmul",
//                 "element_type": "f32", "shape": [1024, 1024, 1024],
//                 "variant": "b128x128_r8x32", "time_ms": 5.1,
//                 "default_time_ms": 5.9}]}
//
// `shape` is the op's static loop ranges (M, N, K for a matmul);
// `threads` is the kernel module's `num_threads` (0: not set).
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_SUPPORT_TUNINGCACHE_H
#define ORCHESTRA_SUPPORT_TUNINGCACHE_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace orchestra::tuning {

/// What a tuning result applies to.
struct TuningKey {
  std::string arch;
  int64_t threads = 0;
  std::string op;
  std::string elementType;
  llvm::SmallVector<int64_t> shape;

  bool operator==(const TuningKey &other) const {
    return arch == other.arch && threads == other.threads && op == other.op &&
           elementType == other.elementType && shape == other.shape;
  }
  /// "x86_64/2 threads: linalg.matmul 1024x1024x1024 f32".
  std::string str() const;
};

struct TuningEntry {
  TuningKey key;
  /// The strategy variant's name; "default" is the script's untuned path.
  std::string variant;
  /// Median times measured for the variant and for the default path.
  double timeMs = 0;
  double defaultTimeMs = 0;
};

struct TuningCache {
  static constexpr llvm::StringLiteral kFormat = "orchestra-tuning-cache";
  static constexpr int64_t kVersion = 1;

  /// The machine the entries were measured on (informational).
  std::string machine;
  std::vector<TuningEntry> entries;

  /// The entry for `key`, or null.
  const TuningEntry *lookup(const TuningKey &key) const;
  /// Adds `entry`, replacing the one with the same key.
  void insert(TuningEntry entry);

  /// Reads a cache file; errors name the file and what is wrong with it.
  static llvm::Expected<TuningCache> readFile(llvm::StringRef path);
  /// Parses the JSON text of a cache (`name` is used in errors).
  static llvm::Expected<TuningCache> parse(llvm::StringRef text,
                                           llvm::StringRef name);
  /// Writes the cache atomically (a temporary file renamed over `path`).
  llvm::Error writeFile(llvm::StringRef path) const;
  /// Adds `entries` (replacing those with their keys) and `machine` to the
  /// cache file at `path`, created when missing, and returns the cache the
  /// file then holds. The file is read, merged and written under an
  /// exclusive lock of `<path>.lock`: tuning runs that share a cache keep
  /// each other's entries.
  static llvm::Expected<TuningCache> update(llvm::StringRef path,
                                            llvm::ArrayRef<TuningEntry> entries,
                                            llvm::StringRef machine);
  std::string toJSON() const;
};

} // namespace orchestra::tuning

#endif // ORCHESTRA_SUPPORT_TUNINGCACHE_H
