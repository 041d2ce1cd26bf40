//===- NVIDIABackend.cpp - The NVIDIA backend's compiler hooks ------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/Backend.h"
#include "orchestra/Target/NVIDIA/Passes.h"

/// The passes of the NVIDIA lowering pipelines.
mlir::orchestra::TargetBackend mlir::orchestra::getNVIDIABackend() {
  TargetBackend backend;
  backend.name = "NVIDIA";
  backend.registerPasses = nvidia::registerOrchestraNVIDIAPasses;
  return backend;
}
