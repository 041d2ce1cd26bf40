//===- orchestra_rt.hpp - C++ ownership helpers for the C API ---*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Header-only: std::unique_ptr owners for the handles of orchestra_rt.h, so
// C++ callers never leak a status, artifact or session on an early return.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_RT_ORCHESTRA_RT_HPP
#define ORCHESTRA_RT_ORCHESTRA_RT_HPP

#include "orchestra_rt/orchestra_rt.h"

#include <memory>

namespace orx {

struct StatusDeleter {
  void operator()(orx_status_s *status) const { orx_status_free(status); }
};
struct ArtifactDeleter {
  void operator()(orx_artifact_t *artifact) const {
    orx_artifact_free(artifact);
  }
};
struct SessionDeleter {
  void operator()(orx_session_t *session) const { orx_session_free(session); }
};

/// Owns an error status (null: success).
using StatusPtr = std::unique_ptr<orx_status_s, StatusDeleter>;
/// Owns a loaded artifact.
using ArtifactPtr = std::unique_ptr<orx_artifact_t, ArtifactDeleter>;
/// Owns a session.
using SessionPtr = std::unique_ptr<orx_session_t, SessionDeleter>;

} // namespace orx

#endif // ORCHESTRA_RT_ORCHESTRA_RT_HPP
