//===- Passes.h - Host CPU backend passes -----------------------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_TARGET_CPU_PASSES_H
#define ORCHESTRA_TARGET_CPU_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir {
namespace arith {
class ArithDialect;
} // namespace arith
namespace omp {
class OpenMPDialect;
} // namespace omp
namespace LLVM {
class LLVMDialect;
} // namespace LLVM
namespace linalg {
class LinalgDialect;
} // namespace linalg
namespace math {
class MathDialect;
} // namespace math
namespace memref {
class MemRefDialect;
} // namespace memref
namespace tensor {
class TensorDialect;
} // namespace tensor
namespace vector {
class VectorDialect;
} // namespace vector

namespace orchestra::cpu {

#define GEN_PASS_DECL
#include "orchestra/Target/CPU/Passes.h.inc"

/// The prefix of the symbol a CPU kernel is exported under (the artifact
/// format's, orx::kKernelSymbolPrefix).
inline constexpr llvm::StringLiteral kKernelSymbolPrefix = "orx_kernel_";

/// The global of a CPU kernel binary through which the runtime supplies the
/// allocator of the kernels' scratch buffers: two function pointers,
/// `void *(*)(uint64_t)` and `void (*)(void *)`, null (malloc and free) until
/// the runtime sets them.
inline constexpr llvm::StringLiteral kKernelAllocatorSymbol =
    "orx_kernel_allocator";

#define GEN_PASS_REGISTRATION
#include "orchestra/Target/CPU/Passes.h.inc"

} // namespace orchestra::cpu
} // namespace mlir

#endif // ORCHESTRA_TARGET_CPU_PASSES_H
