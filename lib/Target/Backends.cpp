//===- Backends.cpp - The hooks of the compiled-in backends ---------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/Backend.h"

#include "llvm/ADT/SmallVector.h"

using namespace mlir;
using namespace mlir::orchestra;

ArrayRef<TargetBackend> mlir::orchestra::getTargetBackends() {
  // Function-local static: built once, thread-safe.
  static const SmallVector<TargetBackend> backends = {
#define ORCHESTRA_TARGET(Name) get##Name##Backend(),
#include "orchestra/Target/Targets.def"
  };
  return backends;
}
