//===- AWSBackend.cpp - The AWS backend's compiler hooks ------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/Backend.h"

/// No passes, dialects or tuning yet: the backend's archs are registered
/// (registerAWSTargets) but have no lowering pipeline.
mlir::orchestra::TargetBackend mlir::orchestra::getAWSBackend() {
  TargetBackend backend;
  backend.name = "AWS";
  return backend;
}
