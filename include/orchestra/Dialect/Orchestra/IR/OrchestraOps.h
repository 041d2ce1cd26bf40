//===- OrchestraOps.h - Orchestra dialect operations ------------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_DIALECT_ORCHESTRA_IR_ORCHESTRAOPS_H
#define ORCHESTRA_DIALECT_ORCHESTRA_IR_ORCHESTRAOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "orchestra/Dialect/Orchestra/IR/OrchestraAttrs.h"
#include "orchestra/Dialect/Orchestra/IR/OrchestraDialect.h"

namespace mlir::orchestra {
class YieldOp;

/// The branch profile counters of a kernel (orchestra.branch_probe writes
/// them).
struct ProfileCountersResource
    : public SideEffects::Resource::Base<ProfileCountersResource> {
  StringRef getName() final { return "ProfileCounters"; }
};
} // namespace mlir::orchestra

#define GET_OP_CLASSES
#include "orchestra/Dialect/Orchestra/IR/OrchestraOps.h.inc"

namespace mlir::orchestra {
/// The type in which a kernel takes or returns a task value of type `type`:
/// tensors of i1 cross kernel boundaries as tensors of i8 (one byte per
/// element, whatever the vector code inside the kernel does with i1); every
/// other type is unchanged.
Type getKernelABIType(Type type);

/// A task's `asm_kernel`: a GPU kernel written in the arch's assembly
/// language that replaces the task's body. It takes one 64-bit pointer per
/// tensor the task reads and writes (its arguments, then its results).
struct AsmKernel {
  StringRef source;
  StringRef entry;
  int64_t grid[3] = {1, 1, 1};
  int64_t block[3] = {1, 1, 1};
  /// Dynamic shared (workgroup) memory of each block, in bytes.
  int64_t sharedBytes = 0;
};

/// Reads an `asm_kernel` dictionary: `source` and `entry` (non-empty
/// strings), `grid` and `block` (one to three positive integers; missing
/// dimensions are 1), optional `shared_bytes` (a non-negative integer).
/// Reports the first problem through `emitError`.
FailureOr<AsmKernel>
parseAsmKernel(DictionaryAttr dict,
               llvm::function_ref<InFlightDiagnostic()> emitError);
} // namespace mlir::orchestra

#endif // ORCHESTRA_DIALECT_ORCHESTRA_IR_ORCHESTRAOPS_H
