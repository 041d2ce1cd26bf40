//===- StableHLOSupport.cpp - Ops the StableHLO hand-off path takes -------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/StableHLO/Emitter.h"
#include "orchestra/Target/TargetRegistry.h"

using namespace mlir;

bool mlir::orchestra::isStableHLOExpressible(Operation *op) {
  // Exactly what the emitter converts (orchestra-lower-to-stablehlo).
  return stablehlo::canConvert(op);
}
