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

#include "TestArtifacts.h"
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

/// `n` floats counting up from `start`.
inline std::vector<float> iota(float start, size_t n = kVectorLength) {
  std::vector<float> values(n);
  for (size_t i = 0; i < n; ++i)
    values[i] = start + static_cast<float>(i);
  return values;
}

/// Runs a session whose inputs and outputs are all f32 vectors (`outputs`
/// sized by the caller).
inline Status runVectors(orx_session_t *session,
                         const std::vector<std::vector<float>> &inputs,
                         std::vector<std::vector<float>> &outputs) {
  std::vector<const void *> inputData;
  std::vector<size_t> inputSizes;
  for (const std::vector<float> &input : inputs) {
    inputData.push_back(input.data());
    inputSizes.push_back(input.size() * sizeof(float));
  }
  std::vector<void *> outputData;
  std::vector<size_t> outputSizes;
  for (std::vector<float> &output : outputs) {
    outputData.push_back(output.data());
    outputSizes.push_back(output.size() * sizeof(float));
  }
  return Status(orx_session_run(session, inputData.data(), inputSizes.data(),
                                inputData.size(), outputData.data(),
                                outputSizes.data(), outputData.size()));
}

} // namespace orx::test

#endif // ORCHESTRA_UNITTESTS_RUNTIME_SESSIONHELPERS_H
