//===- AtomicFile.h - Files replaced whole or not at all --------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Every file the tools and the runtime write (artifacts, .npy outputs,
// traces, caches) is written to a temporary file beside it and renamed over
// it: a reader never sees half a file, and a write that fails or is
// interrupted (a full disk, a kill) leaves the previous file intact. Plain
// C++ and POSIX, for the runtime as well as the compiler (which also has
// llvm::writeToOutput for the same thing).
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_SUPPORT_ATOMICFILE_H
#define ORCHESTRA_SUPPORT_ATOMICFILE_H

#include <cstddef>
#include <string>

namespace orchestra {

/// Writes `size` bytes at `data` to `path` atomically: into a new temporary
/// file in the same folder (`<path>.tmp-<pid>-<n>`, permissions 0666 minus
/// the umask), flushed to disk, then renamed over `path`. On failure the
/// temporary file is removed, `path` is unchanged, and `error` says what
/// failed ("cannot write 'out.npy': No space left on device").
bool writeFileAtomically(const std::string &path, const void *data, size_t size,
                         std::string &error);

} // namespace orchestra

#endif // ORCHESTRA_SUPPORT_ATOMICFILE_H
