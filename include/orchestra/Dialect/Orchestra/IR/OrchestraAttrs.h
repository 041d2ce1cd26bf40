//===- OrchestraAttrs.h - Orchestra dialect attributes ----------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_DIALECT_ORCHESTRA_IR_ORCHESTRAATTRS_H
#define ORCHESTRA_DIALECT_ORCHESTRA_IR_ORCHESTRAATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "orchestra/Dialect/Orchestra/IR/OrchestraDialect.h"

#define GET_ATTRDEF_CLASSES
#include "orchestra/Dialect/Orchestra/IR/OrchestraAttrs.h.inc"

#endif // ORCHESTRA_DIALECT_ORCHESTRA_IR_ORCHESTRAATTRS_H
