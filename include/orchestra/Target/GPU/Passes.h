//===- Passes.h - Passes shared by the GPU backends -------------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_TARGET_GPU_PASSES_H
#define ORCHESTRA_TARGET_GPU_PASSES_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace linalg {
class LinalgDialect;
} // namespace linalg
namespace memref {
class MemRefDialect;
} // namespace memref

namespace orchestra::gpucommon {

#define GEN_PASS_DECL
#include "orchestra/Target/GPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "orchestra/Target/GPU/Passes.h.inc"

} // namespace orchestra::gpucommon
} // namespace mlir

#endif // ORCHESTRA_TARGET_GPU_PASSES_H
