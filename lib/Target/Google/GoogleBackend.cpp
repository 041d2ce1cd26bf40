//===- GoogleBackend.cpp - The Google backend's compiler hooks ------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/Backend.h"
#include "orchestra/Target/Google/Passes.h"

/// The passes of the TPU lowering pipeline: ahead-of-time compilation with
/// libtpu (the rest is the core's StableHLO path).
mlir::orchestra::TargetBackend mlir::orchestra::getGoogleBackend() {
  TargetBackend backend;
  backend.name = "Google";
  backend.registerPasses = google::registerOrchestraGooglePasses;
  return backend;
}
