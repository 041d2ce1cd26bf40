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
} // namespace mlir::orchestra

#define GET_OP_CLASSES
#include "orchestra/Dialect/Orchestra/IR/OrchestraOps.h.inc"

namespace mlir::orchestra {
/// The type in which a kernel takes or returns a task value of type `type`:
/// tensors of i1 cross kernel boundaries as tensors of i8 (one byte per
/// element, whatever the vector code inside the kernel does with i1); every
/// other type is unchanged.
Type getKernelABIType(Type type);
} // namespace mlir::orchestra

#endif // ORCHESTRA_DIALECT_ORCHESTRA_IR_ORCHESTRAOPS_H
