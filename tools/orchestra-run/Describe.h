//===- Describe.h - Print what an artifact holds ----------------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_TOOLS_ORCHESTRA_RUN_DESCRIBE_H
#define ORCHESTRA_TOOLS_ORCHESTRA_RUN_DESCRIBE_H

#include <ostream>
#include <string>

namespace orchestra {

/// Prints the plan of the artifact at `path` (devices, memory, entry,
/// binaries, GPU launches with their parameters, steps) to `os`. Returns
/// false with `error` set when the artifact cannot be read.
bool describeArtifact(const std::string &path, std::ostream &os,
                      std::string &error);

/// The same as one JSON object (docs/UserGuide.md documents its fields), for
/// tools: the keys and their meaning are stable, new keys may be added.
bool describeArtifactJson(const std::string &path, std::ostream &os,
                          std::string &error);

/// Writes the data of each constant of the artifact at `path` to
/// `dir`/value_<value>.bin (raw bytes, as the runtime copies them into the
/// value's slot). Returns false with `error` set on failure.
bool dumpConstants(const std::string &path, const std::string &dir,
                   std::string &error);

} // namespace orchestra

#endif // ORCHESTRA_TOOLS_ORCHESTRA_RUN_DESCRIBE_H
