//===- GoogleBackend.cpp - The Google backend's compiler hooks ------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/Backend.h"

/// No passes, dialects or tuning yet: the backend's archs are registered
/// (registerGoogleTargets) but have no lowering pipeline.
mlir::orchestra::TargetBackend mlir::orchestra::getGoogleBackend() {
  TargetBackend backend;
  backend.name = "Google";
  return backend;
}
