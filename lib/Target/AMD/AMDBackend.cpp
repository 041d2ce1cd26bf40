//===- AMDBackend.cpp - The AMD backend's compiler hooks ------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/AMD/Passes.h"
#include "orchestra/Target/Backend.h"
#include "orchestra/Target/GPU/Passes.h"

/// The passes of the AMD lowering pipeline: the backend's and the
/// vendor-neutral GPU ones.
mlir::orchestra::TargetBackend mlir::orchestra::getAMDBackend() {
  TargetBackend backend;
  backend.name = "AMD";
  backend.registerPasses = [] {
    gpucommon::registerOrchestraGPUPasses();
    amd::registerOrchestraAMDPasses();
  };
  return backend;
}
