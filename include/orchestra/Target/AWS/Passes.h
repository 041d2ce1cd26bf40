//===- Passes.h - AWS backend passes ----------------------------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_TARGET_AWS_PASSES_H
#define ORCHESTRA_TARGET_AWS_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir::orchestra::aws {

#define GEN_PASS_DECL
#include "orchestra/Target/AWS/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "orchestra/Target/AWS/Passes.h.inc"

} // namespace mlir::orchestra::aws

#endif // ORCHESTRA_TARGET_AWS_PASSES_H
