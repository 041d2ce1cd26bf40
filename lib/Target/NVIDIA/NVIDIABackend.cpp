//===- NVIDIABackend.cpp - The NVIDIA backend's compiler hooks ------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/Backend.h"
#include "orchestra/Target/GPU/Passes.h"
#include "orchestra/Target/NVIDIA/Passes.h"
#include "orchestra/Target/NVIDIA/TransformOps/NVIDIATransformOps.h"

/// The passes of the NVIDIA lowering pipelines (the backend's and the
/// vendor-neutral GPU ones) and the transform ops of the NVIDIA strategy
/// scripts.
mlir::orchestra::TargetBackend mlir::orchestra::getNVIDIABackend() {
  TargetBackend backend;
  backend.name = "NVIDIA";
  backend.registerPasses = [] {
    gpucommon::registerOrchestraGPUPasses();
    nvidia::registerOrchestraNVIDIAPasses();
  };
  backend.registerDialects = nvidia::registerTransformDialectExtension;
  return backend;
}
