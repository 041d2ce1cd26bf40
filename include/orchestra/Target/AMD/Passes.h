//===- Passes.h - AMD GPU backend passes ------------------------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_TARGET_AMD_PASSES_H
#define ORCHESTRA_TARGET_AMD_PASSES_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace amdgpu {
class AMDGPUDialect;
} // namespace amdgpu
namespace ROCDL {
class ROCDLDialect;
} // namespace ROCDL
namespace arith {
class ArithDialect;
} // namespace arith
namespace linalg {
class LinalgDialect;
} // namespace linalg
namespace memref {
class MemRefDialect;
} // namespace memref
namespace vector {
class VectorDialect;
} // namespace vector

namespace orchestra::amd {

#define GEN_PASS_DECL
#include "orchestra/Target/AMD/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "orchestra/Target/AMD/Passes.h.inc"

} // namespace orchestra::amd
} // namespace mlir

#endif // ORCHESTRA_TARGET_AMD_PASSES_H
