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

/// The attribute of a `gpu.module` that maps each of its kernels whose
/// shared-memory tiles live in dynamic shared memory to the bytes they take
/// (set by `orchestra-nvidia-workgroup-allocations`, read by
/// `orchestra-nvidia-emit-binary` into the kernel's launches).
inline constexpr llvm::StringLiteral kDynamicSharedMemoryAttr =
    "orchestra.dynamic_shared_memory";

#define GEN_PASS_DECL
#include "orchestra/Target/NVIDIA/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "orchestra/Target/NVIDIA/Passes.h.inc"

} // namespace orchestra::nvidia
} // namespace mlir

#endif // ORCHESTRA_TARGET_NVIDIA_PASSES_H
