//===- AWSBackend.cpp - The AWS backend's compiler hooks ------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/AWS/Passes.h"
#include "orchestra/Target/Backend.h"

/// The passes of the Trainium lowering pipeline: NKI kernels and neuronx-cc
/// (the rest is the core's StableHLO path).
mlir::orchestra::TargetBackend mlir::orchestra::getAWSBackend() {
  TargetBackend backend;
  backend.name = "AWS";
  backend.registerPasses = aws::registerOrchestraAWSPasses;
  return backend;
}
