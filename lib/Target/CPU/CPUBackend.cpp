//===- CPUBackend.cpp - The CPU backend's compiler hooks ------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/Backend.h"
#include "orchestra/Target/CPU/Passes.h"

using namespace mlir;
using namespace mlir::orchestra;

/// The passes of the CPU pipelines.
TargetBackend mlir::orchestra::getCPUBackend() {
  TargetBackend backend;
  backend.name = "CPU";
  backend.registerPasses = cpu::registerOrchestraCPUPasses;
  return backend;
}
