//===- OrchestraTransformOps.h - Transform ops of OrchestraOS ---*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_DIALECT_ORCHESTRA_TRANSFORMOPS_ORCHESTRATRANSFORMOPS_H
#define ORCHESTRA_DIALECT_ORCHESTRA_TRANSFORMOPS_ORCHESTRATRANSFORMOPS_H

#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/Interfaces/MatchInterfaces.h"
#include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.h"
#include "mlir/IR/OpDefinition.h"

namespace mlir {
class DialectRegistry;
} // namespace mlir

#define GET_OP_CLASSES
#include "orchestra/Dialect/Orchestra/TransformOps/OrchestraTransformOps.h.inc"

namespace mlir::orchestra {
/// Adds OrchestraOS's transform dialect extension (the
/// `transform.orchestra.*` ops the strategy scripts use) to `registry`.
void registerTransformDialectExtension(DialectRegistry &registry);
} // namespace mlir::orchestra

#endif // ORCHESTRA_DIALECT_ORCHESTRA_TRANSFORMOPS_ORCHESTRATRANSFORMOPS_H
