//===- Passes.h - Google backend passes -------------------------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_TARGET_GOOGLE_PASSES_H
#define ORCHESTRA_TARGET_GOOGLE_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir::orchestra::google {

#define GEN_PASS_DECL
#include "orchestra/Target/Google/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "orchestra/Target/Google/Passes.h.inc"

} // namespace mlir::orchestra::google

#endif // ORCHESTRA_TARGET_GOOGLE_PASSES_H
