//===- SessionHelpers.h - Artifacts and sessions in tests -------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Helpers the runtime tests share: load an artifact through the C API and
// create a session for it, failing the test on unexpected errors.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_UNITTESTS_RUNTIME_SESSIONHELPERS_H
#define ORCHESTRA_UNITTESTS_RUNTIME_SESSIONHELPERS_H

#include "orchestra_rt/Artifact.h"
#include "orchestra_rt/orchestra_rt.hpp"

#include "gtest/gtest.h"

#include <string>
#include <vector>

namespace orx::test {

using Status = orx::StatusPtr;

inline std::string message(const Status &status) {
  return status ? orx_status_message(status.get()) : "";
}

/// Loads `artifact` through the C API; fails the test on error.
inline ArtifactPtr load(const Artifact &artifact) {
  std::vector<uint8_t> bytes = serializeArtifact(artifact);
  orx_artifact_t *raw = nullptr;
  Status status{orx_artifact_load_memory(bytes.data(), bytes.size(), &raw)};
  EXPECT_FALSE(status) << message(status);
  return ArtifactPtr(raw);
}

/// Creates a session for `artifact`; fails the test on error. The session
/// does not need the artifact any more.
inline SessionPtr createSession(const Artifact &artifact) {
  ArtifactPtr loaded = load(artifact);
  if (!loaded)
    return nullptr;
  orx_session_t *raw = nullptr;
  Status status{orx_session_create(loaded.get(), &raw)};
  EXPECT_FALSE(status) << message(status);
  return SessionPtr(raw);
}

/// Returns the error of creating a session for `artifact`, which must fail.
inline std::string sessionError(const Artifact &artifact) {
  ArtifactPtr loaded = load(artifact);
  if (!loaded)
    return "artifact did not load";
  orx_session_t *raw = nullptr;
  Status status{orx_session_create(loaded.get(), &raw)};
  EXPECT_EQ(raw, nullptr);
  orx_session_free(raw);
  EXPECT_TRUE(status);
  return message(status);
}

} // namespace orx::test

#endif // ORCHESTRA_UNITTESTS_RUNTIME_SESSIONHELPERS_H
