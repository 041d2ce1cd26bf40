//===- NVIDIATransformOps.h - NVIDIA transform ops --------------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_TARGET_NVIDIA_TRANSFORMOPS_NVIDIATRANSFORMOPS_H
#define ORCHESTRA_TARGET_NVIDIA_TRANSFORMOPS_NVIDIATRANSFORMOPS_H

#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.h"
#include "mlir/IR/OpDefinition.h"

namespace mlir {
class DialectRegistry;
} // namespace mlir

#define GET_OP_CLASSES
#include "orchestra/Target/NVIDIA/TransformOps/NVIDIATransformOps.h.inc"

namespace mlir::orchestra::nvidia {
/// Adds the NVIDIA backend's transform dialect extension (the
/// `transform.orchestra.nvidia_*` ops of the NVIDIA strategy scripts) to
/// `registry`.
void registerTransformDialectExtension(DialectRegistry &registry);
} // namespace mlir::orchestra::nvidia

#endif // ORCHESTRA_TARGET_NVIDIA_TRANSFORMOPS_NVIDIATRANSFORMOPS_H
