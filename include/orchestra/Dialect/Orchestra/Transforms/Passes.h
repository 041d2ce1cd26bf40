//===- Passes.h - Orchestra dialect passes ----------------------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_DIALECT_ORCHESTRA_TRANSFORMS_PASSES_H
#define ORCHESTRA_DIALECT_ORCHESTRA_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
namespace pdl {
class PDLDialect;
} // namespace pdl
namespace pdl_interp {
class PDLInterpDialect;
} // namespace pdl_interp

namespace arith {
class ArithDialect;
} // namespace arith
namespace func {
class FuncDialect;
} // namespace func
namespace linalg {
class LinalgDialect;
} // namespace linalg
namespace tensor {
class TensorDialect;
} // namespace tensor

namespace orchestra {
class OrchestraDialect;

#define GEN_PASS_DECL
#include "orchestra/Dialect/Orchestra/Transforms/Passes.h.inc"

/// Adds the patterns of `divergence-to-speculation` (PDLL match, native
/// constraints and rewrite) to `patterns`. The context must have the PDL and
/// PDL interpreter dialects loaded.
void populateDivergenceToSpeculationPatterns(RewritePatternSet &patterns);

#define GEN_PASS_REGISTRATION
#include "orchestra/Dialect/Orchestra/Transforms/Passes.h.inc"

} // namespace orchestra
} // namespace mlir

#endif // ORCHESTRA_DIALECT_ORCHESTRA_TRANSFORMS_PASSES_H
