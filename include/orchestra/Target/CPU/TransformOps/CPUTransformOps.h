//===- CPUTransformOps.h - CPU transform ops --------------------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_TARGET_CPU_TRANSFORMOPS_CPUTRANSFORMOPS_H
#define ORCHESTRA_TARGET_CPU_TRANSFORMOPS_CPUTRANSFORMOPS_H

#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.h"
#include "mlir/IR/OpDefinition.h"

namespace mlir {
class DialectRegistry;
} // namespace mlir

#define GET_OP_CLASSES
#include "orchestra/Target/CPU/TransformOps/CPUTransformOps.h.inc"

namespace mlir::orchestra::cpu {
/// Adds the CPU backend's transform dialect extension (the
/// `transform.orchestra.cpu_*` ops of the x86-64 strategy script) to
/// `registry`.
void registerTransformDialectExtension(DialectRegistry &registry);
} // namespace mlir::orchestra::cpu

#endif // ORCHESTRA_TARGET_CPU_TRANSFORMOPS_CPUTRANSFORMOPS_H
