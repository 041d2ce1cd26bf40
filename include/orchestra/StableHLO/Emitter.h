//===- Emitter.h - linalg on tensors as StableHLO text ----------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Writes a kernel function (func.func over static tensors: linalg, tensor
// and arith/math ops, as orchestra-outline-tasks leaves it) as a StableHLO
// module whose entry is `main`. MLIR 22 has no StableHLO dialect and the
// project links no second copy of LLVM, so the module is written as text:
// StableHLO ops in MLIR's generic form, which the real StableHLO parser of
// the bridge (orchestra-stablehlo-bridge) validates and serializes into a
// portable artifact.
//
// `canConvert` is the support mask of the StableHLO archs: it runs the same
// code as the emitter on one op, so the scheduler never places an op the
// emitter refuses.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_STABLEHLO_EMITTER_H
#define ORCHESTRA_STABLEHLO_EMITTER_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/LLVM.h"

namespace mlir::orchestra::stablehlo {

/// Whether the emitter converts `op` (an op of a kernel function, or of the
/// entry function before scheduling) to StableHLO.
bool canConvert(Operation *op);

/// Writes `func` as a StableHLO module with the entry `main`, returning the
/// text; on an op it cannot convert, emits an error at that op and fails.
FailureOr<std::string> emitModule(func::FuncOp func);

} // namespace mlir::orchestra::stablehlo

#endif // ORCHESTRA_STABLEHLO_EMITTER_H
