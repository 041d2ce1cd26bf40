//===- Targets.h - Entry points of the target backends ----------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_TARGET_TARGETS_H
#define ORCHESTRA_TARGET_TARGETS_H

namespace mlir::orchestra {
class TargetRegistry;

// Each backend compiled into this build adds its archs to a registry.
#define ORCHESTRA_TARGET(Name) void register##Name##Targets(TargetRegistry &);
#include "orchestra/Target/Targets.def"
} // namespace mlir::orchestra

#endif // ORCHESTRA_TARGET_TARGETS_H
