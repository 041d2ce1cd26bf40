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

namespace orchestra::cpu {

#define GEN_PASS_DECL
#include "orchestra/Target/CPU/Passes.h.inc"

/// The prefix of the symbol a CPU kernel is exported under.
inline constexpr llvm::StringLiteral kKernelSymbolPrefix = "orx_kernel_";

#define GEN_PASS_REGISTRATION
#include "orchestra/Target/CPU/Passes.h.inc"

} // namespace orchestra::cpu
} // namespace mlir

#endif // ORCHESTRA_TARGET_CPU_PASSES_H
