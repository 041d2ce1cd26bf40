//===- EntryFunction.h - Finding a program's entry function -----*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_DIALECT_ORCHESTRA_TRANSFORMS_ENTRYFUNCTION_H
#define ORCHESTRA_DIALECT_ORCHESTRA_TRANSFORMS_ENTRYFUNCTION_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::orchestra {

/// Returns the entry function of `module`: the function named `name` when it
/// is not empty, else `main`, else the only public function with a body.
/// Emits an error naming the candidates and returns failure otherwise.
FailureOr<func::FuncOp> lookupEntryFunction(ModuleOp module, StringRef name);

} // namespace mlir::orchestra

#endif // ORCHESTRA_DIALECT_ORCHESTRA_TRANSFORMS_ENTRYFUNCTION_H
