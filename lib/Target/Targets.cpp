//===- Targets.cpp - The registry of the compiled-in targets --------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/Targets.h"
#include "orchestra/Target/TargetRegistry.h"

const mlir::orchestra::TargetRegistry &mlir::orchestra::getTargetRegistry() {
  // Function-local static: built once, thread-safe, never destroyed before use.
  static const TargetRegistry registry = [] {
    TargetRegistry result;
#define ORCHESTRA_TARGET(Name) register##Name##Targets(result);
#include "orchestra/Target/Targets.def"
    return result;
  }();
  return registry;
}
