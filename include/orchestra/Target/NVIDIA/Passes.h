//===- Passes.h - NVIDIA GPU backend passes ---------------------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_TARGET_NVIDIA_PASSES_H
#define ORCHESTRA_TARGET_NVIDIA_PASSES_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace NVVM {
class NVVMDialect;
} // namespace NVVM
namespace nvgpu {
class NVGPUDialect;
} // namespace nvgpu
namespace linalg {
class LinalgDialect;
} // namespace linalg
namespace memref {
class MemRefDialect;
} // namespace memref

namespace orchestra::nvidia {

#define GEN_PASS_DECL
#include "orchestra/Target/NVIDIA/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "orchestra/Target/NVIDIA/Passes.h.inc"

} // namespace orchestra::nvidia
} // namespace mlir

#endif // ORCHESTRA_TARGET_NVIDIA_PASSES_H
