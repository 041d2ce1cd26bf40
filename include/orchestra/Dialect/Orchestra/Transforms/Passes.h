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
namespace scf {
class IfOp;
} // namespace scf
namespace tensor {
class TensorDialect;
} // namespace tensor

namespace orchestra {
class OrchestraDialect;

#define GEN_PASS_DECL
#include "orchestra/Dialect/Orchestra/Transforms/Passes.h.inc"

/// Adds the patterns of `divergence-to-speculation` (PDLL match, native
/// constraints and rewrite) to `patterns`: with `all`, for every branch task
/// they can split, else only for those the scheduler marked
/// (`orchestra.speculate`). The context must have the PDL and PDL
/// interpreter dialects loaded.
void populateDivergenceToSpeculationPatterns(RewritePatternSet &patterns,
                                             bool all = false);

/// Whether both sides of `ifOp` may run whatever its condition (the
/// safety check of `divergence-to-speculation`, which the scheduler asks
/// before it costs a speculation): each side has ops free of memory effects,
/// speculatable, with tensor accesses provably in bounds. Otherwise returns
/// false and, when `blame` is given, sets it to the op that is not so and
/// `why` to the reason.
bool canSpeculateSides(scf::IfOp ifOp, Operation **blame = nullptr,
                       std::string *why = nullptr);

#define GEN_PASS_REGISTRATION
#include "orchestra/Dialect/Orchestra/Transforms/Passes.h.inc"

} // namespace orchestra
} // namespace mlir

#endif // ORCHESTRA_DIALECT_ORCHESTRA_TRANSFORMS_PASSES_H
