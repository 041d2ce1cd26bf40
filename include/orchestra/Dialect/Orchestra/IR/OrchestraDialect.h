//===- OrchestraDialect.h - Orchestra dialect -------------------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_DIALECT_ORCHESTRA_IR_ORCHESTRADIALECT_H
#define ORCHESTRA_DIALECT_ORCHESTRA_IR_ORCHESTRADIALECT_H

#include "mlir/IR/Dialect.h"

#include "orchestra/Dialect/Orchestra/IR/OrchestraOpsDialect.h.inc"

#endif // ORCHESTRA_DIALECT_ORCHESTRA_IR_ORCHESTRADIALECT_H
