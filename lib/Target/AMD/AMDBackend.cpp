//===- AMDBackend.cpp - The AMD backend's compiler hooks ------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/Backend.h"

/// No passes, dialects or tuning yet: the backend's archs are registered
/// (registerAMDTargets) but have no lowering pipeline.
mlir::orchestra::TargetBackend mlir::orchestra::getAMDBackend() {
  TargetBackend backend;
  backend.name = "AMD";
  return backend;
}
